// Package runner applies the engine to files: it finds them, reads them,
// runs the rules in parallel, and writes fixed files atomically. Results
// come back in path order whatever the parallelism.
package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/launch"
	"github.com/loratune/loratune-fix/rewrite"
	"github.com/loratune/loratune-fix/version"
)

// bigFile is the size from which a parse's C memory is handed back to the
// system once the file is done.
const bigFile = 64 << 10

// DefaultMaxFileSize skips files larger than this (generated code, data).
const DefaultMaxFileSize = 10 << 20

// Options configure a run.
type Options struct {
	Engine *rewrite.Engine
	// Fix computes fixed text; Write also writes it.
	Fix, Write bool
	// Jobs is the number of workers (0: DefaultJobs).
	Jobs int
	// Versions finds the pins that govern a file (nil: none known).
	Versions func(path string) version.Versions
	// LineLength finds the formatter line length of a file's project
	// (nil: the default).
	LineLength func(path string) int
	// EngineFor gives the engine of one file when it differs from Engine
	// (per-file ignores of the configuration); nil, or a nil result, means
	// Engine.
	EngineFor func(path string) *rewrite.Engine
	// MaxFileSize skips larger files with a message (0: the default).
	MaxFileSize int64
	// Stop, once closed, starts no new file while the files in flight
	// finish (the first Ctrl-C); cancelling RunSeq's context stops those
	// too (the second). Nil: only the context stops a run.
	Stop <-chan struct{}
	// Incremental, for a run over one document again and again (a
	// language server's buffer), keeps its parse for the next run.
	Incremental *rewrite.Incremental
	// parseGate bounds the source bytes being parsed at once (RunSeq sets
	// it): a parse takes memory in proportion to its file.
	parseGate *byteGate
}

// DefaultJobs is the number of workers of a run without Jobs: GOMAXPROCS,
// which is the number of CPUs the process may use (its affinity, and the
// CPU limit of its container), or what the user set it to.
func DefaultJobs() int { return runtime.GOMAXPROCS(0) }

// FileError names the file in a one-line message.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return finding.DisplayPath(e.Path) + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// Process runs the engine over one file's bytes. It never writes.
func Process(opts *Options, path string, data []byte) *finding.FileResult {
	return process(context.Background(), opts, path, data)
}

// ProcessContext is Process stopped by ctx between two rules: the file
// then has ctx's error (a language server's analysis of a text that has
// changed since).
func ProcessContext(ctx context.Context, opts *Options, path string, data []byte) *finding.FileResult {
	return process(ctx, opts, path, data)
}

// process is Process stopped by ctx between two rules (an interrupt): the
// file then has ctx's error.
func process(ctx context.Context, opts *Options, path string, data []byte) *finding.FileResult {
	if opts.EngineFor != nil {
		if e := opts.EngineFor(path); e != nil {
			o := *opts
			o.Engine = e
			opts = &o
		}
	}
	f := &finding.FileResult{Path: path, Before: data, After: data}
	if launch.Candidate(path) {
		processLaunch(opts, f)
		return f
	}
	if !opts.Engine.MayMatch(data) && !strings.HasSuffix(path, ".ipynb") {
		// A file without a NUL or invalid UTF-8 still deserves the check:
		// binary files are reported, not silently skipped.
		if err := rewrite.TextError(data); err != nil {
			f.Err = &FileError{path, err}
		}
		f.Skipped = true
		return f
	}
	// Pins are looked up for the files that get parsed only: a miss needs
	// none, and the finder's cache then grows with them, not the tree.
	if opts.Versions != nil {
		f.Versions = opts.Versions(path)
	}
	if opts.LineLength != nil {
		o := *opts
		o.Engine = opts.Engine.WithLineLength(opts.LineLength(path))
		opts = &o
	}
	if opts.parseGate != nil {
		defer opts.parseGate.acquire(int64(len(data)))()
	}
	if len(data) >= bigFile {
		defer releaseCMemory()
	}
	if strings.HasSuffix(path, ".ipynb") {
		processNotebook(ctx, opts, f)
		return f
	}
	// check runs the fix loop too (each finding's outcome is what fix
	// does); the output is used only when fixing.
	res, err := opts.Engine.FixIncremental(ctx, data, f.Versions, nil, opts.Incremental)
	if err != nil {
		f.Err = &FileError{path, err}
		return f
	}
	shift := 0
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		shift = 3 // the engine worked on the text after the byte order mark
	}
	for _, fd := range res.Findings {
		f.Diags = append(f.Diags, finding.Diag{Finding: shiftFinding(fd, shift)})
	}
	f.Dropped = res.Dropped
	if opts.Fix {
		f.After, f.Changed = res.Output, res.Changed
	}
	return f
}

// ProcessPath reads, processes and (with Write) writes one file.
func ProcessPath(opts *Options, path string) *finding.FileResult {
	f, r := processPath(context.Background(), opts, path, nil)
	if r != nil {
		syncDir(r.done(replace(r.path, r.orig, r.f.After, r.info)))
	}
	return f
}

// maxScratch is the largest read buffer a worker keeps for the next file.
const maxScratch = 1 << 20

// processPath is ProcessPath reading into *scratch, a worker's buffer: a
// prefilter miss (most files of a tree) then costs no allocation. A file
// that is parsed keeps the bytes, and the worker takes a new buffer. It
// returns nil when ctx was cancelled before the write. With Write and a
// changed file it also returns the write, for the caller to run (RunSeq
// hands it to a writer, so that no worker waits on an fsync).
func processPath(ctx context.Context, opts *Options, path string, scratch *[]byte) (*finding.FileResult, *replacement) {
	limit := opts.MaxFileSize
	if limit == 0 {
		limit = DefaultMaxFileSize
	}
	var buf []byte
	if scratch != nil {
		buf = *scratch
	}
	isLaunch := launch.Candidate(path)
	if isLaunch {
		limit = min(limit, launch.MaxSize)
	}
	data, info, err := readSource(path, limit, buf)
	var tooLarge *tooLargeError
	if isLaunch && errors.As(err, &tooLarge) {
		// A data set, not a launch config: skipped without a word.
		return &finding.FileResult{Path: path, Skipped: true}, nil
	}
	if err != nil {
		return &finding.FileResult{Path: path, Err: &FileError{path, err}}, nil
	}
	f := process(ctx, opts, path, data)
	if scratch != nil {
		switch {
		case !f.Skipped:
			*scratch = nil // the finding.FileResult holds data now
		case cap(data) <= maxScratch:
			*scratch = data[:0]
		}
		if f.Skipped {
			f.Before, f.After = nil, nil
		}
	}
	if ctx.Err() != nil {
		return nil, nil
	}
	if !opts.Write || !f.Changed || f.Err != nil {
		return f, nil
	}
	return f, &replacement{f, path, data, info}
}

// replacement is the write of a changed file: f.After over path, which
// held orig when it was read.
type replacement struct {
	f    *finding.FileResult
	path string
	orig []byte
	info os.FileInfo
}

// done sets the result's Written or Err and returns the folder of the file
// renamed ("" when none was), which the caller syncs before it reports
// the file written.
func (r *replacement) done(dir string, err error) string {
	if err != nil {
		r.f.Err = &FileError{r.path, err}
		return ""
	}
	r.f.Written = true
	return dir
}

// writeBatch runs the writes of a batch: each file is staged in a
// temporary file, their file systems synced once (fsBatch), then each
// renamed; dirs[i] gets file i's folder to sync. A write that has not
// started when ctx is cancelled is left out: files[i] becomes nil.
func writeBatch(ctx context.Context, ws []write, files []*finding.FileResult, dirs []string) {
	batch := newFSBatch()
	defer batch.close()
	pending := make([]*staged, len(ws)) // by write; nil where none was staged
	for k, w := range ws {
		if ctx.Err() != nil {
			files[w.i] = nil
			continue
		}
		s, err := stage(w.path, w.orig, w.f.After, w.info, batch)
		if err != nil {
			w.done("", err)
			continue
		}
		pending[k] = s
	}
	batch.sync()
	for k, s := range pending {
		if s == nil {
			continue
		}
		if s.batched {
			if err := batch.err(s.dir); err != nil {
				s.discard()
				ws[k].done("", fmt.Errorf("write: syncing the file system: %w", err))
				continue
			}
		}
		dirs[ws[k].i] = ws[k].done(s.commit())
	}
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Run processes files with a pool of workers and calls emit once per file,
// in the order of files. It stops early when ctx is cancelled (or
// opts.Stop closed); a file being written is then finished, never left
// half-written, and emitted.
func Run(ctx context.Context, opts *Options, files []string, emit func(*finding.FileResult)) {
	RunSeq(ctx, opts, func(yield func(string, error) bool) {
		for _, p := range files {
			if !yield(p, nil) {
				return
			}
		}
	}, emit)
}

// RunSeq is Run over a stream of paths, such as Walk yields: a path that
// comes with an error is emitted as a finding.FileResult with that error, in its place.
// Memory is bounded by the files in flight (a window of 64 files per
// worker, and as many paths looked ahead; see batcher),
// never by the number of files. For a check
// (not Fix) run the bytes are dropped from each finding.FileResult once emit returns.
func RunSeq(ctx context.Context, opts *Options, paths iter.Seq2[string, error], emit func(*finding.FileResult)) {
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = DefaultJobs()
	}
	gated := *opts
	gated.parseGate = newByteGate(ParseBudget)
	opts = &gated
	stopped := func() bool {
		select {
		case <-opts.Stop:
			return true
		default:
			return ctx.Err() != nil
		}
	}
	type batch struct {
		paths []string
		files []*finding.FileResult // an error from the walk is in its place already
		done  chan struct{}
		// writes are its changed files' writes, which its worker hands to
		// a writer in one go once the batch is done; written is done when
		// they are.
		writes  []write
		written sync.WaitGroup
		// dirs holds the folder of each file renamed: each is synced once,
		// for all the batch's files in it, before the batch is emitted.
		dirs []string
		// leave gives the batch's place in the window back once emitted.
		leave func()
	}
	// Writers run the atomic writes, so that a worker goes on to the next
	// file while an fsync waits on the disk (a fifth of the wall time of
	// fix --write on 500 scripts). A worker hands over a batch's writes
	// together: each hand-over wakes a writer, which then took the
	// worker's P (scheduler slot) during its next C call and kept the
	// worker waiting (a third of the workers' time at -j 2 on 2 CPUs,
	// one hand-over a file). A write is checked against ctx when it
	// starts, as the worker checks before processing a file: interrupted
	// before its write, a file is left out, untouched; a write begun is
	// finished. A batch is emitted once its writes are done and their
	// folders synced. A batch waiting for a writer holds its place in the
	// window (below), so a queue as long as the window never keeps a
	// worker waiting (with the queue two batches a worker long, the 16
	// workers of -j 16 waited 60-135 ms for it in all on the H200 host).
	writes := make(chan *batch, 2*maxBatch*jobs)
	var writers sync.WaitGroup
	if opts.Write {
		for w := 0; w < 2*jobs; w++ {
			writers.Add(1)
			go func() {
				defer writers.Done()
				for b := range writes {
					writeBatch(ctx, b.writes, b.files, b.dirs)
					b.written.Done()
				}
			}()
		}
	}
	// Results leave in path order, so a slow batch holds back the ones
	// behind it until they fill the window (2*maxBatch files a worker);
	// the workers stay busy meanwhile. Prefilter misses wait in it without
	// their bytes. The window counts files, not batches: the first
	// batches hold a file or two, and a window of two batches a worker
	// filled while the first batch's syncfs waited on the disk, and the
	// workers then waited too (4-40 ms of 340-410 at -j 2 on the 500
	// needles, by the trace).
	windowFiles := newByteGate(int64(2 * maxBatch * jobs))
	window := make(chan *batch, 2*maxBatch*jobs)
	work := make(chan *batch, jobs)
	var wg sync.WaitGroup
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// One OS thread per worker: tree-sitter's C allocations then
			// stay in that thread's malloc arena. Unlocked, the parses hop
			// between threads and every arena keeps its own high-water
			// mark, so peak memory grew with the number of files parsed
			// (x2 on a tree 10 times larger), not with the work in flight.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var scratch []byte
			for b := range work {
				for i, p := range b.paths {
					if b.files[i] == nil && !stopped() {
						f, r := processPath(ctx, opts, p, &scratch)
						b.files[i] = f
						if r != nil {
							b.writes = append(b.writes, write{i, r})
						}
					}
				}
				if len(b.writes) > 0 {
					b.written.Add(1)
					writes <- b
				}
				close(b.done)
			}
		}()
	}
	go func() {
		defer close(window)
		defer close(work)
		q := batcher{jobs: jobs, size: 1}
		send := func(n int) {
			paths, files := q.cut(n)
			b := &batch{paths: paths, files: files, done: make(chan struct{})}
			if opts.Write {
				b.dirs = make([]string, len(paths))
			}
			b.leave = windowFiles.acquire(int64(len(paths)))
			window <- b
			work <- b
		}
		for p, err := range paths {
			if stopped() {
				return
			}
			var f *finding.FileResult
			if err != nil {
				f = &finding.FileResult{Path: p, Err: err}
			}
			q.add(p, f)
			if n := q.next(false); n > 0 {
				send(n)
			}
		}
		for q.len() > 0 && !stopped() {
			send(q.next(true))
		}
	}()
	go func() {
		wg.Wait()
		close(writes)
	}()
	for b := range window {
		<-b.done
		b.written.Wait()
		syncDirs(b.dirs)
		for _, f := range b.files {
			if f == nil {
				// Interrupted before this file's write: it is left out.
				// Every file processed is emitted, past such a gap too: a
				// later batch may have written its files already.
				continue
			}
			emit(f)
			if !opts.Fix {
				f.Before, f.After = nil, nil
			}
		}
		b.leave()
	}
	wg.Wait()
	writers.Wait()
}

// write is the write of a batch's file i, which processPath returned.
type write struct {
	i int
	*replacement
}

// maxBatch is the most files a batch holds.
const maxBatch = 32

// batcher cuts the stream of paths into the batches that workers take:
// consecutive paths, as a hand-over between goroutines costs more than
// reading and skipping a file, so one per file would dominate a tree of
// prefilter misses. Batches start at one file and double every jobs
// batches up to maxBatch, so that a run of a few slow files at the start
// still spreads over every worker. A batch is cut only once the paths
// behind it make 2*jobs batches of its size (a look-ahead of at most
// 2*jobs*maxBatch paths); when the walk has ended and fewer are left,
// each batch takes 1/(2*jobs) of the rest (guided scheduling), so that
// the last batches are single files and no worker sits idle while
// another finishes a full batch.
type batcher struct {
	jobs  int
	size  int // the growing size, from 1
	cuts  int
	paths []string
	files []*finding.FileResult
}

func (q *batcher) add(p string, f *finding.FileResult) {
	q.paths = append(q.paths, p)
	q.files = append(q.files, f)
}

func (q *batcher) len() int { return len(q.paths) }

// next is the size of the batch to cut now, 0 for none yet; walkDone
// says that no path will follow the queued ones.
func (q *batcher) next(walkDone bool) int {
	share := q.jobs * 2
	switch {
	case len(q.paths) >= share*q.size:
		return q.size
	case walkDone:
		return max(1, min(q.size, len(q.paths)/share))
	}
	return 0
}

// cut takes the first n paths off the queue, with their results.
func (q *batcher) cut(n int) ([]string, []*finding.FileResult) {
	paths, files := slices.Clone(q.paths[:n]), slices.Clone(q.files[:n])
	q.paths, q.files = q.paths[n:], q.files[n:]
	if q.cuts++; q.cuts%q.jobs == 0 && q.size < maxBatch {
		q.size *= 2
	}
	return paths, files
}

// shiftFinding moves a finding's byte offsets by n.
func shiftFinding(fd finding.Finding, n int) finding.Finding {
	if n == 0 {
		return fd
	}
	fd.Start += n
	fd.End += n
	if fd.Fix != nil {
		fx := *fd.Fix
		fx.Edits = make([]finding.Edit, len(fd.Fix.Edits))
		for i, e := range fd.Fix.Edits {
			fx.Edits[i] = finding.Edit{Start: e.Start + n, End: e.End + n, NewText: e.NewText}
		}
		fd.Fix = &fx
	}
	return fd
}
