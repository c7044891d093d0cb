package rewrite

import (
	"fmt"

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
fine-tunes. Scripts pinned to transformers 5 or later (non-reentrant is
the default there); with no pin the fix is applied, since it only states
5.x's default. Pinned below 4.35, where gradient_checkpointing_kwargs does
not exist: a warning that names model.enable_input_require_grads().

## Cost
None: non-reentrant checkpointing recomputes the same activations.`,
	Run: runReentrantCheckpointing,
}

const reentrantWhy = `with adapters on a frozen model, reentrant checkpoints (transformers 4.x's default) do not back-propagate into the layers: "does not require grad" errors, or adapters that never train`

func runReentrantCheckpointing(p *Pass) {
	f, text := p.Facts, p.Src.Text
	tv := p.Versions.Transformers
	if !f.trainsAdapter() || tv.AtLeast(5, 0) || len(f.callsOf("enable_input_require_grads")) > 0 || len(f.callsOf("prepare_model_for_kbit_training")) > 0 {
		return
	}
	for _, c := range f.Calls {
		// TRL wraps the model itself and makes its inputs require grad.
		if !c.Is(semantic.TRLTrainer) {
			continue // (asked first: a keyword lookup is dearer)
		}
		if v := KeywordValue(c.Args, "peft_config", text); v != nil && v.Type() != "none" {
			return
		}
	}
	for _, l := range f.ModelLoads() {
		if f.unslothLoad(l) {
			return
		}
	}
	const kwargs = `{"use_reentrant": False}`
	report := func(c *Call, what string) {
		fd := Finding{Start: start(c.Node), End: end(c.Args), Message: what + ": " + reentrantWhy}
		switch {
		case tv.Below(4, 35):
			fd.Severity = SeverityWarning
			fd.Message += fmt.Sprintf("; %s has no gradient_checkpointing_kwargs: call model.enable_input_require_grads() before training", tv.Describe("transformers"))
		default:
			fd.Message += "; pass gradient_checkpointing_kwargs=" + kwargs
			if !tv.Known {
				fd.Message += " (transformers version unknown; it is 5.x's default)"
			}
			fd.Fix = addingFix("add gradient_checkpointing_kwargs="+kwargs, listAddition(p.Src, c.Args, "gradient_checkpointing_kwargs="+kwargs))
		}
		p.Report(fd)
	}
	for _, c := range f.Calls {
		if KeywordValue(c.Args, "gradient_checkpointing_kwargs", text) != nil || HasSplat(c.Args) || c.Func.Inference && !c.Func.Training {
			continue
		}
		switch {
		case c.Method == "gradient_checkpointing_enable" && c.Object() != "":
			report(c, c.Dotted+"() checkpoints reentrantly")
		case c.Is(semantic.TrainingArgs):
			v := KeywordValue(c.Args, "gradient_checkpointing", text)
			switch {
			case v != nil && !f.always(v, "false"):
				report(c, fmt.Sprintf("%s(gradient_checkpointing=%s) checkpoints reentrantly", c.Method, v.Content(text)))
			case v == nil && c.Method == "SFTConfig":
				report(c, "SFTConfig turns gradient checkpointing on by default, reentrantly")
			}
		}
	}
}
