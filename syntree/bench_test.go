package syntree

import (
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/python"

	"github.com/loratune/loratune-fix/queries"
)

// BenchmarkNew is the Go copy of every fixture's tree; read it against
// BenchmarkParse, the parse of the same texts.
func BenchmarkNew(b *testing.B) {
	nm := NewLanguage(python.GetLanguage())
	var trees []*sitter.Tree
	for _, src := range sources(b) {
		trees = append(trees, parseTS(b, src))
	}
	for b.Loop() {
		for _, ts := range trees {
			New(ts, nm)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	srcs := sources(b)
	p := sitter.NewParser()
	p.SetLanguage(python.GetLanguage())
	for b.Loop() {
		for _, src := range srcs {
			tree, err := p.ParseCtx(b.Context(), nil, src)
			if err != nil {
				b.Fatal(err)
			}
			tree.Close()
		}
	}
}

// BenchmarkMatches is the engine's queries over every fixture's tree.
func BenchmarkMatches(b *testing.B) {
	nm := NewLanguage(python.GetLanguage())
	text := ""
	for _, f := range []string{"functions.scm", "imports.scm", "calls.scm", "assignments.scm"} {
		t, err := queries.FS.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		text += string(t) + "\n"
	}
	q, err := NewQuery(text)
	if err != nil {
		b.Fatal(err)
	}
	var trees []*Tree
	for _, src := range sources(b) {
		trees = append(trees, New(parseTS(b, src), nm))
	}
	for b.Loop() {
		for _, t := range trees {
			q.Matches(t)
		}
	}
}
