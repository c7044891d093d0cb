package notebook

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/rewrite"
)

// A notebook in nbformat's own layout (indent 1), with a list source, a
// string source, a markdown cell and an output that mentions the same code.
const sample = `{
 "cells": [
  {
   "cell_type": "markdown",
   "metadata": {},
   "source": ["# Title \u00e9\n", "model = x"]
  },
  {
   "cell_type": "code",
   "execution_count": 1,
   "metadata": {},
   "outputs": [{"output_type": "stream", "name": "stdout", "text": ["a = 1\n"]}],
   "source": [
    "import torch\n",
    "a = 1\n",
    "b = 2"
   ]
  },
  {
   "cell_type": "code",
   "metadata": {},
   "source": "%%capture\n!pip install peft\nc = a + b"
  }
 ],
 "metadata": {},
 "nbformat": 4,
 "nbformat_minor": 5
}
`

func TestRenderChangesOnlyTheSource(t *testing.T) {
	nb, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	if len(nb.Cells) != 3 || nb.Cells[1].Source != "import torch\na = 1\nb = 2" || nb.Cells[0].Type != "markdown" {
		t.Fatalf("parsed %+v", nb.Cells)
	}
	if !nb.ascii {
		t.Error("\\u00e9 and no raw UTF-8: the notebook is ensure_ascii style")
	}
	got := string(nb.Render(map[int]string{2: "import torch\na = 10\nextra = \"é\"\nb = 2", 3: "%%capture\n!pip install peft\nc = a"}))
	want := strings.Replace(sample, `    "a = 1\n",
`, `    "a = 10\n",
    "extra = \"\u00e9\"\n",
`, 1)
	want = strings.Replace(want, `"%%capture\n!pip install peft\nc = a + b"`, `"%%capture\n!pip install peft\nc = a"`, 1)
	if got != want {
		t.Errorf("Render:\n%s\nwant:\n%s", got, want)
	}
	if same := nb.Render(map[int]string{2: nb.Cells[1].Source}); string(same) != sample {
		t.Error("an unchanged source changed the text")
	}
}

func TestParseRefusesWhatIsNotANotebook(t *testing.T) {
	for _, text := range []string{`{"cells": [}`, `[1, 2]`, `{"metadata": {}}`, `{"cells": [{"cell_type": "code", "source": 3}]}`} {
		if _, err := Parse([]byte(text)); err == nil {
			t.Errorf("Parse(%s) accepted it", text)
		}
	}
}

func TestVirtualMasksMagicsAndKeepsOffsets(t *testing.T) {
	nb, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	v := Build(nb, nil)
	// Cell 2 lacks a final newline: one is added; then a frozen separator;
	// cell 3 contributes its body after "%%capture".
	want := "import torch\na = 1\nb = 2\n\npass#            \nc = a + b\n"
	if string(v.Text) != want {
		t.Fatalf("virtual text %q, want %q", v.Text, want)
	}
	if err := rewrite.Parses(v.Text); err != nil {
		t.Fatal(err)
	}
	cell, at, ok := v.Locate(strings.Index(want, "c = a"))
	if !ok || cell.Index != 3 || cell.Source[at:at+5] != "c = a" {
		t.Errorf("Locate: cell %v at %d", cell, at)
	}
	// Past the newline the virtual text added to cell 2: the cell's end.
	if cell, at, ok := v.Locate(len("import torch\na = 1\nb = 2\n")); !ok || cell.Index != 2 || at != len(cell.Source) {
		t.Errorf("Locate at the end of cell 2: cell %v at %d", cell, at)
	}
}

func TestMapFixRefusesMagicsAndBoundaries(t *testing.T) {
	nb, _ := Parse([]byte(sample))
	v := Build(nb, nil)
	text := string(v.Text)
	sep := strings.Index(text, "\n\npass") + 1
	magic := strings.Index(text, "pass#")
	tests := []struct {
		name string
		fx   finding.Edit
		ok   bool
	}{
		{"replace inside a magic line", finding.Edit{Start: magic + 1, End: magic + 3, NewText: "x"}, false},
		{"insert inside a magic line", finding.Edit{Start: magic + 2, End: magic + 2, NewText: "x"}, false},
		{"span two cells", finding.Edit{Start: sep - 3, End: sep + 3}, false},
		{"replace the separator", finding.Edit{Start: sep, End: sep + 1}, false},
		{"insert before a magic line", finding.Edit{Start: magic, End: magic, NewText: "import os\n"}, true},
	}
	for _, tt := range tests {
		_, _, ok := v.MapFix(&finding.Finding{Start: tt.fx.Start, Fix: &finding.Fix{Edits: []finding.Edit{tt.fx}}})
		if ok != tt.ok {
			t.Errorf("%s: ok = %v, want %v", tt.name, ok, tt.ok)
		}
	}
}

// Each fix is applied to the virtual text, split back into cells, and
// compared with its mapped edits applied to the cell: both ways must agree,
// including around the newline the virtual text adds to cell 2, and the
// mapped edits of one fix never overlap.
func TestSplitAgreesWithMappedEdits(t *testing.T) {
	nb, _ := Parse([]byte(sample))
	v := Build(nb, nil)
	text := string(v.Text)
	aStart := strings.Index(text, "a = 1")
	bStart := strings.Index(text, "b = 2")
	end2 := bStart + len("b = 2\n") // after the owned newline
	type edits = []finding.Edit
	tests := []struct {
		name  string
		edits edits
		want  string
	}{
		{"insert after the last line", edits{{Start: end2, End: end2, NewText: "model.config.use_cache = False\n"}}, "import torch\na = 1\nb = 2\nmodel.config.use_cache = False"},
		{"delete the last line", edits{{Start: bStart, End: end2}}, "import torch\na = 1"},
		{"replace the last line", edits{{Start: bStart, End: end2, NewText: "b = 3\n"}}, "import torch\na = 1\nb = 3"},
		{"edit inside", edits{{Start: bStart + 4, End: bStart + 5, NewText: "4"}}, "import torch\na = 1\nb = 4"},
		{"insert at the top", edits{{Start: 0, End: 0, NewText: "import os\n"}}, "import os\nimport torch\na = 1\nb = 2"},
		// A pad line that is the cell's last line, deleted, and a block
		// inserted where it stood (LTF004 once reported these edits
		// overlapping).
		{"delete the last line, insert in its place", edits{{Start: bStart, End: end2}, {Start: bStart, End: bStart, NewText: "c = 3\nd = 4\n"}}, "import torch\na = 1\nc = 3\nd = 4"},
		{"delete the last line, insert after it", edits{{Start: bStart, End: end2}, {Start: end2, End: end2, NewText: "c = 3\n"}}, "import torch\na = 1\nc = 3"},
		{"delete the last two lines, insert above them", edits{{Start: aStart, End: end2}, {Start: aStart, End: aStart, NewText: "c = 3\n"}}, "import torch\nc = 3"},
		{"delete a line, insert after the last", edits{{Start: aStart, End: bStart}, {Start: end2, End: end2, NewText: "c = 3\n"}}, "import torch\nb = 2\nc = 3"},
	}
	for _, tt := range tests {
		edited, err := finding.ApplyEdits(v.Text, tt.edits)
		if err != nil {
			t.Fatal(err)
		}
		delta := len(edited) - len(v.Text)
		frozen := make([]finding.Span, len(v.Frozen))
		for i, s := range v.Frozen {
			frozen[i] = finding.Span{Start: s.Start + delta, End: s.End + delta}
		}
		got := v.Split(edited, frozen)
		if got[2] != tt.want {
			t.Errorf("%s: Split gives %q, want %q", tt.name, got[2], tt.want)
		}
		if _, ok := got[3]; ok {
			t.Errorf("%s: cell 3 changed: %q", tt.name, got[3])
		}
		cell, mapped, ok := v.MapFix(&finding.Finding{Start: bStart, Fix: &finding.Fix{Edits: tt.edits}})
		if !ok || cell.Index != 2 || len(mapped) != len(tt.edits) {
			t.Fatalf("%s: MapFix failed", tt.name)
		}
		out, err := finding.ApplyEdits([]byte(cell.Source), mapped)
		if err != nil {
			t.Errorf("%s: mapped edits %v: %v", tt.name, mapped, err)
		} else if string(out) != tt.want {
			t.Errorf("%s: mapped edits give %q, want %q", tt.name, out, tt.want)
		}
	}
}

func TestMaskShapes(t *testing.T) {
	body := "if x:\n    !pip install -q peft\nfiles = !ls\n%ls\ny = (a\n     != b)\n%time z = \\\n  1\n"
	masked, spans := maskMagics(body)
	if len(masked) != len(body) {
		t.Fatal("mask changed the length")
	}
	want := "if x:\n    pass#               \npass#      \n#  \ny = (a\n     != b)\npass#      \n#  \n"
	if masked != want {
		t.Errorf("masked:\n%q\nwant\n%q", masked, want)
	}
	if len(spans) != 5 {
		t.Errorf("spans %v", spans)
	}
	if err := rewrite.Parses([]byte(masked)); err != nil {
		t.Error(err)
	}
}

// Whatever a fix writes into a cell, the notebook stays valid JSON, reads
// back with exactly that source, and keeps every other cell.
func FuzzRenderRoundTrip(f *testing.F) {
	for _, s := range []string{"", "x = 1", "a\nb\n", "é \"quoted\" \\ back\tslash\u001b\n", "tail without newline", "\U0001F600 emoji\r\nwindows\n", "</script> & <b>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if !utf8.ValidString(src) {
			return
		}
		for _, ascii := range []bool{false, true} {
			nb, err := Parse([]byte(sample))
			if err != nil {
				t.Fatal(err)
			}
			nb.ascii = ascii
			out := nb.Render(map[int]string{2: src, 3: src})
			if !json.Valid(out) {
				t.Fatalf("invalid JSON for %q:\n%s", src, out)
			}
			back, err := Parse(out)
			if err != nil {
				t.Fatal(err)
			}
			if back.Cells[1].Source != src || back.Cells[2].Source != src || back.Cells[0].Source != nb.Cells[0].Source {
				t.Errorf("round trip of %q gave %q / %q", src, back.Cells[1].Source, back.Cells[2].Source)
			}
			if ascii && hasNonASCII(out) {
				t.Errorf("ensure_ascii style broken for %q", src)
			}
		}
	})
}

func TestByteOrderMarkIsKept(t *testing.T) {
	raw := "\xef\xbb\xbf" + sample
	nb, err := Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	got := string(nb.Render(map[int]string{2: "import torch\na = 1\nb = 3"}))
	if want := strings.Replace(raw, `"b = 2"`, `"b = 3"`, 1); got != want {
		t.Errorf("Render with a BOM:\n%q", got)
	}
}

// Splitting the unchanged virtual text gives back every cell unchanged,
// whatever the cells hold (magics, cell magics, missing final newlines).
func FuzzSplitIdentity(f *testing.F) {
	for _, s := range []string{"x = 1", "%%time\nx = 1\n", "!ls\n  !pwd\\\n   more", "%%bash\necho hi", "", "\n\n", "a = (1,\n != 2)", "%%capture"} {
		f.Add(s, "y = 2\n!pip install peft")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			return
		}
		nb := &Notebook{Cells: []*Cell{
			{Index: 1, Type: "code", Source: a, src: &node{}},
			{Index: 2, Type: "markdown", Source: "# md"},
			{Index: 3, Type: "code", Source: b, src: &node{}},
		}}
		v := Build(nb, nil)
		if got := v.Split(v.Text, v.Frozen); len(got) != 0 {
			t.Errorf("identity split changed cells: %v", got)
		}
		for _, s := range v.Frozen {
			if s.Start < 0 || s.End > len(v.Text) || s.Start > s.End {
				t.Fatalf("span %v outside the text", s)
			}
		}
	})
}

// A cell whose last line ends in a line continuation is not Python on its
// own (CPython: unexpected EOF): it is left out of the virtual source, and
// the next cell stays a statement of its own. A comment's backslash is no
// continuation.
func TestCellEndingInAContinuationIsLeftOut(t *testing.T) {
	cells := func(sources ...string) []byte {
		var parts []string
		for _, s := range sources {
			parts = append(parts, fmt.Sprintf(`{"cell_type": "code", "metadata": {}, "source": %q, "outputs": [], "execution_count": null}`, s))
		}
		return []byte(`{"cells": [` + strings.Join(parts, ", ") + `], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`)
	}
	for _, c := range []struct {
		first, want string
	}{
		{"x = 1 + \\", "y = 2\n"},
		{"x = 1 + \\\n", "y = 2\n"},
		{"x = f(a,\n      b) \\  \n\n", "y = 2\n"},
		{"x = 1  # C:\\", "x = 1  # C:\\\n\ny = 2\n"},
		{"%pip install peft \\", "pass#" + strings.Repeat(" ", len("%pip install peft \\")-5) + "\n\ny = 2\n"},
	} {
		nb, err := Parse(cells(c.first, "y = 2\n"))
		if err != nil {
			t.Fatal(err)
		}
		if got := string(Build(nb, nil).Text); got != c.want {
			t.Errorf("cell %q: virtual text %q, want %q", c.first, got, c.want)
		}
	}
}
