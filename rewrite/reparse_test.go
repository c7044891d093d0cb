package rewrite

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/syntree"
)

// The incremental parse of an edited text (the fix loop's verifying
// parse) has an error exactly when a parse from scratch has one, and
// without one it is the same tree: same nodes, same byte ranges. (Error
// recovery may differ.) Checked on the fixes of every fixture, alone and
// together, on a line inserted before a replaced line, and on random
// edits of the same files.
func TestIncrementalParseEqualsFullParse(t *testing.T) {
	inputs, _ := filepath.Glob("../fixtures/*/*.py")
	if len(inputs) < 50 {
		t.Fatalf("%d fixture inputs found", len(inputs))
	}
	e, err := New(Options{Select: []string{"ALL"}, UnsafeFixes: true})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	pieces := []string{"", "x", "(", ")", "\n", "    ", ",", "a=1", "\n    y = f(z)\n", "#", "'", "import torch\n", "\r\n"}
	compared, clean, stricter := 0, 0, 0
	for _, in := range inputs {
		text, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		tree, err := parse(text, 0)
		if err != nil || goTree(tree).Root().HasError() {
			if tree != nil {
				tree.Close()
			}
			continue // the syntax-error fixtures
		}
		var editSets [][]Edit
		if res, err := e.Check(text, Versions{}); err == nil {
			var all []Edit
			for _, fd := range res.Findings {
				if fd.Fix != nil {
					editSets = append(editSets, fd.Fix.Edits)
					all = append(all, fd.Fix.Edits...)
				}
			}
			editSets = append(editSets, all)
		}
		// A line inserted before a line that is replaced (an InsertAfter
		// next to a ReplaceStatement), in both orders of the edits.
		starts := []int{0}
		for i, b := range text {
			if b == '\n' && i+1 < len(text) {
				starts = append(starts, i+1)
			}
		}
		for k := 0; k < 10; k++ {
			i := rng.IntN(len(starts))
			end := len(text)
			if i+1 < len(starts) {
				end = starts[i+1]
			}
			ins := Edit{Start: starts[i], End: starts[i], NewText: "    model.config.use_cache = False\n"}
			rep := Edit{Start: starts[i], End: end, NewText: pieces[rng.IntN(len(pieces))]}
			editSets = append(editSets, []Edit{ins, rep}, []Edit{rep, ins})
		}
		for k := 0; k < 20; k++ {
			var edits []Edit
			for n := rng.IntN(3) + 1; n > 0; n-- {
				start := rng.IntN(len(text) + 1)
				end := min(len(text), start+rng.IntN(4))
				edits = append(edits, Edit{Start: start, End: end, NewText: pieces[rng.IntN(len(pieces))]})
			}
			editSets = append(editSets, edits)
		}
		for _, edits := range editSets {
			out, err := finding.ApplyEdits(text, edits)
			if err != nil {
				continue // overlapping random edits
			}
			inc, err := reparse(edited(tree, text, edits), out, 0)
			if err != nil {
				t.Fatal(err)
			}
			full, err := parse(out, 0)
			if err != nil {
				t.Fatal(err)
			}
			// Error recovery may differ; the verdict may not, nor a tree
			// without errors. One difference is allowed: the incremental
			// parse finding an error the full parse misses (tree-sitter's
			// full parse accepts some dangling "else:" lines that CPython
			// rejects); the fix loop then drops the fix, which is safe.
			bad := full.RootNode().HasError()
			if inc.RootNode().HasError() && !bad {
				stricter++
			} else if inc.RootNode().HasError() != bad {
				t.Errorf("%s with edits %+v: incremental parse has errors: %v, full parse: %v", in, edits, !bad, bad)
			} else if a, b := sexp(goTree(inc).Root()), sexp(goTree(full).Root()); !bad && a != b {
				t.Errorf("%s with edits %+v: incremental and full parse differ\n%s\n%s", in, edits, a, b)
			}
			if !bad {
				clean++
			}
			inc.Close()
			full.Close()
			compared++
		}
		tree.Close()
	}
	t.Logf("%d edited texts compared, %d of them without errors, %d where only the incremental parse saw an error", compared, clean, stricter)
}

// sexp is the tree with every node's type and byte range.
func sexp(n *syntree.Node) string {
	var b strings.Builder
	var walk func(n *syntree.Node)
	walk = func(n *syntree.Node) {
		fmt.Fprintf(&b, "(%s %d-%d", n.Type(), n.StartByte(), n.EndByte())
		for i := 0; i < int(n.ChildCount()); i++ {
			walk(n.Child(i))
		}
		b.WriteString(")")
	}
	walk(n)
	return b.String()
}

func TestPoints(t *testing.T) {
	text := []byte("ab\ncde\r\nf")
	for _, c := range []struct {
		offset   int
		row, col uint32
	}{{0, 0, 0}, {2, 0, 2}, {3, 1, 0}, {5, 1, 2}, {8, 2, 0}, {9, 2, 1}} {
		if p := pointOf(text, c.offset); p.Row != c.row || p.Column != c.col {
			t.Errorf("pointOf(%d) = %v, want %d:%d", c.offset, p, c.row, c.col)
		}
	}
	if p := advance(sitter.Point{Row: 1, Column: 2}, "xy"); p != (sitter.Point{Row: 1, Column: 4}) {
		t.Errorf("advance on one line: %v", p)
	}
	if p := advance(sitter.Point{Row: 1, Column: 2}, "x\r\nyz\nw"); p != (sitter.Point{Row: 3, Column: 1}) {
		t.Errorf("advance over lines: %v", p)
	}
}
