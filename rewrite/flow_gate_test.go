package rewrite

import (
	"fmt"
	"slices"
	"testing"

	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

// The flow walk looks only inside nodes that name the key (mentions): on
// every fixture, and on shapes that bind in unusual ways, what each read
// and each statement sees is what the walk without that shortcut finds.
func TestFlowGateChangesNothing(t *testing.T) {
	extra := []byte(`import os.path as osp, a.b
from m import (x as y, z)
cfg = Config()
cfg.lr = 1
def f(model, *args, k=1, **kw):
    global g
    g = model
    if (n := len(args)) > 1:
        del model
    elif kw:
        model = [model for model in args]
    else:
        return n
    while True:
        try:
            cfg.lr = cfg . lr + 1
        except E as model:
            break
        finally:
            print(model, cfg.lr)
    match k:
        case [y, *rest] if y:
            z = y
        case _:
            pass
    x[0].y = 2
    x[ 0 ].y += x[0].y
    with open(osp) as (fh):
        for a, (b, c) in fh:
            continue
        else:
            a = b = c = 3
    self.model = lambda model: model
    class C(model):
        model = 1
    def inner():
        nonlocal k
        k = g
    return a, b, c, k, y, z, self.model, inner
def g(flag):
    return flag
    unreached = flag
if __name__ == "__main__":
    f(cfg)
`)
	texts := fixtureTexts(t, extra)
	q, err := semantic.LoadQueries()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { semantic.FlowGate = true }()
	reads := 0
	for _, text := range texts {
		tree, err := parse(text, 0)
		if err != nil {
			t.Fatal(err)
		}
		pt := goTree(tree)
		src := semantic.NewSource(text)
		src.Root = pt.Root()
		semantic.FlowGate = true
		gated := semantic.BuildFacts(src, pt, q)
		semantic.FlowGate = false
		plain := semantic.BuildFacts(src, pt, q)
		var keys []string
		var stmts []*syntree.Node
		semantic.WalkNodes(pt.Root(), func(n *syntree.Node) bool {
			switch n.Type() {
			case "identifier", "attribute":
				reads++
				semantic.FlowGate = true
				a := describe(gated.ReachingAt(n))
				semantic.FlowGate = false
				if b := describe(plain.ReachingAt(n)); a != b {
					t.Errorf("%q at %d: with mentions %s, without %s", n.Content(text), n.StartByte(), a, b)
				}
				keys = append(keys, semantic.Compact(n.Content(text)))
			}
			if p := n.Parent(); p != nil && (p.Type() == "block" || p.Type() == "module") {
				stmts = append(stmts, n)
			}
			return true
		})
		for _, s := range stmts {
			for _, k := range keys[:min(len(keys), 40)] {
				semantic.FlowGate = true
				a := describe(gated.ReachingBefore(k, s))
				semantic.FlowGate = false
				if b := describe(plain.ReachingBefore(k, s)); a != b {
					t.Errorf("%s before %q: with mentions %s, without %s", k, s.Content(text), a, b)
				}
			}
		}
		tree.Close()
	}
	if reads < 1000 {
		t.Fatalf("only %d reads compared", reads)
	}
}

// describe renders a Reach with its bindings by position, so that two
// models of one tree compare.
func describe(r semantic.Reach) string {
	s := fmt.Sprint(r.MaybeUnbound)
	for _, d := range r.Defs {
		s += fmt.Sprintf(" %d/%v/%v/%d", d.Kind, pos(d.Stmt), pos(d.Value), d.Index)
	}
	return s
}

func pos(n *syntree.Node) string {
	if n == nil {
		return "-"
	}
	return fmt.Sprint(n.StartByte(), ":", n.EndByte())
}

// occurrences, found from the word's rarest byte, are the places a look
// at every offset finds, for every name of every fixture and for words at
// the text's edges, repeated, overlapping or not plain names.
func TestOccurrencesEqualPlainScan(t *testing.T) {
	plain := func(text []byte, word string) []int {
		var out []int
		for i := 0; i+len(word) <= len(text); i++ {
			if string(text[i:i+len(word)]) == word && (i == 0 || !semantic.IsWordByte(text[i-1])) && (i+len(word) == len(text) || !semantic.IsWordByte(text[i+len(word)])) {
				out = append(out, i)
			}
		}
		return out
	}
	extra := []byte("aa aaa aa\nx[0].y = x[0]\nzz_z z zz\né model_é modelé model\nmodel")
	edge := []string{"aa", "a", "x[0]", "z", "zz", "model", "é", "modelé", "global", "nonlocal"}
	words := 0
	for _, text := range fixtureTexts(t, extra) {
		tree, err := parse(text, 0)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, w := range edge {
			seen[w] = true
		}
		semantic.WalkNodes(goTree(tree).Root(), func(n *syntree.Node) bool {
			if n.Type() == "identifier" {
				seen[n.Content(text)] = true
			}
			return true
		})
		tree.Close()
		f := &semantic.Facts{Src: semantic.NewSource(text)}
		for w := range seen {
			words++
			if got, want := f.Occurrences(w), plain(text, w); !slices.Equal(got, want) {
				t.Errorf("%q in %.40q: at %v, plain scan %v", w, text, got, want)
			}
		}
	}
	if words < 1000 {
		t.Fatalf("only %d words compared", words)
	}
}
