package rewrite

import (
	"strings"

	"github.com/loratune/loratune-fix/semantic"
)

// The scope of edits (issue 11): the training rules fix scripts that
// train an adapter (LoRA, QLoRA, DoRA). A full fine-tune, or library code
// that loads and wraps models but runs no training itself, gets the same
// findings without their fixes: what suits an adapter run (fp32 masters,
// device_map=None) can be wrong there, and library code serves callers the
// tool cannot see.

// trainsAdapter reports an adapter in the file: an adapter call, a trainer
// given peft_config= (TRL wraps the model itself), or an adapter
// checkpoint loaded with is_trainable=True.
func (f *Facts) trainsAdapter() bool {
	text := f.Src.Text
	for _, c := range f.Calls {
		switch {
		case c.Is(semantic.AdapterWrap):
			return true
		case c.IsTrainerCall():
			if v := KeywordValue(c.Args, "peft_config", text); v != nil && v.Content(text) != "None" {
				return true
			}
		case c.Is(semantic.AdapterCheckpoint):
			if v := KeywordValue(c.Args, "is_trainable", text); v != nil && v.Content(text) == "True" {
				return true
			}
		}
	}
	return false
}

// hasTrainingEntry reports a place where the file runs training: a
// trainer or an optimizer built, a .train() call, a backward pass or an
// optimizer step anywhere, or a training signal in module-level code (a script that wraps
// its model with get_peft_model at top level runs it). A file whose only
// signals are get_peft_model calls inside functions is a library's model
// builder.
func (f *Facts) hasTrainingEntry() bool {
	if f.module.Training {
		return true
	}
	for _, c := range f.Calls {
		// An optimizer built here: the loop that steps it may live in a
		// helper module.
		if c.IsTrainerCall() || c.Method == "backward" || c.Is(semantic.Optimizer) ||
			c.Method == "train" && c.Args.NamedChildCount() == 0 && strings.Contains(c.Dotted, ".") ||
			c.Method == "step" && strings.Contains(strings.ToLower(c.Dotted), "optim") {
			return true
		}
	}
	return false
}

// loadsModel reports a model load in the file, or a TRL trainer given a
// model by name: with no adapter in sight, the file fine-tunes that model
// whole. A file that only receives its model (a parameter) shows neither.
func (f *Facts) loadsModel() bool {
	if len(f.ModelLoads()) > 0 {
		return true
	}
	text := f.Src.Text
	for _, c := range f.Calls {
		if isTRLTrainer(c.Method) {
			if _, ok := f.ValueOf(KeywordValue(c.Args, "model", text)); ok {
				return true
			}
		}
	}
	return false
}

// notEditedBecause says why the training rules' fixes are withheld from
// this file, or "" when they apply; short, as it ends up in the finding's
// outcome (Finding.Withheld, then Reason). It is decided once per file.
func (f *Facts) notEditedBecause() string {
	if f.editScope == nil {
		why := ""
		switch {
		case !f.trainsAdapter() && f.loadsModel():
			why = "full fine-tune: only adapter training is edited"
		case !f.hasTrainingEntry():
			why = "library code: nothing here runs training"
		}
		f.editScope = &why
	}
	return *f.editScope
}
