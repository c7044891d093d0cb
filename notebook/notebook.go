// Package notebook reads Jupyter notebooks (.ipynb) for the engine: the code
// cells become one Python source, with IPython magics and shell lines kept
// out of the parse, and fixed cell sources go back into the JSON text in
// place, so that every byte outside the changed sources (outputs, metadata,
// key order, indentation, escaping) stays as it was.
package notebook

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Notebook is a parsed .ipynb document.
type Notebook struct {
	raw   []byte
	Cells []*Cell
	ascii bool // written with ensure_ascii: non-ASCII as \uXXXX
}

// Cell is one cell of the notebook.
type Cell struct {
	// Index is the 1-based position among all cells (markdown included),
	// as Jupyter numbers them and as findings name them.
	Index  int
	Type   string // "code", "markdown", "raw"
	Source string // the source joined into one string
	src    *node  // the "source" value: a string or a list of strings
}

// nonASCIIEscape is a \u escape of a character above U+007F.
var nonASCIIEscape = regexp.MustCompile(`\\u(00[89a-fA-F][0-9a-fA-F]|0[1-9a-fA-F][0-9a-fA-F]{2}|[1-9a-fA-F][0-9a-fA-F]{3})`)

// Parse reads a notebook. It refuses text that is not JSON, has no "cells"
// list, or has a cell whose source is neither a string nor a list of
// strings.
func Parse(raw []byte) (*Notebook, error) {
	bom := 0
	if strings.HasPrefix(string(raw[:min(3, len(raw))]), "\xef\xbb\xbf") {
		bom = 3 // spans stay file offsets; the JSON reader skips the mark
	}
	root, err := parseJSON(raw, bom)
	if err != nil {
		return nil, err
	}
	if root.kind != '{' {
		return nil, errors.New("not a notebook: the JSON is not an object")
	}
	cells := root.get("cells")
	if cells == nil || cells.kind != '[' {
		return nil, errors.New(`not a notebook: no "cells" list (nbformat 4 is supported)`)
	}
	nb := &Notebook{raw: raw}
	nb.ascii = !hasNonASCII(raw) && nonASCIIEscape.Match(raw)
	s := &scanner{data: raw}
	for i, c := range cells.vals {
		cell := &Cell{Index: i + 1}
		if c.kind != '{' {
			return nil, fmt.Errorf("cell %d: not an object", i+1)
		}
		if t := c.get("cell_type"); t != nil && t.kind == '"' {
			cell.Type, _ = s.str(t)
		}
		src := c.get("source")
		switch {
		case src == nil:
		case src.kind == '"':
			cell.Source, err = s.str(src)
		case src.kind == '[':
			var b strings.Builder
			for _, l := range src.vals {
				if l.kind != '"' {
					return nil, fmt.Errorf("cell %d: source list holds a non-string", i+1)
				}
				line, err := s.str(l)
				if err != nil {
					return nil, fmt.Errorf("cell %d: %w", i+1, err)
				}
				b.WriteString(line)
			}
			cell.Source = b.String()
		default:
			return nil, fmt.Errorf("cell %d: source is neither a string nor a list of strings", i+1)
		}
		if err != nil {
			return nil, fmt.Errorf("cell %d: %w", i+1, err)
		}
		cell.src = src
		nb.Cells = append(nb.Cells, cell)
	}
	return nb, nil
}

func hasNonASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return true
		}
	}
	return false
}

// Code returns the code cells in order.
func (nb *Notebook) Code() []*Cell {
	var out []*Cell
	for _, c := range nb.Cells {
		if c.Type == "code" && c.src != nil {
			out = append(out, c)
		}
	}
	return out
}

// Render returns the notebook text with the given code cell sources
// (keyed by Cell.Index) replaced in place. A source kept as a list of lines
// stays a list: lines that did not change keep their original bytes and the
// list keeps its layout; a string source stays a string.
func (nb *Notebook) Render(sources map[int]string) []byte {
	type repl struct {
		start, end int
		text       string
	}
	var rs []repl
	for _, c := range nb.Cells {
		src, ok := sources[c.Index]
		if !ok || src == c.Source || c.src == nil {
			continue
		}
		if c.src.kind == '"' {
			rs = append(rs, repl{c.src.start, c.src.end, encodeString(src, nb.ascii)})
			continue
		}
		rs = append(rs, repl{c.src.start, c.src.end, nb.renderList(c.src, src)})
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].start < rs[j].start })
	out := make([]byte, 0, len(nb.raw)+256)
	last := 0
	for _, r := range rs {
		out = append(out, nb.raw[last:r.start]...)
		out = append(out, r.text...)
		last = r.end
	}
	return append(out, nb.raw[last:]...)
}

// SplitLines splits a source the way Jupyter stores it: every line keeps
// its "\n"; the last one may lack it.
func SplitLines(src string) []string {
	if src == "" {
		return nil
	}
	out := strings.SplitAfter(src, "\n")
	if out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// renderList writes a source list: the unchanged head and tail lines keep
// their original bytes, the changed middle is encoded afresh, and the
// separators and the space inside the brackets follow the original list.
func (nb *Notebook) renderList(list *node, src string) string {
	s := &scanner{data: nb.raw}
	oldRaw := make([]string, len(list.vals))
	oldText := make([]string, len(list.vals))
	for i, v := range list.vals {
		oldRaw[i] = string(nb.raw[v.start:v.end])
		oldText[i], _ = s.str(v)
	}
	lines := SplitLines(src)
	if len(lines) == 0 {
		return "[]"
	}
	head := 0
	for head < len(lines) && head < len(oldText) && lines[head] == oldText[head] {
		head++
	}
	tail := 0
	for tail < len(lines)-head && tail < len(oldText)-head && lines[len(lines)-1-tail] == oldText[len(oldText)-1-tail] {
		tail++
	}
	elems := append([]string{}, oldRaw[:head]...)
	for _, l := range lines[head : len(lines)-tail] {
		elems = append(elems, encodeString(l, nb.ascii))
	}
	elems = append(elems, oldRaw[len(oldRaw)-tail:]...)

	open, sep, closing := "", ", ", ""
	if n := len(list.vals); n > 0 {
		open = string(nb.raw[list.start+1 : list.vals[0].start])
		closing = string(nb.raw[list.vals[n-1].end : list.end-1])
		sep = "," + open
		if n > 1 {
			sep = string(nb.raw[list.vals[0].end:list.vals[1].start])
		}
	}
	return "[" + open + strings.Join(elems, sep) + closing + "]"
}
