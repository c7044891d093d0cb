package runner

import (
	"context"
	"os"
	"testing"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/internal/corpus"
	"github.com/loratune/loratune-fix/rewrite"
)

func benchOptions(b *testing.B, fix bool) *Options {
	eng, err := rewrite.New(rewrite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return &Options{Engine: eng, Fix: fix}
}

// BenchmarkPrefilterMiss is the cost of an ordinary 8 kB module: the
// trigger search, no parse.
func BenchmarkPrefilterMiss(b *testing.B) {
	opts := benchOptions(b, false)
	src := corpus.Plain(1, 1, 8000)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if f := Process(opts, "m.py", src); !f.Skipped {
			b.Fatal("parsed")
		}
	}
}

// BenchmarkCheckHit is parse and rules on a training script.
func BenchmarkCheckHit(b *testing.B) {
	opts := benchOptions(b, false)
	src := corpus.Training(1, 0)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if f := Process(opts, "train.py", src); f.Err != nil || len(f.Diags) == 0 {
			b.Fatal(f.Err)
		}
	}
}

// BenchmarkFixHit adds the fix loop: passes, re-parses, the parse guard.
func BenchmarkFixHit(b *testing.B) {
	opts := benchOptions(b, true)
	src := corpus.Training(1, 0)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if f := Process(opts, "train.py", src); f.Err != nil || !f.Changed {
			b.Fatal(f.Err)
		}
	}
}

// BenchmarkTree checks a 2,000-file tree (one training script in 50):
// walk, read, prefilter, parse on hits, in order, with every CPU.
func BenchmarkTree(b *testing.B) {
	dir := b.TempDir()
	if _, err := corpus.Tree(dir, 1, 2000, 50, 8000); err != nil {
		b.Fatal(err)
	}
	opts := benchOptions(b, false)
	var bytes int64
	for p := range Walk([]string{dir}, WalkOptions{}) {
		if fi, err := os.Stat(p); err == nil {
			bytes += fi.Size()
		}
	}
	b.SetBytes(bytes)
	for b.Loop() {
		n := 0
		RunSeq(context.Background(), opts, Walk([]string{dir}, WalkOptions{}), func(f *finding.FileResult) { n++ })
		if n != 2000 {
			b.Fatalf("%d files", n)
		}
	}
}
