package rewrite

import (
	"fmt"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

var trainingDeviceMap = &Rule{
	Code:         "LTF003",
	Name:         "training-device-map",
	Summary:      `device_map="auto" on a training load becomes device_map=None`,
	Severity:     SeverityError,
	Profiles:     []string{ProfileDefault, ProfileLean},
	Triggers:     []string{"device_map"},
	TrainingOnly: true,
	Doc: `## What it does
Rewrites device_map="auto" (and "balanced", "balanced_low_0", "sequential")
on a training load to device_map=None; the Trainer then places the model.

## Why
"auto" is accelerate's inference sharding: it spreads layers over every
visible GPU (and the CPU), so a training step runs the devices in turn, and
under DDP accelerate refuses such a model outright.

## Example
    model = AutoModelForCausalLM.from_pretrained(name, device_map="auto")
becomes
    model = AutoModelForCausalLM.from_pretrained(name, device_map=None)

## When it stays away
Quantized loads keep their device_map (QLoRA under DDP needs
{"": local_rank}). Single-device maps ({"": rank}) are kept. "auto" together
with max_memory= or offload_folder= is deliberate model parallelism: a
warning, no edit. unsloth's FastLanguageModel.from_pretrained places the
model itself: a warning, no edit. Inference loads keep "auto".

## Cost
None on one GPU. A model that only fits sharded over several GPUs needs
another plan (DDP with QLoRA, FSDP or DeepSpeed).`,
	Run: runTrainingDeviceMap,
}

var shardingMaps = map[string]bool{"auto": true, "balanced": true, "balanced_low_0": true, "sequential": true}

func runTrainingDeviceMap(p *Pass) {
	f, text := p.Facts, p.Src.Text
	// The old naive model-parallel hack: "auto" is then deliberate.
	modelParallel := false
	for _, a := range f.Assigns {
		if (strings.HasSuffix(a.Text, ".model_parallel") || strings.HasSuffix(a.Text, ".is_parallelizable")) && a.Value.Content(text) == "True" {
			modelParallel = true
		}
	}
	for _, l := range f.ModelLoads() {
		if l.Use == NotTraining {
			continue
		}
		v := l.Arg("device_map", text)
		if v == nil {
			continue
		}
		lit := v
		if v.Type() == "identifier" {
			// device_map = "auto", overwritten under "if ddp:": the literal
			// on the non-DDP path is what a single-process run gets.
			if a := f.shardingLiteral(v, l); a != nil {
				lit = a
			}
		}
		s, ok := StringValue(lit, text)
		if !ok || !shardingMaps[s] {
			continue
		}
		switch {
		case l.Quantized:
			p.Report(Finding{Start: start(v), End: end(v), Severity: SeverityInfo,
				Message: fmt.Sprintf("quantized load keeps device_map=%q (bitsandbytes places the quantized weights itself); no change", s)})
		case l.MaybeQuantized:
			p.Report(Finding{Start: start(v), End: end(v), Severity: SeverityWarning,
				Message: fmt.Sprintf("device_map=%q on a load quantized on some paths only: keep it for the quantized path, use None on the other", s)})
		case f.unslothLoad(l):
			p.Report(Finding{Start: start(v), End: end(v), Severity: SeverityWarning,
				Message: fmt.Sprintf("device_map=%q on unsloth's %s: unsloth places the model itself; not edited", s, l.Dotted)})
		case l.Undecided():
			p.Report(Finding{Start: start(v), End: end(v), Severity: SeverityWarning,
				Message: l.UndecidedMessage(fmt.Sprintf("device_map=%q suits inference only; pass device_map=None for training", s))})
		case l.Arg("max_memory", text) != nil || l.Arg("offload_folder", text) != nil || modelParallel:
			p.Report(Finding{Start: start(v), End: end(v), Severity: SeverityWarning,
				Message: fmt.Sprintf("device_map=%q with max_memory/offload_folder or model_parallel shards the model on purpose; training through a sharded model is slow and refused under DDP: check it is meant", s)})
		default:
			msg := fmt.Sprintf("device_map=%q shards a model for inference; a training load takes device_map=None and lets the Trainer place it (DDP refuses a sharded model)", s)
			if lit != v {
				msg = fmt.Sprintf("%s is %q on the single-process path; ", v.Content(text), s) + msg
			}
			p.Report(Finding{Start: start(v), End: end(v), Message: msg,
				Fix: &Fix{Message: "device_map=None", Edits: []Edit{{Start: start(lit), End: end(lit), NewText: "None"}}}})
		}
	}
}

// shardingLiteral finds the sharding literal ("auto") that the device_map
// variable v holds on some path, when every use of the variable is this
// load's device_map (so that editing the literal changes nothing else).
func (f *Facts) shardingLiteral(v *sitter.Node, l *Load) *sitter.Node {
	text := f.Src.Text
	name := v.Content(text)
	var lit *sitter.Node
	vals, _ := f.Values(v)
	for _, val := range vals {
		if s, ok := StringValue(val, text); ok && shardingMaps[s] {
			if lit != nil {
				return nil // two sharding literals: which one to edit is unclear
			}
			lit = val
		}
	}
	if lit == nil || f.scopeOf(lit) != l.Func {
		return nil
	}
	// Every other read of the name means it feeds something else.
	scope := f.Root
	if l.Func.Body != nil {
		scope = l.Func.Body
	}
	for _, id := range identifiers(scope, name, text) {
		p := id.Parent()
		switch {
		case p.Type() == "assignment" && p.ChildByFieldName("left").Equal(id):
		case p.Type() == "keyword_argument" && p.ChildByFieldName("name").Equal(id):
		case p.Type() == "keyword_argument" && p.ChildByFieldName("name").Content(text) == "device_map" && within(p, l.Args):
		default:
			return nil
		}
	}
	return lit
}
