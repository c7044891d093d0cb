package rewrite

import (
	"fmt"

	"github.com/loratune/loratune-fix/pyedit"
	"github.com/loratune/loratune-fix/semantic"
)

var reentrantCheckpointing = &Rule{
	Code:         "LTF012",
	Name:         "reentrant-checkpointing",
	Summary:      `gradient checkpointing with adapters: use_reentrant=False, or the adapters may not train`,
	Severity:     SeverityError,
	Profiles:     []string{ProfileDefault, ProfileLean},
	Triggers:     []string{"gradient_checkpointing", "SFTConfig"},
	TrainingOnly: true,
	Doc: `## What it does
In a script that trains an adapter, adds
gradient_checkpointing_kwargs={"use_reentrant": False} to the training
arguments that turn gradient checkpointing on (gradient_checkpointing= with
any value but False, or an SFTConfig without it: SFTConfig turns it on by
default), and to model.gradient_checkpointing_enable() calls.

## Why
On transformers 4.x the Trainer checkpoints with torch's reentrant
implementation unless gradient_checkpointing_kwargs says otherwise. A
reentrant checkpoint only back-propagates into a segment whose inputs
require grad; with a frozen base model and adapters inside the layers they
do not, so training raises "element 0 of tensors does not require grad and
does not have a grad_fn", or the adapters silently never train (peft issue
1142; transformers issue 26221). Non-reentrant checkpoints have neither
problem.

## Example
    args = TrainingArguments(output_dir="out", gradient_checkpointing=True)
becomes
    args = TrainingArguments(output_dir="out", gradient_checkpointing=True, gradient_checkpointing_kwargs={"use_reentrant": False})

## When it stays away
Files that call enable_input_require_grads() or
prepare_model_for_kbit_training() (it makes the inputs require grad, the
other cure), or hand peft_config= to a TRL trainer (TRL wraps the model
and does the same), unsloth scripts (unsloth checkpoints in its own way), calls
that already pass gradient_checkpointing_kwargs or **kwargs, full
fine-tunes. Where transformers 5 or later is pinned or targeted, an info note and no
edit: 5.x checkpoints non-reentrantly by default and calls
enable_input_require_grads() for text models itself, so the original
trains as the fixed script does. Pinned 4.35-4.x: an error with the fix.
With no pin: a warning with the fix (it only states 5.x's default), saying
it is needed on 4.x and moot on 5.x. Pinned below 4.35, where
gradient_checkpointing_kwargs does not exist: a warning that names
model.enable_input_require_grads(). TRL's own defaults are not read.

## Cost
None: non-reentrant checkpointing recomputes the same activations.

## Evidence

| status | what was run |
| --- | --- |
| moot on transformers 5.17 | e2e/gpu/trainer_checks.py (torch 2.11, cuDNN 9.19, transformers 5.17, peft 0.21, H200, 2026-12-02): no kwargs, use_reentrant False and use_reentrant True train bit-identically, every LoRA tensor moving |
| failure on 4.x | measured in issue 28's run ("element 0 of tensors does not require grad" at the first backward; a manual loop trained 0 of 8 LoRA tensors), not by this project |`,
	Run: runReentrantCheckpointing,
}

const reentrantWhy = `with adapters on a frozen model, reentrant checkpoints (transformers 4.x's default) do not back-propagate into the layers: "does not require grad" errors, or adapters that never train`

func runReentrantCheckpointing(p *Pass) {
	f, text := p.Facts, p.Src.Text
	tv := p.Versions.Transformers
	if !f.TrainsAdapter() || len(f.CallsOf("enable_input_require_grads")) > 0 || len(f.CallsOf("prepare_model_for_kbit_training")) > 0 {
		return
	}
	for _, c := range f.Calls {
		// TRL wraps the model itself and makes its inputs require grad.
		if !c.Is(semantic.TRLTrainer) {
			continue // (asked first: a keyword lookup is dearer)
		}
		if v := semantic.KeywordValue(c.Args, "peft_config", text); v != nil && v.Type() != "none" {
			return
		}
	}
	for _, l := range f.ModelLoads() {
		if unslothLoad(f, l) {
			return
		}
	}
	const kwargs = `{"use_reentrant": False}`
	// An error where transformers 4.x is pinned; a warning with the same fix
	// where the version is unknown; a note on 5.x, where it is moot.
	// what says the call checkpoints reentrantly (on 4.x); subject names it.
	report := func(c *semantic.Call, what, subject string) {
		fd := Finding{Start: c.Node.Start(), End: c.Args.End(), Message: what + ": " + reentrantWhy}
		switch {
		case tv.AtLeast(5, 0):
			fd = Finding{Start: c.Node.Start(), End: c.Args.End(), Severity: SeverityInfo,
				Message: fmt.Sprintf("%s with adapters: LTF012 is moot on %s: its Trainer checkpoints non-reentrantly by default and makes a text model's inputs require grad itself (measured on 5.17: the same script trains bit-identically with and without gradient_checkpointing_kwargs, use_reentrant=True included); nothing to change", subject, tv.Describe("transformers"))}
		case tv.Known && tv.MayBeBelow(4, 35): // pinned, or a range reaching, below the keyword
			fd.Severity = SeverityWarning
			fd.Message += fmt.Sprintf("; %s has no gradient_checkpointing_kwargs: call model.enable_input_require_grads() before training", tv.Describe("transformers"))
		default:
			fd.Message += "; pass gradient_checkpointing_kwargs=" + kwargs
			if tv.Known {
				fd.Message += fmt.Sprintf(" (%s: reentrant by default)", tv.Describe("transformers"))
			} else {
				fd.Severity = SeverityWarning
				fd.Message += " (transformers version unknown: needed on 4.x, where reentrant is the default; moot on 5.x, whose default it states)"
			}
			fd.Fix = pyedit.AddingFix("add gradient_checkpointing_kwargs="+kwargs, pyedit.ListAddition(p.Src, c.Args, "gradient_checkpointing_kwargs="+kwargs))
		}
		p.Report(fd)
	}
	for _, c := range f.Calls {
		if semantic.KeywordValue(c.Args, "gradient_checkpointing_kwargs", text) != nil || semantic.HasSplat(c.Args) || c.Func.Inference && !c.Func.Training {
			continue
		}
		switch {
		case c.Method == "gradient_checkpointing_enable" && c.Object() != "":
			report(c, c.Dotted+"() checkpoints reentrantly", c.Dotted+"()")
		case c.Is(semantic.TrainingArgs):
			v := semantic.KeywordValue(c.Args, "gradient_checkpointing", text)
			switch {
			case v != nil && !f.Always(v, "false"):
				subject := fmt.Sprintf("%s(gradient_checkpointing=%s)", c.Method, v.Content(text))
				report(c, subject+" checkpoints reentrantly", subject)
			case v == nil && c.Method == "SFTConfig":
				report(c, "SFTConfig turns gradient checkpointing on by default, reentrantly", "SFTConfig's default gradient checkpointing")
			}
		}
	}
}
