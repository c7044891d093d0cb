package rewrite

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/loratune/loratune-fix/finding"
)

// maxPasses bounds the fix loop; fixes that keep producing fixes are a bug.
const maxPasses = 8

// A FrontEnd is what the fix loop needs of one kind of text: Python (the
// engine's rules, pyFront) or a launch config (package launch). The loop
// itself, the choice of fixes, their verification and the outcomes are
// one for all. P is the front end's parse of a text, handed from the check
// of one pass's output to the rules of the next; its zero value is none.
type FrontEnd[P comparable] interface {
	// Analyse runs the rules over text, whose parse is p (zero: parse it).
	// It returns the parse it read, which the loop closes; on an error it
	// has closed it itself.
	Analyse(text []byte, p P) ([]Finding, P, error)
	// Verify is the parse of after (before, parsed as p, with edits
	// applied), or zero when after does not parse, or not as the same kind
	// of file. whole: after holds every fix of the pass, and Applied reads
	// its parse next.
	Verify(before []byte, p P, after []byte, edits []Edit, whole bool) P
	// Applied is called once the fixes chosen went in (done: their edits)
	// and made after of before; np is after's parse, or zero when they
	// went in one at a time. It returns after's parse (it may make one),
	// and the fixes the output refuses: a refused fix is skipped and the
	// pass chosen again without it.
	Applied(before, after []byte, p, np P, done []Edit, chosen []*Finding) (P, []Refusal)
	Close(P)
}

// FixLoop applies the fixes fe's rules find in text (no byte order mark),
// pass after pass, until none is left, and says for each finding of text
// what became of it (Finding.Outcome). tree is text's parse, or zero.
// frozen are spans of text no fix may touch. A fix whose output would not
// parse is dropped and named in Result.Dropped; fixes that do not settle
// are all undone. Result.Output is the output, without a byte order mark;
// Changed is the caller's to set.
func FixLoop[P comparable](e *Engine, fe FrontEnd[P], text []byte, tree P, frozen []Span) (*Result, error) {
	var none P
	res := &Result{}
	cur := text
	choice := NewFixChoice(e.opts.UnsafeFixes)
	settled, frozen0 := false, frozen
	var last []Finding // the findings of cur
	// confirm: a fix was deferred, dropped or had overlapping edits, or an
	// edit reached into a finding not applied (which it may have removed),
	// so only a pass over the output can say what is left.
	// Otherwise every reported fix went in at once, each removes its own
	// finding (the golden fixtures check that a second run changes
	// nothing), and the findings left are those whose fix was not applied.
	confirm := false
	// again: the findings of cur, when a guard refused a fix and the pass
	// is chosen again without it on the same text (the rules would find
	// the same).
	var again []Finding
	for pass := 0; pass <= maxPasses; pass++ {
		findings := again
		if again == nil {
			var used P
			var err error
			findings, used, err = fe.Analyse(cur, tree)
			if tree = used; err != nil {
				return nil, err
			}
		}
		again = nil
		last = findings
		chosen, deferred := choice.Choose(pass, findings, func(fd *Finding) bool { return finding.FrozenRefuses(fd, frozen) })
		confirm = confirm || deferred
		if pass == 0 {
			res.Findings = findings
		}
		if len(chosen) == 0 {
			settled = true
			break
		}
		if pass == maxPasses {
			break // still fixing: a fix that does not remove its finding
		}
		next, done, dropped, nextTree := applyVerified(fe, cur, tree, chosen)
		if nextTree == none {
			confirm = true // applied one at a time: some fix waits or was dropped
		}
		nextTree, fails := fe.Applied(cur, next, tree, nextTree, done, chosen)
		if len(fails) > 0 {
			for _, g := range fails {
				if id := choice.ID(g.fix); choice.Skip[id] == "" {
					choice.Skip[id] = g.why + "; not applied"
				}
			}
			confirm = true
			if nextTree != none {
				fe.Close(nextTree)
			}
			again = findings
			continue
		}
		for _, d := range dropped {
			choice.DropUnparsable(d)
		}
		res.Passes = pass + 1
		frozen = shiftSpans(frozen, done)
		if bytes.Equal(next, cur) {
			if nextTree != none {
				fe.Close(nextTree)
			}
			if len(dropped) == 0 {
				settled = true
				break
			}
			continue
		}
		fe.Close(tree)
		cur, tree = next, nextTree // the next pass reads the tree the check made
		left := unapplied(findings, chosen)
		confirm = confirm || touches(done, left)
		if !confirm {
			settled, last = true, left
			break
		}
	}
	if tree != none {
		fe.Close(tree)
	}
	res.Dropped = choice.Dropped
	if !settled {
		// Writing a half-fixed file (the same line added eight times) is
		// worse than writing nothing.
		cur, frozen = text, frozen0
		res.Dropped = append(res.Dropped, fmt.Sprintf("the fixes did not settle after %d passes; none applied (internal error, please report)", maxPasses))
	}
	e.setOutcomes(res.Findings, last, settled, choice.Skip, frozen0)
	res.Output, res.Frozen = cur, frozen
	return res, nil
}

// FixFrozen is Fix with spans of the text (offsets after any byte order
// mark) that no fix may touch; Result.Frozen gives where they lie in the
// output. A notebook freezes its IPython magic lines and cell boundaries.
// ctx stops it as it stops CheckContext.
func (e *Engine) FixFrozen(ctx context.Context, text []byte, vs Versions, frozen []Span) (*Result, error) {
	return e.fix(ctx, text, vs, frozen, nil)
}

// fix is FixFrozen, with the first parse from in when in is not nil.
func (e *Engine) fix(ctx context.Context, text []byte, vs Versions, frozen []Span, in *Incremental) (*Result, error) {
	ctx, cancel := e.bound(ctx)
	defer cancel()
	body, err := e.prepare(text)
	if err != nil {
		return nil, err
	}
	var tree *parsed // the parse of body; nil: the first pass parses it
	if in != nil {
		if err := stopped(ctx); err != nil {
			return nil, err
		}
		ts, err := in.parse(body, parseLimit(ctx))
		if err != nil {
			return nil, err
		}
		tree = &parsed{ts: ts, fresh: true}
	}
	res, err := FixLoop[*parsed](e, pyFront{e, ctx, vs}, body, tree, frozen)
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(text, bom) {
		res.Output = append(append([]byte{}, bom...), res.Output...)
	}
	res.Changed = !bytes.Equal(res.Output, text)
	return res, nil
}

// pyFront is the fix loop's Python: the engine's rules, the incremental
// parse of each output, and the binding and keyword guards.
type pyFront struct {
	e   *Engine
	ctx context.Context
	vs  Versions
}

func (f pyFront) Analyse(text []byte, tree *parsed) ([]Finding, *parsed, error) {
	return f.e.runOnce(f.ctx, text, f.vs, tree)
}

func (f pyFront) Verify(before []byte, tree *parsed, after []byte, edits []Edit, whole bool) *parsed {
	return outputParses(before, tree, after, edits, parseLimit(f.ctx), whole)
}

func (f pyFront) Applied(before, after []byte, tree, next *parsed, done []Edit, chosen []*Finding) (*parsed, []Refusal) {
	// The rules are done with the Go copy of the tree, and the copy of
	// the output has taken what it could from it. On a big file the copy
	// is a third of the memory held.
	tree.releaseGo()
	if bytes.Equal(after, before) {
		return next, nil
	}
	// The binding guard: a fix that reads a name possibly unbound where it
	// puts it is refused, and the pass runs again without.
	if next == nil {
		if ts, err := parse(after, parseLimit(f.ctx)); err == nil {
			next = &parsed{ts: ts}
		}
	}
	if next == nil {
		return nil, nil
	}
	// The keyword guard: a fix that passes a class a keyword it does not
	// take at the pinned version is refused too.
	fails := bindingGuard(before, after, next, done, chosen)
	return next, append(fails, keywordGuard(before, after, tree, next, done, chosen)...)
}

func (pyFront) Close(tree *parsed) { tree.Close() }

// touches reports an edit that reaches into the range of one of
// findings (those whose fix was not applied, or that have none): such a
// finding may be gone from the output, which only a pass over it can tell.
func touches(edits []Edit, findings []Finding) bool {
	for _, fd := range findings {
		for _, e := range edits {
			if e.Start <= fd.End && fd.Start <= e.End {
				return true
			}
		}
	}
	return false
}

// unapplied are the findings of a pass whose fix was not among chosen:
// what a pass over the output would find again.
func unapplied(findings []Finding, chosen []*Finding) []Finding {
	applied := map[*Finding]bool{}
	for _, c := range chosen {
		applied[c] = true
	}
	var left []Finding
	for i := range findings {
		if !applied[&findings[i]] {
			left = append(left, findings[i])
		}
	}
	return left
}

// fixKey is a finding's code and message, with the line numbers the
// message quotes ("at line 12") left out: a fix above that line moves it,
// and the same finding must keep its name from one pass to the next.
func fixKey(f *Finding) string {
	msg := f.Message
	if strings.Contains(msg, "line") {
		msg = lineRef.ReplaceAllString(msg, "line #")
	}
	return f.Code + "\x00" + msg
}

var lineRef = regexp.MustCompile(`\blines? \d+(?:-\d+)?`)

// setOutcomes says, for each finding of the original text, what the fix
// loop did with it, so that check reports what fix --write does: fixed
// when the output no longer has it (by code and message: the text it
// covers may have been edited by another fix), else why not. final are the findings of out, the text the loop
// ended with.
func (e *Engine) setOutcomes(findings, final []Finding, settled bool, dropped map[string]string, frozen []Span) {
	ids := identities(findings)
	remaining := map[string]int{}
	if settled {
		for i := range final {
			remaining[fixKey(&final[i])]++
		}
	}
	// Twins (the same code and message) are told apart by what was done
	// with each: those whose fix was refused or never applied take the
	// places left in the output first, so a fixed twin is not reported
	// as left and a refused one as fixed.
	stays := func(fd *Finding) bool {
		return dropped[ids[fd]] != "" || fd.Withheld != "" || fd.Fix == nil || len(fd.Fix.Edits) == 0 ||
			fd.Fix.Applicability == Unsafe && !e.opts.UnsafeFixes || finding.FrozenRefuses(fd, frozen)
	}
	left := make([]bool, len(findings))
	for _, first := range []bool{true, false} {
		for i := range findings {
			fd := &findings[i]
			if stays(fd) != first {
				continue
			}
			k := fixKey(fd)
			left[i] = !settled || remaining[k] > 0
			if left[i] && settled {
				remaining[k]--
			}
		}
	}
	for i := range findings {
		fd := &findings[i]
		left := left[i]
		fd.Outcome, fd.Reason = finding.OutcomeNotFixed, ""
		switch {
		case !left:
			fd.Outcome = finding.OutcomeFixed
		case dropped[ids[fd]] != "":
			// A fix the engine refused (binding guard, parse) is not
			// offered either: JSON, SARIF and review would apply it.
			fd.Reason, fd.Fix = dropped[ids[fd]], nil
		case fd.Withheld != "":
			fd.Reason = fd.Withheld
		case fd.Fix == nil || len(fd.Fix.Edits) == 0:
			fd.Reason = "no automatic fix: the message says what to do"
		case !settled:
			fd.Reason = fmt.Sprintf("the fixes did not settle after %d passes, so none is applied (internal error, please report)", maxPasses)
		case fd.Fix.Applicability == Unsafe && !e.opts.UnsafeFixes:
			fd.Outcome = finding.OutcomeUnsafe
		case finding.FrozenRefuses(fd, frozen):
			fd.Reason = "its fix would touch an IPython magic line or span two cells"
		default:
			fd.Reason = "still found once the fixes are applied"
		}
	}
}

// verified parses text and returns its tree when it has no ERROR or
