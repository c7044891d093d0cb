package main

import (
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/loratune/loratune-fix/runner"
)

// bulkFlags choose the files of a folder walk and how a long run shows
// itself: shared by fix and check.
type bulkFlags struct {
	noIgnore bool
	exclude  []string
	shard    string
	quiet    bool
}

func (b *bulkFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.BoolVar(&b.noIgnore, "no-ignore", false, "also walk files that .gitignore or .git/info/exclude exclude")
	fs.StringArrayVar(&b.exclude, "exclude", nil, "skip files and folders matching this glob (doublestar: **; repeatable; no / matches a name at any depth)")
	fs.StringVar(&b.shard, "shard", "", "process only shard K of N (K/N, 0 <= K < N), chosen by a stable hash of the path")
	fs.BoolVarP(&b.quiet, "quiet", "q", false, "no progress bar")
}

func (b *bulkFlags) walkOptions() (runner.WalkOptions, error) {
	shard, err := runner.ParseShard(b.shard)
	if err != nil {
		return runner.WalkOptions{}, err
	}
	wo := runner.WalkOptions{NoIgnore: b.noIgnore, Exclude: b.exclude, Shard: shard}
	return wo, wo.Validate()
}

// isTerminal reports whether w is a terminal (not a pipe, file or buffer).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd())) && os.Getenv("TERM") != "dumb"
}

// progress draws a bar on stderr for runs that last over a second: files
// done of the total, rate, findings so far, time left. The total comes
// from a second walk that only counts, run alongside. Nothing at all when
// stderr is not a terminal or with --quiet. Its methods are called from
// one goroutine (emit), apart from the counter.
type progress struct {
	w        io.Writer
	on       bool
	start    time.Time
	bar      *progressbar.ProgressBar
	total    atomic.Int64 // -1 while counting
	maxSet   bool
	done     int64
	findings int
	unit     string
}

func newProgress(stderr io.Writer, quiet bool, unit string, count func() int64) *progress {
	p := &progress{w: stderr, on: !quiet && isTerminal(stderr), start: time.Now(), unit: unit}
	p.total.Store(-1)
	if p.on && count != nil {
		go func() { p.total.Store(count()) }()
	}
	return p
}

// step records one finished item with its findings.
func (p *progress) step(findings int) {
	if !p.on {
		return
	}
	p.done++
	p.findings += findings
	if p.bar == nil {
		if time.Since(p.start) < time.Second {
			return
		}
		p.bar = progressbar.NewOptions64(p.total.Load(),
			progressbar.OptionSetWriter(p.w), progressbar.OptionShowCount(), progressbar.OptionShowIts(),
			progressbar.OptionSetItsString(p.unit), progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish(),
			progressbar.OptionSetWidth(30), progressbar.OptionFullWidth())
		p.bar.Set64(p.done - 1)
	}
	if !p.maxSet {
		if t := p.total.Load(); t >= 0 {
			p.bar.ChangeMax64(t)
			p.maxSet = true
		}
	}
	p.bar.Describe(plural(p.findings, "finding"))
	p.bar.Add64(1)
}

// clear removes the bar before a line is printed to stderr.
func (p *progress) clear() {
	if p.bar != nil {
		p.bar.Clear()
	}
}

func (p *progress) finish() {
	if p.bar != nil {
		p.bar.Clear()
		p.bar = nil
	}
}

// lockedWriter serialises writes from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
