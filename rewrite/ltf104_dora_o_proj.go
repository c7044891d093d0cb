package rewrite

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

var doraOProj = &Rule{
	Code:     "LTF104",
	Name:     "dora-o-proj",
	Summary:  "DoRA on o_proj of Llama-3.1-8B gives NaN whatever the dtype: leave o_proj out",
	Severity: SeverityWarning,
	Profiles: []string{ProfileDefault, ProfileLean},
	Triggers: []string{"use_dora"},
	Doc: `## What it does
Warns when a LoraConfig with use_dora=True targets o_proj (by name,
"all-linear", or a pattern naming it) and the file trains
Llama-3.1-8B.

## Why
The Llama-3.1-8B checkpoint has all-zero rows in o_proj; DoRA divides by
the weight's column norms, so the magnitude vector and its gradient are
NaN from the first step whatever the dtype (peft issue 2049). fp32, eager
attention and the cuDNN fence do not help.

## Example
    LoraConfig(use_dora=True, target_modules=["q_proj", "k_proj", "v_proj", "o_proj"])
with meta-llama/Llama-3.1-8B: leave "o_proj" out, or use plain LoRA there.

## When it stays away
Other models; a model id known only at run time; target_modules held in a
variable. No fix: which modules to adapt is the user's choice.

## Cost
None.

## Evidence

| status | what was run |
| --- | --- |
| mechanism only | peft issue 2049: the real checkpoint's zero rows; random weights cannot show it; not run |`,
	Run: runDoraOProj,
}

var llama31_8b = regexp.MustCompile(`(?i)llama-?3\.1-8b`)

func runDoraOProj(p *Pass) {
	f, text := p.Facts, p.Src.Text
	model := ""
	for _, l := range f.ModelLoads() {
		if l.IDKnown && llama31_8b.MatchString(l.ModelID) && l.Use != semantic.NotTraining {
			model = l.ModelID
			break
		}
	}
	if model == "" {
		return
	}
	for _, c := range f.Calls {
		if c.Method != "LoraConfig" {
			continue
		}
		if v := semantic.KeywordValue(c.Args, "use_dora", text); v == nil || v.Content(text) != "True" {
			continue
		}
		tm := semantic.KeywordValue(c.Args, "target_modules", text)
		if tm == nil || !namesOProj(tm, text) {
			continue
		}
		p.Report(Finding{Start: tm.Start(), End: tm.End(),
			Message: fmt.Sprintf("DoRA on o_proj of %s gives NaN from the first step whatever the dtype (zero rows in the checkpoint; peft issue 2049): leave o_proj out of target_modules or use plain LoRA", model)})
	}
}

// namesOProj: a list naming "o_proj", "all-linear", or a string pattern
// that mentions o_proj.
func namesOProj(n *syntree.Node, text []byte) bool {
	if s, ok := semantic.StringValue(n, text); ok {
		return s == "all-linear" || strings.Contains(s, "o_proj")
	}
	if n.Type() != "list" && n.Type() != "tuple" && n.Type() != "set" {
		return false
	}
	for _, c := range n.NamedChildren() {
		if s, ok := semantic.StringValue(c, text); ok && (s == "o_proj" || strings.HasSuffix(s, ".o_proj")) {
			return true
		}
	}
	return false
}
