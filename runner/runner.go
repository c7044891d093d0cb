// Package runner applies the engine to files: it finds them, reads them,
// runs the rules in parallel, and writes fixed files atomically. Results
// come back in path order whatever the parallelism.
package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"runtime"
	"strings"
	"sync"

	"github.com/loratune/loratune-fix/rewrite"
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
	// Jobs is the number of workers (0: the number of CPUs).
	Jobs int
	// Versions finds the pins that govern a file (nil: none known).
	Versions func(path string) rewrite.Versions
	// EngineFor gives the engine of one file when it differs from Engine
	// (per-file ignores of the configuration); nil, or a nil result, means
	// Engine.
	EngineFor func(path string) *rewrite.Engine
	// MaxFileSize skips larger files with a message (0: the default).
	MaxFileSize int64
	// parseGate bounds the source bytes being parsed at once (RunSeq sets
	// it): a parse takes memory in proportion to its file.
	parseGate *byteGate
}

// Diag is a finding located in a file (and, for notebooks, a cell).
type Diag struct {
	rewrite.Finding
	// Cell is the 1-based index of the notebook cell among all cells, 0 for
	// a Python file.
	Cell int
}

// File is the outcome for one file.
type File struct {
	Path     string
	Diags    []Diag
	Before   []byte
	After    []byte // equal to Before when nothing changed or not fixing
	Changed  bool
	Written  bool
	Skipped  bool // no trigger word: not parsed
	Dropped  []string
	Versions rewrite.Versions
	// Cells are the notebook cells whose source changed (notebooks only).
	Cells []CellChange
	// Err is a problem with this file alone (unreadable, binary, syntax
	// error, too large); the others go on.
	Err error
}

// FileError names the file in a one-line message.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return DisplayPath(e.Path) + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// Process runs the engine over one file's bytes. It never writes.
func Process(opts *Options, path string, data []byte) *File {
	if opts.EngineFor != nil {
		if e := opts.EngineFor(path); e != nil {
			o := *opts
			o.Engine = e
			opts = &o
		}
	}
	f := &File{Path: path, Before: data, After: data}
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
	if opts.parseGate != nil {
		defer opts.parseGate.acquire(int64(len(data)))()
	}
	if len(data) >= bigFile {
		defer releaseCMemory()
	}
	if strings.HasSuffix(path, ".ipynb") {
		processNotebook(opts, f)
		return f
	}
	var res *rewrite.Result
	var err error
	if opts.Fix {
		res, err = opts.Engine.Fix(data, f.Versions)
	} else {
		res, err = opts.Engine.Check(data, f.Versions)
	}
	if err != nil {
		f.Err = &FileError{path, err}
		return f
	}
	shift := 0
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		shift = 3 // the engine worked on the text after the byte order mark
	}
	for _, fd := range res.Findings {
		f.Diags = append(f.Diags, Diag{Finding: shiftFinding(fd, shift)})
	}
	f.Dropped = res.Dropped
	if opts.Fix {
		f.After, f.Changed = res.Output, res.Changed
	}
	return f
}

// ProcessPath reads, processes and (with Write) writes one file.
func ProcessPath(opts *Options, path string) *File {
	limit := opts.MaxFileSize
	if limit == 0 {
		limit = DefaultMaxFileSize
	}
	data, info, err := readSource(path, limit)
	if err != nil {
		return &File{Path: path, Err: &FileError{path, err}}
	}
	f := Process(opts, path, data)
	if opts.Write && f.Changed && f.Err == nil {
		if err := WriteAtomic(path, data, f.After, info); err != nil {
			f.Err = &FileError{path, err}
		} else {
			f.Written = true
		}
	}
	return f
}

// readSource reads a regular file of at most limit bytes with four system
// calls (open, fstat, read, close): bulk runs read every file of a tree.
// The file is opened without blocking, so a FIFO is refused, never waited
// on.
func readSource(path string, limit int64) ([]byte, os.FileInfo, error) {
	fh, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, unwrapPathError(err)
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		return nil, nil, unwrapPathError(err)
	}
	if !info.Mode().IsRegular() {
		return nil, nil, errors.New("not a regular file; skipped")
	}
	if info.Size() > limit {
		return nil, nil, fmt.Errorf("%d bytes, over --max-file-size %d; skipped", info.Size(), limit)
	}
	// One byte more than the size, so one read sees the end of a file
	// that did not grow; a file that grew is read to its end.
	data := make([]byte, 0, info.Size()+1)
	for {
		n, err := fh.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, unwrapPathError(err)
		}
		if len(data) < cap(data) {
			break // a short read: the end of a regular file
		}
		data = append(data, 0)[:len(data)] // it grew meanwhile: read on
	}
	return data, info, nil
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Run processes files with a pool of workers and calls emit once per file,
// in the order of files. It stops early when ctx is cancelled; a file being
// written is then finished, never left half-written.
func Run(ctx context.Context, opts *Options, files []string, emit func(*File)) {
	RunSeq(ctx, opts, func(yield func(string, error) bool) {
		for _, p := range files {
			if !yield(p, nil) {
				return
			}
		}
	}, emit)
}

// RunSeq is Run over a stream of paths, such as Walk yields: a path that
// comes with an error is emitted as a File with that error, in its place.
// Memory is bounded by the files in flight (a window of 64 per worker),
// never by the number of files. For a check (not Fix) run the bytes are
// dropped from each File once emit returns.
func RunSeq(ctx context.Context, opts *Options, paths iter.Seq2[string, error], emit func(*File)) {
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	gated := *opts
	gated.parseGate = newByteGate(ParseBudget)
	opts = &gated
	type slot struct {
		done chan struct{}
		file *File
	}
	type item struct {
		path string
		s    *slot
	}
	// Results leave in path order, so a slow file holds back the ones
	// behind it until they fill the window; a deep window keeps the
	// workers busy meanwhile. Prefilter misses (most files of a large
	// tree) wait in it without their bytes.
	window := make(chan *slot, jobs*64)
	work := make(chan item)
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
			for it := range work {
				f := ProcessPath(opts, it.path)
				if f.Skipped && f.Err == nil {
					// A prefilter miss has nothing to show: its bytes need
					// not wait in the window for the files before it.
					f.Before, f.After = nil, nil
				}
				it.s.file = f
				close(it.s.done)
			}
		}()
	}
	go func() {
		defer close(window)
		defer close(work)
		for p, err := range paths {
			if ctx.Err() != nil {
				return
			}
			s := &slot{done: make(chan struct{})}
			if err != nil {
				s.file = &File{Path: p, Err: err}
				close(s.done)
				window <- s
				continue
			}
			window <- s
			work <- item{p, s}
		}
	}()
	for s := range window {
		<-s.done
		emit(s.file)
		if !opts.Fix {
			s.file.Before, s.file.After = nil, nil
		}
	}
	wg.Wait()
}

// shiftFinding moves a finding's byte offsets by n.
func shiftFinding(fd rewrite.Finding, n int) rewrite.Finding {
	if n == 0 {
		return fd
	}
	fd.Start += n
	fd.End += n
	if fd.Fix != nil {
		fx := *fd.Fix
		fx.Edits = make([]rewrite.Edit, len(fd.Fix.Edits))
		for i, e := range fd.Fix.Edits {
			fx.Edits[i] = rewrite.Edit{Start: e.Start + n, End: e.End + n, NewText: e.NewText}
		}
		fd.Fix = &fx
	}
	return fd
}
