package rewrite

import (
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/loratune/loratune-fix/pyedit"
	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

var fp32MasterWeights = &Rule{
	Code:         "LTF001",
	Name:         "fp32-master-weights",
	Summary:      "load the trained model in float32; bf16 compute stays through TrainingArguments(bf16=True)",
	Severity:     SeverityError,
	Profiles:     []string{ProfileDefault},
	Triggers:     []string{"from_pretrained", "from_config", "Trainer"}, // Trainer: TRL loads a model given by name
	TrainingOnly: true,
	Doc: `## What it does
Turns the dtype of a training load (torch_dtype= or dtype=, whichever the
script uses) from bfloat16, float16 or "auto" into torch.float32; a string
("bfloat16", "float16") becomes the string "float32", which needs no import,
and so does the dtype in a TRL trainer's model_init_kwargs, where older TRL
reads only strings. Where the load names no dtype and transformers' default
is "auto" (5.x, or no pin found), it adds one, spelled dtype= from
transformers 4.56 and torch_dtype= before that; with no pin, as the file
spells it elsewhere (dtype= or torch_dtype=), else torch_dtype= (accepted
by every version). Where the pin or --target says transformers 4.56 or
later, a torch_dtype= keyword whose value the fix rewrites becomes dtype= in
the same edit (torch_dtype= is deprecated there and warns at every load); a
keyword the fix does not touch keeps the file's spelling.

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
Quantized loads (quantization_config=, load_in_4bit/8bit, a TRL trainer
given quantization_config=, a checkpoint published quantized such as
"...-bnb-4bit", GPTQ or AWQ ids): the base is
frozen and quantized, the adapters are already fp32; forcing fp32 only
inflates the embeddings and lm_head. unsloth's
FastLanguageModel.from_pretrained chooses the dtype itself: a warning, no
edit. Loads that only serve inference or
evaluation. A dtype computed at run time (a variable, getattr(torch, ...)):
a warning, no edit.

A load with flash_attention_2/3 (or use_flash_attention_2=True) where the
file shows no mixed precision (bf16=True/fp16=True in the training
arguments, SFTConfig's default bf16, torch.autocast): flash runs in half
precision only, so the dtype stays, with a warning. A model of 20B
parameters or more (read from the model id), or a load that shards on
purpose (max_memory=, offload_folder=, several GPUs): the fix is unsafe,
with a warning that says why.

## Cost
4 bytes a parameter: an 8B model's weights alone take about 32 GB; the
message quotes the figure of the model the file names, where its id tells
the size (Llama-3.1-70B: ~280 GB). On an
H200 (8B shape, batch 8, sequence 512) fp32 masters with eager attention
peaked at 91.5 GiB against 51.8 GiB for the bf16 original, 8,789 against
10,628 tokens/s; in general 1.6-2.3x the memory and 11-17% slower. It buys
numerical headroom; it does not cure the cuDNN NaN (LTF002 or LTF007 does).
--profile lean keeps bf16 weights.

Measured by this project's GPU harness (docs/gpu-validation.md; H200,
8 layers of the 8B shape, batch 8): the default profile (fp32 masters +
eager) ran at 0.94x the original's tokens/s with 1.65x its peak memory at
sequence 512 (30.9 vs 18.8 GiB), and 0.73x with 1.95x at 2048 (114.9 vs
59.1 GiB).

## Evidence

| status | what was run |
| --- | --- |
| mechanism only | bf16 weights make bf16=True training pure bf16: transformers' autocast over the loaded dtype; not a run |
| not the cure | fp32 masters alone did not prevent the cuDNN NaN in the first reproduction (torch 2.11, cuDNN 9.19, transformers 5.17, peft 0.21, H200); the harness's default output is cured by its eager attention (LTF002) |
| cost measured | docs/gpu-validation.md: peak memory 1.80x/1.49x at L 192/512 (2 layers, 2026-12-02), 1.65x/1.95x at 512/2048 with 0.94x/0.73x speed (8 layers, 2026-11-30); torch 2.11, cuDNN 9.19, transformers 5.17, peft 0.21, H200 |`,
	Run: runFP32MasterWeights,
}

const fp32Cost = "costs 4 bytes a parameter (measured peak 1.6-2.3x the bf16 run, 11-17% slower)"

func runFP32MasterWeights(p *Pass) {
	f, text := p.Facts, p.Src.Text
	var casts *modelCasts // found at the first load that needs them
	for _, l := range f.ModelLoads() {
		if l.Use == semantic.NotTraining {
			continue
		}
		kw := "dtype"
		v := l.Arg("dtype", text)
		if v == nil {
			kw = "torch_dtype"
			v = l.Arg("torch_dtype", text)
		}
		if l.Undecided() {
			// A quantized base keeps its dtype (the adapters are the fp32
			// masters), wherever the load goes.
			if !l.Quantized && (v == nil || semantic.LowPrecision(f, v) != "float32") {
				advice := "load torch.float32 for training, keep half precision for inference"
				if _, literal := f.StringValues(v); v != nil && semantic.LowPrecision(f, v) == "" && !literal {
					// The value as written: a line number in the message would
					// change the finding's identity when a fix adds a line.
					advice = fmt.Sprintf("the dtype comes from %s, decided at run time: %s", strings.Join(strings.Fields(v.Content(text)), " "), advice)
				}
				p.Report(Finding{Start: l.Node.Start(), End: l.Args.End(), Severity: SeverityWarning,
					Message: l.UndecidedMessage(advice)})
			}
			continue
		}
		facts := FP32Facts{Quantized: l.Quantized, Qwen1: qwen1RemoteCode(f, l), Unsloth: unslothLoad(f, l), MaybeQuantized: l.MaybeQuantized}
		if flash := flashLoad(f, l); flash != "" && amp(f) == "" {
			facts.Flash = fmt.Sprintf("the load uses %s, %s", flash, fp32FlashNoAutocast)
		}
		verdict, why := DecideFP32(facts)
		keep := v == nil || semantic.LowPrecision(f, v) != "float32" // a warning where float32 is not there already
		switch verdict {
		case FP32Quantized:
			if v != nil {
				p.Report(Finding{Start: v.Start(), End: v.End(), Severity: SeverityInfo,
					Message: "quantized load: the frozen base keeps its dtype, the LoRA adapters are the fp32 masters; no change"})
			}
			continue
		case FP32Qwen1:
			if keep || !setsConfigFP32(f) {
				p.Report(Finding{Start: l.Node.Start(), End: l.Args.End(), Severity: SeverityWarning, Message: why})
			}
			continue
		case FP32Unsloth:
			if keep {
				p.Report(Finding{Start: l.Node.Start(), End: l.Args.End(), Severity: SeverityWarning,
					Message: fmt.Sprintf("unsloth's %s manages the dtype itself (dtype=None picks bf16 or fp16 by GPU) and trains through its own kernels: not edited; whether it accepts float32 masters for this model is unsloth's to say", l.Dotted)})
			}
			continue
		case FP32SomePaths, FP32Flash:
			if keep {
				p.Report(Finding{Start: l.Node.Start(), End: l.Args.End(), Severity: SeverityWarning, Message: why})
			}
			continue
		}
		if v == nil {
			missingDtype(p, l)
		} else {
			lowDtype(p, l, kw, v)
		}
		if casts == nil {
			casts = findModelCasts(p)
		}
		postLoadCasts(p, l, casts)
	}
	trlStringModels(p, func(t *trlLoad) { trlDtype(p, t) })
}

// FP32Facts are what LTF001 decides a training load by, whatever the front
// end read them from: a Python load, a model TRL builds from
// model_init_kwargs, a launch config's settings, a launcher's options.
// Each front end words its findings around the setting it names;
// DecideFP32 is the one decision.
type FP32Facts struct {
	Quantized      bool // quantized on every path
	Qwen1          bool // Qwen-1's remote code picks its dtype itself
	Unsloth        bool // unsloth loads the model and picks its dtype
	MaybeQuantized bool // quantized on some paths only
	// Moot: why the dtype changes nothing here (DeepSpeed or FSDP mixed
	// precision decides), or "".
	Moot string
	// AdapterUnknown: whether adapters train cannot be told.
	AdapterUnknown bool
	FullFineTune   bool // no adapter: every weight trains
	// NotTheLoad: why the setting read does not reach the training load
	// (a launcher's option its script does not read), or "".
	NotTheLoad string
	// Flash: why float32 would break the load's half-precision-only
	// attention here (no autocast; transformers 4.34-4.35), or "".
	Flash string
}

// FP32Verdict is LTF001's decision on a training load.
type FP32Verdict int

const (
	FP32Masters        FP32Verdict = iota // load float32 masters: the fix
	FP32Quantized                         // the frozen quantized base keeps its dtype: a note
	FP32Qwen1                             // the remote code picks the dtype: a warning
	FP32Unsloth                           // unsloth picks the dtype: a warning
	FP32SomePaths                         // quantized on some paths only: a warning
	FP32Moot                              // mixed precision elsewhere decides: a note
	FP32AdapterUnknown                    // adapters or not cannot be told: a warning
	FP32FullFineTune                      // every weight trains: fp32 masters are a choice of memory, never a fix
	FP32NotTheLoad                        // the setting does not reach the load: a warning
	FP32Flash                             // float32 would break the attention: a warning
)

// fp32FlashNoAutocast is why a flash-attention load with no autocast in
// the file keeps its dtype.
const fp32FlashNoAutocast = "which runs in fp16/bf16 only: float32 masters need training under autocast (bf16=True or fp16=True in the training arguments, or torch.autocast), which this file does not show; dtype left as it is"

// DecideFP32 is LTF001's exceptions, in the order they win, for every
// front end: the verdict, and why in words every front end may quote.
func DecideFP32(l FP32Facts) (FP32Verdict, string) {
	switch {
	case l.Quantized:
		return FP32Quantized, "the frozen base keeps its dtype, the adapters are the fp32 masters"
	case l.Qwen1:
		return FP32Qwen1, "Qwen-1's remote code picks bf16 by itself unless config.bf16, config.fp16 or config.fp32 is set, whatever the dtype keyword says: for float32 masters load the config, set config.fp32 = True and pass config="
	case l.Unsloth:
		return FP32Unsloth, "unsloth manages the dtype and trains through its own kernels; not edited: whether it accepts fp32 masters for this model is unsloth's to say"
	case l.MaybeQuantized:
		return FP32SomePaths, "the load is quantized on some paths only: load float32 on the non-quantized path, keep the quantized path's dtype"
	case l.Moot != "":
		return FP32Moot, l.Moot
	case l.AdapterUnknown:
		return FP32AdapterUnknown, "whether it does cannot be told from the command or its script: not edited"
	case l.FullFineTune:
		return FP32FullFineTune, "not edited: fp32 masters of a whole model are a choice of memory"
	case l.NotTheLoad != "":
		return FP32NotTheLoad, l.NotTheLoad
	case l.Flash != "":
		return FP32Flash, l.Flash
	}
	return FP32Masters, ""
}

// checkpointNote names the dtype of the checkpoint an id names, where the
// id tells it (" (bf16 for Qwen/Qwen2.5-0.5B)"), else "".
func checkpointNote(id string, known bool) string {
	if d := semantic.CheckpointDtype(id); known && d != "" {
		return fmt.Sprintf(" (%s for %s)", d, id)
	}
	return ""
}

// missingDtype adds an explicit float32 where transformers' default is the
// checkpoint's dtype (5.x, or no pin found).
func missingDtype(p *Pass, l *semantic.Load) {
	f := p.Facts
	tv := p.Versions.Transformers
	if tv.Below(5, 0) {
		return // 4.x loads float32 by default
	}
	if l.IDKnown && semantic.CheckpointDtype(l.ModelID) == "fp32" {
		return // "auto" loads an fp32 checkpoint in fp32 (BERT, T5)
	}
	if l.Opaque() {
		p.Report(Finding{Start: l.Node.Start(), End: l.Args.End(), Severity: SeverityWarning,
			Message: fmt.Sprintf("training load with **kwargs and no visible dtype: make sure it loads float32 (the default is \"auto\", the checkpoint's dtype%s, from transformers 5)", checkpointNote(l.ModelID, l.IDKnown))})
		return
	}
	kw := dtypeKeyword(f, tv)
	name, imp := pyedit.TorchName(f, "float32")
	add := pyedit.ListAddition(p.Src, l.Args, kw+"="+name)
	fd := Finding{Start: l.Node.Start(), End: l.Args.End(), Severity: SeverityWarning,
		Message: fmt.Sprintf("training load without a dtype loads the checkpoint's dtype%s under transformers >= 5 (assumed: %s); load float32 masters, %s; %s",
			checkpointNote(l.ModelID, l.IDKnown), tv.Describe("transformers"), computeNote(f), fp32CostOf(l.ModelID, l.IDKnown))}
	fd.Fix = pyedit.AddingFix(fmt.Sprintf("add %s=%s", kw, name), add, imp...)
	reportFP32(p, l, fd)
}

// lowDtype turns a bf16/fp16/"auto" dtype into float32. A dtype held in a
// variable is replaced at the use site, so that other users of the variable
// (bnb_4bit_compute_dtype) keep it; so is a conditional on the hardware
// (torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float32);
// a dtype decided at run time (argparse, a config, the environment) is a
// warning.
func lowDtype(p *Pass, l *semantic.Load, kw string, v *syntree.Node) {
	f, text := p.Facts, p.Src.Text
	vals, known := f.Values(v)
	var low []*syntree.Node
	var shown []string
	for _, val := range vals {
		switch semantic.LowPrecision(f, val) {
		case "bfloat16", "float16", "auto":
			low = append(low, val)
			shown = append(shown, val.Content(text))
		case "float32":
		default:
			known = false
		}
	}
	if len(low) == 0 && known {
		return
	}
	if !known {
		p.Report(Finding{Start: v.Start(), End: v.End(), Severity: SeverityWarning,
			Message: fmt.Sprintf("%s comes from %s: make sure the training load gets torch.float32 (bf16/fp16 weights make training pure low precision)", kw, f.DecidedAtRunTime(v, l.Func))})
		return
	}
	name, imp := pyedit.TorchName(f, "float32")
	if quote, ok := semantic.StringDtypes(low, text); ok {
		// A string stays a string: "float32" needs no import, and the
		// transformers that took "bfloat16" takes it.
		name, imp = quote("float32"), nil
	}
	what := v.Content(text)
	msg := "%s=%s on a training load makes bf16=True/fp16=True training pure low precision (params, grads and optimizer state); load float32 masters, %s; %s"
	switch {
	case low[0].Equal(v):
	case v.Type() == "identifier" || v.Type() == "attribute":
		what = fmt.Sprintf("%s (= %s)", v.Content(text), strings.Join(shown, " or "))
	default:
		// A conditional on the hardware written in the call: float32 on
		// every branch is float32.
		msg = "%s=%s on a training load: the condition is a check of the GPU, not the user's choice, and its low-precision branch makes training pure low precision (params, grads and optimizer state); load float32 masters, %s; %s"
	}
	edits := append([]Edit{{Start: v.Start(), End: v.End(), NewText: name}}, imp...)
	fixKw := kw
	if e, ok := dtypeSpelling(p, kw, v); ok {
		edits, fixKw = append(edits, e), "dtype"
	}
	reportFP32(p, l, Finding{Start: v.Start(), End: v.End(), Message: fmt.Sprintf(msg, kw, what, computeNote(f), fp32CostOf(l.ModelID, l.IDKnown)),
		Fix: &Fix{Message: fmt.Sprintf("load float32 masters: %s=%s", fixKw, name), Edits: edits}})
}

// dtypeSpelling renames the torch_dtype keyword whose value v the fix
// rewrites anyway to dtype, where transformers is known to be 4.56 or
// later (torch_dtype= is deprecated there and logs a warning at every
// load): in a call's keyword argument, or a dict entry's key in its
// quotes. A keyword the fix does not touch keeps the file's spelling.
func dtypeSpelling(p *Pass, kw string, v *syntree.Node) (Edit, bool) {
	text := p.Src.Text
	if kw != "torch_dtype" || !p.Versions.Transformers.AtLeast(4, 56) {
		return Edit{}, false
	}
	switch item := v.Parent(); {
	case item == nil:
	case item.Type() == "keyword_argument":
		if name := item.ChildByFieldName("name"); name != nil && name.Content(text) == "torch_dtype" {
			return Edit{Start: name.Start(), End: name.End(), NewText: "dtype"}, true
		}
	case item.Type() == "pair":
		key := item.ChildByFieldName("key")
		if s, ok := semantic.StringValue(key, text); ok && s == "torch_dtype" && key.Type() == "string" {
			q := key.Content(text)
			if i := strings.Index(q, "torch_dtype"); i > 0 {
				return Edit{Start: key.Start() + i, End: key.Start() + i + len("torch_dtype"), NewText: "dtype"}, true
			}
		}
	}
	return Edit{}, false
}

// computeNote says what compute becomes with fp32 masters: bf16/fp16
// through the file's own mixed precision, or float32 where the file shows
// none.
func computeNote(f *semantic.Facts) string {
	if amp := amp(f); amp != "" {
		kind := "half precision" // torch.autocast's dtype is not read
		switch {
		case strings.Contains(amp, "bf16"):
			kind = "bf16"
		case strings.Contains(amp, "fp16"):
			kind = "fp16"
		}
		return "compute stays " + kind + " through " + amp
	}
	return "and with no mixed precision in this file (bf16=True or fp16=True in the training arguments, or torch.autocast) compute runs in float32 too"
}

// reportFP32 reports an fp32-masters fix, unsafe where the masters cannot
// fit one GPU or the load shards on purpose (DOMAIN.md §3): there the plan
// needs a look first.
func reportFP32(p *Pass, l *semantic.Load, fd Finding) {
	why := tooBig(l)
	if why == "" && shardingMap(p.Facts, l) != "" {
		why = shardsOnPurpose(p.Facts, l)
	}
	GateFP32(&fd, why)
	p.Report(fd)
}

// GateFP32 is LTF001's size gate, for every front end: where why says the
// fp32 masters cannot fit one GPU (or the load shards on purpose), the fix
// becomes unsafe and the finding a warning that says why.
func GateFP32(fd *Finding, why string) {
	if why != "" && fd.Fix != nil {
		fd.Severity = SeverityWarning
		fd.Message += "; but " + why + ": fp32 masters need a plan for that (FSDP, DeepSpeed, or QLoRA)"
		fd.Fix.Applicability = Unsafe
		fd.Fix.Message += " (unsafe: " + why + ")"
	}
}

// castMethods cast a whole model: after an fp32 load they undo it.
var castMethods = map[string]string{"half": "float16", "bfloat16": "bfloat16"}

// modelCasts are the file's calls that cast a whole model to half
// precision (model.half(), model.bfloat16(), model.to(torch.bfloat16)),
// found once per file so that each load looks up its own: by the object
// cast, in source order, and by the cast call's span.
type modelCasts struct {
	byObject map[string][]*semantic.Call
	bySpan   map[[2]uint32]*semantic.Call
}

// castChecks counts the calls looked at as possible casts, for the test
// that holds the lookup linear in the file.
var castChecks atomic.Int64

func findModelCasts(p *Pass) *modelCasts {
	f, text := p.Facts, p.Src.Text
	isCast := func(c *semantic.Call) bool {
		castChecks.Add(1)
		if _, ok := castMethods[c.Method]; ok && len(semantic.RealArgs(c.Args)) == 0 {
			return true
		}
		if c.Method == "to" {
			args := semantic.RealArgs(c.Args)
			if len(args) == 1 {
				a := args[0]
				if a.Type() == "keyword_argument" && a.ChildByFieldName("name").Content(text) == "dtype" {
					a = a.ChildByFieldName("value")
				}
				k := semantic.LowPrecision(f, a)
				return k == "bfloat16" || k == "float16"
			}
		}
		return false
	}
	casts := &modelCasts{byObject: map[string][]*semantic.Call{}, bySpan: map[[2]uint32]*semantic.Call{}}
	for _, c := range f.Calls {
		if isCast(c) {
			casts.byObject[c.Object()] = append(casts.byObject[c.Object()], c)
			casts.bySpan[[2]uint32{c.Node.StartByte(), c.Node.EndByte()}] = c
		}
	}
	return casts
}

// postLoadCasts finds the casts of the loaded model on the training path
// after the load, and a cast chained on the load.
func postLoadCasts(p *Pass, l *semantic.Load, casts *modelCasts) {
	text := p.Src.Text
	// Chained on the load: AutoModel...from_pretrained(...).half()
	if attr := l.Node.Parent(); attr != nil && attr.Type() == "attribute" {
		if outer := attr.Parent(); outer != nil && outer.Type() == "call" && casts.bySpan[[2]uint32{outer.StartByte(), outer.EndByte()}] != nil {
			p.Report(Finding{Start: l.Node.End(), End: outer.End(),
				Message: fmt.Sprintf(".%s chained on the training load casts the fp32 masters back to half precision", semantic.Compact(string(text[l.Node.End()+1:outer.End()]))),
				Fix:     &Fix{Message: "remove the cast", Edits: []Edit{{Start: l.Node.End(), End: outer.End()}}}})
		}
	}
	if l.Target == "" {
		return
	}
	for _, c := range casts.byObject[l.Target] {
		if c.Func != l.Func || c.Node.StartByte() < l.Node.EndByte() {
			continue
		}
		stmt := semantic.Statement(c.Node)
		if stmt == nil || stmt.Type() != "expression_statement" {
			continue
		}
		// Only "model.half()" or "model = model.half()" as a whole statement.
		inner := stmt.NamedChild(0)
		if inner.Type() == "assignment" {
			if semantic.Compact(inner.ChildByFieldName("left").Content(text)) != l.Target || !inner.ChildByFieldName("right").Equal(c.Node) {
				continue
			}
		} else if !inner.Equal(c.Node) {
			continue
		}
		fd := Finding{Start: c.Node.Start(), End: c.Node.End(),
			Message: fmt.Sprintf("%s after the fp32 load casts the masters back to half precision: training would be pure low precision again", semantic.Compact(c.Node.Content(text)))}
		e, ok := pyedit.ReplaceStatement(p.Src, stmt, nil)
		if ok {
			fd.Fix = &Fix{Message: "remove the cast", Edits: []Edit{e}}
			if stmt.Parent() == nil || l.Func.Body == nil && stmt.Parent().Type() != "module" || l.Func.Body != nil && !stmt.Parent().Equal(l.Func.Body) {
				// Inside an if/for/with: whether every path reaches it is unclear.
				fd.Fix.Applicability = Unsafe
				fd.Fix.Message = "remove the cast (unsafe: it sits inside a branch or loop; check the path it serves)"
			}
		}
		p.Report(fd)
	}
}

// trlDtype is LTF001 for a model TRL loads by name.
func trlDtype(p *Pass, t *trlLoad) {
	f := p.Facts
	key := "torch_dtype"
	if tv := p.Versions.TRL; tv.AtLeast(0, 23) || !tv.Known && !tv.Unreadable() && fileDtypeKeyword(f) == "dtype" {
		key = "dtype" // its name from TRL 0.23; with no pin, as the file spells it
	}
	v := t.entries["dtype"]
	if v != nil {
		key = "dtype"
	} else if v = t.entries["torch_dtype"]; v != nil {
		key = "torch_dtype"
	}
	always, maybe := t.quantized(f)
	facts := FP32Facts{Quantized: always, MaybeQuantized: maybe}
	if flash := t.flash(f); flash != "" && amp(f) == "" {
		facts.Flash = fmt.Sprintf("TRL loads %s with %s (model_init_kwargs), %s", t.name(), flash, fp32FlashNoAutocast)
	}
	verdict, why := DecideFP32(facts)
	if verdict == FP32Quantized {
		return // QLoRA: the frozen base keeps its dtype (DOMAIN 4)
	}
	where := t.trainer.Node.Start()
	if v != nil {
		k := semantic.LowPrecision(f, v)
		if k == "" && v.Type() != "string" {
			where := ""
			if verdict == FP32SomePaths {
				where = " on the path that does not quantize"
			}
			p.Report(Finding{Start: v.Start(), End: v.End(), Severity: SeverityWarning,
				Message: fmt.Sprintf("TRL builds %s from model_init_kwargs with the dtype %s: make sure it is float32 for training%s (%s)", t.name(), f.DecidedAtRunTime(v, t.trainer.Func), where, computeNote(f))})
			return
		}
		if k != "bfloat16" && k != "float16" && k != "auto" {
			return
		}
		where = v.Start()
	} else if p.Versions.TRL.AtLeast(0, 27) {
		return // TRL >= 0.27 loads float32 when no dtype is given
	}
	if verdict == FP32SomePaths {
		p.Report(Finding{Start: where, End: where, Severity: SeverityWarning, Message: fmt.Sprintf("TRL loads %s itself, and %s", t.name(), why)})
		return
	}
	if verdict == FP32Flash {
		// float32 here trips the attention's fp16/bf16 check at the first
		// forward: a warning, as for a load the script makes.
		p.Report(Finding{Start: where, End: where, Severity: SeverityWarning, Message: why})
		return
	}
	msg := fmt.Sprintf("TRL loads %s itself in %s; pass float32 masters in model_init_kwargs (%s); %s (assumed: %s)",
		t.name(), map[bool]string{true: "the dtype given", false: "the checkpoint's dtype" + checkpointNote(t.modelID, t.idKnown) + " when none is given before TRL 0.27"}[v != nil], computeNote(f), fp32CostOf(t.modelID, t.idKnown), p.Versions.TRL.Describe("trl"))
	fd := Finding{Start: where, End: where, Message: msg}
	if t.jsonString {
		fd.Severity = SeverityWarning
		fd.Message += "; model_init_kwargs is a JSON string here: edit it by hand"
		p.Report(fd)
		return
	}
	// A string, as TRL before mid-2024 reads it (getattr(torch, value)
	// unless "auto"), and JSON keeps it in the saved training arguments.
	name := `"float32"`
	if v != nil {
		if quote, ok := semantic.StringDtypes([]*syntree.Node{v}, f.Src.Text); ok {
			name = quote("float32")
		}
	}
	if fix, ok := t.setInit(p, key, name); ok {
		fix.Message = fmt.Sprintf("model_init_kwargs %q: %s", key, name)
		fd.Start, fd.End = t.site(fix) // in a notebook, the cell the fix edits
		fd.Fix = fix
	}
	p.Report(fd)
}
