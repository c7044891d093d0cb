package lsp

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The server says what check says: on every golden case of fixtures/ that
// runs with the default options (a Python script or a launch config), the
// diagnostics are the case's findings, at their places, and fix all safe
// gives its golden output (or no action where the case is left alone).
func TestAgreesWithTheGoldenCases(t *testing.T) {
	c := newClient(t, testOptions(t))
	langs := map[string]string{".py": "python", ".yaml": "yaml", ".yml": "yaml", ".json": "json", ".sh": "shellscript"}
	inputs := goldenCases(func(ext string) bool { return langs[ext] != "" })
	if len(inputs) < 100 {
		t.Fatalf("%d cases found", len(inputs))
	}
	for _, in := range inputs {
		text, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		abs, _ := filepath.Abs(in)
		uri := fileURI(abs)
		c.open(uri, langs[filepath.Ext(in)], string(text))
		ds := c.wait(uri, 1)
		var got []string
		for _, d := range ds {
			got = append(got, at(d.Range.Start.Line+1, d.Range.Start.Character+1)+" "+d.Code)
		}
		sort.Strings(got)
		want := expected(t, in+".findings")
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\nserver: %v\ncheck:  %v", in, got, want)
		}
		all := c.actions(uri, Range{}, KindFixAll)
		golden, err := os.ReadFile(in + ".golden")
		switch {
		case err != nil && len(all) != 0:
			t.Errorf("%s: a fix all where the case is left alone", in)
		case err == nil && len(all) != 1:
			t.Errorf("%s: no fix all", in)
		case err == nil && apply(t, string(text), all[0].Edit, uri) != string(golden):
			t.Errorf("%s: fix all differs from the golden output", in)
		}
		c.notify("textDocument/didClose", DidCloseTextDocumentParams{TextDocument: TextDocumentIdentifier{URI: uri}})
	}
	t.Logf("%d cases", len(inputs))
}

func at(line, col int) string { return itoa(line) + ":" + itoa(col) }

func itoa(n int) string {
	s := ""
	for ; n >= 10; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return string(rune('0'+n)) + s
}

// expected reads a .findings file: "line:col-... CODE ..." per finding.
func expected(t *testing.T, path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		cell := ""
		if rest, ok := strings.CutPrefix(line, "cell "); ok {
			n, pos, _ := strings.Cut(rest, ":")
			cell, line = "cell "+n+":", pos
		}
		f := strings.Fields(line)
		if len(f) < 2 || strings.HasPrefix(line, " ") {
			continue
		}
		start, _, _ := strings.Cut(f[0], "-")
		out = append(out, cell+start+" "+f[1])
	}
	sort.Strings(out)
	return out
}

// The same for the notebooks, opened as notebook documents: each
// finding on its cell, and each cell's fix all gives the golden cell.
func TestAgreesWithTheGoldenNotebooks(t *testing.T) {
	c := newClient(t, testOptions(t))
	inputs := goldenCases(func(ext string) bool { return ext == ".ipynb" })
	if len(inputs) < 8 {
		t.Fatalf("%d notebooks", len(inputs))
	}
	for _, in := range inputs {
		abs, _ := filepath.Abs(in)
		nbURI := fileURI(abs)
		doc, items := nbCells(t, in, nbURI)
		c.notify("notebookDocument/didOpen", DidOpenNotebookDocumentParams{NotebookDocument: doc, CellTextDocuments: items})
		var got []string
		golden := map[int]string{} // cell number: its text after fix all
		for i, it := range items {
			for _, d := range c.wait(it.URI, 1) {
				got = append(got, "cell "+itoa(i+1)+":"+at(d.Range.Start.Line+1, d.Range.Start.Character+1)+" "+d.Code)
			}
			if all := c.actions(it.URI, Range{}, KindFixAll); len(all) == 1 {
				golden[i+1] = apply(t, it.Text, all[0].Edit, it.URI)
			}
		}
		sort.Strings(got)
		want := expected(t, in+".findings")
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\nserver: %v\ncheck:  %v", in, got, want)
		}
		if _, err := os.Stat(in + ".golden"); err != nil {
			if len(golden) > 0 {
				t.Errorf("%s: fix all where the notebook is left alone", in)
			}
		} else {
			_, fixed := nbCells(t, in+".golden", nbURI)
			for i, it := range items {
				after, ok := golden[i+1]
				if !ok {
					after = it.Text
				}
				if after != fixed[i].Text {
					t.Errorf("%s cell %d: fix all gives\n%s\nwant\n%s", in, i+1, after, fixed[i].Text)
				}
			}
		}
		c.notify("notebookDocument/didClose", DidCloseNotebookDocumentParams{NotebookDocument: TextDocumentIdentifier{URI: nbURI}})
	}
	t.Logf("%d notebooks", len(inputs))
}

// goldenCases are the inputs under fixtures/ of the kinds wanted that
// have findings and run with the default options (no .options file).
func goldenCases(kind func(ext string) bool) []string {
	var inputs []string
	filepath.WalkDir("../fixtures", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !kind(filepath.Ext(path)) || strings.Contains(path, "/testdata/") {
			return nil
		}
		if _, err := os.Stat(path + ".findings"); err != nil {
			return nil
		}
		for _, opt := range []string{path + ".options", filepath.Join(filepath.Dir(path), "options")} {
			if _, err := os.Stat(opt); err == nil {
				return nil
			}
		}
		inputs = append(inputs, path)
		return nil
	})
	return inputs
}
