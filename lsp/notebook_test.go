package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nbCells reads a notebook fixture's cells as an editor sends them.
func nbCells(t testing.TB, path, nbURI string) (NotebookDocument, []TextDocumentItem) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Cells []struct {
			CellType string          `json:"cell_type"`
			Source   json.RawMessage `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(data, &nb); err != nil {
		t.Fatal(err)
	}
	doc := NotebookDocument{URI: nbURI, NotebookType: "jupyter-notebook", Version: 1}
	var items []TextDocumentItem
	for i, c := range nb.Cells {
		var src string
		var lines []string
		if json.Unmarshal(c.Source, &lines) == nil {
			src = strings.Join(lines, "")
		} else if err := json.Unmarshal(c.Source, &src); err != nil {
			t.Fatal(err)
		}
		uri := fmt.Sprintf("vscode-notebook-cell:%s#c%d", strings.TrimPrefix(nbURI, "file://"), i+1)
		kind, lang := 1, "markdown"
		if c.CellType == "code" {
			kind, lang = cellCode, "python"
		}
		doc.Cells = append(doc.Cells, NotebookCell{Kind: kind, Document: uri})
		items = append(items, TextDocumentItem{URI: uri, LanguageID: lang, Version: 1, Text: src})
	}
	return doc, items
}

// A notebook as LSP 3.17 notebook documents: the cells are one program
// (the import in cell 3 serves the load in cell 5), findings land on
// their cells, a cell's fix edits that cell, the pins of a %pip cell
// count, and cells added, edited and removed move the findings along.
func TestNotebookDocument(t *testing.T) {
	c := newClient(t, testOptions(t))
	nbURI := fileURI(filepath.Join(t.TempDir(), "llama_finetune.ipynb"))
	doc, items := nbCells(t, "../fixtures/notebooks/llama_finetune.ipynb", nbURI)
	c.notify("notebookDocument/didOpen", DidOpenNotebookDocumentParams{NotebookDocument: doc, CellTextDocuments: items})
	cell := func(i int) string { return items[i-1].URI }
	if got := codes(c.wait(cell(5), 1)); got != "LTF001,LTF002,LTF003,LTF004,LTF005" {
		t.Fatalf("cell 5: %s", got)
	}
	if got := codes(c.wait(cell(4), 1)); got != "LTF008" {
		t.Errorf("cell 4: %s", got)
	}
	ds := c.wait(cell(5), 1)
	// transformers 4.46.0 from the %pip line of cell 2.
	if d := find(t, ds, "LTF005"); !strings.Contains(d.Message, "llama_finetune.ipynb:cell 2") {
		t.Errorf("LTF005 does not name the notebook's pin: %s", d.Message)
	}
	if len(c.wait(cell(1), 1)) != 0 || len(c.wait(cell(3), 1)) != 0 {
		t.Errorf("findings on cells 1 or 3")
	}

	d := find(t, ds, "LTF002")
	var fixed string
	for _, a := range c.actions(cell(5), d.Range, "quickfix") {
		if a.Diagnostics[0].Code == "LTF002" && !strings.Contains(a.Title, "suppress") {
			if len(a.Edit.DocumentChanges) != 1 || a.Edit.DocumentChanges[0].TextDocument.URI != cell(5) {
				t.Fatalf("the fix edits other documents: %+v", a.Edit)
			}
			fixed = apply(t, items[4].Text, a.Edit, cell(5))
		}
	}
	if !strings.Contains(fixed, `attn_implementation="eager"`) {
		t.Fatalf("cell 5 after the fix:\n%s", fixed)
	}
	// The editor applies it: a text change of cell 5.
	var change DidChangeNotebookDocumentParams
	change.NotebookDocument = VersionedTextDocumentIdentifier{URI: nbURI, Version: 2}
	json.Unmarshal([]byte(fmt.Sprintf(`{"cells":{"textContent":[{"document":{"uri":%q,"version":2},"changes":[{"text":%q}]}]}}`, cell(5), fixed)), &change.Change)
	c.forget(cell(5))
	c.notify("notebookDocument/didChange", change)
	if got := codes(c.wait(cell(5), 2)); strings.Contains(got, "LTF002") {
		t.Errorf("cell 5 after the fix: %s", got)
	}

	// A new code cell on top, then cell 4 (now 5) removed.
	newCell := "vscode-notebook-cell:new"
	json.Unmarshal([]byte(fmt.Sprintf(`{"cells":{"structure":{"array":{"start":0,"deleteCount":0,"cells":[{"kind":2,"document":%q}]},"didOpen":[{"uri":%q,"languageId":"python","version":1,"text":"import os\n"}]}}}`, newCell, newCell)), &change.Change)
	change.NotebookDocument.Version = 3
	c.forget(cell(4), cell(8))
	c.notify("notebookDocument/didChange", change)
	if got := codes(c.wait(cell(4), 1)); got != "LTF008" {
		t.Errorf("cell 4 after a cell on top: %s", got)
	}
	if got := codes(c.wait(newCell, 1)); got != "" {
		t.Errorf("the new cell: %s", got)
	}
	json.Unmarshal([]byte(fmt.Sprintf(`{"cells":{"structure":{"array":{"start":4,"deleteCount":1},"didClose":[{"uri":%q}]}}}`, cell(4))), &change.Change)
	change.NotebookDocument.Version = 4
	c.forget(cell(8))
	c.notify("notebookDocument/didChange", change)
	// The padding side was set in the removed cell: nothing says left now.
	if got := codes(c.wait(cell(8), 1)); got != "LTF009" {
		t.Errorf("cell 8: %s", got)
	}
	var all []CodeAction
	c.call("textDocument/codeAction", CodeActionParams{TextDocument: TextDocumentIdentifier{URI: cell(5)}, Context: CodeActionContext{Only: []string{KindFixAll}}}, &all)
	if len(all) != 1 || !strings.Contains(apply(t, fixed, all[0].Edit, cell(5)), "torch.float32") {
		t.Errorf("fix all of cell 5: %+v", all)
	}
	c.notify("notebookDocument/didClose", DidCloseNotebookDocumentParams{NotebookDocument: TextDocumentIdentifier{URI: nbURI}})
	if err := c.try("textDocument/hover", TextDocumentPositionParams{TextDocument: TextDocumentIdentifier{URI: cell(5)}}, nil); err == nil {
		t.Errorf("hover of a closed notebook's cell answered")
	}
}
