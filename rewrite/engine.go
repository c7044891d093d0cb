package rewrite

import (
	"bytes"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"
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
	// words are the distinct prefilter words; trainingIDs index
	// trainingWords among them.
	words       [][]byte
	trainingIDs []int
	anchors     []anchor // the trigger words, grouped by anchor byte
}

// gate is one rule's prefilter: any of words, and, for a TrainingOnly rule,
// any of trainingWords too. Words are indexes into Engine.words, so that a
// word shared by several rules is searched once per file.
type gate struct {
	words    []int
	also     []int // Rule.Also: one of these too, when set
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
	index := map[string]int{}
	ids := func(words []string) []int {
		var out []int
		for _, w := range words {
			i, ok := index[w]
			if !ok {
				i = len(e.words)
				index[w] = i
				e.words = append(e.words, []byte(w))
			}
			out = append(out, i)
		}
		return out
	}
	e.trainingIDs = ids(trainingWords)
	for _, r := range rules {
		if slices.Contains(r.Triggers, "") || slices.Contains(r.Also, "") {
			return nil, fmt.Errorf("rule %s: an empty prefilter word", r.Code)
		}
		e.gates = append(e.gates, gate{words: ids(r.Triggers), also: ids(r.Also), training: r.TrainingOnly})
	}
	var triggers []int // every gate's words, searched first
	seen := map[int]bool{}
	for _, g := range e.gates {
		for _, i := range g.words {
			if !seen[i] {
				seen[i] = true
				triggers = append(triggers, i)
			}
		}
	}
	e.anchors = anchorWords(e.words, triggers)
	return e, nil
}

// Rules are the rules this engine runs, in code order.
func (e *Engine) Rules() []*Rule { return e.rules }

// MayMatch is the prefilter: false means no selected rule can find
// anything, so the file need not be parsed. It is decided in two steps:
// one search for the trigger words of every rule (most files of a tree
// hold none, and are done), then, for the rules whose triggers are there,
// their Also words and the training signal, each searched once and only
// when asked.
func (e *Engine) MayMatch(text []byte) bool {
	// found[i]: 0 not searched yet, 1 present, 2 absent, for each of e.words.
	var small [64]uint8
	found := small[:0]
	if len(e.words) <= len(small) {
		found = small[:len(e.words)]
	} else {
		found = make([]uint8, len(e.words))
	}
	e.search(text, found)
	triggered := false
	for _, g := range e.gates {
		for _, i := range g.words {
			triggered = triggered || found[i] == 1
		}
	}
	if !triggered {
		return false
	}
	has := func(i int) bool {
		if found[i] == 0 {
			found[i] = 2
			if bytes.Contains(text, e.words[i]) {
				found[i] = 1
			}
		}
		return found[i] == 1
	}
	anyOf := func(ids []int) bool {
		for _, i := range ids {
			if has(i) {
				return true
			}
		}
		return false
	}
	training := -1 // -1: not looked at yet
	for _, g := range e.gates {
		if !anyOf(g.words) || len(g.also) > 0 && !anyOf(g.also) {
			continue
		}
		if !g.training {
			return true
		}
		if training < 0 {
			training = 0
			if anyOf(e.trainingIDs) || hasTrainingCall(text) {
				training = 1
			}
		}
		if training == 1 {
			return true
		}
	}
	return false
}

// anchor is a byte and the words (at most 64) searched by it: one
// vectorised IndexByte pass finds each occurrence of the byte, and two
// table lookups on the bytes around it (prev, next: bit k set when
// words[k] allows that byte there) leave the few words worth comparing.
// Words that share a byte share a pass: "_" anchors every snake_case
// trigger word at once.
type anchor struct {
	b          byte
	words      []anchored
	prev, next [256]uint64
}

// anchored is a word (an index into Engine.words) and where in it the
// anchor byte lies.
type anchored struct{ id, off int }

// byteFreq is how often each ASCII byte occurs in Python source, per
// 100,000 bytes (counted over CPython 3.11's library with its
// site-packages); other bytes count as 0.
var byteFreq = [128]uint16{
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2836, 0, 0, 18, 0, 0, // 0x00
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0x10
	26355, 16, 1244, 267, 12, 36, 7, 883, 1332, 1331, 334, 136, 1648, 454, 1250, 126, // 0x20
	577, 527, 429, 273, 212, 206, 169, 153, 159, 151, 1056, 13, 39, 822, 201, 19, // 0x30
	27, 332, 95, 231, 170, 346, 154, 115, 64, 234, 18, 44, 175, 152, 253, 139, // 0x40
	191, 33, 223, 342, 348, 79, 65, 96, 31, 22, 28, 289, 159, 289, 10, 1591, // 0x50
	148, 3642, 697, 1882, 1777, 6516, 1669, 896, 954, 3325, 92, 370, 2464, 1402, 3277, 3199, // 0x60
	1582, 158, 3686, 4014, 4460, 1446, 422, 402, 598, 734, 107, 96, 42, 96, 14, 0, // 0x70
}

// passCost is what one IndexByte pass over a text costs, counted in stops
// at a byte of the text (a stop costs some 5 ns, a pass some 8 ns per 100
// bytes: measured on the haystack of bench/run.sh).
const passCost = 1300

// anchorWords chooses the anchor bytes of words[ids...]: greedily, the
// byte that covers the most words left per unit of cost (a pass plus its
// stops), until every word is covered.
func anchorWords(words [][]byte, ids []int) []anchor {
	freq := func(b byte) int {
		if b < 128 {
			return int(byteFreq[b])
		}
		return 0
	}
	left := append([]int(nil), ids...)
	var out []anchor
	for len(left) > 0 {
		best, bestScore := byte(0), -1.0
		for b := 0; b < 256; b++ {
			n := 0
			for _, id := range left {
				if bytes.IndexByte(words[id], byte(b)) >= 0 {
					n++
				}
			}
			if score := float64(n) / float64(passCost+freq(byte(b))); n > 0 && score > bestScore {
				best, bestScore = byte(b), score
			}
		}
		a := anchor{b: best}
		var rest []int
		for _, id := range left {
			off := bytes.IndexByte(words[id], best)
			if off < 0 || len(a.words) == 64 {
				rest = append(rest, id)
				continue
			}
			bit := uint64(1) << len(a.words)
			a.words = append(a.words, anchored{id, off})
			w := words[id]
			for c := range 256 {
				if off == 0 || w[off-1] == byte(c) {
					a.prev[c] |= bit
				}
				if off == len(w)-1 || w[off+1] == byte(c) {
					a.next[c] |= bit
				}
			}
		}
		out = append(out, a)
		left = rest
	}
	return out
}

// search sets found[i] to 1 for each anchored word that text contains,
// and to 2 for each that it does not.
func (e *Engine) search(text []byte, found []uint8) {
	for ai := range e.anchors {
		a := &e.anchors[ai]
		left := uint64(1)<<len(a.words) - 1
		if len(a.words) == 64 {
			left = ^uint64(0)
		}
		for p := 0; left != 0 && p < len(text); p++ {
			i := bytes.IndexByte(text[p:], a.b)
			if i < 0 {
				break
			}
			p += i
			// Beyond either end reads as 0, a byte no word holds.
			var before, after byte
			if p > 0 {
				before = text[p-1]
			}
			if p+1 < len(text) {
				after = text[p+1]
			}
			for cand := a.prev[before] & a.next[after] & left; cand != 0; cand &= cand - 1 {
				k := bits.TrailingZeros64(cand)
				w := a.words[k]
				word := e.words[w.id]
				start := p - w.off
				if start >= 0 && start+len(word) <= len(text) && bytes.Equal(text[start:start+len(word)], word) {
					found[w.id] = 1
					left &^= 1 << k
				}
			}
		}
		for k, w := range a.words {
			if left&(1<<k) != 0 {
				found[w.id] = 2
			}
		}
	}
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
	findings, tree, err := e.runOnce(body, vs, nil)
	if err != nil {
		return nil, err
	}
	tree.Close()
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
	var tree *sitter.Tree // the parse of cur; nil: runOnce parses it
	for pass := 0; pass <= maxPasses; pass++ {
		findings, used, err := e.runOnce(cur, vs, tree)
		if tree = used; err != nil {
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
		next, done, dropped, nextTree := applyVerified(cur, tree, chosen, e.opts.ParseTimeout)
		for _, d := range dropped {
			skip[fixKey(d)] = true
			res.Dropped = append(res.Dropped, fmt.Sprintf("%s %s: its fix would not parse; not applied (internal error, please report)", d.Code, d.Name))
		}
		res.Passes = pass + 1
		frozen = shiftSpans(frozen, done)
		if bytes.Equal(next, cur) {
			if nextTree != nil {
				nextTree.Close()
			}
			if len(dropped) == 0 {
				settled = true
				break
			}
			continue
		}
		tree.Close()
		cur, tree = next, nextTree // the next pass reads the tree the check made
	}
	if tree != nil {
		tree.Close()
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
// shift the places of the others. It returns the text, the edits applied,
// the fixes dropped and, when all applied together, the text's tree.
func applyVerified(text []byte, tree *sitter.Tree, chosen []*Finding, limit time.Duration) ([]byte, []Edit, []*Finding, *sitter.Tree) {
	all := withoutRepeats(mergedEdits(chosen))
	if out, err := applyEdits(text, all); err == nil {
		if tree := verified(out, edited(tree, text, all), limit); tree != nil {
			return out, all, nil, tree
		}
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
	return cur, kept, dropped, nil
}

// mergedEdits are the edits of the chosen fixes, those that add items to
// one list rendered as one addition, where the first of them adds.
func mergedEdits(chosen []*Finding) []Edit {
	items := map[string][]string{} // claim -> the items added, in order
	for _, c := range chosen {
		if a := c.Fix.add; a != nil {
			items[a.claim] = append(items[a.claim], a.item)
		}
	}
	var all []Edit
	for _, c := range chosen {
		a := c.Fix.add
		if a == nil || len(items[a.claim]) == 1 {
			all = append(all, c.Fix.Edits...)
			continue
		}
		for _, e := range c.Fix.Edits {
			if !slices.Contains(a.edits, e) {
				all = append(all, e)
			}
		}
		if its := items[a.claim]; its != nil {
			all = append(all, a.render(its)...)
			items[a.claim] = nil // rendered once
		}
	}
	return all
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

// verified parses text and returns its tree when it has no ERROR or
// MISSING node, else nil. old, when not nil, is the tree of the text
// before the edits that made text, edited to match (see edited); the
// parse reuses what the edits left alone, and closes old.
func verified(text []byte, old *sitter.Tree, limit time.Duration) *sitter.Tree {
	tree, err := reparse(old, text, limit)
	if old != nil {
		old.Close()
	}
	if err != nil {
		return nil
	}
	if tree.RootNode().HasError() {
		tree.Close()
		return nil
	}
	return tree
}

// edited returns a copy of tree, the parse of text, told of edits (as
// applyEdits applies them) so that a parse of the edited text can reuse
// the subtrees they leave alone: tree-sitter's incremental parsing gives
// the tree a parse from scratch gives, for a fraction of the work.
func edited(tree *sitter.Tree, text []byte, edits []Edit) *sitter.Tree {
	if tree == nil {
		return nil
	}
	cp := tree.Copy()
	// The edits in the order they were applied, told from the last to the
	// first, so that each one's offsets and points in text still hold when
	// it is told (an insertion and a replacement at one place included).
	es := inOrder(edits)
	for i := len(es) - 1; i >= 0; i-- {
		e := es[i]
		at := pointOf(text, e.Start)
		cp.Edit(sitter.EditInput{
			StartIndex:  uint32(e.Start),
			OldEndIndex: uint32(e.End),
			NewEndIndex: uint32(e.Start + len(e.NewText)),
			StartPoint:  at,
			OldEndPoint: pointOf(text, e.End),
			NewEndPoint: advance(at, e.NewText),
		})
	}
	return cp
}

// pointOf is the row and byte column of offset in text, as tree-sitter
// counts them.
func pointOf(text []byte, offset int) sitter.Point {
	line := bytes.LastIndexByte(text[:offset], '\n') + 1
	return sitter.Point{Row: uint32(bytes.Count(text[:offset], []byte("\n"))), Column: uint32(offset - line)}
}

// advance is the point after s, written from p.
func advance(p sitter.Point, s string) sitter.Point {
	if n := strings.Count(s, "\n"); n > 0 {
		return sitter.Point{Row: p.Row + uint32(n), Column: uint32(len(s) - strings.LastIndexByte(s, '\n') - 1)}
	}
	return sitter.Point{Row: p.Row, Column: p.Column + uint32(len(s))}
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

// runOnce refuses a syntax error and runs every rule over text. tree is
// the parse of text, or nil to parse it here. It returns the tree it used,
// for the caller to close; on an error it closes the tree itself.
func (e *Engine) runOnce(text []byte, vs Versions, tree *sitter.Tree) (_ []Finding, _ *sitter.Tree, err error) {
	q, err := loadQueries()
	if err != nil {
		if tree != nil {
			tree.Close()
		}
		return nil, nil, err
	}
	parsedHere := tree == nil
	if parsedHere {
		if tree, err = parse(text, e.opts.ParseTimeout); err != nil {
			return nil, nil, err
		}
	}
	defer func() {
		if err != nil {
			tree.Close()
		}
	}()
	src := NewSource(text)
	root := tree.RootNode()
	src.root = root
	if se := firstSyntaxError(root, src); se != nil {
		return nil, nil, se
	}
	// A tree handed in is the verified parse of a later fix pass: the
	// first pass, which parsed here, already checked the depth.
	if parsedHere && tooDeep(root) {
		return nil, nil, ErrTooDeep
	}
	file := buildFile(src, root, q)
	var findings []Finding
	pass := &Pass{Src: src, File: file, Versions: e.opts.Target.Merge(vs), findings: &findings}
	for _, r := range e.rules {
		pass.rule = r
		if err := runRule(r, pass); err != nil {
			return nil, nil, err
		}
	}
	findings = suppress(src, root, findings)
	for i := range findings {
		findings[i].Begin = src.Position(findings[i].Start)
		findings[i].Finish = src.Position(findings[i].End)
	}
	sortFindings(findings)
	return dedupe(findings), tree, nil
}

// dedupe drops a finding equal to the one before it: two loads that share
// one **kwargs dict report its entry once.
func dedupe(fs []Finding) []Finding {
	out := fs[:0]
	for i, f := range fs {
		if i > 0 {
			prev := out[len(out)-1]
			if prev.Code == f.Code && prev.Start == f.Start && prev.End == f.End && prev.Message == f.Message {
				continue
			}
		}
		out = append(out, f)
	}
	return out
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
