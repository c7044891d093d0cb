package launch

import (
	"fmt"
	"strings"

	"github.com/loratune/loratune-fix/rewrite"
	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/version"
)

// The rules of the engine, where the setting lives in a launch config.
// Each reports under the code of its Python rule, and only when the engine
// runs that rule (profile, select, ignore).

const fp32Why = "loaded in bf16/fp16 without autocast, training is pure low precision (params, grads and optimizer state), where small updates vanish and overflow shows as grad_norm nan; fp32 masters with bf16 autocast keep the compute fast; " + rewrite.FP32Cost

const sdpaWhy = "the default SDPA attention trains through cuDNN on Hopper, whose backward gives NaN gradients on left-padded rows"

const fenceWhy = "the lean profile keeps SDPA and switches the cuDNN backend off with torch.backends.cuda.enable_cudnn_sdp(False) before training, and a config file has no setting for that: put it in the training script, or choose eager attention here (costs memory)"

const bf16NativeWhy = "a model trained in bf16: its activations pass fp16's range (65504) and overflow to inf and NaN, then loss 0; train in bf16 on GPUs that have it (Ampere and later), in fp32 on others"

const fp16BlockWhy = "; not fixed: the DeepSpeed config's fp16 block must change with it"

const nanWhy = "the Trainer's NaN filter prints a NaN loss as a finite one and then 0.0: log it as nan"

// lowDtypes are the dtype values that load half-precision weights.
var lowDtypes = map[string]bool{"bfloat16": true, "float16": true, "auto": true}

// llamaFactory: a LLaMA-Factory training YAML (llamafactory-cli train).
func (p *pass) llamaFactory() {
	f, m, text := p.f, p.f.top, p.f.text
	if train, _ := m.get("do_train"); train == nil || !train.isTrue(text) {
		return // inference, evaluation or export configs
	}
	ft, _ := m.get("finetuning_type")
	ftype := "lora" // LLaMA-Factory's default
	if s, ok := ft.scalar(text); ok {
		ftype = s.text
	}
	adapter := ftype == "lora" || ftype == "oft"
	if !adapter {
		// full, freeze (GaLore, BAdam, APOLLO ride on these): every weight
		// trains, as in a Python full fine-tune.
		p.scope = semantic.FullFineTune
	}
	qb, _ := m.get("quantization_bit")
	quantized := qb != nil && !qb.isNull(text)
	// unsloth loads the model itself: it chooses the dtype and drops the
	// attention setting.
	us, _ := m.get("use_unsloth")
	unsloth := us.isTrue(text)

	bf16, _ := m.get("bf16")
	fp16, _ := m.get("fp16")
	if bf16.isTrue(text) && fp16.isTrue(text) {
		start, end := pairSpan(fp16)
		p.reportStop("LTF001", rewrite.Finding{Start: start, End: end, Message: "bf16: true and fp16: true together stop the run (\"At most one of fp16 and bf16 can be True\"): keep one"})
	}
	p.fp16OnBF16Native(m, "model_name_or_path")
	if pure, dup := m.get("pure_bf16"); pure.isTrue(text) {
		start, end := pairSpan(pure)
		fd := rewrite.Finding{Start: start, End: end}
		switch verdict, why := rewrite.DecideFP32(rewrite.FP32Facts{Quantized: quantized, Unsloth: unsloth, FullFineTune: !adapter}); verdict {
		case rewrite.FP32Quantized:
			fd.Severity, fd.Message = rewrite.SeverityInfo, "quantized run (quantization_bit): "+why+"; pure_bf16 left as it is"
		case rewrite.FP32Unsloth:
			fd.Severity, fd.Message = rewrite.SeverityWarning, "pure_bf16: true with use_unsloth: true: "+why
		case rewrite.FP32FullFineTune:
			fd.Message = fmt.Sprintf("pure_bf16: true on a full fine-tune (finetuning_type: %s) trains every weight in pure bf16: %s; %s", ftype, fp32Why, why)
		default:
			fd.Message = "pure_bf16: true loads the model in bf16 and keeps the adapters in bf16 without autocast: " + fp32Why
			switch {
			case fp16.isTrue(text) || dup:
				fd.Message += "; not fixed: fp16 is set too (or pure_bf16 twice), choose by hand"
			case bf16 == nil:
				if e, ok := renameKey(pure, text, "bf16"); ok {
					fd.Fix = &rewrite.Fix{Message: "bf16 autocast with fp32 adapters: pure_bf16: true becomes bf16: true", Edits: []rewrite.Edit{e}}
				}
			case bf16.isTrue(text):
				s, _ := pure.scalar(text)
				fd.Fix = &rewrite.Fix{Message: "pure_bf16: " + falseLike(s.text) + " (bf16: true keeps autocast)", Edits: []rewrite.Edit{setScalar(s, falseLike(s.text))}}
			default:
				fd.Message += "; not fixed: bf16 is set to something other than true"
			}
		}
		p.report("LTF001", fd)
	}

	// Attention: flash_attn auto (the default) and sdpa train through SDPA.
	fa, dup := m.get("flash_attn")
	value := "auto"
	s, isScalar := fa.scalar(text)
	if isScalar {
		value = s.text
	}
	if value == "auto" || value == "sdpa" {
		var start, end int
		if fa != nil {
			start, end = pairSpan(fa)
		} else {
			start, end = keySpan(m.pairs[0])
		}
		msg := fmt.Sprintf("flash_attn: %s trains through SDPA: %s", value, sdpaWhy)
		if fa == nil {
			msg = "no flash_attn: LLaMA-Factory's default auto trains through SDPA: " + sdpaWhy
		}
		fd := rewrite.Finding{Start: start, End: end, Message: msg + "; flash_attn: disabled is eager attention (O(L^2) memory, slower)"}
		switch {
		case unsloth:
			fd.Severity = rewrite.SeverityWarning
			fd.Message += "; not fixed: with use_unsloth: true unsloth loads the model and ignores the attention setting"
		case dup:
		case fa == nil:
			if e, ok := f.addKey("flash_attn", "disabled"); ok {
				fd.Fix = &rewrite.Fix{Message: "add flash_attn: disabled (eager attention)", Edits: []rewrite.Edit{e}}
			}
		case isScalar:
			fd.Fix = &rewrite.Fix{Message: "flash_attn: disabled (eager attention)", Edits: []rewrite.Edit{setScalar(s, "disabled")}}
		}
		p.report("LTF002", fd)
		p.report("LTF007", rewrite.Finding{Start: start, End: end, Severity: rewrite.SeverityWarning, Message: msg + "; " + fenceWhy})
	}
	p.compileOn(true)
	p.trainingArguments(rewrite.Safe)
	p.configDeepSpeed()
}

// axolotl: an axolotl training YAML.
func (p *pass) axolotl() {
	m, text := p.f.top, p.f.text
	adapterKind := ""
	if a, _ := m.get("adapter"); a != nil {
		if s, ok := a.scalar(text); ok {
			adapterKind = s.text
		}
	}
	quantized := adapterKind == "qlora"
	for _, k := range []string{"load_in_4bit", "load_in_8bit", "gptq"} {
		if q, _ := m.get(k); q.isTrue(text) {
			quantized = true
		}
	}
	adapter := adapterKind == "lora" || adapterKind == "qlora"
	if !adapter {
		p.scope = semantic.FullFineTune // no adapter: axolotl trains every weight
	}
	p.fp16OnBF16Native(m, "base_model")

	// bfloat16: true / float16: true load the weights in half precision
	// and train without autocast.
	for _, half := range []struct{ key, amp string }{{"bfloat16", "bf16"}, {"float16", "fp16"}} {
		pure, dup := m.get(half.key)
		if !pure.isTrue(text) {
			continue
		}
		start, end := pairSpan(pure)
		fd := rewrite.Finding{Start: start, End: end}
		amp, _ := m.get(half.amp)
		switch verdict, why := rewrite.DecideFP32(rewrite.FP32Facts{Quantized: quantized, FullFineTune: !adapter}); verdict {
		case rewrite.FP32Quantized:
			fd.Severity, fd.Message = rewrite.SeverityInfo, fmt.Sprintf("quantized run (adapter: qlora or load_in_4bit/8bit): %s; %s left as it is", why, half.key)
		case rewrite.FP32FullFineTune:
			fd.Message = fmt.Sprintf("%s: true on a full fine-tune (no adapter) trains every weight in pure %s: %s; %s", half.key, half.key, fp32Why, why)
		default:
			fd.Message = fmt.Sprintf("%s: true loads the weights in %s and trains without autocast: %s", half.key, half.key, fp32Why)
			ampValue := ""
			if s, ok := amp.scalar(text); ok {
				ampValue = s.text
			}
			switch {
			case dup:
			case amp == nil:
				if e, ok := renameKey(pure, text, half.amp); ok {
					fd.Fix = &rewrite.Fix{Message: fmt.Sprintf("%s autocast over fp32 weights: %s: true becomes %s: true", half.amp, half.key, half.amp), Edits: []rewrite.Edit{e}}
				}
			case amp.isTrue(text) || ampValue == "auto":
				s, _ := pure.scalar(text)
				fd.Fix = &rewrite.Fix{Message: fmt.Sprintf("%s: %s (%s: %s keeps autocast)", half.key, falseLike(s.text), half.amp, ampValue), Edits: []rewrite.Edit{setScalar(s, falseLike(s.text))}}
			default:
				fd.Message += fmt.Sprintf("; not fixed: %s is set to %q", half.amp, ampValue)
			}
		}
		p.report("LTF001", fd)
	}

	// Attention.
	packing, _ := m.get("sample_packing")
	attn, _ := m.get("attn_implementation")
	sdp, _ := m.get("sdp_attention")
	eager, _ := m.get("eager_attention")
	other := false
	for _, k := range []string{"flash_attention", "flex_attention", "xformers_attention", "s2_attention", "eager_attention"} {
		if q, _ := m.get(k); q.isTrue(text) {
			other = true
		}
	}
	switch {
	case attn != nil:
		s, ok := attn.scalar(text)
		if !ok || s.text != "sdpa" {
			break
		}
		start, end := pairSpan(attn)
		msg := "attn_implementation: sdpa: " + sdpaWhy
		fd := rewrite.Finding{Start: start, End: end, Message: msg}
		if packing.isTrue(text) {
			fd.Severity, fd.Message = rewrite.SeverityWarning, msg+"; not fixed: sample_packing needs flash attention (flash_attention_2 does not use cuDNN SDPA)"
		} else {
			fd.Fix = &rewrite.Fix{Message: "attn_implementation: eager", Edits: []rewrite.Edit{setScalar(s, "eager")}}
		}
		p.report("LTF002", fd)
		p.report("LTF007", rewrite.Finding{Start: start, End: end, Severity: rewrite.SeverityWarning, Message: msg + "; " + fenceWhy})
	case sdp.isTrue(text):
		start, end := pairSpan(sdp)
		msg := "sdp_attention: true trains through SDPA: " + sdpaWhy
		fd := rewrite.Finding{Start: start, End: end, Message: msg}
		if packing.isTrue(text) {
			fd.Severity, fd.Message = rewrite.SeverityWarning, msg+"; not fixed: sample_packing needs flash attention"
		} else if eager == nil {
			if e, ok := renameKey(sdp, text, "eager_attention"); ok {
				fd.Fix = &rewrite.Fix{Message: "sdp_attention: true becomes eager_attention: true", Edits: []rewrite.Edit{e}}
			}
		}
		p.report("LTF002", fd)
		p.report("LTF007", rewrite.Finding{Start: start, End: end, Severity: rewrite.SeverityWarning, Message: msg + "; " + fenceWhy})
	case !other:
		base, _ := m.get("base_model")
		start, end := keySpan(base)
		msg := "no attention setting: transformers loads SDPA by default: " + sdpaWhy
		fd := rewrite.Finding{Start: start, End: end, Message: msg}
		key, value, why := axolotlEager(p.vs.Axolotl)
		switch {
		case packing.isTrue(text):
			fd.Severity, fd.Message = rewrite.SeverityWarning, msg+"; not fixed: sample_packing needs flash attention (flash_attention: true does not use cuDNN SDPA)"
		case key == "":
			fd.Message = msg + "; " + why
			if p.scope == "" {
				fd.Severity = rewrite.SeverityWarning // a full fine-tune's is a note (rewrite.Withhold)
			}
		default:
			if e, ok := p.f.addKey(key, value); ok {
				fd.Fix = &rewrite.Fix{Message: fmt.Sprintf("add %s: %s (%s)", key, value, why), Edits: []rewrite.Edit{e}}
			}
		}
		p.report("LTF002", fd)
		p.report("LTF007", rewrite.Finding{Start: start, End: end, Severity: rewrite.SeverityWarning, Message: msg + "; " + fenceWhy})
	}
	p.compileOn(false)

	// The pad token: axolotl pads labels with -100 by position, so a pad
	// equal to eos does not hide the stop token there.
	if st, _ := m.get("special_tokens"); st != nil && st.sub != nil {
		pad, _ := st.sub.get("pad_token")
		eos, _ := st.sub.get("eos_token")
		ps, ok := pad.scalar(text)
		if ok {
			es, eosOK := eos.scalar(text)
			if eosOK && es.text == ps.text || !eosOK && eosTokens[ps.text] {
				start, end := pairSpan(pad)
				p.report("LTF004", rewrite.Finding{Start: start, End: end, Severity: rewrite.SeverityInfo,
					Message: fmt.Sprintf("pad_token %s is the eos token: axolotl's collator pads the labels with -100 by position, so EOS is still learned here; a collator that masks labels by pad id (transformers' DataCollatorForLanguageModeling) would hide every EOS. A dedicated pad (Llama-3.1+: <|finetune_right_pad_id|>) avoids the question", ps.text)})
			}
		}
	}
	p.configDeepSpeed()
}

// axolotlEager is the key that asks the pinned axolotl for eager
// attention, read from axolotl's own sources: eager_attention is parsed
// from 0.5.0 to this day (deprecated in 0.17.0 for attn_implementation),
// and attn_implementation is read from 0.12.0. Before 0.5 neither is read,
// and with no pin (or a range reaching below 0.5) either one may be
// ignored: key "" and why says so.
func axolotlEager(v version.Version) (key, value, why string) {
	switch {
	case v.AtLeast(0, 12):
		return "attn_implementation", "eager", "axolotl reads it from 0.12; " + v.Describe("axolotl")
	case v.AtLeast(0, 5):
		return "eager_attention", "true", "axolotl reads eager_attention from 0.5, attn_implementation only from 0.12; " + v.Describe("axolotl")
	case v.Known && !v.Floor:
		return "", "", "not fixed: " + v.Describe("axolotl") + " reads neither eager_attention (from 0.5) nor attn_implementation (from 0.12): upgrade axolotl, or patch eager attention into the model config"
	}
	return "", "", "not fixed: " + v.Describe("axolotl") + ": attn_implementation: eager from axolotl 0.12, eager_attention: true from 0.5 (both ignored before 0.5); pin axolotl (requirements, pyproject, a lock file) or add the key for your version"
}

// fp16OnBF16Native is LTF011 in a config: fp16: true on a model trained in
// bf16, by the id under modelKey. bf16: true in its place is an unsafe fix:
// GPUs without bf16 (V100, T4) cannot run it, and a config has no way to
// ask the GPU. A DeepSpeed config named beside it has an fp16 block that
// must change too: then a finding only.
func (p *pass) fp16OnBF16Native(m *mapping, modelKey string) {
	text := p.f.text
	fp16, dup := m.get("fp16")
	if !fp16.isTrue(text) {
		return
	}
	model, _ := m.get(modelKey)
	id, ok := model.scalar(text)
	if !ok || !semantic.BF16Native(id.text) {
		return
	}
	start, end := pairSpan(fp16)
	fd := rewrite.Finding{Start: start, End: end,
		Message: fmt.Sprintf("fp16: true on %s, %s", id.text, bf16NativeWhy)}
	bf16, _ := m.get("bf16")
	ds, _ := m.get("deepspeed")
	switch {
	case dup || bf16 != nil:
		fd.Message += "; not fixed: bf16 is set too, or fp16 twice"
	case ds != nil:
		fd.Message += fp16BlockWhy
	default:
		if e, ok := renameKey(fp16, text, "bf16"); ok {
			fd.Fix = &rewrite.Fix{Message: "fp16: true becomes bf16: true (GPUs with bf16 only)", Applicability: rewrite.Unsafe, Edits: []rewrite.Edit{e}}
		}
	}
	p.report("LTF011", fd)
}

// eosTokens are end-of-sequence tokens of the common families.
var eosTokens = map[string]bool{"<|end_of_text|>": true, "<|eot_id|>": true, "<|im_end|>": true, "</s>": true, "<|endoftext|>": true, "<eos>": true}

// trlConfig: a TRL CLI config (trl sft --config) or HfArgumentParser YAML
// of ModelConfig, ScriptArguments and SFTConfig fields.
func (p *pass) trlConfig() {
	m, text := p.f.top, p.f.text
	// use_peft (TRL's ModelConfig), use_lora / use_qlora (scripts with
	// their own argument dataclass, open-instruct's).
	adapter := false
	for _, k := range []string{"use_peft", "use_lora", "use_qlora"} {
		if q, _ := m.get(k); q.isTrue(text) {
			adapter = true
		}
	}
	if !adapter {
		p.scope = semantic.FullFineTune // a recipe without use_peft trains every weight
	}
	quantized := false
	for _, k := range []string{"load_in_4bit", "load_in_8bit"} {
		if q, _ := m.get(k); q.isTrue(text) {
			quantized = true
		}
	}
	id := ""
	if s, ok := m.lookupScalar("model_name_or_path", text); ok {
		id = s.text
	}
	amp := ""
	for _, k := range []string{"bf16", "fp16"} {
		if q, _ := m.get(k); q.isTrue(text) {
			amp = k + ": true"
		}
	}
	flash := p.flashAttention2(m)
	moot := p.configDeepSpeedMoot(m, amp != "")
	if fs, ok := m.lookupScalar("fsdp", text); moot == "" && ok && fs.text != "" && !falseWord(fs.text) && amp != "" {
		moot = p.fsdpMoot("fsdp: "+fs.text, strings.TrimSuffix(amp, ": true"))
	}
	for _, key := range []string{"dtype", "torch_dtype"} {
		d, dup := m.get(key)
		s, ok := d.scalar(text)
		if !ok || !lowDtypes[s.text] || s.text == "auto" && semantic.CheckpointDtype(id) == "fp32" {
			continue // auto on an fp32 checkpoint loads float32
		}
		start, end := pairSpan(d)
		fd := rewrite.Finding{Start: start, End: end}
		switch verdict, why := rewrite.DecideFP32(rewrite.FP32Facts{Quantized: quantized, Moot: moot, FullFineTune: !adapter, Flash: flash}); verdict {
		case rewrite.FP32Quantized:
			fd.Severity, fd.Message = rewrite.SeverityInfo, "quantized run (load_in_4bit/8bit): "+why+"; no change"
		case rewrite.FP32Moot:
			fd.Severity, fd.Message = rewrite.SeverityInfo, fmt.Sprintf("%s: %s %s; no change", key, s.text, why)
		case rewrite.FP32FullFineTune:
			// The scope withholds any fix; the message names the recipe.
			fd.Message = fmt.Sprintf("%s: %s without use_peft: true is a full fine-tune in pure low precision: %s", key, s.text, fp32WhyFor(amp, id))
		case rewrite.FP32Flash:
			fd.Severity, fd.Message = rewrite.SeverityWarning, fmt.Sprintf("%s: %s on an adapter run: %s; not fixed: %s", key, s.text, fp32WhyFor(amp, id), why)
		default:
			fd.Message = fmt.Sprintf("%s: %s on an adapter run: %s", key, s.text, fp32WhyFor(amp, id))
			if !dup {
				fd.Fix = &rewrite.Fix{Message: key + ": float32 (bf16 autocast stays through bf16: true)", Edits: []rewrite.Edit{setScalar(s, "float32")}}
				rewrite.GateFP32(&fd, rewrite.TooBig(id))
			}
		}
		p.report("LTF001", fd)
	}
	p.fp16OnBF16Native(m, "model_name_or_path")
	// Only TRL's own use_peft says the parser is ModelConfig, whose
	// attention default is SDPA: a script's own use_lora may default to
	// flash attention (open-instruct's use_flash_attn).
	peft, _ := m.get("use_peft")
	if semantic.KindOf("AutoModel", id).Decoder() {
		p.attention(m, peft.isTrue(text)) // encoders have no left-padded causal rows
	}
	p.compileOn(true)
	p.trainingArguments(addsUnknown)
	p.configDeepSpeed()
}

// fp32WhyFor is LTF001's reason for a config whose model id is id ("" when
// unknown) and whose mixed precision is amp ("bf16: true", "" for none):
// autocast is named where the file turns it on, and the cost quotes the
// model's own size.
func fp32WhyFor(amp, id string) string {
	cost := rewrite.FP32CostOf(id)
	if amp == "" {
		return "loaded in bf16/fp16 without autocast, training is pure low precision (params, grads and optimizer state), where small updates vanish and overflow shows as grad_norm nan; fp32 masters with bf16 autocast keep the compute fast; " + cost
	}
	return fmt.Sprintf("loaded in bf16/fp16, training is pure low precision even with %s: autocast computes in half precision but keeps params, grads and optimizer state as loaded, where small updates vanish and overflow shows as grad_norm nan; float32 weights under the same autocast are fp32 masters at the same compute speed; %s", amp, cost)
}

// flashAttention2 says why a config's load must keep a half-precision
// dtype, or "": use_flash_attention_2: true loads FlashAttention-2, which
// runs in fp16/bf16 only and, on the transformers releases that read that
// keyword, refuses a float32 load.
func (p *pass) flashAttention2(m *mapping) string {
	if q, _ := m.get("use_flash_attention_2"); q.isTrue(p.f.text) {
		return "use_flash_attention_2: true loads FlashAttention-2, which runs in fp16/bf16 only: beside it a float32 load stops at load on the releases that brought the keyword (transformers 4.34-4.35: ValueError \"Flash Attention 2.0 only supports torch.float16 and torch.bfloat16 dtypes\") and later ones warn and lean on autocast; keep the dtype, or switch to attn_implementation: eager and then load float32"
	}
	return ""
}

// deepSpeedMoot is why a dtype edit changes nothing under DeepSpeed with
// mixed precision, or "": DeepSpeed casts the whole model to that
// precision itself and its optimizer (ZeRO, or the bf16/fp16 optimizer
// wrapper) keeps fp32 master copies of the trainable weights. path is the
// DeepSpeed config, shown as it is named; runMixed is the run's own mixed
// precision ("bf16", "fp16", "mixed precision"; "" for none), which holds
// where the DeepSpeed config leaves it to the run ("auto").
func (p *pass) deepSpeedMoot(path, shown, runMixed string) string {
	dsFile := p.readConfig(path)
	defer dsFile.close()
	mode, _ := dsPrecision(dsFile)
	switch {
	case mode == "bf16" || mode == "fp16":
	case mode == "none" || runMixed == "":
		return ""
	default:
		mode = runMixed
	}
	return fmt.Sprintf("under DeepSpeed (%s) with %s: DeepSpeed casts the model to %s itself and its optimizer keeps fp32 master copies of the trainable weights, so a float32 load changes only the memory the load takes", shown, mode, mode)
}

// configDeepSpeedMoot: a config's deepspeed key with mixed precision on
// (amp, or the DeepSpeed file's own enabled block).
func (p *pass) configDeepSpeedMoot(m *mapping, amp bool) string {
	ds, _ := m.get("deepspeed")
	name, ok := ds.scalar(p.f.text)
	if !ok {
		return ""
	}
	runMixed := ""
	if amp {
		runMixed = "mixed precision"
		for _, k := range []string{"bf16", "fp16"} {
			if q, _ := m.get(k); q.isTrue(p.f.text) {
				runMixed = k
			}
		}
	}
	return p.deepSpeedMoot(name.text, name.text, runMixed)
}

// attention is LTF002/LTF007 for attn_implementation in a TRL config:
// sdpa, or none (transformers' default), becomes eager, unless packing or
// padding_free needs flash attention.
func (p *pass) attention(m *mapping, adapter bool) {
	text := p.f.text
	attn, dup := m.get("attn_implementation")
	s, ok := attn.scalar(text)
	if fa2, _ := m.get("use_flash_attention_2"); fa2.isTrue(text) {
		if attn == nil {
			start, end := pairSpan(fa2)
			p.report("LTF002", rewrite.Finding{Start: start, End: end, Severity: rewrite.SeverityInfo,
				Message: "use_flash_attention_2: true trains on FlashAttention-2, not on cuDNN SDPA: left as it is (an attn_implementation beside it is a ValueError on transformers 4.36-4.5x)"})
		}
		return
	}
	switch {
	case attn == nil && !adapter:
		return // whose training this config serves is not told
	case attn != nil && (!ok || s.text != "sdpa"):
		return
	}
	var start, end int
	msg := "attn_implementation: sdpa: " + sdpaWhy
	if attn == nil {
		start, end = keySpan(m.pairs[0])
		msg = "no attn_implementation: transformers loads SDPA by default: " + sdpaWhy
	} else {
		start, end = pairSpan(attn)
	}
	fd := rewrite.Finding{Start: start, End: end, Message: msg}
	needsFlash := ""
	for _, k := range []string{"packing", "padding_free"} {
		if q, _ := m.get(k); q.isTrue(text) {
			needsFlash = k
		}
	}
	switch {
	case needsFlash != "":
		fd.Severity, fd.Message = rewrite.SeverityWarning, msg+fmt.Sprintf("; not fixed: %s needs flash attention (flash_attention_2 does not use cuDNN SDPA)", needsFlash)
	case dup:
	case attn == nil:
		if e, ok := p.f.addKey("attn_implementation", "eager"); ok {
			fd.Fix = &rewrite.Fix{Message: "add attn_implementation: eager" + unknownParser, Applicability: addsUnknown, Edits: []rewrite.Edit{e}}
		}
	default:
		fd.Fix = &rewrite.Fix{Message: "attn_implementation: eager", Edits: []rewrite.Edit{setScalar(s, "eager")}}
	}
	p.report("LTF002", fd)
	p.report("LTF007", rewrite.Finding{Start: start, End: end, Severity: rewrite.SeverityWarning, Message: msg + "; " + fenceWhy})
}

// A key added to a TRL-style config is right for trl sft and the scripts
// that parse SFTConfig or TrainingArguments, and stops a script whose own
// argument dataclass lacks it (open-instruct's): such additions are unsafe
// fixes. LLaMA-Factory validates its keys against TrainingArguments: safe.
const (
	addsUnknown   = rewrite.Unsafe
	unknownParser = " (unsafe: right for trl sft and TrainingArguments parsers; a script with its own argument dataclass rejects an unknown key)"
)

// trainingArguments checks the keys a config passes to TrainingArguments:
// logging_nan_inf_filter (LTF009) and the arguments transformers 5 removed
// (LTF102); a key added or renamed is a fix of applicability add.
func (p *pass) trainingArguments(add rewrite.Applicability) {
	m, text := p.f.top, p.f.text
	nan, dup := m.get("logging_nan_inf_filter")
	switch {
	case nan.isTrue(text) && !dup:
		s, _ := nan.scalar(text)
		start, end := pairSpan(nan)
		p.report("LTF009", rewrite.Finding{Start: start, End: end, Message: nanWhy,
			Fix: &rewrite.Fix{Message: "logging_nan_inf_filter: " + falseLike(s.text), Edits: []rewrite.Edit{setScalar(s, falseLike(s.text))}}})
	case nan == nil:
		start, end := keySpan(m.pairs[0])
		fd := rewrite.Finding{Start: start, End: end, Message: nanWhy + " (logging_nan_inf_filter is true by default)"}
		if e, ok := p.f.addKey("logging_nan_inf_filter", "false"); ok {
			fd.Fix = &rewrite.Fix{Message: "add logging_nan_inf_filter: false", Applicability: add, Edits: []rewrite.Edit{e}}
			if add == addsUnknown {
				fd.Fix.Message += unknownParser
			}
		}
		p.report("LTF009", fd)
	}
	tv := p.vs.Transformers
	if !tv.AtLeast(5, 0) {
		return
	}
	for _, r := range removedArguments {
		old, _ := m.get(r.old)
		if old == nil {
			continue
		}
		start, end := keySpan(old)
		fd := rewrite.Finding{Start: start, End: end,
			Message: fmt.Sprintf("%s was removed from TrainingArguments in transformers 5 and stops the run (%s); %s", r.old, tv.Describe("transformers"), r.why)}
		if repl, _ := m.get(r.repl); repl != nil {
			fd.Message += fmt.Sprintf("; %s is set too: keep one", r.repl)
		} else if e, ok := renameKey(old, text, r.repl); ok {
			fd.Fix = &rewrite.Fix{Message: fmt.Sprintf("%s becomes %s", r.old, r.repl), Applicability: add, Edits: []rewrite.Edit{e}}
			if add == addsUnknown {
				fd.Fix.Message += unknownParser
			}
		}
		p.report("LTF102", fd)
	}
}

// removedArguments are TrainingArguments fields transformers 5 removed,
// with the field that takes the same value.
var removedArguments = []struct{ old, repl, why string }{
	{"warmup_ratio", "warmup_steps", "warmup_steps takes the same ratio (a float below 1) from 5.0"},
	{"evaluation_strategy", "eval_strategy", "eval_strategy is the same setting"},
}

// deepSpeed: a DeepSpeed config. An explicit bf16/fp16 "enabled" must
// agree with TrainingArguments or the run stops; "auto" follows them.
func (p *pass) deepSpeed() {
	m, text := p.f.top, p.f.text
	bf, fp := m.lookup("bf16.enabled"), m.lookup("fp16.enabled")
	if bf.isTrue(text) && fp.isTrue(text) {
		start, end := pairSpan(fp)
		p.reportStop("LTF001", rewrite.Finding{Start: start, End: end, Message: "bf16.enabled and fp16.enabled are both true: DeepSpeed refuses to run with both; keep one (\"auto\" follows TrainingArguments)"})
	}
	if !strings.Contains(string(text), `"auto"`) && !usesAuto(m, text) {
		return // not a config the Hugging Face integration fills in: "auto" would not be read
	}
	for _, en := range []*pair{bf, fp} {
		s, ok := en.scalar(text)
		if !ok || s.quote != 0 {
			continue
		}
		if _, isBool := boolean(s.text); !isBool {
			continue
		}
		block := "bf16"
		if en == fp {
			block = "fp16"
		}
		start, end := pairSpan(en)
		p.reportStop("LTF001", rewrite.Finding{Start: start, End: end, Severity: rewrite.SeverityInfo,
			Message: fmt.Sprintf("%s.enabled: %s is fixed here while TrainingArguments decide bf16/fp16 too: a mismatch stops the run (\"Please correct the following DeepSpeed config values that mismatch TrainingArguments\"); \"auto\" follows TrainingArguments, as the config's other \"auto\" values do", block, s.text),
			Fix:     &rewrite.Fix{Message: block + `.enabled: "auto"`, Edits: []rewrite.Edit{{Start: int(s.node.StartByte()), End: int(s.node.EndByte()), NewText: `"auto"`}}}})
	}
}

// usesAuto reports a YAML DeepSpeed config with an auto value.
func usesAuto(m *mapping, text []byte) bool {
	for _, q := range m.pairs {
		if s, ok := q.scalar(text); ok && s.text == "auto" {
			return true
		}
		if q.sub != nil && usesAuto(q.sub, text) {
			return true
		}
	}
	return false
}

// isNull reports a pair with no value or a null one.
func (p *pair) isNull(text []byte) bool {
	if p.value == nil {
		return true
	}
	s, ok := p.scalar(text)
	return ok && s.quote == 0 && (s.text == "null" || s.text == "~" || s.text == "Null" || s.text == "NULL")
}
