package rewrite

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

// fixtureTexts are the texts of the golden fixtures' inputs (every
// fixtures/*/*.py), after extra: the corpus the tests that compare a
// shortcut with the plain way run on.
func fixtureTexts(t testing.TB, extra ...[]byte) [][]byte {
	t.Helper()
	inputs, err := filepath.Glob("../fixtures/*/*.py")
	if err != nil || len(inputs) < 50 {
		t.Fatalf("%d fixture inputs found (%v)", len(inputs), err)
	}
	texts := extra
	for _, in := range inputs {
		b, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, b)
	}
	return texts
}

// fixtureNodeTexts is the text of every node of every fixture, for tests
// that compare a shortcut on strings with the plain way.
func fixtureNodeTexts(t testing.TB) []string {
	t.Helper()
	var texts []string
	for _, text := range fixtureTexts(t) {
		tree, err := parse(text, 0)
		if err != nil {
			t.Fatal(err)
		}
		semantic.WalkNodes(goTree(tree).Root(), func(n *syntree.Node) bool {
			texts = append(texts, n.Content(text))
			return true
		})
		tree.Close()
	}
	return texts
}
