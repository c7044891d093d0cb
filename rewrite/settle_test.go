package rewrite

import (
	"errors"
	"strings"
	"testing"
)

// A fix that does not remove its own finding would add its line on every
// pass; after maxPasses the engine applies nothing and says so.
func TestFixThatNeverSettlesIsNotApplied(t *testing.T) {
	again := &Rule{Code: "LTF999", Name: "always-again", Severity: SeverityInfo, Run: func(p *Pass) {
		p.Report(Finding{Start: 0, End: 0, Message: "again", Fix: &Fix{Message: "add a line", Edits: []Edit{{Start: 0, End: 0, NewText: "x = 1\n"}}}})
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
