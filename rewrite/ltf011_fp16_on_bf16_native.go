package rewrite

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/loratune/loratune-fix/pyedit"
	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

var fp16OnBF16Native = &Rule{
	Code:         "LTF011",
	Name:         "fp16-on-bf16-native",
	Summary:      "fp16 AMP or a float16 4-bit compute dtype on a model trained in bf16 (Qwen2/2.5/3, Gemma-2/3/4) overflows",
	Severity:     SeverityError,
	Profiles:     []string{ProfileDefault, ProfileLean},
	Triggers:     []string{"fp16", "float16", "half"},
	Also:         []string{"qwen", "Qwen", "gemma", "Gemma"},
	TrainingOnly: true,
	Doc: `## What it does
Where the model a script trains was itself trained in bf16 (Qwen2, Qwen2.5,
Qwen3, Gemma-2, Gemma-3, Gemma-4: by class, or by model id in a literal or
a name that holds one; also a model built from such a config,
AutoModelForCausalLM.from_config(cfg) with cfg from
AutoConfig.from_pretrained("Qwen/...") or Qwen2Config(...), or by its
class, Qwen2ForCausalLM(config), in a file that trains), an unsafe fix
- turns fp16=True in the training arguments (TrainingArguments, SFTConfig
  and TRL's other configs) into bf16=torch.cuda.is_bf16_supported(),
  fp16=not torch.cuda.is_bf16_supported() (a bf16= keyword already there
  gets the guard as its value): exactly one of them is True on any GPU;
- turns bnb_4bit_compute_dtype=torch.float16 into
  torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16.
torch is imported when the file lacks it, and the file's alias is used.

## Why
These models keep activations beyond fp16's range (65504). Under fp16 AMP,
or with a float16 compute dtype under 4-bit weights, they overflow to inf
and NaN: the log shows NaN and then loss 0 (QwenLM/Qwen3 issue 670;
transformers issue 36822). bf16 has fp32's range.

## Example
    args = TrainingArguments(output_dir="out", fp16=True)
becomes
    args = TrainingArguments(output_dir="out", bf16=torch.cuda.is_bf16_supported(), fp16=not torch.cuda.is_bf16_supported())

## When it stays away
Other families, and model ids decided at run time. fp16 decided at run
time (args.fp16), or a script whose training arguments name a DeepSpeed
config (its fp16 block must change with them): a warning. A value that
already asks the hardware (is_bf16_supported()) stays.

## Cost
The fix is unsafe because it changes the run's numerics on GPUs with bf16
(Ampere and later): bf16 has fewer mantissa bits than fp16, the speed is
the same. On GPUs without bf16 (V100, T4) the guard keeps fp16, and the
overflow with it: train in fp32 there.

## Evidence

| status | what was run |
| --- | --- |
| mechanism only | random weights train finite in fp16; issue 28's run on the same machine planted an activation above 65,504 (fp16: loss 0.0 and grad_norm NaN every step, bf16 finite): not this project's harness |`,
	Run: runFP16OnBF16Native,
}

// bf16NativeModel names the model the file trains when it is of a family
// trained in bf16, or "": a load by class or model id, a model built from
// a config of such a family (AutoModelForCausalLM.from_config(cfg) with
// cfg = AutoConfig.from_pretrained("Qwen/...") or Qwen2Config(...)), or
// one built by its class (Qwen2ForCausalLM(config)) in a file that trains.
func bf16NativeModel(p *Pass) string {
	f := p.Facts
	for _, l := range f.TrainingLoads() {
		if class := loadClass(l); semantic.BF16NativeClass(class) {
			return class
		}
		if l.IDKnown && semantic.BF16Native(l.ModelID) {
			return l.ModelID
		}
		if l.Method == "from_config" {
			if name := bf16NativeConfig(f, semantic.FirstArg(l.Args, "config", f.Src.Text)); name != "" {
				return name
			}
		}
	}
	if f.HasTraining() {
		for _, c := range f.Calls {
			if semantic.BF16NativeClass(c.Method) && semantic.ModelClass(c.Method) && strings.HasPrefix(c.Qual, "transformers.") && !(c.Func.Inference && !c.Func.Training) {
				return c.Method + "(config)"
			}
		}
	}
	name := ""
	trlStringModels(p, func(t *trlLoad) {
		if name == "" && semantic.BF16Native(t.modelID) {
			name = t.modelID
		}
	})
	return name
}

// bf16NativeConfigClass: the config classes of those families.
var bf16NativeConfigClass = regexp.MustCompile(`^(Qwen[23]|Gemma[234])\w*Config$`)

// bf16NativeConfig names the family of a config object n holds on every
// path, when it is trained in bf16: a config class of the family, or
// AutoConfig / a config class's from_pretrained with such a model id.
func bf16NativeConfig(f *semantic.Facts, n *syntree.Node) string {
	vals, ok := f.Values(n)
	if !ok || len(vals) == 0 {
		return ""
	}
	text, name := f.Src.Text, ""
	for _, v := range vals {
		if v.Type() != "call" {
			return ""
		}
		parts := strings.Split(semantic.DottedName(v.ChildByFieldName("function"), text), ".")
		last := parts[len(parts)-1]
		switch {
		case bf16NativeConfigClass.MatchString(last):
			name = last
		case last == "from_pretrained" && len(parts) >= 2:
			cls := parts[len(parts)-2]
			id, known := f.ValueOf(semantic.FirstArg(v.ChildByFieldName("arguments"), "pretrained_model_name_or_path", text))
			switch {
			case bf16NativeConfigClass.MatchString(cls):
				name = cls
			case known && strings.HasSuffix(cls, "Config") && semantic.BF16Native(id):
				name = id
			default:
				return ""
			}
		default:
			return ""
		}
	}
	return "a model built from the config of " + name
}

const fp16Why = `fp16's range (65504) overflows in the activations of models trained in bf16: NaN, then loss 0 (QwenLM/Qwen3 issue 670, transformers issue 36822)`

func runFP16OnBF16Native(p *Pass) {
	f, text := p.Facts, p.Src.Text
	model := bf16NativeModel(p)
	if model == "" {
		return
	}
	for _, c := range f.Calls {
		if c.Func.Inference && !c.Func.Training {
			continue
		}
		switch {
		case c.Is(semantic.TrainingArgs):
			kw := semantic.Keyword(c.Args, "fp16", text)
			if kw == nil {
				continue
			}
			v := kw.ChildByFieldName("value")
			if asksHardware(v, text) || f.Always(v, "false") {
				continue
			}
			fd := Finding{Start: kw.Start(), End: kw.End(), Severity: SeverityWarning,
				Message: fmt.Sprintf("fp16 AMP on %s: %s", model, fp16Why)}
			switch {
			case !f.Always(v, "true"):
				fd.Message += fmt.Sprintf("; fp16 comes from %s: train with bf16=True where the GPU has it", f.DecidedAtRunTime(v, c.Func))
			case semantic.KeywordValue(c.Args, "deepspeed", text) != nil:
				fd.Message += "; the arguments name a DeepSpeed config, whose fp16 block must change too: switch both to bf16 by hand where the GPU has it"
			default:
				fd.Severity = ""
				fd.Message += "; train in bf16 where the GPU has it (unsafe fix: bf16 on GPUs with it, fp16 kept on those without, where the overflow stays: train in fp32 there)"
				fd.Fix = bf16GuardFix(p, c, kw)
			}
			p.Report(fd)
		case c.Method == "BitsAndBytesConfig":
			v := semantic.KeywordValue(c.Args, "bnb_4bit_compute_dtype", text)
			if v == nil || asksHardware(v, text) || !alwaysFloat16(f, v) {
				continue
			}
			guard, edits := pyedit.TorchName(f, "cuda.is_bf16_supported")
			bf16 := strings.TrimSuffix(guard, "cuda.is_bf16_supported") + "bfloat16"
			if _, isStr := semantic.StringValue(v, text); isStr {
				bf16 = strings.Replace(v.Content(text), "float16", "bfloat16", 1) // the script's quotes
			}
			edits = append(edits, Edit{Start: v.Start(), End: v.End(), NewText: fmt.Sprintf("%s if %s() else %s", bf16, guard, v.Content(text))})
			p.Report(Finding{Start: v.Start(), End: v.End(),
				Message: fmt.Sprintf("bnb_4bit_compute_dtype=%s computes the 4-bit layers of %s in float16: %s; compute in bf16 where the GPU has it (unsafe fix: float16 kept on GPUs without bf16)", v.Content(text), model, fp16Why),
				Fix:     &Fix{Message: "bf16 compute dtype where the GPU has it", Applicability: Unsafe, Edits: edits}})
		}
	}
}

// bf16GuardFix turns fp16=True (kw) into the hardware guard, giving an
// existing bf16= keyword the other half of it.
func bf16GuardFix(p *Pass, c *semantic.Call, kw *syntree.Node) *Fix {
	guard, edits := pyedit.TorchName(p.Facts, "cuda.is_bf16_supported")
	v := kw.ChildByFieldName("value")
	if bf := semantic.KeywordValue(c.Args, "bf16", p.Src.Text); bf != nil {
		edits = append(edits, Edit{Start: bf.Start(), End: bf.End(), NewText: guard + "()"},
			Edit{Start: v.Start(), End: v.End(), NewText: "not " + guard + "()"})
	} else {
		edits = append(edits, Edit{Start: kw.Start(), End: kw.End(), NewText: fmt.Sprintf("bf16=%s(), fp16=not %s()", guard, guard)})
	}
	return &Fix{Message: "bf16 where the GPU has it, fp16 only where it has not", Applicability: Unsafe, Edits: edits, Claim: pyedit.ArgsClaim(c.Args)}
}

// asksHardware reports a value that already checks the GPU.
func asksHardware(v *syntree.Node, text []byte) bool {
	s := v.Content(text)
	for _, h := range semantic.HardwareChecks {
		if strings.Contains(s, h) {
			return true
		}
	}
	return false
}

// alwaysFloat16 reports a dtype that is float16 on every path:
// torch.float16, torch.half (any alias of torch) or "float16".
func alwaysFloat16(f *semantic.Facts, v *syntree.Node) bool {
	vals, ok := f.Values(v)
	for _, x := range vals {
		if s, isStr := semantic.StringValue(x, f.Src.Text); isStr {
			ok = ok && s == "float16"
			continue
		}
		q := f.Resolve(semantic.DottedName(x, f.Src.Text))
		ok = ok && (q == "torch.float16" || q == "torch.half")
	}
	return ok && len(vals) > 0
}
