package rewrite

import (
	"fmt"

	sitter "github.com/smacker/go-tree-sitter"
)

var fp32MasterWeights = &Rule{
	Code:     "LTF001",
	Name:     "fp32-master-weights",
	Summary:  "load the trained model in float32; bf16 compute stays through TrainingArguments(bf16=True)",
	Severity: SeverityError,
	Profiles: []string{ProfileDefault},
	Triggers: []string{"from_pretrained", "from_config"},
	Doc: `## What it does
Turns the dtype of a training load (torch_dtype= or dtype=, whichever the
script uses) from bfloat16, float16 or "auto" into torch.float32. Where the
load names no dtype and transformers' default is "auto" (5.x, or no pin
found), it adds one, spelled dtype= from transformers 4.56 and torch_dtype=
before that or when no pin says.

## Why
TrainingArguments(bf16=True) is autocast over float32 weights only when the
weights were loaded as float32. Loaded as bf16, training is pure bf16:
bf16 parameters, gradients and optimizer state, where small updates vanish
and overflow shows up as grad_norm nan. The fp16 lineage (alpaca-lora, DoRA)
has the same disease ("Attempting to unscale FP16 gradients").

## Example
    model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.bfloat16)
becomes
    model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.float32)

## When it stays away
Quantized loads (quantization_config=, load_in_4bit/8bit): the base is
frozen and quantized, the adapters are already fp32; forcing fp32 only
inflates the embeddings and lm_head. Loads that only serve inference or
evaluation. A dtype computed at run time (a variable, getattr(torch, ...)):
a warning, no edit.

## Cost
4 bytes a parameter: an 8B model's weights alone take about 32 GB. On an
H200 (8B shape, batch 8, sequence 512) fp32 masters with eager attention
peaked at 91.5 GiB against 51.8 GiB for the bf16 original, 8,789 against
10,628 tokens/s; in general 1.6-2.3x the memory and 11-17% slower. It buys
numerical headroom; it does not cure the cuDNN NaN (LTF002 or LTF007 does).
--profile lean keeps bf16 weights.`,
	Run: runFP32MasterWeights,
}

const fp32Cost = "costs 4 bytes a parameter (8B model: ~32 GB of weights; measured peak 1.6-2.3x the bf16 run, 11-17% slower)"

var dtypeStrings = map[string]string{
	"bfloat16": "bfloat16", "float16": "float16", "half": "float16", "auto": "auto",
	"float32": "float32", "float": "float32",
}

// lowPrecision classifies a dtype expression: "bfloat16", "float16",
// "auto", "float32", or "" when it is not a literal dtype.
func lowPrecision(f *File, v *sitter.Node) string {
	text := f.Src.Text
	if s, ok := StringValue(v, text); ok {
		return dtypeStrings[s]
	}
	if v.Type() != "attribute" && v.Type() != "identifier" {
		return ""
	}
	switch f.Resolve(dottedName(v, text)) {
	case "torch.bfloat16":
		return "bfloat16"
	case "torch.float16", "torch.half":
		return "float16"
	case "torch.float32", "torch.float":
		return "float32"
	}
	return ""
}

func runFP32MasterWeights(p *Pass) {
	f, text := p.File, p.Src.Text
	for _, l := range f.ModelLoads() {
		if l.Use == NotTraining {
			continue
		}
		kw := "dtype"
		v := KeywordValue(l.Args, "dtype", text)
		if v == nil {
			kw = "torch_dtype"
			v = KeywordValue(l.Args, "torch_dtype", text)
		}
		if l.Use == Shared {
			if v != nil && lowPrecision(f, v) != "float32" {
				p.Report(Finding{Start: start(v), End: end(v), Severity: SeverityWarning,
					Message: fmt.Sprintf("%s() in %s loads the model for both training and inference: pass %s=torch.float32 from the training caller", l.Method, l.Func.Name, kw)})
			}
			continue
		}
		if l.Quantized {
			if v != nil {
				p.Report(Finding{Start: start(v), End: end(v), Severity: SeverityInfo,
					Message: "quantized load: the frozen base keeps its dtype, the LoRA adapters are the fp32 masters; no change"})
			}
			continue
		}
		if v == nil {
			tv := p.Versions.Transformers
			if tv.Below(5, 0) {
				continue // 4.x loads float32 by default
			}
			if HasSplat(l.Args) {
				p.Report(Finding{Start: start(l.Node), End: end(l.Args), Severity: SeverityWarning,
					Message: "training load with **kwargs and no visible dtype: make sure it loads float32 (the default is \"auto\", bf16 for Llama-3, from transformers 5)"})
				continue
			}
			kw = "torch_dtype"
			if tv.AtLeast(4, 56) {
				kw = "dtype"
			}
			name, imp := f.torchName("float32")
			edits, ok := addKeyword(p.Src, l.Args, kw, name)
			fd := Finding{Start: start(l.Node), End: end(l.Args), Severity: SeverityWarning,
				Message: fmt.Sprintf("training load without a dtype loads the checkpoint's dtype (bf16 for Llama-3) under transformers >= 5 (%s); load float32 masters, bf16 compute stays through autocast; %s",
					tv.Describe("transformers"), fp32Cost)}
			if ok {
				fd.Fix = &Fix{Message: fmt.Sprintf("add %s=%s", kw, name), Edits: append(edits, imp...)}
			}
			p.Report(fd)
			continue
		}
		switch kind := lowPrecision(f, v); kind {
		case "float32":
		case "bfloat16", "float16", "auto":
			name, imp := f.torchName("float32")
			was := v.Content(text)
			p.Report(Finding{Start: start(v), End: end(v),
				Message: fmt.Sprintf("%s=%s on a training load makes bf16=True/fp16=True training pure low precision (params, grads and optimizer state); load float32 masters, compute stays bf16 through autocast; %s", kw, was, fp32Cost),
				Fix:     &Fix{Message: fmt.Sprintf("load float32 masters: %s=%s", kw, name), Edits: append([]Edit{{Start: start(v), End: end(v), NewText: name}}, imp...)}})
		default:
			p.Report(Finding{Start: start(v), End: end(v), Severity: SeverityWarning,
				Message: fmt.Sprintf("%s=%s is decided at run time: make sure the training load gets torch.float32 (bf16/fp16 weights make training pure low precision)", kw, v.Content(text))})
		}
	}
}
