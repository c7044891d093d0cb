package rewrite

import (
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/pyedit"
	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

// Two additions to one list that compose, their edits applied together as
// one pass applies them, give the text that adding one, re-parsing, and
// adding the other gives, in every layout ListAddition knows; the two
// layouts where they do not compose ("()" and a last item with a comment
// and no comma) conflict, so that the second waits for the next pass.
func TestListAdditionsComposeOrConflict(t *testing.T) {
	lists := []struct {
		text     string
		composes bool
	}{
		{"f()\n", false},
		{"f(a)\n", true},
		{"f(a, b=1)  # note\n", true},
		{"f(\n    a,\n    b=1,\n)\n", true},
		{"f(\n    a,\n    b=1\n)\n", true},
		{"f(\n    a,\n    b=1\n    # a comment line\n)\n", true},
		{"f(\n    a,\n    b=1  # note\n)\n", false},
		{"f(\n\ta,\n\tb=1,\n)\n", true},
		{"f(\r\n    a,\r\n    b=1\r\n)\r\n", true},
		{"f(a,\n  b=1)\n", true},
		{"f(a,\n  b=1\n  )\n", true},
		{"f(\n    a,\n    # last\n)\n", true},
		{"d = {\n    'a': 1,\n}\n", true},
		{"d = {'a': 1}\n", true},
	}
	addition := func(t *testing.T, text []byte, item string) (*pyedit.ListAdd, func()) {
		tree, err := parse(text, 0)
		if err != nil {
			t.Fatal(err)
		}
		src := semantic.NewSource(text)
		// The first argument list or dictionary of the text.
		q := []*syntree.Node{goTree(tree).Root()}
		for len(q) > 0 {
			n := q[0]
			q = q[1:]
			if n.Type() == "argument_list" || n.Type() == "dictionary" {
				return pyedit.ListAddition(src, n, item), tree.Close
			}
			for i := 0; i < int(n.NamedChildCount()); i++ {
				q = append(q, n.NamedChild(i))
			}
		}
		t.Fatalf("no list in %q", text)
		return nil, nil
	}
	apply := func(t *testing.T, text []byte, edits []Edit) []byte {
		out, err := finding.ApplyEdits(text, edits)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, l := range lists {
		text := []byte(l.text)
		one, two := "x=1", "y=2"
		if strings.Contains(l.text, "{") {
			one, two = "'x': 1", "'y': 2"
		}
		a, done := addition(t, text, one)
		b, done2 := addition(t, text, two)
		first := apply(t, text, a.Edits)
		if err := Parses(first); err != nil {
			t.Errorf("%q: %v\n%s", l.text, err, first)
		}
		then, done3 := addition(t, first, two)
		after := apply(t, first, then.Edits)
		done()
		done2()
		done3()
		if a.Composes != l.composes || b.Composes != l.composes {
			t.Errorf("%q: composes %v, want %v", l.text, a.Composes, l.composes)
		}
		if !l.composes {
			if !finding.Conflicts(pyedit.AddingFix("", a), pyedit.AddingFix("", b)) {
				t.Errorf("%q: additions that do not compose do not conflict", l.text)
			}
			continue
		}
		if finding.Conflicts(pyedit.AddingFix("", a), pyedit.AddingFix("", b)) {
			t.Errorf("%q: additions that compose conflict", l.text)
		}
		together := apply(t, text, append(append([]Edit(nil), a.Edits...), b.Edits...))
		if string(together) != string(after) {
			t.Errorf("%q: together\n%s\none after the other\n%s", l.text, together, after)
		}
		if err := Parses(together); err != nil {
			t.Errorf("%q: %v\n%s", l.text, err, together)
		}
	}
}

// LTF001 and LTF002 both add a keyword to a bare load: one pass applies
// both (they used to take a pass each), and the confirming pass finds
// nothing more. (At the default line length of 88 the call is too long
// with both, and is laid out again: a pass each.)
func TestTwoKeywordsForOneLoadTakeOnePass(t *testing.T) {
	e, err := New(Options{LineLength: 200})
	if err != nil {
		t.Fatal(err)
	}
	src := "from peft import get_peft_model\nfrom transformers import AutoModelForCausalLM\n\n" +
		"model = AutoModelForCausalLM.from_pretrained(\"meta-llama/Llama-3.1-8B\")\nmodel = get_peft_model(model, cfg)\n"
	res, err := e.Fix([]byte(src), Versions{})
	if err != nil {
		t.Fatal(err)
	}
	want := `from_pretrained("meta-llama/Llama-3.1-8B", torch_dtype=torch.float32, attn_implementation="eager")`
	if !strings.Contains(string(res.Output), want) || res.Passes != 1 {
		t.Errorf("passes %d, output:\n%s", res.Passes, res.Output)
	}
}

// Two additions to one list merge only under different keys: the same
// keyword twice (f(x, dtype=a, dtype=b)) parses for tree-sitter, not for
// CPython, so the second waits for the next pass.
func TestListAdditionsOfOneKeyConflict(t *testing.T) {
	tree, err := parse([]byte("f(x)\n"), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	src := semantic.NewSource([]byte("f(x)\n"))
	args := goTree(tree).Root().NamedChild(0).NamedChild(0).ChildByFieldName("arguments")
	fix := func(item string) *Fix { return pyedit.AddingFix("", pyedit.ListAddition(src, args, item)) }
	for _, c := range []struct {
		a, b     string
		conflict bool
	}{
		{"dtype=torch.float32", `attn_implementation="eager"`, false},
		{"dtype=torch.float32", "dtype=torch.bfloat16", true},
		{"dtype = a", "dtype=b", true},
		{`"dtype": a`, `"dtype": b`, true},
		{`"dtype": a`, `"attn_implementation": "eager"`, false},
	} {
		if got := finding.Conflicts(fix(c.a), fix(c.b)); got != c.conflict {
			t.Errorf("%s and %s: conflict %v, want %v", c.a, c.b, got, c.conflict)
		}
	}
}

// Both import front ends place a new import line alike: where isort puts
// it (a third-party block of its own after the standard library's; see
// TestAddedImportsGoWhereIsortPutsThem), else below what must stay first
// (opening comments, the module docstring, __future__ imports). LTF101's
// copy once put it above the docstring, where LTF001's put it below.
func TestImportPlacement(t *testing.T) {
	cases := []struct{ text, want string }{
		{"import os\n\nx = 1\n", "import os\n\nIMPORT\n\nx = 1\n"},
		{"\"\"\"Doc.\"\"\"\n\nx = 1\n", "\"\"\"Doc.\"\"\"\nIMPORT\n\nx = 1\n"},
		{"\"\"\"Doc.\"\"\"\nfrom __future__ import annotations\n\nx = 1\n", "\"\"\"Doc.\"\"\"\nfrom __future__ import annotations\nIMPORT\n\nx = 1\n"},
		{"#!/usr/bin/env python\n# -*- coding: utf-8 -*-\nx = 1\n", "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\nIMPORT\nx = 1\n"},
		{"\"\"\"Doc.\"\"\"\ndef main():\n    import os\n", "\"\"\"Doc.\"\"\"\nIMPORT\ndef main():\n    import os\n"},
		{"\"\"\"Doc.\"\"\"", "\"\"\"Doc.\"\"\"\nIMPORT\n"},
		{"x = 1\r\n", "IMPORT\r\nx = 1\r\n"},
	}
	q, err := semantic.LoadQueries()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		tree, err := parse([]byte(c.text), 0)
		if err != nil {
			t.Fatal(err)
		}
		src := semantic.NewSource([]byte(c.text))
		src.Root = goTree(tree).Root()
		f := semantic.BuildFacts(src, goTree(tree), q)
		for line, add := range map[string]func() []Edit{
			"import torch": func() []Edit { _, e := pyedit.EnsureImport(f, "torch"); return e },
			"from transformers import BitsAndBytesConfig": func() []Edit {
				_, e := pyedit.EnsureFromImport(f, "transformers", "BitsAndBytesConfig")
				return e
			},
		} {
			out, err := finding.ApplyEdits([]byte(c.text), add())
			if want := strings.ReplaceAll(c.want, "IMPORT", line); err != nil || string(out) != want {
				t.Errorf("%q + %s: got %q (%v), want %q", c.text, line, out, err, want)
			}
		}
		tree.Close()
	}
}

// A line inserted after the last statement of a file without a final line
// ending keeps the file without one.
func TestInsertAfterLastLineWithoutLineEnding(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a = 1\nb = 2", "a = 1\nb = 2\nb.x = 0"},
		{"a = 1\r\nb = 2", "a = 1\r\nb = 2\r\nb.x = 0"},
		{"if a:\n    b = 2", "if a:\n    b = 2\n    b.x = 0"},
	} {
		tree, err := parse([]byte(c.in), 0)
		if err != nil {
			t.Fatal(err)
		}
		src := semantic.NewSource([]byte(c.in))
		src.Root = goTree(tree).Root()
		var last *syntree.Node
		for n := goTree(tree).Root(); n != nil && n.NamedChildCount() > 0; n = n.NamedChild(int(n.NamedChildCount()) - 1) {
			if n.Type() == "expression_statement" {
				last = n
				break
			}
		}
		e, ok := pyedit.InsertAfter(src, last, []string{"b.x = 0"})
		if !ok {
			t.Fatalf("%q: no insertion", c.in)
		}
		out, err := finding.ApplyEdits([]byte(c.in), []Edit{e})
		if err != nil || string(out) != c.want {
			t.Errorf("%q: got %q (%v), want %q", c.in, out, err, c.want)
		}
		tree.Close()
	}
}
