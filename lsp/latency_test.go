package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bigScript is the demo grown to 2,000 lines with data helpers between
// its imports and its main: the findings are the demo's.
func bigScript(t testing.TB) string {
	head, tail, _ := strings.Cut(demo(t), "\ndef main():")
	var b strings.Builder
	b.WriteString(head)
	n := strings.Count(head, "\n") + strings.Count(tail, "\n") + 1
	for i := 0; n+9 <= 2000; i++ {
		fmt.Fprintf(&b, "\ndef helper_%d(records, limit=%d):\n    # notes\n    out = []\n    for r in records:\n        if len(r[\"text\"]) > limit:\n            continue\n        out.append({\"text\": r[\"text\"].strip(), \"id\": %d})\n    return out\n", i, i, i)
		n += 9
	}
	for ; n < 2000; n++ {
		b.WriteString("\n")
	}
	b.WriteString("\ndef main():")
	b.WriteString(tail)
	return b.String()
}

// typist makes the edits of someone typing in the script: a character
// added to a comment, then taken away, each time in another helper.
type typist struct {
	c       *client
	uri     string
	version int32
	lines   []int // the lines of "    # notes"
}

func newTypist(c *client, uri, text string) *typist {
	ty := &typist{c: c, uri: uri, version: 1}
	for i, l := range strings.Split(text, "\n") {
		if l == "    # notes" {
			ty.lines = append(ty.lines, i)
		}
	}
	return ty
}

// edit sends the i-th edit and returns its diagnostics' wait.
func (ty *typist) edit(i int) {
	line := ty.lines[(i/2*7)%len(ty.lines)]
	ch := TextDocumentContentChangeEvent{Range: &Range{Start: Position{Line: line, Character: 11}, End: Position{Line: line, Character: 11}}, Text: "x"}
	if i%2 == 1 {
		ch = TextDocumentContentChangeEvent{Range: &Range{Start: Position{Line: line, Character: 11}, End: Position{Line: line, Character: 12}}}
	}
	ty.version++
	ty.c.notify("textDocument/didChange", DidChangeTextDocumentParams{TextDocument: VersionedTextDocumentIdentifier{URI: ty.uri, Version: ty.version},
		ContentChanges: []TextDocumentContentChangeEvent{ch}})
}

// The time from a didChange of the 2,000-line script to its
// publishDiagnostics, as a client sees it: p50, p99 and max, and the CPU
// the process spent per edit (user + system), which a loaded machine
// does not inflate as it does the wall time.
func BenchmarkDidChangeToDiagnostics(b *testing.B) { benchDidChange(b) }

// The same with every text parsed from scratch, for the ratio.
func BenchmarkDidChangeToDiagnosticsFullParse(b *testing.B) {
	fullParse = true
	defer func() { fullParse = false }()
	benchDidChange(b)
}

func benchDidChange(b *testing.B) {
	text := bigScript(b)
	c := newClient(b, testOptions(b))
	uri := fileURI(filepath.Join(b.TempDir(), "train.py"))
	c.open(uri, "python", text)
	if got := codes(c.wait(uri, 1)); !strings.Contains(got, "LTF002") {
		b.Fatalf("findings: %s", got)
	}
	ty := newTypist(c, uri, text)
	var lat []time.Duration
	cpu0 := cpuTime()
	i := 0
	for b.Loop() {
		start := time.Now()
		ty.edit(i)
		if ds := c.wait(uri, ty.version); len(ds) != 8 {
			b.Fatalf("edit %d: %d findings", i, len(ds))
		}
		lat = append(lat, time.Since(start))
		i++
	}
	cpu := cpuTime() - cpu0
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[len(lat)*99/100]), "p99-ms")
	b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
	b.ReportMetric(ms(cpu/time.Duration(len(lat))), "cpu-ms/op")
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// A long session of edits leaves the memory where it was: the Go heap
// after a collection, and the process's resident size (tree-sitter's
// trees are C memory), sampled after a warm-up and at the end.
func TestMemoryFlatOverManyEdits(t *testing.T) {
	if testing.Short() {
		// -short runs under the race detector in CI, whose shadow memory
		// and a baseline taken after 40 edits make the heap figure noise;
		// the full run measures 1,000 edits.
		t.Skip("memory over a long session is measured by the full run")
	}
	edits := 1000
	text := bigScript(t)
	c := newClient(t, testOptions(t))
	uri := fileURI(filepath.Join(t.TempDir(), "train.py"))
	c.open(uri, "python", text)
	c.wait(uri, 1)
	ty := newTypist(c, uri, text)
	var heap0, rss0 uint64
	for i := 0; i < edits; i++ {
		ty.edit(i)
		c.wait(uri, ty.version)
		if i == edits/5 {
			heap0, rss0 = heapAfterGC(), rss()
		}
	}
	heap1, rss1 := heapAfterGC(), rss()
	t.Logf("%d edits: heap %d KiB after %d edits, %d KiB at the end; resident %d KiB, then %d KiB",
		edits, heap0>>10, edits/5, heap1>>10, rss0>>10, rss1>>10)
	if heap1 > heap0+4<<20 {
		t.Errorf("the Go heap grew by %d KiB over %d edits", (heap1-heap0)>>10, edits*4/5)
	}
	if rss0 > 0 && rss1 > rss0+64<<20 {
		t.Errorf("the resident size grew by %d KiB over %d edits", (rss1-rss0)>>10, edits*4/5)
	}
}

func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// rss is the resident size (Linux; 0 elsewhere).
func rss() uint64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseUint(f[1], 10, 64)
	return pages * uint64(os.Getpagesize())
}
