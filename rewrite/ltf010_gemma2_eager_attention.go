package rewrite

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/loratune/loratune-fix/pyedit"
	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

var gemma2EagerAttention = &Rule{
	Code:         "LTF010",
	Name:         "gemma2-eager-attention",
	Summary:      `train Gemma-2 with attn_implementation="eager": SDPA drops its attention soft-cap`,
	Severity:     SeverityError,
	Profiles:     []string{ProfileDefault, ProfileLean},
	Triggers:     []string{"gemma-2", "gemma2", "Gemma-2", "Gemma2", "gemma_2", "gemma-3", "gemma3", "Gemma3"},
	TrainingOnly: true,
	Doc: `## What it does
Adds attn_implementation="eager" to a Gemma-2 training load, or replaces
"sdpa", in both profiles. A load is Gemma-2 when its class is Gemma2* or
its model id (a literal, or a name that holds one on every path) names
gemma-2 / gemma2 (not gemma-2b, which is the first Gemma). A model TRL
loads by name gets it in model_init_kwargs. Where LTF002 runs too, it
leaves Gemma-2 loads to this rule: one fix per argument list.

## Why
Gemma-2 caps its attention logits (attn_logit_softcapping=50 in its
config). Eager attention applies the cap; SDPA has no such parameter, and
transformers' SDPA path drops it without a word. Measured on an H200
(torch 2.11, cuDNN 9.19, transformers 5.17, random weights): Gemma-2 loads
sdpa by default; eager and SDPA final logits differ by up to 5.8 where the
cap binds, so the adapters learn against other logits; and default SDPA
picks cuDNN at head_dim 256, whose backward gives NaN with left padding at
L % 128 == 64, exactly as for Llama. Reported in the field as NaN with
padding on SDPA (transformers issue 32390, 4.43); peft and unsloth warn
that Gemma-2 should be trained with eager. The lean profile's cuDNN fence
(LTF007) cures the NaN but not the missing cap, so this rule is in lean
too, and the fence stays out of a file whose every training load this
rule makes eager.

## Example
    model = AutoModelForCausalLM.from_pretrained("google/gemma-2-9b", torch_dtype=torch.bfloat16)
becomes
    model = AutoModelForCausalLM.from_pretrained("google/gemma-2-9b", torch_dtype=torch.bfloat16, attn_implementation="eager")

## When it stays away
"eager" and "flex_attention" (flex applies the cap) stay. flash_attention_2
applies the cap only with flash-attn 2.6 or later (older releases have no
softcap): a note, as is the old use_flash_attention_2=True; the old
keyword's False becomes attn_implementation="eager" in its place (the two
side by side raise ValueError in transformers 4.36-4.5x). TRL packing or padding_free needs flash attention: a
warning, no edit. A load with **kwargs whose content is unknown, one the
flow cannot tell is trained, or an attn_implementation decided at run
time: a warning. unsloth's loaders apply the cap in their own kernels: no
finding. A model id decided at run time in a file that names a Gemma-2
model (an argparse default, a choice): a warning, no run-time guard, because
a test on the id string cannot be exact (a local path or a renamed
checkpoint hides the family; only the config's model_type tells, and
reading it is a load of its own). Gemma-3 has no attention soft-cap in
transformers 5.17 (eager and SDPA agree): no edit; where LTF002 does not
run (lean), a note that the cuDNN fence is enough there.

## Cost
Eager attention is O(L^2) in memory and slower than fused kernels:
measured on an H200 with the Llama-3.1-8B shape at sequence 512, bf16 +
eager ran at 0.88x the speed and 1.21x the peak memory of SDPA.
flex_attention keeps the cap at less cost where torch supports it.

## Evidence

| status | what was run |
| --- | --- |
| failure reproduced | on torch 2.11, cuDNN 9.19, transformers 5.17, peft 0.21, H200, Gemma-2-2B shapes: SDPA by default, NaN from step 1 at L = 192 with left padding (docs/gpu-validation.md) |
| cap shown | with the cap binding, SDPA's logits differ from eager's by up to 5.1 and the original's grad_norm is 3.37x the fixed runs' |
| cure shown | default and lean outputs (eager) finite at 192 and 512, with a fully padded row in every batch too |`,
	Run: runGemma2Attention,
}

// gemma2ID is a Gemma-2 model id (google/gemma-2-9b, gemma2-27b,
// paligemma2-3b); "gemma-2b" is the first Gemma's 2B model.
var gemma2ID = regexp.MustCompile(`(?i)gemma[-_]?2([^0-9b.]|$)`)

// gemma3ID is a Gemma-3 model id (google/gemma-3-4b-it).
var gemma3ID = regexp.MustCompile(`(?i)gemma[-_]?3([^0-9]|$)`)

// gemmaKind is what a load's family says about its attention.
type gemmaKind int

const (
	gemmaOther  gemmaKind = iota
	gemma2Sure            // Gemma-2 on every path
	gemma2Maybe           // a Gemma-2 id on some path, or a run-time id in a file that names one
	gemma3Sure            // Gemma-3: no attention soft-cap
)

// loadClass is the class a load calls: "AutoModelForCausalLM".
func loadClass(l *semantic.Load) string {
	parts := strings.Split(l.Qual, ".")
	if len(parts) < 2 {
		return ""
	}
	return parts[len(parts)-2]
}

// gemmaOf tells a load's Gemma generation by its class or its model id,
// with the class or id for messages.
func gemmaOf(f *semantic.Facts, l *semantic.Load) (gemmaKind, string) {
	class := loadClass(l)
	switch {
	case strings.HasPrefix(class, "Gemma2"):
		return gemma2Sure, class
	case strings.HasPrefix(class, "Gemma3"):
		return gemma3Sure, class
	case l.IDKnown && gemma2ID.MatchString(l.ModelID):
		return gemma2Sure, l.ModelID
	case l.IDKnown && gemma3ID.MatchString(l.ModelID):
		return gemma3Sure, l.ModelID
	case l.IDKnown || l.Method != "from_pretrained":
		return gemmaOther, ""
	}
	ids, ok := f.StringValues(semantic.FirstArg(l.Args, "pretrained_model_name_or_path", f.Src.Text))
	n := 0
	for _, id := range ids {
		if gemma2ID.MatchString(id) {
			n++
		}
	}
	switch {
	case ok && n == len(ids) && n > 0:
		return gemma2Sure, strings.Join(ids, " or ")
	case n > 0:
		return gemma2Maybe, "its model id, Gemma-2 on some paths"
	case !ok && namesGemma2(f):
		return gemma2Maybe, "its model id, decided at run time in a file that names a Gemma-2 model"
	}
	return gemmaOther, ""
}

// namesGemma2 reports a file that names a Gemma-2 model anywhere
// (gemma2ID matches its text), read once per file. The regexp, run over
// the text, tried a match at every byte; a match can only start where
// "gemma" is written, so gemma2At looks there alone: at each g, then at
// each G, found by IndexByte (a search for either byte looked at every
// byte of the text in turn).
func namesGemma2(f *semantic.Facts) bool {
	if f.Gemma2Named == nil {
		named := false
		for _, g := range []byte("gG") {
			text := f.Src.Text
			for i := bytes.IndexByte(text, g); i >= 0 && !named; i = bytes.IndexByte(text, g) {
				named = gemma2At(text[i:])
				text = text[i+1:]
			}
		}
		f.Gemma2Named = &named
	}
	return *f.Gemma2Named
}

// gemma2At reports a match of gemma2ID at the start of s, written out:
// "gemma" in any case, an optional - or _, 2, then the end or a character
// other than a digit, b, B or a dot.
func gemma2At(s []byte) bool {
	if len(s) < 6 || !bytes.EqualFold(s[:5], []byte("gemma")) {
		return false
	}
	k := 5
	if s[k] == '-' || s[k] == '_' {
		k++
	}
	if k == len(s) || s[k] != '2' {
		return false
	}
	k++
	return k == len(s) || !('0' <= s[k] && s[k] <= '9' || s[k] == 'b' || s[k] == 'B' || s[k] == '.')
}

// gemma2PackingAdvice is what a packed Gemma-2 run should train with
// instead of eager, which packing cannot use: flash attention 2.6+ or flex
// on a GPU; off the GPU neither exists, so eager without packing.
func gemma2PackingAdvice(f *semantic.Facts) string {
	if off := f.OffGPU(); off != "" {
		return "; packing/padding_free needs flash attention, which " + off + ` does not have, so eager is not added: train without packing and with attn_implementation="eager"`
	}
	return `; packing/padding_free needs flash attention, so eager is not added: use flash_attention_2 with flash-attn 2.6 or later (it applies the cap) or flex_attention`
}

// gemma2Why is why SDPA is wrong for a Gemma-2 load of f: the soft-cap
// always, cuDNN's NaN where training may run on a GPU.
func gemma2Why(f *semantic.Facts) string {
	why := `SDPA drops Gemma-2's attention logit soft-cap (the adapters then learn against other logits)`
	if f.OffGPU() != "" {
		return why
	}
	return why + ` and, on Hopper, picks cuDNN, whose backward gives NaN on left-padded rows`
}

func runGemma2Attention(p *Pass) {
	f, text := p.Facts, p.Src.Text
	packing := f.Packs()
	for _, l := range f.ModelLoads() {
		if l.Use == semantic.NotTraining || unslothLoad(f, l) {
			continue
		}
		kind, what := gemmaOf(f, l)
		switch kind {
		case gemmaOther:
			continue
		case gemma3Sure:
			gemma3Note(p, l, what)
			continue
		}
		head := fmt.Sprintf("Gemma-2 training load (%s)", what)
		if kind == gemma2Maybe {
			head = fmt.Sprintf("training load that may be Gemma-2 (%s)", what)
		}
		v := l.Arg("attn_implementation", text)
		if old := l.Arg("use_flash_attention_2", text); v == nil && old != nil {
			gemma2OldFlashKeyword(p, old, head, kind == gemma2Sure && !l.Undecided())
			continue
		}
		if v == nil {
			fd := Finding{Start: l.Node.Start(), End: l.Args.End(), Severity: SeverityWarning,
				Message: head + ` with the default SDPA attention: ` + gemma2Why(f)}
			switch {
			case kind == gemma2Maybe:
				fd.Message += `; pass attn_implementation="eager" when the model is Gemma-2 (the tool cannot tell the family of a run-time id exactly)`
			case l.Undecided():
				fd.Message = l.UndecidedMessage(`a Gemma-2 model needs attn_implementation="eager" for training (` + gemma2Why(f) + `)`)
			case packing:
				fd.Message += gemma2PackingAdvice(f)
			case l.Opaque():
				fd.Message += `; the load passes **kwargs whose content is unknown: make sure they give attn_implementation="eager"`
			default:
				fd.Severity = ""
				fd.Message += `; train with attn_implementation="eager" (flex_attention applies the cap too)`
				fd.Fix = pyedit.AddingFix(`add attn_implementation="eager"`, pyedit.ListAddition(p.Src, l.Args, `attn_implementation="eager"`))
			}
			p.Report(fd)
			continue
		}
		sdpa, flash, known := attnValues(f, v, flashValues)
		switch {
		case !known:
			p.Report(Finding{Start: v.Start(), End: v.End(), Severity: SeverityWarning,
				Message: fmt.Sprintf(`%s: attn_implementation comes from %s; "sdpa" there is wrong for Gemma-2: %s; train with "eager" or "flex_attention"`, head, f.DecidedAtRunTime(v, l.Func), gemma2Why(f))})
		case len(sdpa) > 0:
			fd := Finding{Start: v.Start(), End: v.End(),
				Message: fmt.Sprintf(`%s with attn_implementation=%s: %s; train with "eager"`, head, v.Content(text), gemma2Why(f))}
			if kind == gemma2Sure && !l.Undecided() {
				fd.Fix = &Fix{Message: `attn_implementation="eager"`, Edits: eagerInPlaceOfSDPA(v, sdpa)}
			} else {
				fd.Severity = SeverityWarning
			}
			p.Report(fd)
		case flash != "":
			p.Report(Finding{Start: v.Start(), End: v.End(), Severity: SeverityInfo,
				Message: fmt.Sprintf(`%s with attn_implementation=%q: flash attention applies Gemma-2's soft-cap only with flash-attn 2.6 or later; left as it is`, head, flash)})
		}
	}
	trlStringModels(p, func(t *trlLoad) {
		if gemma2ID.MatchString(t.modelID) {
			trlGemma2Attention(p, t)
		}
	})
}

// gemma2MadeEager reports a training load that LTF010 runs on and that
// trains with eager attention after its fix: surely Gemma-2, and given
// eager by the fix or already eager (or flex). SDPA never runs there, so
// the lean profile's cuDNN fence (LTF007) stays out, as LTF002 leaves
// such loads to this rule.
func gemma2MadeEager(p *Pass, l *semantic.Load) bool {
	f, text := p.Facts, p.Src.Text
	if !p.Runs(gemma2EagerAttention.Code) || l.Undecided() || unslothLoad(f, l) {
		return false
	}
	if kind, _ := gemmaOf(f, l); kind != gemma2Sure {
		return false
	}
	v := l.Arg("attn_implementation", text)
	if v == nil {
		if old := l.Arg("use_flash_attention_2", text); old != nil {
			_, ok := eagerInPlaceOf(old, text)
			return ok && old.Content(text) == "False"
		}
		return !f.Packs() && !l.Opaque()
	}
	vals, known := f.Values(v)
	for _, val := range vals {
		if s, _ := semantic.StringValue(val, text); s != "sdpa" && s != "eager" && s != "flex_attention" {
			return false
		}
	}
	return known && len(vals) > 0
}

// gemma2OldFlashKeyword: a Gemma-2 load that chooses its attention with
// the old use_flash_attention_2 keyword. True is flash attention (a note,
// as for attn_implementation="flash_attention_2"); False becomes
// attn_implementation="eager" in its place (the two side by side raise
// ValueError in transformers 4.36-4.5x when the old one is True), where
// the load is surely Gemma-2 and trained.
func gemma2OldFlashKeyword(p *Pass, old *syntree.Node, head string, sure bool) {
	text := p.Src.Text
	fd := Finding{Start: old.Start(), End: old.End(), Severity: SeverityWarning}
	switch old.Content(text) {
	case "True":
		fd.Severity = SeverityInfo
		fd.Message = head + ` with use_flash_attention_2=True: flash attention applies Gemma-2's soft-cap only with flash-attn 2.6 or later; left as it is`
	case "False":
		fd.Message = head + ` with use_flash_attention_2=False, the default SDPA attention: ` + gemma2Why(p.Facts) + `; train with attn_implementation="eager" in place of the old keyword`
		if e, ok := eagerInPlaceOf(old, text); ok && sure {
			fd.Severity = ""
			fd.Fix = &Fix{Message: `replace use_flash_attention_2=False by attn_implementation="eager"`, Edits: []Edit{e}}
		}
	default:
		fd.Message = head + ` with use_flash_attention_2 decided at run time: False leaves SDPA, which ` + strings.TrimPrefix(gemma2Why(p.Facts), "SDPA ") + `; choose the attention with attn_implementation alone ("eager" for Gemma-2)`
	}
	p.Report(fd)
}

// gemma3Note: Gemma-3 has no attention soft-cap, so the lean profile's
// cuDNN fence is enough; said only where LTF002 does not already give
// the load eager attention.
func gemma3Note(p *Pass, l *semantic.Load, what string) {
	if p.Runs("LTF002") || l.Undecided() {
		return
	}
	text := p.Src.Text
	if v := l.Arg("attn_implementation", text); v != nil {
		if s, _ := semantic.StringValue(v, text); s != "sdpa" {
			return
		}
	}
	p.Report(Finding{Start: l.Node.Start(), End: l.Args.End(), Severity: SeverityInfo,
		Message: fmt.Sprintf(`Gemma-3 (%s) has no attention soft-cap (transformers 5.17: eager and SDPA agree): SDPA stays; its cuDNN left-padding NaN is fenced by LTF007 (--select LTF007 where it is not on), and eager would only cost speed`, what)})
}

// trlGemma2Attention is LTF010 for a Gemma-2 model TRL loads by name.
func trlGemma2Attention(p *Pass, t *trlLoad) {
	text := p.Src.Text
	if v := t.entries["attn_implementation"]; v != nil {
		if s, ok := semantic.StringValue(v, text); !ok || s != "sdpa" {
			return
		}
	}
	fd := Finding{Start: t.trainer.Node.Start(), End: t.trainer.Node.Start(),
		Message: fmt.Sprintf(`TRL loads the Gemma-2 model %s with the default SDPA attention: %s; pass attn_implementation="eager" in model_init_kwargs`, t.modelID, gemma2Why(p.Facts))}
	switch {
	case t.packing:
		fd.Severity = SeverityWarning
		fd.Message += gemma2PackingAdvice(p.Facts)
	case t.jsonString:
		fd.Severity = SeverityWarning
		fd.Message += "; model_init_kwargs is a JSON string here: edit it by hand"
	default:
		if fix, ok := t.setInit(p, "attn_implementation", `"eager"`); ok {
			fix.Message = `model_init_kwargs "attn_implementation": "eager"`
			fd.Fix = fix
			fd.Start, fd.End = t.site(fix) // in a notebook, the cell the fix edits
		}
	}
	p.Report(fd)
}
