package rewrite

import (
	"bytes"
	"context"
	"fmt"

	"github.com/loratune/loratune-fix/finding"
)

// maxPasses bounds the fix loop; fixes that keep producing fixes are a bug.
const maxPasses = 8

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
	res := &Result{}
	cur := body
	choice := NewFixChoice(e.opts.UnsafeFixes)
	settled, frozen0 := false, frozen
	var tree *parsed // the parse of cur; nil: runOnce parses it
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
	var last []Finding // the findings of cur
	// confirm: a fix was deferred, dropped or had overlapping edits, or an
	// edit reached into a finding not applied (which it may have removed),
	// so only a pass over the output can say what is left.
	// Otherwise every reported fix went in at once, each removes its own
	// finding (the golden fixtures check that a second run changes
	// nothing), and the findings left are those whose fix was not applied.
	confirm := false
	// again: the findings of cur, when the binding guard refused a fix
	// and the pass is chosen again without it on the same text (the rules
	// would find the same).
	var again []Finding
	for pass := 0; pass <= maxPasses; pass++ {
		findings := again
		if again == nil {
			var used *parsed
			var err error
			findings, used, err = e.runOnce(ctx, cur, vs, tree)
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
		next, done, dropped, nextTree := applyVerified(cur, tree, chosen, parseLimit(ctx))
		// The rules are done with the Go copy of the tree, and the copy of
		// the output has taken what it could from it. On a big file the
		// copy is a third of the memory held.
		tree.releaseGo()
		if nextTree == nil {
			confirm = true // applied one at a time: some fix waits or was dropped
		}
		if !bytes.Equal(next, cur) {
			// The binding guard: a fix that reads a name possibly unbound
			// where it puts it is dropped, and the pass runs again without.
			if nextTree == nil {
				if ts, err := parse(next, parseLimit(ctx)); err == nil {
					nextTree = &parsed{ts: ts}
				}
			}
			// The keyword guard: a fix that passes a class a keyword it does
			// not take at the pinned version is dropped too.
			if nextTree != nil {
				fails := bindingGuard(cur, next, nextTree, done, chosen)
				fails = append(fails, keywordGuard(cur, next, tree, nextTree, done, chosen)...)
				if len(fails) > 0 {
					for _, g := range fails {
						if id := choice.ID(g.fix); choice.Skip[id] == "" {
							choice.Skip[id] = g.why + "; not applied"
						}
					}
					confirm = true
					nextTree.Close()
					again = findings
					continue
				}
			}
		}
		for _, d := range dropped {
			choice.DropUnparsable(d)
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
		left := unapplied(findings, chosen)
		confirm = confirm || touches(done, left)
		if !confirm {
			settled, last = true, left
			break
		}
	}
	if tree != nil {
		tree.Close()
	}
	res.Dropped = choice.Dropped
	if !settled {
		// Writing a half-fixed file (the same line added eight times) is
		// worse than writing nothing.
		cur, frozen = body, frozen0
		res.Dropped = append(res.Dropped, fmt.Sprintf("the fixes did not settle after %d passes; none applied (internal error, please report)", maxPasses))
	}
	e.setOutcomes(res.Findings, last, settled, choice.Skip, frozen0)
	out := cur
	if bytes.HasPrefix(text, bom) {
		out = append(append([]byte{}, bom...), cur...)
	}
	res.Output = out
	res.Changed = !bytes.Equal(out, text)
	res.Frozen = frozen
	return res, nil
}

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

func fixKey(f *Finding) string { return f.Code + "\x00" + f.Message }

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
