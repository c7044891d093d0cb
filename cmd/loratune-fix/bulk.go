package main

import (
	"io"
	"os"
	"strconv"
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
	// quiet: the findings (or diffs, or fixed source) and errors only, as
	// ruff's -q; silent: not the findings either, as ruff's -s (the exit
	// status still says what was found).
	quiet, silent bool
}

func (b *bulkFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.BoolVar(&b.noIgnore, "no-ignore", false, "also walk files that .gitignore or .git/info/exclude exclude")
	fs.StringArrayVar(&b.exclude, "exclude", nil, "skip files and folders matching this glob (doublestar: **; repeatable; no / matches a name at any depth)")
	fs.StringVar(&b.shard, "shard", "", "process only shard K of N (K/N, 0 <= K < N), chosen by a stable hash of the path")
	fs.BoolVarP(&b.quiet, "quiet", "q", false, "no progress bar")
}

// registerOutput adds --quiet and --silent as fix and check take them,
// in place of register's --quiet.
func (b *bulkFlags) registerOutput(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.Lookup("quiet").Usage = "print the findings (or the diff, or the fixed source) and errors, nothing else: no summary, notes or progress"
	fs.BoolVarP(&b.silent, "silent", "s", false, "print no findings either, only errors and what stdout carries for --diff and stdin (the exit status still says what was found)")
}

// hushed reports -q or -s: no summary, notes, progress or per-file lines.
func (b *bulkFlags) hushed() bool { return b.quiet || b.silent }

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
	findings int
	unit     string
}

func newProgress(stderr io.Writer, quiet bool, unit string, count func() int64) *progress {
	p := &progress{w: stderr, on: !quiet && isTerminal(stderr), start: time.Now(), unit: unit}
	p.total.Store(-1)
	if !p.on {
		return p
	}
	if count != nil {
		go func() { p.total.Store(count()) }()
	}
	// The bar starts with the run, so its rate and time left are right,
	// but draws nothing during the first second: short runs stay silent.
	p.bar = progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(&afterSecond{w: stderr, start: p.start}),
		progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString(unit),
		progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(), progressbar.OptionSetWidth(30))
	return p
}

// afterSecond drops what is written during the first second.
type afterSecond struct {
	w     io.Writer
	start time.Time
}

func (a *afterSecond) Write(b []byte) (int, error) {
	if time.Since(a.start) < time.Second {
		return len(b), nil
	}
	return a.w.Write(b)
}

// step records one finished item with its findings.
func (p *progress) step(findings int) {
	if !p.on {
		return
	}
	p.findings += findings
	if !p.maxSet {
		if t := p.total.Load(); t >= 0 {
			p.bar.ChangeMax64(t)
			p.maxSet = true
		}
	}
	p.bar.Describe(strconv.Itoa(p.findings) + " finding" + plural(p.findings))
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
