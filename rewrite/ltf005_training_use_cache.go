package rewrite

import (
	"fmt"
	"strings"
)

var trainingUseCache = &Rule{
	Code:         "LTF005",
	Name:         "training-use-cache",
	Summary:      "set model.config.use_cache = False before training",
	Severity:     SeverityWarning,
	Profiles:     []string{ProfileDefault, ProfileLean},
	Triggers:     []string{"from_pretrained", "from_config"},
	TrainingOnly: true,
	Doc: `## What it does
Adds model.config.use_cache = False right after the statement that loads
each training model, inside the branch that loads it (once per branch), so
that it runs wherever the model is bound and before it is trained.

## Why
The KV cache is for generation. During training it holds memory for
nothing and conflicts with gradient checkpointing (transformers warns and
turns it off at every step). transformers 5's Trainer sets it itself; on
4.x the script must.

## Example
    model = AutoModelForCausalLM.from_pretrained(name)
becomes
    model = AutoModelForCausalLM.from_pretrained(name)
    model.config.use_cache = False

## When it stays away
A model whose cache is already off (use_cache=False passed to the load, or
model.config.use_cache = False on it or on its peft wrapper). transformers
>= 5 (the Trainer does it). Loads that only serve inference, and loaders
shared by training and inference callers (library code).

## Cost
None: the cache is not used by a training forward pass.`,
	Run: runTrainingUseCache,
}

func runTrainingUseCache(p *Pass) {
	f := p.Facts
	if p.Versions.Transformers.AtLeast(5, 0) {
		return
	}
	later := "" // what sets it from 5.0: the script's own trainer, if any
	if t := f.trainerName(); t != "" {
		later = fmt.Sprintf("; %s sets it itself from transformers 5.0", t)
	}
	// Each training load gets the line right after the statement that
	// binds it, in its own branch: a model bound in an if/elif/else gets
	// it in every branch, never after the whole statement (where another
	// branch left the name unbound, or holding the model id).
	for _, l := range f.TrainingLoads() {
		if l.Target == "" || f.cacheOff(l) {
			continue
		}
		fd := Finding{Start: start(l.Node), End: end(l.Args),
			Message: fmt.Sprintf("the KV cache is for generation: set %s.config.use_cache = False for training (%s%s)", l.Target, p.Versions.Transformers.Describe("transformers"), later)}
		if e, ok := f.InsertAfterBinding(l, []string{l.Target + ".config.use_cache = False"}); ok {
			fd.Fix = &Fix{Message: "model.config.use_cache = False", Edits: []Edit{e}}
		}
		p.Report(fd)
	}
}

// cacheOff reports a training load whose model already has the cache off:
// use_cache=False passed to the load, or x.config.use_cache = False where
// x is the load's name in its scope, or a name bound from it
// (model = get_peft_model(base, ...) then model.config.use_cache = False).
func (f *Facts) cacheOff(l *Load) bool {
	text := f.Src.Text
	if v := l.Arg("use_cache", text); v != nil && v.Content(text) == "False" {
		return true
	}
	for _, a := range f.Assigns {
		obj, ok := strings.CutSuffix(a.Text, ".config.use_cache")
		if !ok || a.Value.Content(text) != "False" {
			continue
		}
		// An attribute (self.model) is matched by name in its function; a
		// plain name by its reaching definitions below, so that the line of
		// one branch does not count for the load of another.
		if obj == l.Target && a.Func == l.Func && strings.Contains(obj, ".") {
			return true
		}
		root := a.Target
		for root.Type() == "attribute" {
			root = root.ChildByFieldName("object")
		}
		for _, d := range f.ReachingAt(root).Defs {
			if d.Value != nil && (within(l.Node, d.Value) || len(identifiers(d.Value, l.Target, text)) > 0) {
				return true
			}
		}
	}
	return false
}
