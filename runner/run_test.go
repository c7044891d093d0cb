package runner

import (
	"context"
	"testing"
	"time"

	"github.com/loratune/loratune-fix/internal/corpus"
	"github.com/loratune/loratune-fix/rewrite"
)

// A bounded-parse fix run over a generated tree: every training script is
// fixed, none fails, and the results come in path order.
func TestRunGeneratedTree(t *testing.T) {
	dir := t.TempDir()
	if _, err := corpus.Tree(dir, 1, 90, 3, 2000); err != nil {
		t.Fatal(err)
	}
	eng, err := rewrite.New(rewrite.Options{ParseTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	opts := &Options{Engine: eng, Fix: true, Jobs: 2}
	var last string
	changed, skipped, n := 0, 0, 0
	RunSeq(context.Background(), opts, Walk([]string{dir}, WalkOptions{}), func(f *File) {
		n++
		if f.Err != nil {
			t.Errorf("%v", f.Err)
		}
		if f.Path < last {
			t.Errorf("%s after %s", f.Path, last)
		}
		last = f.Path
		if f.Changed {
			changed++
		}
		if f.Skipped {
			skipped++
		}
	})
	if n != 90 || skipped != 60 || changed < 25 {
		t.Errorf("%d files, %d skipped, %d changed; want 90, 60 (the ordinary modules), and most of the 30 scripts", n, skipped, changed)
	}
}
