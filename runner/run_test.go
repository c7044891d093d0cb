package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/internal/corpus"
	"github.com/loratune/loratune-fix/rewrite"
	"github.com/loratune/loratune-fix/version"
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
	RunSeq(context.Background(), opts, Walk([]string{dir}, WalkOptions{}), func(f *finding.FileResult) {
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

// One worker reads every file into one reused buffer: a parsed file keeps
// its own bytes while the misses read after it reuse the buffer (the
// misses come first and are larger, so each training script is read into
// the buffer they left), and batches come out whole and in order.
func TestReadBufferReuseKeepsEachFilesBytes(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	want := map[string][]byte{}
	for i := range 70 {
		src := corpus.Plain(1, i, 12000-i)
		if i%7 == 3 {
			src = corpus.Training(1, i)
		}
		p := filepath.Join(dir, fmt.Sprintf("m%03d.py", i))
		if err := os.WriteFile(p, src, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		want[p] = src
	}
	eng, err := rewrite.New(rewrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	i, parsed := 0, 0
	Run(context.Background(), &Options{Engine: eng, Fix: true, Jobs: 1}, paths, func(f *finding.FileResult) {
		if f.Path != paths[i] {
			t.Fatalf("file %d is %s, want %s", i, f.Path, paths[i])
		}
		i++
		if f.Err != nil {
			t.Fatal(f.Err)
		}
		if f.Skipped {
			if f.Before != nil {
				t.Errorf("%s: a prefilter miss keeps its bytes", f.Path)
			}
			return
		}
		parsed++
		if !bytes.Equal(f.Before, want[f.Path]) {
			t.Errorf("%s: Before is not the file's bytes", f.Path)
		}
		res, err := eng.Fix(want[f.Path], version.Versions{})
		if err != nil || !bytes.Equal(f.After, res.Output) {
			t.Errorf("%s: After is not the fix of the file's bytes (%v)", f.Path, err)
		}
	})
	if i != len(paths) || parsed != 10 {
		t.Errorf("%d files emitted, %d parsed; want %d and 10", i, parsed, len(paths))
	}
}

// Interrupted part-way, a run emits every file it processed, in order,
// past a gap too: a later batch that finished before an earlier one
// stopped may have written its files, and each written file must be
// reported. The files not processed are left out.
func TestInterruptedRunEmitsEveryFileProcessed(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i := range 40 {
		p := filepath.Join(dir, fmt.Sprintf("m%03d.py", i))
		if err := os.WriteFile(p, []byte("x = 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	eng, err := rewrite.New(rewrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// With two workers the batches are [0] [1] [2 3] [4 5] [6..9] [10..13]
	// [14..]: file 6 waits until file 13 is done, then interrupts the run.
	// File 13 is done when file 14 starts: while file 6 waits, one worker
	// is left, and it takes file 14 only after finishing 13. (Waiting for
	// file 13 to start let the interrupt drop it in flight.)
	later := make(chan struct{})
	opts := &Options{Engine: eng, Jobs: 2, EngineFor: func(p string) *rewrite.Engine {
		switch p {
		case paths[6]:
			<-later
			cancel()
		case paths[14]:
			close(later)
		}
		return nil
	}}
	var got []int
	index := map[string]int{}
	for i, p := range paths {
		index[p] = i
	}
	Run(ctx, opts, paths, func(f *finding.FileResult) { got = append(got, index[f.Path]) })
	if len(got) == 0 || len(got) == len(paths) {
		t.Fatalf("%d files emitted; want an interrupted run", len(got))
	}
	done13 := false
	for i, n := range got {
		if i > 0 && n <= got[i-1] {
			t.Fatalf("emitted out of order: %v", got)
		}
		done13 = done13 || n == 13
	}
	if !done13 {
		t.Errorf("file 13, processed before the interrupt, was not emitted: %v", got)
	}
}

// Stop (the first Ctrl-C) lets the file in flight finish and starts no
// new one; only the context (the second) drops a file in flight.
func TestStopFinishesTheFileInFlight(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i := range 40 {
		p := filepath.Join(dir, fmt.Sprintf("m%03d.py", i))
		if err := os.WriteFile(p, []byte("x = 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	eng, err := rewrite.New(rewrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	opts := &Options{Engine: eng, Jobs: 1, Stop: stop, EngineFor: func(p string) *rewrite.Engine {
		if p == paths[5] {
			close(stop)
		}
		return nil
	}}
	var got []string
	Run(context.Background(), opts, paths, func(f *finding.FileResult) { got = append(got, filepath.Base(f.Path)) })
	if len(got) == 0 || got[len(got)-1] != "m005.py" || len(got) >= len(paths) {
		t.Errorf("emitted %v: want the files up to m005.py, the one in flight when Stop closed", got)
	}
}

// While the first file waits to be emitted (its write's sync slow on the
// disk), the workers go on with the files behind it: the window that
// holds results for their turn counts files (64 a worker), not batches.
// Counted in batches, with the first batches of one, two and four files,
// one worker stopped after 7 files until the first was emitted.
func TestWorkersGoOnWhileTheFirstFileWaits(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i := range 40 {
		p := filepath.Join(dir, fmt.Sprintf("m%02d.py", i))
		if err := os.WriteFile(p, []byte("x = 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	eng, err := rewrite.New(rewrite.Options{ParseTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var started atomic.Int32
	opts := &Options{Engine: eng, Jobs: 1, EngineFor: func(string) *rewrite.Engine {
		started.Add(1)
		return nil
	}}
	n := 0
	Run(context.Background(), opts, paths, func(f *finding.FileResult) {
		if n++; n > 1 {
			return
		}
		deadline := time.Now().Add(5 * time.Second)
		for started.Load() < 20 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if s := started.Load(); s < 20 {
			t.Errorf("%d files started while the first waited to be emitted; want 20 or more", s)
		}
	})
	if n != 40 {
		t.Errorf("%d files emitted, want 40", n)
	}
}
