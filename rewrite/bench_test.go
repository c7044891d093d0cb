package rewrite

import (
	"runtime"
	"testing"

	"github.com/loratune/loratune-fix/internal/corpus"
	"github.com/loratune/loratune-fix/semantic"
)

// The parts of a fix on a training script, each over the same 100
// generated scripts, so that the whole (BenchmarkFixScripts) can be read
// against its floor: one parse and two query walks (one to find, one to
// confirm that the fixed text has nothing more to fix).

func scripts() [][]byte {
	var out [][]byte
	for i := range 100 {
		out = append(out, corpus.Training(1, i))
	}
	return out
}

// BenchmarkParse is one tree-sitter parse of a script.
func BenchmarkParse(b *testing.B) {
	texts := scripts()
	i := 0
	for b.Loop() {
		tree, err := parse(texts[i%len(texts)], 0)
		if err != nil {
			b.Fatal(err)
		}
		tree.Close()
		i++
	}
}

// BenchmarkQueryWalk is one walk of the compiled queries over a parsed
// script, and the file model built from the matches.
func BenchmarkQueryWalk(b *testing.B) {
	q, err := semantic.LoadQueries()
	if err != nil {
		b.Fatal(err)
	}
	texts := scripts()
	var all []func() *semantic.Facts
	for _, text := range texts {
		tree, err := parse(text, 0)
		if err != nil {
			b.Fatal(err)
		}
		defer tree.Close()
		src, pt := semantic.NewSource(text), goTree(tree)
		all = append(all, func() *semantic.Facts { return semantic.BuildFacts(src, pt, q) })
	}
	i := 0
	for b.Loop() {
		if f := all[i%len(all)](); len(f.Calls) == 0 {
			b.Fatal("no calls found")
		}
		i++
	}
}

// BenchmarkFixScripts is Fix on a script: every pass, parse and rule.
func BenchmarkFixScripts(b *testing.B) {
	e, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	texts := scripts()
	i := 0
	calls := runtime.NumCgoCall()
	defer func() {
		b.ReportMetric(float64(runtime.NumCgoCall()-calls)/float64(b.N), "cgo-calls/op")
	}()
	for b.Loop() {
		res, err := e.Fix(texts[i%len(texts)], Versions{})
		if err != nil {
			b.Fatal(err)
		}
		if !res.Changed {
			b.Fatal("nothing fixed")
		}
		i++
	}
}
