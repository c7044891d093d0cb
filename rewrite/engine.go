package rewrite

import (
	"bytes"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// Options choose the rules and how fixes are applied.
type Options struct {
	// Profile names the default rule set: "default" (the reported fixes) or
	// "lean" (keeps bf16 and fast attention; fences the cuDNN backend).
	Profile string
	// Select replaces the profile's set when not empty; Ignore removes from
	// it. Both take codes ("LTF002") or names ("eager-attention").
	Select, Ignore []string
	// UnsafeFixes applies fixes marked unsafe too.
	UnsafeFixes bool
	// Target overrides the versions found for each file (--target).
	Target Versions
	// ParseTimeout bounds one parse (0: no bound).
	ParseTimeout time.Duration
}

// Engine runs a fixed set of rules. It holds no mutable state: one engine
// serves every worker of a bulk run.
type Engine struct {
	rules []*Rule
	opts  Options
	gates []gate // the prefilter, one per rule
}

// gate is one rule's prefilter: any of words, and, for a TrainingOnly rule,
// any of trainingWords too.
type gate struct {
	words    [][]byte
	training bool
}

// New checks the options and returns an engine.
func New(opts Options) (*Engine, error) {
	if _, err := loadQueries(); err != nil {
		return nil, err
	}
	rules, err := SelectRules(opts.Profile, opts.Select, opts.Ignore)
	if err != nil {
		return nil, err
	}
	e := &Engine{rules: rules, opts: opts}
	for _, r := range rules {
		g := gate{training: r.TrainingOnly}
		for _, w := range r.Triggers {
			g.words = append(g.words, []byte(w))
		}
		e.gates = append(e.gates, g)
	}
	return e, nil
}

// Rules are the rules this engine runs, in code order.
func (e *Engine) Rules() []*Rule { return e.rules }

// Triggers are the byte strings of which a file must contain at least one
// for any selected rule to find anything in it.
func (e *Engine) Triggers() [][]byte {
	seen := map[string]bool{}
	var out [][]byte
	for _, r := range e.rules {
		for _, t := range r.Triggers {
			if !seen[t] {
				seen[t] = true
				out = append(out, []byte(t))
			}
		}
	}
	return out
}

// MayMatch is the prefilter: false means no selected rule can find
// anything, so the file need not be parsed.
func (e *Engine) MayMatch(text []byte) bool {
	training := -1 // unknown until a gate asks
	for _, g := range e.gates {
		if !containsAny(text, g.words) {
			continue
		}
		if !g.training {
			return true
		}
		if training < 0 {
			training = 0
			if containsAny(text, trainingBytes) {
				training = 1
			}
		}
		if training == 1 {
			return true
		}
	}
	return false
}

var trainingBytes = func() [][]byte {
	var out [][]byte
	for _, w := range trainingWords {
		out = append(out, []byte(w))
	}
	return out
}()

func containsAny(text []byte, words [][]byte) bool {
	for _, w := range words {
		if bytes.Contains(text, w) {
			return true
		}
	}
	return false
}

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

// Check runs the rules once, with vs the versions found for the file and reports findings without changing anything.
func (e *Engine) Check(text []byte, vs Versions) (*Result, error) {
	body, err := e.prepare(text)
	if err != nil {
		return nil, err
	}
	findings, err := e.runOnce(body, vs)
	if err != nil {
		return nil, err
	}
	return &Result{Findings: findings, Output: text}, nil
}

// maxPasses bounds the fix loop; fixes that keep producing fixes are a bug.
const maxPasses = 8

// Fix runs the rules and applies their fixes, pass after pass, until
// nothing changes. The output always parses; a fix that would break the
// parse is dropped and named in Result.Dropped.
func (e *Engine) Fix(text []byte, vs Versions) (*Result, error) {
	return e.FixFrozen(text, vs, nil)
}

// FixFrozen is Fix with spans of the text (offsets after any byte order
// mark) that no fix may touch; Result.Frozen gives where they lie in the
// output. A notebook freezes its IPython magic lines and cell boundaries.
func (e *Engine) FixFrozen(text []byte, vs Versions, frozen []Span) (*Result, error) {
	body, err := e.prepare(text)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	cur := body
	skip := map[string]bool{} // fixes dropped for breaking the parse
	settled, frozen0 := false, frozen
	for pass := 0; pass <= maxPasses; pass++ {
		findings, err := e.runOnce(cur, vs)
		if err != nil {
			return nil, err
		}
		if pass == 0 {
			res.Findings = findings
		}
		var chosen []*Finding
		for i := range findings {
			fd := &findings[i]
			if fd.Fix == nil || len(fd.Fix.Edits) == 0 || skip[fixKey(fd)] {
				continue
			}
			if fd.Fix.Applicability == Unsafe && !e.opts.UnsafeFixes || TouchesFrozen(fd.Fix, frozen) {
				continue
			}
			ok := true
			for _, c := range chosen {
				if conflicts(c.Fix, fd.Fix) {
					ok = false // waits for the next pass
					break
				}
			}
			if ok {
				chosen = append(chosen, fd)
			}
		}
		if len(chosen) == 0 {
			settled = true
			break
		}
		if pass == maxPasses {
			break // still fixing: a fix that does not remove its finding
		}
		next, done, dropped := applyVerified(cur, chosen)
		for _, d := range dropped {
			skip[fixKey(d)] = true
			res.Dropped = append(res.Dropped, fmt.Sprintf("%s %s: its fix would not parse; not applied (internal error, please report)", d.Code, d.Name))
		}
		res.Passes = pass + 1
		frozen = shiftSpans(frozen, done)
		if bytes.Equal(next, cur) {
			if len(dropped) == 0 {
				settled = true
				break
			}
			continue
		}
		cur = next
	}
	if !settled {
		// Writing a half-fixed file (the same line added eight times) is
		// worse than writing nothing.
		cur, frozen = body, frozen0
		res.Dropped = append(res.Dropped, fmt.Sprintf("the fixes did not settle after %d passes; none applied (internal error, please report)", maxPasses))
	}
	out := cur
	if bytes.HasPrefix(text, bom) {
		out = append(append([]byte{}, bom...), cur...)
	}
	res.Output = out
	res.Changed = !bytes.Equal(out, text)
	res.Frozen = frozen
	return res, nil
}

func fixKey(f *Finding) string { return f.Code + "\x00" + f.Message }

// applyVerified applies the chosen fixes together and keeps the result if it
// parses; otherwise it adds them one at a time, dropping each that breaks
// the parse. Every attempt applies edits to the original text: offsets are
// the original's, and a fix applied first (an import at the top) would
// shift the places of the others. It returns the text, the edits applied
// and the fixes dropped.
func applyVerified(text []byte, chosen []*Finding) ([]byte, []Edit, []*Finding) {
	var all []Edit
	for _, c := range chosen {
		all = append(all, c.Fix.Edits...)
	}
	all = withoutRepeats(all)
	if out, err := applyEdits(text, all); err == nil && Parses(out) == nil {
		return out, all, nil
	}
	var dropped []*Finding
	var kept []Edit
	cur := text
	for _, c := range chosen {
		edits := withoutRepeats(append(append([]Edit(nil), kept...), c.Fix.Edits...))
		out, err := applyEdits(text, edits)
		if err == nil && Parses(out) == nil {
			kept, cur = edits, out
			continue
		}
		// A fix that parses alone only clashed with another (two keywords
		// inserted at one place): it waits for the next pass, recomputed
		// on the new text. One that breaks the parse alone is dropped.
		if alone, err := applyEdits(text, c.Fix.Edits); err != nil || Parses(alone) != nil {
			dropped = append(dropped, c)
		}
	}
	return cur, kept, dropped
}

// withoutRepeats drops an insertion identical to an earlier one: two fixes
// that each add the import they need add it once.
func withoutRepeats(edits []Edit) []Edit {
	out := edits[:0:0]
	for i, e := range edits {
		repeat := false
		for _, prev := range edits[:i] {
			if e.Start == e.End && e == prev {
				repeat = true
				break
			}
		}
		if !repeat {
			out = append(out, e)
		}
	}
	return out
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

// runOnce parses text, refuses a syntax error, and runs every rule.
func (e *Engine) runOnce(text []byte, vs Versions) ([]Finding, error) {
	q, err := loadQueries()
	if err != nil {
		return nil, err
	}
	tree, err := parse(text, e.opts.ParseTimeout)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	src := NewSource(text)
	root := tree.RootNode()
	src.root = root
	if se := firstSyntaxError(root, src); se != nil {
		return nil, se
	}
	if tooDeep(root) {
		return nil, ErrTooDeep
	}
	file := buildFile(src, root, q)
	var findings []Finding
	pass := &Pass{Src: src, File: file, Versions: e.opts.Target.Merge(vs), findings: &findings}
	for _, r := range e.rules {
		pass.rule = r
		if err := runRule(r, pass); err != nil {
			return nil, err
		}
	}
	findings = suppress(src, findings)
	for i := range findings {
		findings[i].Begin = src.Position(findings[i].Start)
		findings[i].Finish = src.Position(findings[i].End)
	}
	sortFindings(findings)
	return findings, nil
}

// runRule runs one rule; a rule that panics fails this file with an error
// naming it, and a bulk run goes on with the next file.
func runRule(r *Rule, pass *Pass) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &RuleError{Code: r.Code, Name: r.Name, Panic: fmt.Sprint(p)}
		}
	}()
	r.Run(pass)
	return nil
}

// RuleError is a rule's internal error (a panic) on one file.
type RuleError struct{ Code, Name, Panic string }

func (e *RuleError) Error() string {
	return fmt.Sprintf("internal error in %s %s: %s (please report)", e.Code, e.Name, e.Panic)
}

// Pass is what a rule's Run gets: the source, the facts, and Report.
type Pass struct {
	Src      *Source
	File     *File
	Versions Versions
	rule     *Rule
	findings *[]Finding
}

// Report records a finding of the running rule.
func (p *Pass) Report(f Finding) {
	f.Code, f.Name = p.rule.Code, p.rule.Name
	if f.Severity == "" {
		f.Severity = p.rule.Severity
	}
	if f.Fix != nil && f.Fix.Applicability == "" {
		f.Fix.Applicability = Safe
	}
	*p.findings = append(*p.findings, f)
}
