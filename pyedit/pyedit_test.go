package pyedit_test

import (
	"context"
	"slices"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/python"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/pyedit"
	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

// parsed parses src and finds the argument list of its first call and the
// statement that holds it.
func parsed(t *testing.T, src string) (*semantic.Source, *syntree.Node, *syntree.Node) {
	t.Helper()
	p := sitter.NewParser()
	p.SetLanguage(python.GetLanguage())
	ts, err := p.ParseCtx(context.Background(), nil, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ts.Close)
	root := syntree.New(ts, syntree.NewLanguage(python.GetLanguage())).Root()
	s := semantic.NewSource([]byte(src))
	s.Root = root
	var args *syntree.Node
	semantic.WalkNodes(root, func(n *syntree.Node) bool {
		if args == nil && n.Type() == "argument_list" {
			args = n
		}
		return args == nil
	})
	if args == nil {
		t.Fatalf("no call in %q", src)
	}
	return s, args, semantic.Statement(args)
}

func applied(src string, edits []finding.Edit) string {
	edits = slices.Clone(edits)
	slices.SortFunc(edits, func(a, b finding.Edit) int { return b.Start - a.Start })
	out := src
	for _, e := range edits {
		out = out[:e.Start] + e.NewText + out[e.End:]
	}
	return out
}

// A keyword goes in as the call is laid out: inline, or one argument a
// line with the trailing comma the call has.
func TestAddKeywordFollowsTheCallsLayout(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"m = load(\"x\", dtype=None)\n", "m = load(\"x\", dtype=None, attn=\"eager\")\n"},
		{"m = load()\n", "m = load(attn=\"eager\")\n"},
		{"m = load(\n    \"x\",\n    dtype=None,\n)\n", "m = load(\n    \"x\",\n    dtype=None,\n    attn=\"eager\",\n)\n"},
		{"m = load(\r\n    \"x\",\r\n    dtype=None,\r\n)\r\n", "m = load(\r\n    \"x\",\r\n    dtype=None,\r\n    attn=\"eager\",\r\n)\r\n"},
	} {
		s, args, _ := parsed(t, c.src)
		fix := pyedit.AddKeyword(s, args, "add attn", "attn", `"eager"`)
		if fix == nil {
			t.Errorf("%q: no fix", c.src)
			continue
		}
		if got := applied(c.src, fix.Edits); got != c.want {
			t.Errorf("%q:\ngot  %q\nwant %q", c.src, got, c.want)
		}
	}
}

// Lines inserted after a statement take its indentation and the file's
// line ending, inside a block too.
func TestInsertAfterKeepsIndentAndLineEnding(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"m = load()\nrest()\n", "m = load()\nm.config.use_cache = False\nrest()\n"},
		{"if ok:\n\tm = load()\n\trest()\n", "if ok:\n\tm = load()\n\tm.config.use_cache = False\n\trest()\n"},
		{"m = load()\r\n", "m = load()\r\nm.config.use_cache = False\r\n"},
		{"m = load()", "m = load()\nm.config.use_cache = False"},
	} {
		s, _, stmt := parsed(t, c.src)
		e, ok := pyedit.InsertAfter(s, stmt, []string{"m.config.use_cache = False"})
		if !ok {
			t.Errorf("%q: not inserted", c.src)
			continue
		}
		if got := applied(c.src, []finding.Edit{e}); got != c.want {
			t.Errorf("%q:\ngot  %q\nwant %q", c.src, got, c.want)
		}
	}
}
