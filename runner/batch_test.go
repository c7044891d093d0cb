package runner

import (
	"fmt"
	"slices"
	"testing"
)

// batchSizes feeds n paths through a batcher as RunSeq does and returns
// the sizes of the batches cut, checking that they hold every path once,
// in order.
func batchSizes(t *testing.T, n, jobs int) []int {
	t.Helper()
	q := batcher{jobs: jobs, size: 1}
	var sizes []int
	var got []string
	take := func(k int) {
		paths, files := q.cut(k)
		if len(files) != k {
			t.Fatalf("batch of %d paths with %d results", k, len(files))
		}
		sizes = append(sizes, k)
		got = append(got, paths...)
	}
	for i := range n {
		q.add(fmt.Sprint(i), nil)
		if k := q.next(false); k > 0 {
			take(k)
		}
		if q.len() > 2*jobs*maxBatch {
			t.Fatalf("%d paths queued: more than the look-ahead of %d", q.len(), 2*jobs*maxBatch)
		}
	}
	for q.len() > 0 {
		take(q.next(true))
	}
	for i, p := range got {
		if p != fmt.Sprint(i) {
			t.Fatalf("path %d is %s: batches out of order or incomplete (%d paths for %d)", i, p, len(got), n)
		}
	}
	if len(got) != n {
		t.Fatalf("%d paths in batches, want %d", len(got), n)
	}
	return sizes
}

// Batches grow from one file to maxBatch while the walk goes on, then
// shrink as the input runs out: each takes at most 1/(2*jobs) of what is
// left, so the last batch of each worker is a single file and a worker
// never waits for another's full batch at the end.
func TestBatchesShrinkAtTheEndOfTheInput(t *testing.T) {
	sizes := batchSizes(t, 500, 2)
	if want := []int{1, 1, 2, 2, 4, 4, 8, 8, 16, 16, 32, 32}; !slices.Equal(sizes[:len(want)], want) {
		t.Errorf("first batches %v, want %v", sizes[:len(want)], want)
	}
	if m := slices.Max(sizes); m != maxBatch {
		t.Errorf("largest batch %d, want %d", m, maxBatch)
	}
	left := 500
	for i, k := range sizes {
		if k > 1 && k*2*2 > left {
			t.Errorf("batch %d of %d files with %d left: more than a quarter of the rest (sizes %v)", i, k, left, sizes)
		}
		left -= k
	}
	if tail := sizes[len(sizes)-4:]; !slices.Equal(tail, []int{1, 1, 1, 1}) {
		t.Errorf("last batches %v, want single files", tail)
	}

	// A short input cuts its first batches as a long one does.
	if got := batchSizes(t, 40, 2); !slices.Equal(got[:6], []int{1, 1, 2, 2, 4, 4}) {
		t.Errorf("40 files: batches %v", got)
	}
	// One worker, and more workers than files.
	for _, c := range []struct{ n, jobs int }{{3, 1}, {3, 16}, {0, 2}, {10000, 16}} {
		batchSizes(t, c.n, c.jobs)
	}
}
