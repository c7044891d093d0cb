package runner_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/runner"
)

// rssBytes is the resident set size, which also counts tree-sitter's C
// memory (trees not closed would show here, not in the Go heap).
func rssBytes(t *testing.T) uint64 {
	raw, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(raw))
	pages, _ := strconv.ParseUint(fields[1], 10, 64)
	return pages * uint64(os.Getpagesize())
}

// Memory does not grow with the number of files: over 20,000 small
// scripts the live heap and the RSS, sampled after a GC every 2,000 files,
// stay within a bound of the level reached after the first 2,000. Measured
// (see docs/reliability.md): the heap moves by well under 1 MB and the RSS
// by a few MB; a leak of one 10 KB parse tree or result per file would
// grow them by 200 MB.
func TestMemoryFlatOverManyFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("20,000 files")
	}
	const n, every = 20000, 2000
	dir := t.TempDir()
	files := make([]string, n)
	for i := range files {
		// 100 folders of 200 files, like a monorepo of small scripts.
		p := filepath.Join(dir, fmt.Sprintf("d%03d", i%100), fmt.Sprintf("train_%05d.py", i))
		writeFile(t, p, strings.Replace(script, "r=8", fmt.Sprintf("r=%d", i), 1), 0o644)
		files[i] = p
	}
	opts := options(t, false)
	var heap, rss []uint64
	count := 0
	runner.Run(t.Context(), opts, files, func(f *finding.FileResult) {
		if f.Err != nil {
			t.Errorf("%s: %v", f.Path, f.Err)
		}
		if !f.Changed {
			t.Errorf("%s: not fixed", f.Path)
		}
		count++
		if count%every == 0 {
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			heap = append(heap, m.HeapAlloc)
			rss = append(rss, rssBytes(t))
		}
	})
	if count != n {
		t.Fatalf("%d files emitted, want %d", count, n)
	}
	const heapBound, rssBound = 16 << 20, 64 << 20
	for i := range heap {
		t.Logf("after %5d files: heap %6.1f MB, rss %6.1f MB", (i+1)*every, float64(heap[i])/(1<<20), float64(rss[i])/(1<<20))
	}
	for i := 1; i < len(heap); i++ {
		if heap[i] > heap[0]+heapBound {
			t.Errorf("heap grew from %d to %d bytes after %d files", heap[0], heap[i], (i+1)*every)
		}
		if rss[0] > 0 && rss[i] > rss[0]+rssBound {
			t.Errorf("RSS grew from %d to %d bytes after %d files", rss[0], rss[i], (i+1)*every)
		}
	}
}
