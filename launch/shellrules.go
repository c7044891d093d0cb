package launch

import (
	"fmt"
	"slices"
	"strings"

	"github.com/loratune/loratune-fix/rewrite"
	"github.com/loratune/loratune-fix/semantic"
)

// flagTrue reports a bare switch (--use_peft) or one given a true value.
func flagTrue(f *flag) bool {
	if f == nil {
		return false
	}
	if f.value == nil {
		return true
	}
	v, ok := boolean(f.value.text)
	return f.value.known && (ok && v || f.value.text == "1")
}

// run is what a command tells, with its script or config, of the run.
type run struct {
	adapter, quantized bool
	// told: the adapter question has an answer (flags, or the script).
	told bool
	// trains: the command passes training options (an output folder, a
	// learning rate): not an evaluation or export run.
	trains bool
	// script are the facts of the Python script it runs, nil if unread.
	script *rewrite.ScriptFacts
	name   string // the script's path as written
}

var (
	adapterFlags   = []string{"use_peft", "lora_r", "lora_rank", "lora_alpha", "lora_target_modules", "lora_target", "use_lora", "peft"}
	quantizedFlags = []string{"load_in_4bit", "load_in_8bit", "use_qlora", "q_lora", "qlora"}
	trainingFlags  = []string{"output_dir", "do_train", "learning_rate", "num_train_epochs", "max_steps", "per_device_train_batch_size", "gradient_accumulation_steps", "bf16", "fp16"}
)

// runOf reads the command's flags, and its script when Options.Read can.
func (p *pass) runOf(c *command) run {
	var r run
	for _, f := range c.flags {
		switch {
		case slices.Contains(adapterFlags, f.name) && (f.value == nil || flagTrue(f) || !strings.HasPrefix(f.name, "use") && f.name != "peft"):
			r.adapter, r.told = true, true
		case slices.Contains(adapterFlags, f.name) && f.value.known:
			r.told = true // --use_peft False: a full fine-tune
		case f.name == "finetuning_type" && f.value != nil && f.value.known:
			r.adapter, r.told = f.value.text == "lora" || f.value.text == "oft", true
		case slices.Contains(quantizedFlags, f.name) && flagTrue(f):
			r.quantized = true
		case slices.Contains(trainingFlags, f.name):
			r.trains = true
		case (f.name == "quantization_bit" || f.name == "bits" || f.name == "load_in_kbits") && f.value != nil && f.value.known && (f.value.text == "4" || f.value.text == "8"):
			r.quantized = true
		}
	}
	if c.script != nil && c.script.known && strings.HasSuffix(c.script.text, ".py") && p.opts.Read != nil {
		if data, err := p.opts.Read(c.script.text); err == nil {
			if sf, err := rewrite.ReadScript(data); err == nil {
				r.script, r.name = sf, c.script.text
				if sf.Adapter {
					r.adapter, r.told = true, true
				}
				r.trains = r.trains || sf.Trains
				r.quantized = r.quantized || sf.Quantized
			}
		}
	}
	r.trains = r.trains || r.told
	return r
}

// where describes a word's value for a message: its variable and line.
func (p *pass) where(w *word) string {
	switch {
	case w.variable == "":
		return w.text
	case w.array:
		return fmt.Sprintf("%s (in the array %s, line %d)", w.text, w.variable, p.f.src.Position(w.start).Line)
	case w.fallback:
		return fmt.Sprintf("%s (the default of $%s, line %d; the environment can override it)", w.text, w.variable, p.f.src.Position(w.start).Line)
	}
	return fmt.Sprintf("$%s (%s=%s, line %d)", w.variable, w.variable, w.text, p.f.src.Position(w.start).Line)
}

// hfLaunchers pass Hugging Face argument style options to the script.
var hfLaunchers = map[string]bool{"python": true, "torchrun": true, "accelerate launch": true, "deepspeed": true, "trl sft": true}

// shell: the training commands of a shell launcher.
func (p *pass) shell() {
	for _, c := range p.f.sh.commands {
		p.scope = ""
		if c.launcher == "llamafactory-cli train" && c.script == nil {
			p.llamaFactoryFlags(c)
			continue
		}
		if c.launcher == "llamafactory-cli train" {
			p.llamaFactoryOverrides(c)
		}
		if strings.HasPrefix(c.launcher, "swift ") {
			p.swiftFlags(c)
			continue
		}
		if !hfLaunchers[c.launcher] {
			continue
		}
		r := p.runOf(c)
		if r.told && !r.adapter {
			p.scope = semantic.FullFineTune
		}
		p.shellPrecision(c, r)
		p.shellAttention(c, r)
		p.shellArguments(c)
		p.shellCompile(c)
		p.shellFP16(c)
		p.crossFile(c)
	}
	p.scope = ""
}

// llamaFactoryFlags: llamafactory-cli train given its settings as options
// instead of a YAML: the YAML's attention, NaN logging and compile checks,
// on the command line.
func (p *pass) llamaFactoryFlags(c *command) {
	if !flagTrue(getFlag(c.flags, "do_train")) {
		return // inference, evaluation or export
	}
	ftype := "lora"
	if f := getFlag(c.flags, "finetuning_type"); f != nil && f.value != nil && f.value.known {
		ftype = f.value.text
	}
	if ftype != "lora" && ftype != "oft" {
		p.scope = semantic.FullFineTune
	}
	unsloth := flagTrue(getFlag(c.flags, "use_unsloth"))
	fa := getFlag(c.flags, "flash_attn")
	value := "auto"
	if fa != nil && fa.value != nil {
		value = fa.value.text
		if !fa.value.known {
			value = ""
		}
	}
	if value == "auto" || value == "sdpa" {
		start, end := nameSpan(c)
		msg := fmt.Sprintf("no --flash_attn (finetuning_type %s): LLaMA-Factory's default auto trains through SDPA: %s", ftype, sdpaWhy)
		if fa != nil {
			start, end = int(fa.node.StartByte()), flagEnd(fa)
			msg = fmt.Sprintf("--flash_attn %s trains through SDPA: %s", p.where(fa.value), sdpaWhy)
		}
		fd := rewrite.Finding{Start: start, End: end, Message: msg + "; --flash_attn disabled is eager attention (O(L^2) memory, slower)"}
		switch {
		case unsloth:
			fd.Severity = rewrite.SeverityWarning
			fd.Message += "; not fixed: with --use_unsloth unsloth loads the model and ignores the attention setting"
		case fa == nil:
			if e, ok := p.addFlag(c, "flash_attn", "disabled"); ok {
				fd.Fix = &rewrite.Fix{Message: "add --flash_attn disabled (eager attention)", Edits: []rewrite.Edit{e}}
			}
		case fa.value.shared:
			fd.Message += fmt.Sprintf("; not fixed: $%s has other uses", fa.value.variable)
		default:
			fd.Fix = &rewrite.Fix{Message: "--flash_attn disabled (eager attention)", Edits: []rewrite.Edit{setWord(fa.value, "disabled")}}
		}
		p.report("LTF002", fd)
		p.report("LTF007", rewrite.Finding{Start: start, End: end, Severity: rewrite.SeverityWarning, Message: msg + "; " + fenceWhy})
	}
	if getFlag(c.flags, "logging_nan_inf_filter") == nil {
		start, end := nameSpan(c)
		fd := rewrite.Finding{Start: start, End: end, Message: nanWhy + fmt.Sprintf(" (logging_nan_inf_filter is true by default; finetuning_type %s)", ftype)}
		if e, ok := p.addFlag(c, "logging_nan_inf_filter", "false"); ok {
			fd.Fix = &rewrite.Fix{Message: "add --logging_nan_inf_filter false", Edits: []rewrite.Edit{e}}
		}
		p.report("LTF009", fd)
	}
	p.shellArguments(c)
	p.shellCompile(c)
	p.shellFP16(c)
	p.crossFile(c)
}

// swiftFlags: ms-swift's swift sft/rlhf/pt, its settings as options. The
// same decisions as for the other launchers, as warnings only: ms-swift
// derives its mixed precision from --torch_dtype and reads its own option
// names (--tuner_type, before that --train_type; --attn_impl).
func (p *pass) swiftFlags(c *command) {
	tuner := "lora"
	for _, k := range []string{"tuner_type", "train_type"} {
		if f := getFlag(c.flags, k); f != nil && f.value != nil && f.value.known {
			tuner = f.value.text
		}
	}
	if tuner == "full" {
		return // a full fine-tune: only adapter training is edited, and these would be warnings without a fix
	}
	quantized := getFlag(c.flags, "quant_bits") != nil
	if dt := getFlag(c.flags, "torch_dtype"); dt != nil && dt.value != nil && dt.value.known {
		if d := dt.value.text; (d == "bfloat16" || d == "float16") && !quantized {
			p.report("LTF001", rewrite.Finding{Start: int(dt.node.StartByte()), End: flagEnd(dt), Severity: rewrite.SeverityWarning,
				Message: fmt.Sprintf("--torch_dtype %s on an adapter run (--tuner_type %s) loads the model in %s; the reported fix set loads float32 masters (--torch_dtype float32) and keeps %s compute under mixed precision (--%s true), at 1.6-2.3x the memory; not edited: ms-swift derives its mixed precision from --torch_dtype", d, tuner, d, d, map[string]string{"bfloat16": "bf16", "float16": "fp16"}[d])})
		}
	}
	attn := getFlag(c.flags, "attn_impl")
	value := ""
	if attn != nil && attn.value != nil && attn.value.known {
		value = attn.value.text
	}
	if attn == nil || value == "sdpa" {
		start, end := nameSpan(c)
		what := "no --attn_impl: the model loads with transformers' default SDPA"
		if attn != nil {
			start, end = int(attn.node.StartByte()), flagEnd(attn)
			what = "--attn_impl sdpa"
		}
		p.report("LTF002", rewrite.Finding{Start: start, End: end, Severity: rewrite.SeverityWarning,
			Message: what + ": " + sdpaWhy + "; --attn_impl eager trains without it (O(L^2) memory); not edited: ms-swift's option names change between releases"})
	}
}

func (p *pass) shellPrecision(c *command, r run) {
	bf, fp := getFlag(c.flags, "bf16"), getFlag(c.flags, "fp16")
	// Autocast keeps the compute in half precision over float32 weights:
	// --bf16/--fp16 on the command, or trl sft's SFTConfig default bf16.
	amp := flagTrue(bf) || flagTrue(fp) || c.launcher == "trl sft" && (bf == nil || flagTrue(bf)) && !flagTrue(fp)
	if flagTrue(bf) && flagTrue(fp) {
		p.reportStop("LTF001", rewrite.Finding{Start: int(fp.node.StartByte()), End: flagEnd(fp),
			Message: "--bf16 and --fp16 are both on: TrainingArguments stop the run (\"At most one of fp16 and bf16 can be True\"); keep one"})
	}
	moot := p.shellDeepSpeedMoot(c, flagTrue(bf), flagTrue(fp))
	if moot == "" {
		moot = p.shellFSDPMoot(c, flagTrue(bf), flagTrue(fp))
	}
	ampName, id := "", ""
	switch {
	case flagTrue(bf):
		ampName = "--bf16"
	case flagTrue(fp):
		ampName = "--fp16"
	}
	if m := getFlag(c.flags, "model_name_or_path"); m != nil && m.value != nil && m.value.known && m.value.variable == "" {
		id = m.value.text
	}
	why := fp32WhyFor(ampName, id)
	flash := flagTrue(getFlag(c.flags, "use_flash_attention_2"))
	for _, name := range []string{"torch_dtype", "dtype"} {
		f := getFlag(c.flags, name)
		if f == nil || f.value == nil || !f.value.known || !lowDtypes[f.value.text] {
			continue
		}
		w := f.value
		fd := rewrite.Finding{Start: int(f.node.StartByte()), End: flagEnd(f)}
		if !r.trains {
			continue // an evaluation or export command, as far as its options tell
		}
		facts := rewrite.FP32Facts{Quantized: r.quantized, Moot: moot, AdapterUnknown: !r.told, FullFineTune: !r.adapter}
		if r.script != nil && !slices.Contains(r.script.DtypeOptions, name) {
			facts.NotTheLoad = fmt.Sprintf("%s does not take its training load's dtype from --%s as far as can be told (or its choices leave out float32): not edited", r.name, name)
		}
		if flash {
			facts.Flash = "--use_flash_attention_2 loads FlashAttention-2, which runs in fp16/bf16 only: beside it a float32 load stops at load on the releases that brought the keyword (transformers 4.34-4.35: ValueError \"Flash Attention 2.0 only supports torch.float16 and torch.bfloat16 dtypes\") and later ones warn and lean on autocast; keep the dtype, or choose eager attention and then load float32"
		}
		verdict, reason := rewrite.DecideFP32(facts)
		switch verdict {
		case rewrite.FP32Quantized:
			fd.Severity, fd.Message = rewrite.SeverityInfo, fmt.Sprintf("--%s %s on a quantized run: %s; no change", name, p.where(w), reason)
		case rewrite.FP32Moot:
			fd.Severity, fd.Message = rewrite.SeverityInfo, fmt.Sprintf("--%s %s %s; no change", name, p.where(w), reason)
		case rewrite.FP32AdapterUnknown:
			fd.Severity, fd.Message = rewrite.SeverityWarning, fmt.Sprintf("--%s %s: if this run trains adapters, load float32 masters (%s); %s", name, p.where(w), why, reason)
		case rewrite.FP32FullFineTune:
			fd.Message = fmt.Sprintf("--%s %s on a full fine-tune trains every weight in pure low precision: %s; %s", name, p.where(w), why, reason)
		case rewrite.FP32NotTheLoad:
			fd.Severity, fd.Message = rewrite.SeverityWarning, fmt.Sprintf("--%s %s: %s; %s", name, p.where(w), reason, why)
		default:
			fromScript := r.script != nil
			fd.Message = fmt.Sprintf("--%s %s on an adapter run: %s", name, p.where(w), why)
			if fromScript {
				fd.Message = fmt.Sprintf("%s loads its training model with the dtype of --%s, set to %s here: %s", r.name, name, p.where(w), why)
			}
			switch {
			case verdict == rewrite.FP32Flash:
				fd.Severity = rewrite.SeverityWarning
				fd.Message += "; not fixed: " + reason
			case !amp:
				fd.Message += "; not fixed: no --bf16 or --fp16 on this command, so float32 weights would train in fp32 throughout (and flash attention would refuse them): turn autocast on with --bf16 True, then load float32"
			case w.shared:
				fd.Message += fmt.Sprintf("; not fixed: $%s has other uses, change it for the training command only", w.variable)
			default:
				keep := ampName
				if keep == "" {
					keep = "trl sft's default --bf16"
				}
				fd.Fix = &rewrite.Fix{Message: fmt.Sprintf("--%s float32 (autocast stays through %s)", name, keep), Edits: []rewrite.Edit{setWord(w, "float32")}}
				rewrite.GateFP32(&fd, rewrite.TooBig(id))
			}
		}
		p.report("LTF001", fd)
	}
}

// shellDeepSpeedMoot says why a dtype edit is moot on this command (see
// deepSpeedMoot), or "": a --deepspeed config (or accelerate's
// --deepspeed_config_file) with mixed precision on.
func (p *pass) shellDeepSpeedMoot(c *command, bf, fp bool) string {
	ds := getFlag(c.flags, "deepspeed")
	if ds == nil {
		ds = getFlag(c.pre, "deepspeed_config_file")
	}
	if ds == nil || ds.value == nil {
		return ""
	}
	runMixed := ""
	switch {
	case bf:
		runMixed = "bf16"
	case fp:
		runMixed = "fp16"
	}
	return p.deepSpeedMoot(ds.path(), p.where(ds.value), runMixed)
}

// shellFSDPMoot says why a dtype edit is moot on this command under FSDP
// with mixed precision (see fsdpMoot), or "": the Trainer's --fsdp, or
// accelerate launch with --use_fsdp or an FSDP config file.
func (p *pass) shellFSDPMoot(c *command, bf, fp bool) string {
	fsdp, mode := "", ""
	if f := getFlag(c.flags, "fsdp"); f != nil && f.value != nil && f.value.known && f.value.text != "" && !falseWord(f.value.text) {
		fsdp = "--fsdp " + f.value.text
	}
	if c.launcher == "accelerate launch" {
		if getFlag(c.pre, "use_fsdp") != nil {
			fsdp = "accelerate launch --use_fsdp"
		}
		if cf := getFlag(c.pre, "config_file"); cf != nil {
			if acc := p.readConfig(cf.path()); acc != nil {
				if acc.kind == Accelerate {
					if s, ok := acc.top.lookupScalar("distributed_type", acc.text); ok && s.text == "FSDP" {
						fsdp = cf.path()
					}
					if s, ok := acc.top.lookupScalar("mixed_precision", acc.text); ok {
						mode = s.text
					}
				}
				acc.close()
			}
		}
		if f := getFlag(c.pre, "mixed_precision"); f != nil && f.value != nil && f.value.known {
			mode = f.value.text
		}
	}
	switch {
	case bf:
		mode = "bf16"
	case fp:
		mode = "fp16"
	}
	if fsdp == "" || mode != "bf16" && mode != "fp16" {
		return ""
	}
	return p.fsdpMoot(fsdp, mode)
}

// fsdpMoot: accelerate (from 0.30; FSDP2 too) upcasts the trainable
// low-precision parameters to fp32 when it wraps a model for FSDP with
// mixed precision, so the masters are fp32 whatever the load's dtype. A
// pinned accelerate before 0.30 keeps the edit.
func (p *pass) fsdpMoot(fsdp, mode string) string {
	if p.vs.Accelerate.MayBeBelow(0, 30) {
		return ""
	}
	return fmt.Sprintf("under FSDP (%s) with %s mixed precision: accelerate (0.30 and later; %s) upcasts the trainable low-precision parameters to fp32 when it wraps the model, so they are fp32 masters whatever the load's dtype, and a float32 load changes only the memory the load takes", fsdp, mode, p.vs.Accelerate.Describe("accelerate"))
}

// falseWord reports a false boolean word (false, False, no, off).
func falseWord(s string) bool {
	v, ok := boolean(s)
	return ok && !v
}

func (p *pass) shellAttention(c *command, r run) {
	f := getFlag(c.flags, "attn_implementation")
	if f == nil {
		p.shellNoAttention(c, r)
		return
	}
	if f.value == nil || !f.value.known || f.value.text != "sdpa" {
		return
	}
	w := f.value
	start, end := int(f.node.StartByte()), flagEnd(f)
	msg := fmt.Sprintf("--attn_implementation %s: %s", p.where(w), sdpaWhy)
	fd := rewrite.Finding{Start: start, End: end, Message: msg}
	needsFlash := ""
	for _, k := range []string{"packing", "padding_free"} {
		if flagTrue(getFlag(c.flags, k)) {
			needsFlash = k
		}
	}
	switch {
	case needsFlash != "":
		fd.Severity, fd.Message = rewrite.SeverityWarning, msg+fmt.Sprintf("; not fixed: --%s needs flash attention (flash_attention_2 does not use cuDNN SDPA)", needsFlash)
	case w.shared:
		fd.Message += fmt.Sprintf("; not fixed: $%s has other uses", w.variable)
	default:
		fd.Fix = &rewrite.Fix{Message: "--attn_implementation eager", Edits: []rewrite.Edit{setWord(w, "eager")}}
	}
	p.report("LTF002", fd)
	p.report("LTF007", rewrite.Finding{Start: start, End: end, Severity: rewrite.SeverityWarning,
		Message: msg + "; the lean profile keeps SDPA and switches the cuDNN backend off with torch.backends.cuda.enable_cudnn_sdp(False) in the training script: a command line has no option for that"})
}

// shellArguments: TrainingArguments options on the command line.
func (p *pass) shellArguments(c *command) {
	text := p.f.text
	if f := getFlag(c.flags, "logging_nan_inf_filter"); f != nil && flagTrue(f) {
		fd := rewrite.Finding{Start: int(f.node.StartByte()), End: flagEnd(f), Message: nanWhy}
		switch {
		case f.value != nil && f.value.shared:
			fd.Message += fmt.Sprintf("; not fixed: $%s has other uses", f.value.variable)
		case f.value != nil:
			if _, ok := boolean(f.value.text); ok {
				fd.Fix = &rewrite.Fix{Message: "--logging_nan_inf_filter " + falseLike(f.value.text), Edits: []rewrite.Edit{setWord(f.value, falseLike(f.value.text))}}
			}
		}
		p.report("LTF009", fd)
	}
	tv := p.vs.Transformers
	if !tv.AtLeast(5, 0) {
		return
	}
	for _, ra := range removedArguments {
		f := getFlag(c.flags, ra.old)
		if f == nil {
			continue
		}
		fd := rewrite.Finding{Start: int(f.node.StartByte()), End: flagEnd(f),
			Message: fmt.Sprintf("--%s was removed from TrainingArguments in transformers 5 and stops the run (%s); %s", ra.old, tv.Describe("transformers"), ra.why)}
		if getFlag(c.flags, ra.repl) != nil {
			fd.Message += fmt.Sprintf("; --%s is given too: keep one", ra.repl)
		} else if e, ok := renameFlag(f, text, ra.repl); ok {
			fd.Fix = &rewrite.Fix{Message: fmt.Sprintf("--%s becomes --%s", ra.old, ra.repl), Edits: []rewrite.Edit{e}}
		}
		p.report("LTF102", fd)
	}
}

// llamaFactoryOverrides: key=value words after the config of
// llamafactory-cli train override the YAML's settings, so a YAML fixed
// alone would be undone on this command line: flash_attn=auto|sdpa
// (LTF002, fixed as in the YAML unless the YAML says use_unsloth: true)
// and logging_nan_inf_filter=true (LTF009).
func (p *pass) llamaFactoryOverrides(c *command) {
	text := p.f.text
	unsloth := false
	name := ""
	if c.script != nil && c.script.known {
		name = c.script.text
	}
	if cfg := p.readConfig(name); cfg != nil {
		if cfg.kind == LlamaFactory {
			us, _ := cfg.top.get("use_unsloth")
			unsloth = us.isTrue(cfg.text)
		}
		cfg.close()
	}
	for _, n := range c.overrides {
		t := n.Content(text)
		key, val, ok := strings.Cut(t, "=")
		if n.Type() != "word" || !ok || strings.ContainsAny(t, `\$'"`) {
			continue
		}
		start, end := int(n.StartByte()), int(n.EndByte())
		at := start + len(key) + 1
		switch key {
		case "flash_attn":
			if val != "auto" && val != "sdpa" {
				continue
			}
			msg := fmt.Sprintf("flash_attn=%s on the command line overrides the config and trains through SDPA: %s", val, sdpaWhy)
			fd := rewrite.Finding{Start: start, End: end, Message: msg + "; flash_attn=disabled is eager attention (O(L^2) memory, slower)"}
			if unsloth {
				fd.Severity = rewrite.SeverityWarning
				fd.Message += "; not fixed: with use_unsloth: true unsloth loads the model and ignores the attention setting"
			} else {
				fd.Fix = &rewrite.Fix{Message: "flash_attn=disabled (eager attention)", Edits: []rewrite.Edit{{Start: at, End: end, NewText: "disabled"}}}
			}
			p.report("LTF002", fd)
			p.report("LTF007", rewrite.Finding{Start: start, End: end, Severity: rewrite.SeverityWarning, Message: msg + "; " + fenceWhy})
		case "logging_nan_inf_filter":
			if v, ok := boolean(val); ok && v {
				p.report("LTF009", rewrite.Finding{Start: start, End: end, Message: nanWhy + " (this key=value overrides the config)",
					Fix: &rewrite.Fix{Message: "logging_nan_inf_filter=" + falseLike(val), Edits: []rewrite.Edit{{Start: at, End: end, NewText: falseLike(val)}}}})
			}
		}
	}
}

// shellFP16 is LTF011 on a command line: --fp16 on a model trained in bf16
// (by --model_name_or_path); --bf16 in its place is an unsafe fix, as in
// the YAML configs (fp16OnBF16Native).
func (p *pass) shellFP16(c *command) {
	f := getFlag(c.flags, "fp16")
	model := getFlag(c.flags, "model_name_or_path")
	if f == nil || !flagTrue(f) || model == nil || model.value == nil || !model.value.known || !semantic.BF16Native(model.value.text) {
		return
	}
	fd := rewrite.Finding{Start: int(f.node.StartByte()), End: flagEnd(f),
		Message: fmt.Sprintf("--fp16 on %s, %s", model.value.text, bf16NativeWhy)}
	switch {
	case getFlag(c.flags, "bf16") != nil:
		fd.Message += "; not fixed: --bf16 is given too"
	case getFlag(c.flags, "deepspeed") != nil:
		fd.Message += fp16BlockWhy
	default:
		if e, ok := renameFlag(f, p.f.text, "bf16"); ok {
			fd.Fix = &rewrite.Fix{Message: "--fp16 becomes --bf16 (GPUs with bf16 only)", Applicability: rewrite.Unsafe, Edits: []rewrite.Edit{e}}
		}
	}
	p.report("LTF011", fd)
}

// renameFlag is the edit that renames flag f to --to, as written: dashes
// or underscores between words, "=value" or a separate value kept.
func renameFlag(f *flag, text []byte, to string) (rewrite.Edit, bool) {
	head := f.node
	switch head.Type() {
	case "concatenation":
		head = head.NamedChild(0)
	case "word":
	default:
		return rewrite.Edit{}, false
	}
	t := head.Content(text)
	dashes := len(t) - len(strings.TrimLeft(t, "-"))
	written := strings.TrimLeft(t, "-")
	if i := strings.IndexByte(written, '='); i >= 0 {
		written = written[:i]
	}
	if strings.Contains(written, "-") {
		to = strings.ReplaceAll(to, "_", "-")
	}
	at := int(head.StartByte()) + dashes
	return rewrite.Edit{Start: at, End: at + len(written), NewText: to}, true
}

// nameSpan is where a finding about a whole command points: its name.
func nameSpan(c *command) (int, int) {
	if n := c.node.ChildByFieldName("name"); n != nil {
		return int(n.StartByte()), int(n.EndByte())
	}
	return int(c.node.StartByte()), int(c.node.StartByte())
}

// flagEnd is where a flag and its value end on the command line.
func flagEnd(f *flag) int {
	if f.value != nil && f.value.node != nil && f.value.node.EndByte() > f.node.EndByte() {
		return int(f.value.node.EndByte())
	}
	return int(f.node.EndByte())
}

// shellNoAttention: a training command with no --attn_implementation runs
// the script's default. Where the script's training load takes its
// attention from an option the script declares (argparse, a dataclass
// field, TRL's ModelConfig) whose default is SDPA's (None, "sdpa"), the
// option is added; where the script cannot be read, a warning.
func (p *pass) shellNoAttention(c *command, r run) {
	if !r.trains || !r.told || !r.adapter {
		return
	}
	if flagTrue(getFlag(c.flags, "use_flash_attention_2")) {
		return // flash attention: no cuDNN SDPA
	}
	hf := getFlag(c.flags, "torch_dtype") != nil || getFlag(c.flags, "dtype") != nil || getFlag(c.flags, "model_name_or_path") != nil
	start, end := nameSpan(c)
	if c.script != nil && c.script.node != nil {
		start, end = int(c.script.node.StartByte()), int(c.script.node.EndByte())
	}
	msg := "no --attn_implementation: the training load uses transformers' default SDPA: " + sdpaWhy
	switch {
	case r.script == nil:
		return // unread: whether it takes the option is not known
	case r.script.DefaultAttention && r.script.Options["attn_implementation"] == "":
		if !hf {
			return
		}
		// A note: the script's own findings carry the fix (or say why its
		// loader ignores the keyword); a warning here would fail check on
		// the launcher for a fix made in another file.
		p.report("LTF002", rewrite.Finding{Start: start, End: end, Severity: rewrite.SeverityInfo,
			Message: msg + "; not fixed here: " + r.name + " takes no --attn_implementation, so the fix belongs in its load (its own findings say where, and whether its loader reads the keyword)"})
	case slices.Contains(r.script.AttnOptions, "attn_implementation"):
		def := strings.Trim(r.script.Options["attn_implementation"], `"'`)
		if def != "None" && def != "sdpa" {
			return // the script chooses eager, flash or flex itself
		}
		fd := rewrite.Finding{Start: start, End: end, Message: fmt.Sprintf("%s takes its training load's attention from --attn_implementation (default %s) and this command passes none: %s", r.name, r.script.Options["attn_implementation"], sdpaWhy)}
		needsFlash := ""
		for _, k := range []string{"packing", "padding_free"} {
			if flagTrue(getFlag(c.flags, k)) {
				needsFlash = k
			}
		}
		if needsFlash != "" {
			fd.Severity = rewrite.SeverityWarning
			fd.Message += fmt.Sprintf("; not fixed: --%s needs flash attention (flash_attention_2 does not use cuDNN SDPA)", needsFlash)
		} else if e, ok := p.addFlag(c, "attn_implementation", "eager"); ok {
			fd.Fix = &rewrite.Fix{Message: "add --attn_implementation eager", Edits: []rewrite.Edit{e}}
		}
		p.report("LTF002", fd)
	}
}
