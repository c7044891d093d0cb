package rewrite

import (
	"context"
	"fmt"

	"github.com/loratune/loratune-fix/pyedit"
	"github.com/loratune/loratune-fix/semantic"
)

// runOnce refuses a syntax error and runs every rule over text. tree is
// the parse of text, or nil to parse it here. It returns the tree it used,
// for the caller to close; on an error it closes the tree itself. ctx is
// looked at before each rule (see stopped).
func (e *Engine) runOnce(ctx context.Context, text []byte, vs Versions, tree *parsed) (_ []Finding, _ *parsed, err error) {
	q, err := semantic.LoadQueries()
	if err != nil {
		if tree != nil {
			tree.Close()
		}
		return nil, nil, err
	}
	parsedHere := tree == nil
	checkDepth := parsedHere || tree.fresh
	if parsedHere {
		if err := stopped(ctx); err != nil {
			return nil, nil, err
		}
		ts, err := parse(text, parseLimit(ctx))
		if err != nil {
			return nil, nil, err
		}
		tree = &parsed{ts: ts}
	}
	defer func() {
		if err != nil {
			tree.Close()
		}
	}()
	src := semantic.NewSource(text)
	src.LineLength = e.opts.LineLength
	if tree.ts.RootNode().HasError() {
		if se := firstSyntaxError(tree.goTree().Root(), src); se != nil {
			return nil, nil, se
		}
	}
	pt := tree.goTree()
	root := pt.Root()
	src.Root = root
	if se := firstSyntaxError(root, src); se != nil {
		return nil, nil, se
	}
	// A tree handed in is the verified parse of a later fix pass: the
	// first pass, which parsed here, already checked the depth.
	if checkDepth && tooDeep(root) {
		return nil, nil, ErrTooDeep
	}
	file := semantic.BuildFacts(src, pt, q)
	var findings []Finding
	pass := &Pass{Src: src, Facts: file, Versions: e.opts.Target.Merge(withVendored(file, vs)), rules: e.rules, findings: &findings}
	tree.resolve, tree.pins = file.Resolve, pass.Versions
	for _, r := range e.rules {
		if err := stopped(ctx); err != nil {
			return nil, nil, err
		}
		pass.rule = r
		if err := runRule(r, pass); err != nil {
			return nil, nil, err
		}
	}
	findings = suppress(src, root, findings)
	for i := range findings {
		findings[i].StartPos = src.Position(findings[i].Start)
		findings[i].EndPos = src.Position(findings[i].End)
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
	Src      *semantic.Source
	Facts    *semantic.Facts
	Versions Versions
	rule     *Rule
	rules    []*Rule // the rules of this run
	findings *[]Finding
}

// Runs reports whether the rule with code runs in this run: two rules
// that would fix one thing (LTF002 and LTF010 on a Gemma-2 load) leave it
// to one of them.
func (p *Pass) Runs(code string) bool {
	for _, r := range p.rules {
		if r.Code == code {
			return true
		}
	}
	return false
}

// Withhold is the scope decision every front end makes (Python here,
// launch configs in launch/): a training rule's finding outside adapter
// training keeps its message and loses its fix (why says so).
func Withhold(f *Finding, why string) {
	if f.Fix == nil && f.Severity != SeverityError {
		// A warning with no fix (a load the flow cannot follow, a value
		// decided at run time) stays one.
		return
	}
	// A fix withheld, or an error the tool will never fix here: a note,
	// so that check passes.
	if f.Fix != nil {
		f.Fix, f.Withheld = nil, why
	}
	f.Severity = SeverityInfo
}

// Report records a finding of the running rule.
func (p *Pass) Report(f Finding) {
	f.Code, f.Name = p.rule.Code, p.rule.Name
	if f.Severity == "" {
		f.Severity = p.rule.Severity
	}
	if p.Facts.Dead(f.Start) {
		return // code a constant condition never runs
	}
	if p.rule.TrainingOnly {
		// Adapter training only: elsewhere the finding stays, its fix goes,
		// and it is a note, as the tool will never fix it (scope.go).
		why := p.Facts.NotEditedBecause()
		l := p.Facts.LoadAt(f.Start, f.End)
		switch {
		case why == "" && l != nil && !l.Adapter:
			why = "full fine-tune: this load reaches no adapter on its way to training"
		case why == "" && l != nil && l.OptionalAdapter && !p.rule.FullFineTuneToo:
			// Not a note: the adapter run needs the fix, by hand.
			if f.Fix != nil {
				f.Fix, f.Withheld = nil, "the adapter is optional here (applied under a run-time condition): the fix would change the full fine-tune path too; make it on the adapter path by hand"
			}
			if f.Severity == SeverityError {
				f.Severity = SeverityWarning
			}
		}
		if why != "" {
			if f.Fix == nil && f.Severity == SeverityWarning && !p.Facts.UndecidedAt(f.Start, f.End) {
				// Advice the tool will never act on here (a full fine-tune, a
				// file with no adapter): a note. A load the flow cannot
				// follow keeps its warning: it may be an adapter's.
				f.Severity = SeverityInfo
			}
			Withhold(&f, why)
		}
	}
	if f.Fix != nil && f.Fix.Applicability == "" {
		f.Fix.Applicability = Safe
	}
	if f.Fix != nil && f.Fix.Adds == nil {
		pyedit.RelayGrownList(p.Src, p.Facts.Root, f.Fix)
	}
	*p.findings = append(*p.findings, f)
}
