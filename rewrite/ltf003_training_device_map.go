package rewrite

import "fmt"

var trainingDeviceMap = &Rule{
	Code:     "LTF003",
	Name:     "training-device-map",
	Summary:  `device_map="auto" on a training load becomes device_map=None`,
	Severity: SeverityError,
	Profiles: []string{ProfileDefault, ProfileLean},
	Triggers: []string{"device_map"},
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
warning, no edit. Inference loads keep "auto".

## Cost
None on one GPU. A model that only fits sharded over several GPUs needs
another plan (DDP with QLoRA, FSDP or DeepSpeed).`,
	Run: runTrainingDeviceMap,
}

var shardingMaps = map[string]bool{"auto": true, "balanced": true, "balanced_low_0": true, "sequential": true}

func runTrainingDeviceMap(p *Pass) {
	text := p.Src.Text
	for _, l := range p.File.ModelLoads() {
		if l.Use != Training {
			continue
		}
		v := KeywordValue(l.Args, "device_map", text)
		if v == nil {
			continue
		}
		s, ok := StringValue(v, text)
		if !ok || !shardingMaps[s] {
			continue
		}
		switch {
		case l.Quantized:
			p.Report(Finding{Start: start(v), End: end(v), Severity: SeverityInfo,
				Message: fmt.Sprintf("quantized load keeps device_map=%q (bitsandbytes places the quantized weights itself); no change", s)})
		case Keyword(l.Args, "max_memory", text) != nil || Keyword(l.Args, "offload_folder", text) != nil:
			p.Report(Finding{Start: start(v), End: end(v), Severity: SeverityWarning,
				Message: fmt.Sprintf("device_map=%q with max_memory/offload_folder shards the model on purpose; training through a sharded, offloaded model is slow and refused under DDP: check it is meant", s)})
		default:
			p.Report(Finding{Start: start(v), End: end(v),
				Message: fmt.Sprintf("device_map=%q shards a model for inference; a training load takes device_map=None and lets the Trainer place it (DDP refuses a sharded model)", s),
				Fix:     &Fix{Message: "device_map=None", Edits: []Edit{{Start: start(v), End: end(v), NewText: "None"}}}})
		}
	}
}
