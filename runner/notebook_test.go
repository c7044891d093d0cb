package runner

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/notebook"
	"github.com/loratune/loratune-fix/rewrite"
)

func engine(t testing.TB) *rewrite.Engine {
	e, err := rewrite.New(rewrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// Findings of a notebook carry their cell, positions within the cell, and
// fix edits that are offsets into the cell's source: applied to the cell,
// they give the fixed cell.
func TestNotebookFindingsAreInCellTerms(t *testing.T) {
	data, err := os.ReadFile("../fixtures/notebooks/llama_finetune.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	// A line length of 200 keeps the fixes on their lines (one-line edits).
	eng := engine(t).WithLineLength(200)
	check := Process(&Options{Engine: eng}, "nb.ipynb", data)
	fixed := Process(&Options{Engine: eng, Fix: true}, "nb.ipynb", data)
	if check.Err != nil || fixed.Err != nil {
		t.Fatal(check.Err, fixed.Err)
	}
	nb, _ := notebook.Parse(data)
	after, _ := notebook.Parse(fixed.After)
	seen := 0
	for _, d := range check.Diags {
		if d.Cell == 0 || d.Cell > len(nb.Cells) {
			t.Fatalf("%s: cell %d", d.Code, d.Cell)
		}
		src := nb.Cells[d.Cell-1].Source
		if d.Code == "LTF003" {
			if d.Cell != 5 || src[d.Start:d.End] != `"auto"` || d.StartPos.Line != 4 {
				t.Errorf("LTF003 at cell %d %d:%d covers %q", d.Cell, d.StartPos.Line, d.StartPos.Column, src[d.Start:d.End])
			}
		}
		if d.Fix == nil || len(d.Fix.Edits) != 1 || strings.Contains(d.Fix.Edits[0].NewText, "\n") {
			continue
		}
		// A one-edit, one-line fix applied to the original cell must show up
		// in the fixed cell.
		e := d.Fix.Edits[0]
		line := src[strings.LastIndex(src[:e.Start], "\n")+1 : e.Start]
		want := line + e.NewText
		if !strings.Contains(after.Cells[d.Cell-1].Source, want) {
			t.Errorf("%s: edit %+v does not land in cell %d: %q not in\n%s", d.Code, e, d.Cell, want, after.Cells[d.Cell-1].Source)
		}
		seen++
	}
	if seen < 3 {
		t.Errorf("only %d single-line fixes checked", seen)
	}
	if !json.Valid(fixed.After) || len(fixed.Cells) != 3 {
		t.Errorf("fixed notebook: valid %v, %d changed cells", json.Valid(fixed.After), len(fixed.Cells))
	}
}

// The notebook layer's cost: the same code as a notebook and as a script.
func BenchmarkNotebookFix(b *testing.B) {
	data, err := os.ReadFile("../fixtures/notebooks/llama_finetune.ipynb")
	if err != nil {
		b.Fatal(err)
	}
	opts := &Options{Engine: engine(b), Fix: true}
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if f := Process(opts, "nb.ipynb", data); !f.Changed {
			b.Fatal("nothing fixed")
		}
	}
}

func BenchmarkSameCodeAsScriptFix(b *testing.B) {
	data, err := os.ReadFile("../fixtures/notebooks/llama_finetune.ipynb")
	if err != nil {
		b.Fatal(err)
	}
	nb, _ := notebook.Parse(data)
	v := notebook.Build(nb, nil)
	opts := &Options{Engine: engine(b), Fix: true}
	for i := 0; i < b.N; i++ {
		if f := Process(opts, "nb.py", v.Text); !f.Changed {
			b.Fatal("nothing fixed")
		}
	}
}
