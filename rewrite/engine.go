package rewrite

import (
	"bytes"
	"context"
	"errors"
	"time"
	"unicode/utf8"

	"github.com/loratune/loratune-fix/semantic"
)

// Options choose the rules and how fixes are applied.
type Options struct {
	// Profile names the default rule set: "default" (the reported fixes) or
	// "lean" (keeps bf16 and fast attention; fences the cuDNN backend).
	Profile string
	// Select, ExtendSelect and Ignore choose the rules as Selection does.
	Select, ExtendSelect, Ignore []string
	// UnsafeFixes applies fixes marked unsafe too.
	UnsafeFixes bool
	// Target overrides the versions found for each file (--target).
	Target Versions
	// ParseTimeout bounds a file's whole analysis: its parses, its rules
	// and its fix passes (0: no bound).
	ParseTimeout time.Duration
	// LineLength is the project's formatter line length, within which
	// inserted code and comments are laid out (0: DefaultLineLength).
	LineLength int
}

// Engine runs a fixed set of rules. It holds no mutable state: one engine
// serves every worker of a bulk run.
type Engine struct {
	rules []*Rule
	opts  Options
	gates []gate // the prefilter, one per rule
	// words are the distinct prefilter words; trainingIDs index
	// trainingWords among them.
	words       [][]byte
	trainingIDs []int
	anchors     []anchor // the trigger words, grouped by anchor byte
	notes       []string // rules outside the profile that run because they were named
}

// New checks the options and returns an engine.
func New(opts Options) (*Engine, error) {
	if _, err := semantic.LoadQueries(); err != nil {
		return nil, err
	}
	rules, notes, err := Selection{opts.Profile, opts.Select, opts.ExtendSelect, opts.Ignore}.Resolve()
	if err != nil {
		return nil, err
	}
	e := &Engine{rules: rules, opts: opts, notes: notes}
	if err := e.buildPrefilter(); err != nil {
		return nil, err
	}
	return e, nil
}

// WithLineLength is the engine with the line length of one file's project
// (runner.Options.LineLength); it shares everything else with e.
func (e *Engine) WithLineLength(n int) *Engine {
	if n == e.opts.LineLength {
		return e
	}
	c := *e
	c.opts.LineLength = n
	return &c
}

// Rules are the rules this engine runs, in code order.
func (e *Engine) Rules() []*Rule { return e.rules }

// Notes says which rules outside the profile run because select or
// extend-select named them.
func (e *Engine) Notes() []string { return e.notes }

// Errors for input that is not Python source text.
var (
	ErrBinary  = errors.New("binary file (NUL byte)")
	ErrNotUTF8 = errors.New("not UTF-8 text")
	ErrUTF16   = errors.New("UTF-16 text (byte order mark); convert it to UTF-8")
)

// TextError says why text cannot be Python source the engine reads: UTF-16
// (told by its byte order mark) or binary (a NUL byte). UTF-8 validity is
// checked on parsing.
func TextError(text []byte) error {
	if bytes.HasPrefix(text, []byte("\xff\xfe")) || bytes.HasPrefix(text, []byte("\xfe\xff")) {
		return ErrUTF16
	}
	if bytes.IndexByte(text, 0) >= 0 {
		return ErrBinary
	}
	return nil
}

var bom = []byte("\xef\xbb\xbf")

// Result is what a run over one source found and, for Fix, produced.
type Result struct {
	// Findings are those of the original text, in source order.
	Findings []Finding
	// Output is the fixed text (Fix only); equal to the input when nothing
	// changed.
	Output  []byte
	Changed bool
	// Passes is how many fix passes ran.
	Passes int
	// Dropped names fixes that would have broken the file: an internal
	// error of the rule, never written.
	Dropped []string
	// Frozen are the spans given to FixFrozen, moved to where they lie in
	// Output (after any byte order mark).
	Frozen []Span
}

// Check reports the findings of text, with vs the versions found for the
// file, and changes nothing. It runs the passes Fix runs, so that each
// finding's Outcome says what fix --write does with it.
func (e *Engine) Check(text []byte, vs Versions) (*Result, error) {
	return e.CheckContext(context.Background(), text, vs)
}

// CheckContext is Check stopped by ctx: a cancelled context ends the
// analysis between two rules with ctx's error.
func (e *Engine) CheckContext(ctx context.Context, text []byte, vs Versions) (*Result, error) {
	res, err := e.FixContext(ctx, text, vs)
	if err != nil {
		return nil, err
	}
	res.Output, res.Changed = text, false
	return res, nil
}

// Fix runs the rules and applies their fixes, pass after pass, until
// nothing changes. The output always parses; a fix that would break the
// parse is dropped and named in Result.Dropped.
func (e *Engine) Fix(text []byte, vs Versions) (*Result, error) {
	return e.FixFrozen(context.Background(), text, vs, nil)
}

// FixContext is Fix stopped by ctx, as CheckContext is.
func (e *Engine) FixContext(ctx context.Context, text []byte, vs Versions) (*Result, error) {
	return e.FixFrozen(ctx, text, vs, nil)
}

// bound gives ctx the deadline of ParseTimeout, which bounds the whole
// analysis of a file: a file of a shape that some rule handles slowly is
// given up like one that parses slowly.
func (e *Engine) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if e.opts.ParseTimeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, e.opts.ParseTimeout)
}

// stopped is the error that ends an analysis whose context is done:
// ErrParseTimeout past the deadline, else the context's own error.
func stopped(ctx context.Context) error {
	switch err := ctx.Err(); {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		return ErrParseTimeout
	default:
		return err
	}
}

// parseLimit is what is left of ctx's deadline for one parse (0: none).
func parseLimit(ctx context.Context) time.Duration {
	d, ok := ctx.Deadline()
	if !ok {
		return 0
	}
	return max(time.Until(d), time.Microsecond) // 0 would mean no limit
}

// prepare rejects what is not UTF-8 Python text and strips a BOM.
func (e *Engine) prepare(text []byte) ([]byte, error) {
	if err := TextError(text); err != nil {
		return nil, err
	}
	body := bytes.TrimPrefix(text, bom)
	if !utf8.Valid(body) {
		return nil, ErrNotUTF8
	}
	return body, nil
}
