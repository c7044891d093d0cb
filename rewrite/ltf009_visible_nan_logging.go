package rewrite

import (
	"github.com/loratune/loratune-fix/pyedit"
	"github.com/loratune/loratune-fix/semantic"
)

var visibleNaNLogging = &Rule{
	Code:         "LTF009",
	Name:         "visible-nan-logging",
	Summary:      "logging_nan_inf_filter=False, so a NaN loss prints as nan",
	Severity:     SeverityInfo,
	Profiles:     []string{ProfileDefault, ProfileLean},
	Triggers:     []string{"TrainingArguments", "Config("},
	TrainingOnly: true,
	Doc: `## What it does
Adds logging_nan_inf_filter=False to the training arguments
(TrainingArguments, SFTConfig and TRL's other configs), or turns True into
False.

## Why
With the default filter on, the Trainer leaves NaN micro-batch losses out
of the running sum: the log shows a finite, inflated loss and then 0.0
while the NaN gradient has already written NaN into every LoRA weight.
That is exactly the reported log. With the filter off, the first NaN
prints as nan.

## Example
    args = TrainingArguments(output_dir="out", bf16=True)
becomes
    args = TrainingArguments(output_dir="out", bf16=True, logging_nan_inf_filter=False)

## When it stays away
Arguments built from **kwargs or HfArgumentParser (no literal call to
edit). Files that do not train.

## Versions
No version gate: logging_nan_inf_filter came with transformers 4.11
(September 2021, pull request 13619), well before peft's first release
(February 2023, beside transformers 4.26), so the transformers of any
peft LoRA script has it.

## Cost
None.

## Evidence

| status | what was run |
| --- | --- |
| masking reproduced | the originals log 12.57 (Llama) and 17.35 (Gemma-2) and then 0.0 while their gradients are NaN (docs/gpu-validation.md, 2026-12-02) |
| mechanism only | the fixed runs never went NaN, so their nan line was not seen |`,
	Run: runVisibleNaNLogging,
}

func runVisibleNaNLogging(p *Pass) {
	f, text := p.Facts, p.Src.Text
	if !f.HasTraining() {
		return
	}
	for _, c := range f.Calls {
		// Training arguments serve training wherever they are built, except
		// in a scope that generates or evaluates without training.
		if !c.Is(semantic.TrainingArgs) || c.Func.Inference && !c.Func.Training {
			continue
		}
		msg := "the Trainer's NaN filter prints a NaN loss as a finite one and then 0.0: log it as nan with logging_nan_inf_filter=False"
		if v := semantic.KeywordValue(c.Args, "logging_nan_inf_filter", text); v != nil {
			if v.Content(text) == "True" {
				p.Report(Finding{Start: v.Start(), End: v.End(), Message: msg,
					Fix: &Fix{Message: "logging_nan_inf_filter=False", Edits: []Edit{{Start: v.Start(), End: v.End(), NewText: "False"}}}})
			}
			continue
		}
		if semantic.HasSplat(c.Args) {
			continue
		}
		p.Report(Finding{Start: c.Node.Start(), End: c.Args.End(), Message: msg,
			Fix: pyedit.AddKeyword(p.Src, c.Args, "add logging_nan_inf_filter=False", "logging_nan_inf_filter", "False")})
	}
}
