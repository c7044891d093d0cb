package rewrite

import (
	"fmt"
	"strings"

	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
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
on a training load to device_map=None where something downstream places
the model (a trainer, accelerator.prepare, model.to(...) or .cuda()); in a
plain loop where nothing does, to device_map={"": 0} (one GPU), since None
would leave the model training on the CPU.

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
{"": local_rank}). Single-device maps ({"": rank}) are kept. "auto" that
shards on purpose (max_memory=, offload_folder=, the model_parallel hack,
CUDA_VISIBLE_DEVICES naming several GPUs) or a model too big for one GPU
in fp32 (20B parameters and up, read from the model id: Llama-3.1-70B,
Mixtral-8x7B): a warning that says why, and the rewrite only as an unsafe
fix. unsloth's FastLanguageModel.from_pretrained places the
model itself: a warning, no edit. Inference loads keep "auto".

## Cost
None on one GPU. A model that only fits sharded over several GPUs needs
another plan (DDP with QLoRA, FSDP or DeepSpeed).

## Evidence

| status | what was run |
| --- | --- |
| mechanism only | accelerate refuses a model sharded by device_map="auto" under DDP; not run (the harness trains on one GPU; every default and lean output it ran has device_map=None) |`,
	Run: runTrainingDeviceMap,
}

var shardingMaps = map[string]bool{"auto": true, "balanced": true, "balanced_low_0": true, "sequential": true}

func runTrainingDeviceMap(p *Pass) {
	f, text := p.Facts, p.Src.Text
	for _, l := range f.ModelLoads() {
		if l.Use == semantic.NotTraining {
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
			if a := shardingLiteral(f, v, l); a != nil {
				lit = a
			}
		}
		if def, param := runtimeDeviceMap(f, v, l); def != "" && !l.Quantized && !l.Undecided() {
			from := fmt.Sprintf("device_map comes from %s and shards by default", f.DecidedAtRunTime(v, l.Func))
			if param {
				from = fmt.Sprintf("device_map is the parameter %s of %s(), %s by default on the paths that keep it", v.Content(text), l.Func.Name, def)
			}
			advice := `training wants None (one process) or {"": local_rank} (DDP)`
			if l.MaybeQuantized {
				advice = `on a load quantized on some paths only, keep it for the quantized path and use None (one process) or {"": local_rank} (DDP) on the other`
			}
			p.Report(Finding{Start: v.Start(), End: v.End(), Severity: SeverityWarning, Message: from + ": " + advice})
			continue
		}
		s, ok := semantic.StringValue(lit, text)
		if !ok || !shardingMaps[s] {
			continue
		}
		switch {
		case l.Quantized:
			p.Report(Finding{Start: v.Start(), End: v.End(), Severity: SeverityInfo,
				Message: fmt.Sprintf("quantized load keeps device_map=%q (bitsandbytes places the quantized weights itself); no change", s)})
		case l.MaybeQuantized:
			p.Report(Finding{Start: v.Start(), End: v.End(), Severity: SeverityWarning,
				Message: fmt.Sprintf("device_map=%q on a load quantized on some paths only: keep it for the quantized path, use None on the other", s)})
		case unslothLoad(f, l):
			p.Report(Finding{Start: v.Start(), End: v.End(), Severity: SeverityWarning,
				Message: fmt.Sprintf("device_map=%q on unsloth's %s: unsloth places the model itself; not edited", s, l.Dotted)})
		case l.Undecided():
			p.Report(Finding{Start: v.Start(), End: v.End(), Severity: SeverityWarning,
				Message: l.UndecidedMessage(fmt.Sprintf("device_map=%q suits inference only; pass device_map=None for training", s))})
		default:
			deviceMapFix(p, l, v, lit, s)
		}
	}
}

// deviceMapFix rewrites a sharding device_map: None where something
// downstream places the model (a trainer, accelerator.prepare, .to(...)),
// a single-device map where nothing does (None would train on the CPU);
// unsafe where the load shards on purpose or the model outgrows one GPU.
func deviceMapFix(p *Pass, l *semantic.Load, v, lit *syntree.Node, s string) {
	f, text := p.Facts, p.Src.Text
	model := l.Target
	if model == "" {
		model = "the model"
	}
	placer := placer(f, l)
	target, msg := `{"": 0}`, fmt.Sprintf(`device_map=%q shards a model for inference, and nothing in this file moves %s to a GPU later (no trainer, accelerator.prepare or .to(...)): device_map=None would train it on the CPU; load it on one GPU with device_map={"": 0}`, s, model)
	if placer != "" {
		target, msg = "None", fmt.Sprintf("device_map=%q shards a model for inference; %s moves %s to its device itself, so load it with device_map=None (DDP refuses a sharded model)", s, placer, model)
	}
	if ddp := ddpWrapper(f); placer == "" && ddp != "" {
		// Each process needs the model on its own GPU: neither None (the
		// CPU) nor {"": 0} (every process on GPU 0) is right.
		p.Report(Finding{Start: v.Start(), End: v.End(), Severity: SeverityWarning,
			Message: fmt.Sprintf(`device_map=%q shards a model for inference, and %s wraps %s for one GPU per process: load it with device_map={"": local_rank} (or move it with .to(local_rank) before wrapping)`, s, ddp, model)})
		return
	}
	fd := Finding{Start: v.Start(), End: v.End(), Message: msg,
		Fix: &Fix{Message: "device_map=" + target, Edits: []Edit{{Start: lit.Start(), End: lit.End(), NewText: target}}}}
	if why := shardsOnPurpose(f, l); why != "" {
		fd.Severity = SeverityWarning
		fd.Message = fmt.Sprintf("device_map=%q on a training load, but %s; training through a sharded model runs its devices in turn and DDP refuses it: device_map=%s only where one GPU holds the model, else another plan (FSDP, DeepSpeed, or QLoRA per GPU)", s, why, target)
		fd.Fix.Applicability = Unsafe
		fd.Fix.Message += " (unsafe: " + why + ")"
	}
	if lit != v {
		fd.Message = fmt.Sprintf("%s is %q on the single-process path; ", v.Content(text), s) + fd.Message
	}
	p.Report(fd)
}

// shardingLiteral finds the sharding literal ("auto") that the device_map
// variable v holds on some path, when every use of the variable is this
// load's device_map (so that editing the literal changes nothing else).
func shardingLiteral(f *semantic.Facts, v *syntree.Node, l *semantic.Load) *syntree.Node {
	text := f.Src.Text
	name := v.Content(text)
	var lit *syntree.Node
	vals, _ := f.Values(v)
	for _, val := range vals {
		if s, ok := semantic.StringValue(val, text); ok && shardingMaps[s] {
			if lit != nil {
				return nil // two sharding literals: which one to edit is unclear
			}
			lit = val
		}
	}
	if lit == nil || f.ScopeOf(lit) != l.Func {
		return nil
	}
	// Every other read of the name means it feeds something else.
	scope := f.Root
	if l.Func.Body != nil {
		scope = l.Func.Body
	}
	for _, id := range semantic.Identifiers(scope, name, text) {
		p := id.Parent()
		switch {
		case p.Type() == "assignment" && p.ChildByFieldName("left").Equal(id):
		case p.Type() == "keyword_argument" && p.ChildByFieldName("name").Equal(id):
		case p.Type() == "keyword_argument" && p.ChildByFieldName("name").Content(text) == "device_map" && semantic.Within(p, l.Args):
		default:
			return nil
		}
	}
	return lit
}

// runtimeDeviceMap is the sharding default ("auto") of a device_map that a
// run decides: a parameter of the load's function or a command-line option
// (argparse, a dataclass field) whose default shards; else "". param: the
// parameter reaches the load beside other values (a DDP branch's).
func runtimeDeviceMap(f *semantic.Facts, v *syntree.Node, l *semantic.Load) (def string, param bool) {
	text := f.Src.Text
	x := v // a parameter has no value in the file: its default says
	if vals, _ := f.Values(v); len(vals) == 1 {
		x = vals[0]
	}
	switch x.Type() {
	case "identifier":
		def = semantic.ParamDefault(l.Func, x.Content(text), text)
	case "attribute":
		if o := f.Option(x.ChildByFieldName("attribute").Content(text)); o != nil && o.Def != nil {
			def = o.Def.Content(text)
		}
	}
	if def == "" && v.Type() == "identifier" {
		// The parameter reaches beside another value (device_map = {"":
		// rank} under "if ddp:"): its default is what the other paths get.
		for _, d := range f.ReachingAt(v).Defs {
			if d.Kind == semantic.DefParam {
				def, param = semantic.ParamDefault(l.Func, v.Content(text), text), true
			}
		}
	}
	if s := strings.Trim(def, `"'`); def != "" && shardingMaps[s] && len(def) == len(s)+2 {
		return def, param
	}
	return "", false
}
