package rewrite

import (
	"fmt"
	"strings"

	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

var autocastAdapterDtype = &Rule{
	Code:     "LTF105",
	Name:     "autocast-adapter-dtype",
	Summary:  "autocast_adapter_dtype=False outside DeepSpeed trains the adapters in bf16/fp16",
	Severity: SeverityWarning,
	Profiles: []string{ProfileDefault, ProfileLean},
	Triggers: []string{"autocast_adapter_dtype"},
	Doc: `## What it does
Warns on autocast_adapter_dtype=False (get_peft_model,
PeftModel.from_pretrained, ...) in a file that does not use DeepSpeed.

## Why
peft (0.12 and later) keeps the LoRA weights in float32 even on a bf16 or
fp16 base: they are the fp32 masters of a LoRA run. False leaves them in
the base's half precision, so small updates vanish and the optimizer
state is half precision too: the disease LTF001 cures for the base, moved
into the adapters. DeepSpeed manages the dtypes itself, which is why the
switch exists.

## Example
    model = get_peft_model(model, config, autocast_adapter_dtype=False)
drop the keyword (the default is True).

## When it stays away
Files that mention deepspeed (an import, TrainingArguments(deepspeed=...)).
No fix: the keyword may be there on purpose.

## Cost
None; float32 adapters cost 4 bytes a trainable parameter (a few MB for
LoRA).

## Evidence

| status | what was run |
| --- | --- |
| mechanism only | peft leaves the adapters in the base's half precision with autocast_adapter_dtype=False; not run |`,
	Run: runAutocastAdapterDtype,
}

func runAutocastAdapterDtype(p *Pass) {
	f, text := p.Facts, p.Src.Text
	var found []*syntree.Node
	for _, c := range f.Calls {
		if v := semantic.KeywordValue(c.Args, "autocast_adapter_dtype", text); v != nil && v.Content(text) == "False" {
			found = append(found, v)
		}
	}
	// Looked for only where there is something to report: a lower-case
	// copy of the whole text for each file was a tenth of the rules' time.
	if len(found) == 0 || strings.Contains(strings.ToLower(string(text)), "deepspeed") {
		return
	}
	for _, v := range found {
		p.Report(Finding{Start: v.Parent().Start(), End: v.End(),
			Message: fmt.Sprintf("autocast_adapter_dtype=False keeps the LoRA adapters in the base model's half precision (no fp32 masters for the adapters) outside DeepSpeed (%s); drop it unless DeepSpeed manages the dtypes", p.Versions.Peft.Describe("peft"))})
	}
}
