package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/runner"
)

// nbState is an open notebook's cells in order, markdown included (their
// text only when the client sends it), so that the runner's cell numbers
// are positions in this list.
type nbState struct {
	cells []nbCell
}

type nbCell struct {
	uri     string
	kind    int
	version int32
	text    []byte
}

func (s *server) openNotebook(p *DidOpenNotebookDocumentParams) error {
	path, err := pathOf(p.NotebookDocument.URI)
	if err != nil {
		return err
	}
	if !isNotebookPath(path) {
		path += ".ipynb" // an untitled notebook: read as one all the same
	}
	texts := map[string]TextDocumentItem{}
	for _, t := range p.CellTextDocuments {
		texts[t.URI] = t
	}
	nb := &nbState{}
	for _, c := range p.NotebookDocument.Cells {
		t := texts[c.Document]
		nb.cells = append(nb.cells, nbCell{uri: c.Document, kind: c.Kind, version: t.Version, text: []byte(t.Text)})
	}
	s.open(&doc{uri: p.NotebookDocument.URI, path: path, version: p.NotebookDocument.Version, nb: nb})
	return nil
}

// changeNotebook applies a notebookDocument/didChange: cells added,
// removed or moved, their kinds, their texts. Called with s.mu held.
func (s *server) changeNotebook(d *doc, p *DidChangeNotebookDocumentParams) error {
	nb := d.nb
	if nb == nil {
		return fmt.Errorf("%s is not a notebook", d.uri)
	}
	d.version = p.NotebookDocument.Version
	c := p.Change.Cells
	if c == nil {
		return nil
	}
	if st := c.Structure; st != nil {
		arr := st.Array
		if arr.Start < 0 || arr.DeleteCount < 0 || arr.Start+arr.DeleteCount > len(nb.cells) {
			return fmt.Errorf("cell change %d+%d outside %d cells", arr.Start, arr.DeleteCount, len(nb.cells))
		}
		texts := map[string]TextDocumentItem{}
		for _, t := range st.DidOpen {
			texts[t.URI] = t
		}
		for _, old := range nb.cells[arr.Start : arr.Start+arr.DeleteCount] {
			delete(s.cells, old.uri)
		}
		var added []nbCell
		for _, nc := range arr.Cells {
			cell := nbCell{uri: nc.Document, kind: nc.Kind}
			if t, ok := texts[nc.Document]; ok {
				cell.version, cell.text = t.Version, []byte(t.Text)
			} else if prev := nb.find(nc.Document); prev != nil {
				cell = *prev // a cell moved: the client sends it without its text
				cell.kind = nc.Kind
			}
			added = append(added, cell)
		}
		rest := append(added, nb.cells[arr.Start+arr.DeleteCount:]...)
		nb.cells = append(nb.cells[:arr.Start:arr.Start], rest...)
		for _, cell := range nb.cells {
			s.cells[cell.uri] = d
		}
	}
	for _, nc := range c.Data {
		if cell := nb.find(nc.Document); cell != nil {
			cell.kind = nc.Kind
		}
	}
	for _, tc := range c.TextContent {
		cell := nb.find(tc.Document.URI)
		if cell == nil {
			return fmt.Errorf("change of a cell not in the notebook: %s", tc.Document.URI)
		}
		text, err := applyChanges(cell.text, tc.Changes)
		if err != nil {
			return err
		}
		cell.text, cell.version = text, tc.Document.Version
	}
	return nil
}

func (nb *nbState) find(uri string) *nbCell {
	for i := range nb.cells {
		if nb.cells[i].uri == uri {
			return &nb.cells[i]
		}
	}
	return nil
}

// ipynbCell is a cell as nbformat 4 writes it.
type ipynbCell struct {
	CellType       string         `json:"cell_type"`
	Source         string         `json:"source"`
	Metadata       map[string]any `json:"metadata"`
	Outputs        []any          `json:"outputs,omitempty"`
	ExecutionCount *int           `json:"execution_count,omitempty"`
}

// runNotebook runs the runner over the notebook's cells written as an
// .ipynb, the one way the command reads a notebook: the code cells become
// one virtual Python source (notebook.Build), findings and fixes come
// back per cell, in the cell's own text.
func runNotebook(ctx context.Context, opts *runner.Options, snap *snapshot) *finding.FileResult {
	nb := struct {
		Cells         []ipynbCell    `json:"cells"`
		Metadata      map[string]any `json:"metadata"`
		NBFormat      int            `json:"nbformat"`
		NBFormatMinor int            `json:"nbformat_minor"`
	}{Metadata: map[string]any{}, NBFormat: 4, NBFormatMinor: 5}
	for _, c := range snap.cells {
		cell := ipynbCell{CellType: "markdown", Source: string(c.text), Metadata: map[string]any{}}
		if c.kind == cellCode {
			cell.CellType, cell.Outputs = "code", []any{}
		}
		nb.Cells = append(nb.Cells, cell)
	}
	raw, err := json.Marshal(nb)
	if err != nil {
		return &finding.FileResult{Path: snap.path, Err: err}
	}
	return runner.ProcessContext(ctx, opts, snap.path, raw)
}

// buildNotebook spreads a notebook's result over its cells: each finding
// to the cell it is in (the runner numbers cells from 1 in the order
// given), each changed cell's new text to its fix-all edit.
func buildNotebook(a *analysis, snap *snapshot, f *finding.FileResult) {
	var ts []*target
	for _, c := range snap.cells {
		t := newTarget(c.uri, c.version, c.text)
		a.add(t)
		ts = append(ts, t)
	}
	if f.Err != nil {
		return
	}
	for _, d := range f.Diags {
		if d.Cell < 1 || d.Cell > len(ts) {
			continue
		}
		t := ts[d.Cell-1]
		t.items = append(t.items, newItem(t, d.Finding))
	}
	for _, ch := range f.Cells {
		if ch.Cell < 1 || ch.Cell > len(ts) {
			continue
		}
		t := ts[ch.Cell-1]
		if ch.Before != string(t.text) {
			continue // cannot happen: the runner read this text
		}
		e := minimalEdit(t.text, []byte(ch.After))
		t.fixAll = &e
	}
}
