package rewrite

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/finding"
)

// A fix that does not remove its own finding would add its line on every
// pass once the output is confirmed by a pass (here because a second fix
// at the same place had to wait); after maxPasses the engine applies
// nothing and says so.
func TestFixThatNeverSettlesIsNotApplied(t *testing.T) {
	again := &Rule{Code: "LTF999", Name: "always-again", Severity: SeverityInfo, Run: func(p *Pass) {
		for _, msg := range []string{"again", "and again"} {
			p.Report(Finding{Start: 0, End: 0, Message: msg, Fix: &Fix{Message: "add a line", Edits: []Edit{{Start: 0, End: 0, NewText: "x = 1\n"}}}})
		}
	}}
	e := &Engine{rules: []*Rule{again}}
	src := []byte("import torch\n")
	res, err := e.Fix(src, Versions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed || string(res.Output) != string(src) {
		t.Errorf("an unsettled fix was applied:\n%s", res.Output)
	}
	if len(res.Dropped) != 1 || !strings.Contains(res.Dropped[0], "did not settle") {
		t.Errorf("want one did-not-settle message, got %v", res.Dropped)
	}
}

// Fixes that all go in at once need no confirming pass; a fix that waits
// for another (two keywords inserted at one place) is applied by a second
// pass and the output confirmed by a third, which finds nothing left.
func TestConfirmingPassOnlyAfterAFixWaited(t *testing.T) {
	keyword := func(code, kw, call string) *Rule {
		return &Rule{Code: code, Name: code, Severity: SeverityInfo, Run: func(p *Pass) {
			text := string(p.Src.Text)
			at := strings.Index(text, call+"(")
			if at < 0 {
				return
			}
			at += strings.Index(text[at:], ")")
			if strings.Contains(text[:at], kw) {
				return
			}
			insert := kw
			if text[at-1] != '(' {
				insert = ", " + kw
			}
			p.Report(Finding{Start: at, End: at, Message: kw, Fix: &Fix{Edits: []Edit{{Start: at, End: at, NewText: insert}}}})
		}}
	}
	for _, c := range []struct {
		src, bCall, want string // bCall: the call that gets b=2
		passes           int
	}{
		{"v = g()\nw = h()\n", "h", "v = g(a=1)\nw = h(b=2)\n", 1},
		{"v = g()\n", "g", "v = g(a=1, b=2)\n", 2},
	} {
		e := &Engine{rules: []*Rule{keyword("LTF901", "a=1", "g"), keyword("LTF902", "b=2", c.bCall)}}
		res, err := e.Fix([]byte(c.src), Versions{})
		if err != nil {
			t.Fatal(err)
		}
		if string(res.Output) != c.want || res.Passes != c.passes {
			t.Errorf("%q: output %q after %d passes, want %q after %d", c.src, res.Output, res.Passes, c.want, c.passes)
		}
		for _, f := range res.Findings {
			if f.Outcome != finding.OutcomeFixed {
				t.Errorf("%q: %s %s: outcome %s (%s), want fixed", c.src, f.Code, f.Message, f.Outcome, f.Reason)
			}
		}
		again, err := e.Fix(res.Output, Versions{})
		if err != nil || again.Changed || len(again.Findings) != 0 {
			t.Errorf("%q: the output is not a fixed point: %v %v", c.src, err, again.Findings)
		}
	}
}

// A line for the end of a branch and a block for the statement after the
// branch, inserted at one offset, go in together in one pass, the deeper
// first (the other order is misindented): no rule runs a second time, and
// the output is a fixed point.
func TestBranchLineAndBlockAfterItInOnePass(t *testing.T) {
	runs := map[string]int{}
	// insert puts line before the line "before", or after the line
	// "after" when before is "".
	insert := func(code, line, before, after string) *Rule {
		return &Rule{Code: code, Name: code, Severity: SeverityInfo, Run: func(p *Pass) {
			runs[code]++
			text := string(p.Src.Text)
			if strings.Contains(text, line) {
				return
			}
			at := strings.Index(text, before)
			if before == "" {
				at = strings.Index(text, after) + len(after)
			}
			p.Report(Finding{Start: at, End: at, Message: code, Fix: &Fix{Edits: []Edit{{Start: at, End: at, NewText: line}}}})
		}}
	}
	// The block's rule comes first: in rule order the branch's line
	// would land after the block.
	e := &Engine{rules: []*Rule{insert("LTF901", "x = m\n", "print(m)", ""), insert("LTF902", "    m += 1\n", "", "    m = 2\n")}}
	src := "if c:\n    m = 1\nelse:\n    m = 2\nprint(m)\n"
	res, err := e.Fix([]byte(src), Versions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "if c:\n    m = 1\nelse:\n    m = 2\n    m += 1\nx = m\nprint(m)\n"; string(res.Output) != want {
		t.Errorf("output %q, want %q", res.Output, want)
	}
	if res.Passes != 1 || runs["LTF901"] != 1 || runs["LTF902"] != 1 {
		t.Errorf("%d passes, rules run %v: want one pass and no confirming pass", res.Passes, runs)
	}
	for _, f := range res.Findings {
		if f.Outcome != finding.OutcomeFixed {
			t.Errorf("%s: outcome %s (%s), want fixed", f.Code, f.Outcome, f.Reason)
		}
	}
	if again, err := e.Fix(res.Output, Versions{}); err != nil || again.Changed || len(again.Findings) != 0 {
		t.Errorf("the output is not a fixed point: %v %v", err, again.Findings)
	}
}

// A rule that panics fails the file with an error naming the rule; the
// process goes on.
func TestPanickingRuleIsAnErrorForThatFile(t *testing.T) {
	boom := &Rule{Code: "LTF998", Name: "boom", Severity: SeverityInfo, Run: func(p *Pass) {
		var s []int
		_ = s[1]
	}}
	e := &Engine{rules: []*Rule{boom}}
	_, err := e.Fix([]byte("import torch\n"), Versions{})
	var re *RuleError
	if !errors.As(err, &re) || re.Code != "LTF998" || !strings.Contains(err.Error(), "index out of range") {
		t.Fatalf("want a RuleError naming LTF998, got %v", err)
	}
}

// A fix deferred because it clashes with another (two keywords inserted in
// one place) does not move the frozen spans until it is applied.
func TestFrozenSpansFollowOnlyAppliedEdits(t *testing.T) {
	keyword := func(code, kw string) *Rule {
		return &Rule{Code: code, Name: code, Severity: SeverityInfo, Run: func(p *Pass) {
			text := string(p.Src.Text)
			if strings.Contains(text, kw) {
				return
			}
			at := strings.Index(text, ")")
			insert := kw
			if text[at-1] != '(' {
				insert = ", " + kw
			}
			p.Report(Finding{Start: at, End: at, Message: kw, Fix: &Fix{Edits: []Edit{{Start: at, End: at, NewText: insert}}}})
		}}
	}
	e := &Engine{rules: []*Rule{keyword("LTF901", "a=1"), keyword("LTF902", "b=2")}}
	src := "v = g()\nb = 2\n"
	frozen := []Span{{Start: 8, End: 13}}
	res, err := e.FixFrozen(context.Background(), []byte(src), Versions{}, frozen)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.Output); got != "v = g(a=1, b=2)\nb = 2\n" {
		t.Fatalf("output %q", got)
	}
	if s := res.Frozen[0]; string(res.Output[s.Start:s.End]) != "b = 2" {
		t.Errorf("frozen span moved to %v: %q", s, res.Output[s.Start:s.End])
	}
}

// A later pass applies only the fixes of findings the input had: a finding
// that appears once another fix is applied is left for the next run to
// report, so that every edit of the output belongs to a reported finding.
func TestALaterPassAppliesOnlyReportedFixes(t *testing.T) {
	first := &Rule{Code: "LTF901", Name: "first", Severity: SeverityInfo, Run: func(p *Pass) {
		if !strings.Contains(string(p.Src.Text), "a = 1") {
			p.Report(Finding{Message: "add a", Fix: &Fix{Edits: []Edit{{Start: 0, End: 0, NewText: "a = 1\n"}}}})
		}
	}}
	revealed := &Rule{Code: "LTF902", Name: "revealed", Severity: SeverityInfo, Run: func(p *Pass) {
		text := string(p.Src.Text)
		if strings.Contains(text, "a = 1") && !strings.Contains(text, "b = 2") {
			p.Report(Finding{Message: "add b", Fix: &Fix{Edits: []Edit{{Start: len(text), End: len(text), NewText: "b = 2\n"}}}})
		}
	}}
	e := &Engine{rules: []*Rule{first, revealed}}
	res, err := e.Fix([]byte("import torch\n"), Versions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.Output); got != "a = 1\nimport torch\n" {
		t.Errorf("output %q: an edit no finding of the input reports was applied", got)
	}
	if len(res.Findings) != 1 || len(res.Dropped) != 0 {
		t.Errorf("findings %v, dropped %v", res.Findings, res.Dropped)
	}
}

// A fix whose own edits overlap is a rule's bug: no order of applying them
// is right. It is dropped with an internal-error message, its finding is
// kept without a fix, and the other fixes apply.
func TestAFixWithOverlappingEditsIsDropped(t *testing.T) {
	overlapping := &Rule{Code: "LTF901", Name: "overlapping", Severity: SeverityInfo, Run: func(p *Pass) {
		// Delete "a = 1\n" and insert strictly inside the deleted range.
		p.Report(Finding{Start: 0, End: 5, Message: "bad", Fix: &Fix{Edits: []Edit{{Start: 0, End: 6}, {Start: 2, End: 2, NewText: "x"}}}})
	}}
	fine := &Rule{Code: "LTF902", Name: "fine", Severity: SeverityInfo, Run: func(p *Pass) {
		if text := string(p.Src.Text); !strings.HasSuffix(text, "c = 3\n") {
			p.Report(Finding{Start: 6, End: 11, Message: "good", Fix: &Fix{Edits: []Edit{{Start: len(text), End: len(text), NewText: "c = 3\n"}}}})
		}
	}}
	e := &Engine{rules: []*Rule{overlapping, fine}}
	for _, check := range []bool{false, true} {
		run := e.Fix
		if check {
			run = e.Check
		}
		res, err := run([]byte("a = 1\nb = 2\n"), Versions{})
		if err != nil {
			t.Fatal(err)
		}
		if want := "a = 1\nb = 2\nc = 3\n"; !check && string(res.Output) != want {
			t.Errorf("output %q, want %q", res.Output, want)
		}
		if len(res.Findings) != 2 || res.Findings[0].Fix != nil || res.Findings[1].Fix == nil {
			t.Fatalf("findings %v: want the overlapping fix gone, the other kept", res.Findings)
		}
		if r := res.Findings[0].Reason; !strings.Contains(r, "overlapping edits") {
			t.Errorf("reason %q", r)
		}
		if len(res.Dropped) != 1 || !strings.Contains(res.Dropped[0], "LTF901 overlapping: its fix has overlapping edits") {
			t.Errorf("dropped %v", res.Dropped)
		}
	}
}

// A finding without a fix that another rule's fix removes (LTF010's
// note on a load that LTF002 makes eager) is fixed by the run, and says
// so, though every fix went in in one pass: an edit that reaches into
// the range of a finding not applied calls for the confirming pass. A
// finding no edit reaches stays not fixed without one.
func TestFindingRemovedByAnotherFixIsFixedInOnePass(t *testing.T) {
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	load := "model = AutoModelForCausalLM.from_pretrained(model_id)\n"
	src := "import os\n\nimport torch\nfrom peft import LoraConfig, get_peft_model\n" +
		"from transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n\n" +
		"# gemma: google/gemma-2-2b\nmodel_id = os.environ.get(\"MODEL\", \"google/gemma-2-2b\")\n" + load +
		"model = get_peft_model(model, LoraConfig(r=8))\n" +
		"trainer = Trainer(model=model, args=TrainingArguments(output_dir=\"out\", bf16=True))\ntrainer.train()\n"
	res, err := e.Fix([]byte(src), Versions{})
	if err != nil {
		t.Fatal(err)
	}
	outcome := map[string]finding.Outcome{}
	for _, fd := range res.Findings {
		outcome[fd.Code] = fd.Outcome
	}
	if outcome["LTF010"] != finding.OutcomeFixed || outcome["LTF002"] != finding.OutcomeFixed {
		t.Errorf("outcomes %v: want LTF010 fixed by LTF002's edit", outcome)
	}
	again, err := e.Fix(res.Output, Versions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range again.Findings {
		if fd.Code == "LTF010" {
			t.Errorf("LTF010 is still found in the output:\n%s", res.Output)
		}
	}
}
