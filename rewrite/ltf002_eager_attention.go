package rewrite

import (
	"fmt"
	"strings"

	"github.com/loratune/loratune-fix/pyedit"
	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

var eagerAttention = &Rule{
	Code:         "LTF002",
	Name:         "eager-attention",
	Summary:      `train with attn_implementation="eager" instead of fused SDPA`,
	Severity:     SeverityError,
	Profiles:     []string{ProfileDefault},
	Triggers:     []string{"from_pretrained", "from_config", "Trainer"}, // Trainer: TRL loads a model given by name
	TrainingOnly: true,
	Doc: `## What it does
Adds attn_implementation="eager" to a training load, or replaces "sdpa".
A load that passes the old use_flash_attention_2=False gets
attn_implementation="eager" in its place (the two side by side raise
ValueError in transformers 4.36-4.5x when the old one is True).

## Why
With torch 2.11 on Hopper the default SDPA backend is cuDNN, and its
backward returns NaN gradients for query rows that are fully masked. Left
padding makes such rows. Reproduced on an H200 with the Llama-3.1-8B
architecture: every sequence length with L % 128 == 64 gave grad_norm nan
and then loss 0.0; eager attention never did.

## Example
    model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.float32)
becomes
    model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.float32, attn_implementation="eager")

## When it stays away
flash_attention_2/3 and flex_attention do not use cuDNN SDPA, and TRL's
packing needs flash: a note, no edit; so does use_flash_attention_2=True
(eager beside it would raise ValueError). Loads that only serve inference.
A load that passes **kwargs (the key may be inside), or
use_flash_attention_2 decided at run time: a warning. Loaders that ignore
the keyword get a warning, not the keyword: unsloth's
FastLanguageModel.from_pretrained (it pops attn_implementation) and Qwen-1's
remote code (trust_remote_code=True with Qwen/Qwen-7B and its kin); LTF007
fences cuDNN there.
BLOOM, whose attention is eager only (ALiBi), gets a note. A run that
never reaches a CUDA GPU (every training-arguments call with
use_cpu=True or no_cuda=True, or a file that trains through torch_xla on
a TPU) runs no cuDNN: a note, no edit.
transformers older than 4.36 has no attn_implementation (a TypeError at
load), nor may one pinned to a git commit or vendored, whose version cannot
be read: a warning naming LTF007, no edit; use_flash_attention_2=False is
then left as it is.

## Cost
Eager attention is O(L^2) in memory and slower than fused kernels. On an
H200 (8B shape, batch 8, sequence 512): bf16 + eager 9,355 tokens/s and
62.6 GiB against 10,628 and 51.8 GiB for the original. LTF007 (cuDNN backend
off, --profile lean) keeps SDPA at almost no cost.

Measured by this project's GPU harness (docs/gpu-validation.md; H200,
torch 2.11, transformers 5.17): at sequence 192 the original logged
grad_norm nan from step 1 and loss 0.0 after, with every LoRA tensor NaN;
with eager attention (even keeping left padding) every step was finite.
Together with fp32 masters it cost 0.94x speed and 1.65x memory at
sequence 512, 0.73x and 1.95x at 2048.

## Evidence

| status | what was run |
| --- | --- |
| failure reproduced | on torch 2.11, cuDNN 9.19, transformers 5.17, peft 0.21, H200: Llama-3.1 and Gemma-2 shapes, left padding, L = 192: grad_norm NaN from step 1 (docs/gpu-validation.md, 2026-12-02) |
| cure shown | the default outputs train finite at 192 and 512; with left padding kept too (default_left_pad), so eager alone cures it |`,
	Run: runEagerAttention,
}

func runEagerAttention(p *Pass) {
	text := p.Src.Text
	packing := p.Facts.Packs()
	noAttn := noAttnKeyword(p.Versions.Transformers)
	offGPU := p.Facts.OffGPU()
	for _, l := range p.Facts.ModelLoads() {
		if l.Use == semantic.NotTraining || !l.Kind.Decoder() {
			continue // encoders pad on the right: no fully masked row
		}
		if kind, _ := gemmaOf(p.Facts, l); kind == gemma2Sure && p.Runs(gemma2EagerAttention.Code) && !unslothLoad(p.Facts, l) {
			continue // LTF010 gives it eager, with Gemma-2's reasons
		}
		if offGPU != "" {
			if l.Use == semantic.Training && l.Arg("attn_implementation", text) == nil {
				p.Report(Finding{Start: l.Node.Start(), End: l.Args.End(), Severity: SeverityInfo,
					Message: "training runs on " + offGPU + ", where cuDNN never runs: the default attention is left as it is"})
			}
			continue
		}
		v := l.Arg("attn_implementation", text)
		if l.Undecided() {
			if packing {
				continue // packed rows have no padding, so no fully masked row
			}
			if v == nil {
				p.Report(Finding{Start: l.Node.Start(), End: l.Args.End(), Severity: SeverityWarning,
					Message: l.UndecidedMessage(`pass attn_implementation="eager" for training`)})
			} else if sdpa, _, known := attnValues(p.Facts, v, noCuDNNValues); !known {
				p.Report(Finding{Start: v.Start(), End: v.End(), Severity: SeverityWarning,
					Message: l.UndecidedMessage(fmt.Sprintf(`attn_implementation comes from %s, decided at run time: "sdpa" trains through cuDNN, whose backward gives NaN on left-padded rows; pass "eager" for training`, strings.Join(strings.Fields(v.Content(text)), " ")))})
			} else if len(sdpa) > 0 {
				p.Report(Finding{Start: v.Start(), End: v.End(), Severity: SeverityWarning,
					Message: l.UndecidedMessage(`"sdpa" trains through cuDNN, whose backward gives NaN on left-padded rows; pass attn_implementation="eager" for training`)})
			}
			continue
		}
		if private := l.Arg("_attn_implementation", text); v == nil && private != nil {
			// The private spelling of the same setting: never add the public
			// keyword beside it (the config applies the private one last).
			if vals, ok := p.Facts.StringValues(private); !ok || !allOf(vals, func(s string) bool { return s == "eager" || noCuDNNValues[s] }) {
				p.Report(Finding{Start: private.Start(), End: private.End(), Severity: SeverityWarning,
					Message: `_attn_implementation= chooses the attention of this load, and some of its values (None or "sdpa") train on SDPA, whose cuDNN backward gives NaN on fully masked rows: make those "eager" for training`})
			}
			continue
		}
		if v == nil && semantic.EagerOnly(loadClass(l), l.ModelID) {
			p.Report(Finding{Start: l.Node.Start(), End: l.Args.End(), Severity: SeverityInfo,
				Message: "BLOOM computes its attention in eager form only (ALiBi), never through SDPA: nothing to change"})
			continue
		}
		if why := ignoresAttention(p.Facts, l); why != "" {
			if s, _ := semantic.StringValue(v, text); v == nil || s == "sdpa" {
				p.Report(Finding{Start: l.Node.Start(), End: l.Args.End(), Severity: SeverityWarning,
					Message: why + `: attn_implementation="eager" would change nothing there; switch the cuDNN SDPA backend off before training instead (--select LTF007)`})
			}
			continue
		}
		old := l.Arg("use_flash_attention_2", text)
		if old != nil && old.Content(text) == "True" {
			p.Report(Finding{Start: old.Start(), End: old.End(), Severity: SeverityInfo,
				Message: `use_flash_attention_2=True loads flash attention, which does not use cuDNN SDPA; left as it is (attn_implementation="eager" beside it would raise ValueError in transformers 4.36-4.5x)`})
			continue
		}
		if v == nil {
			switch {
			case old != nil && old.Content(text) != "False" && noAttn != "":
				p.Report(Finding{Start: old.Start(), End: old.End(), Severity: SeverityWarning,
					Message: fmt.Sprintf(`use_flash_attention_2 comes from %s; %s: where training does not use flash attention, switch the cuDNN SDPA backend off (--select LTF007)`, p.Facts.DecidedAtRunTime(old, l.Func), noAttn)})
			case old != nil && old.Content(text) != "False":
				p.Report(Finding{Start: old.Start(), End: old.End(), Severity: SeverityWarning,
					Message: fmt.Sprintf(`use_flash_attention_2 comes from %s: attn_implementation beside use_flash_attention_2=True raises ValueError (transformers 4.36-4.5x); choose the attention with attn_implementation alone ("eager" for training: the default SDPA's cuDNN backward gives NaN on left-padded rows)`, p.Facts.DecidedAtRunTime(old, l.Func))})
			case packing:
				p.Report(Finding{Start: l.Node.Start(), End: l.Args.End(), Severity: SeverityInfo,
					Message: "packing/padding_free needs flash attention: attention left as it is"})
			case noAttn != "":
				at := l.Node
				if old != nil {
					at = old
				}
				p.Report(Finding{Start: at.Start(), End: at.End(), Severity: SeverityWarning,
					Message: noAttn + `: switch the cuDNN SDPA backend off instead (--select LTF007)`})
			case old != nil:
				replaceOldFlashKeyword(p, old)
			case l.Opaque():
				p.Report(Finding{Start: l.Node.Start(), End: l.Args.End(), Severity: SeverityWarning,
					Message: `training load with **kwargs: make sure it passes attn_implementation="eager" (the default SDPA picks cuDNN, whose backward gives NaN on left-padded rows)`})
			default:
				p.Report(Finding{Start: l.Node.Start(), End: l.Args.End(),
					Message: `training load uses the default SDPA attention, whose cuDNN backward gives NaN on fully masked (left-padded) rows; train with attn_implementation="eager" (O(L^2) memory; --profile lean fences cuDNN instead)` + remoteCodeCaveat(p.Facts, l),
					Fix:     pyedit.AddingFix(`add attn_implementation="eager"`, pyedit.ListAddition(p.Src, l.Args, `attn_implementation="eager"`))})
			}
			continue
		}
		sdpa, fast, known := attnValues(p.Facts, v, noCuDNNValues)
		switch {
		case !known:
			p.Report(Finding{Start: v.Start(), End: v.End(), Severity: SeverityWarning,
				Message: fmt.Sprintf(`attn_implementation comes from %s: "sdpa" trains through cuDNN, whose backward gives NaN on left-padded rows`, p.Facts.DecidedAtRunTime(v, l.Func))})
		case len(sdpa) > 0 && packing:
			// Packed rows hold no padding, so no row is fully masked; eager
			// would only cost its O(L^2) memory.
			p.Report(Finding{Start: v.Start(), End: v.End(), Severity: SeverityInfo,
				Message: `packing/padding_free leaves no padded row for cuDNN's NaN: attn_implementation="sdpa" left as it is`})
		case len(sdpa) > 0:
			edits := eagerInPlaceOfSDPA(v, sdpa)
			what := `attn_implementation="sdpa"`
			if !sdpa[0].Equal(v) {
				what = fmt.Sprintf(`attn_implementation=%s (= "sdpa")`, v.Content(text))
			}
			p.Report(Finding{Start: v.Start(), End: v.End(),
				Message: what + ` picks cuDNN on Hopper, whose backward gives NaN on fully masked (left-padded) rows; train with "eager"` + remoteCodeCaveat(p.Facts, l),
				Fix:     &Fix{Message: `attn_implementation="eager"`, Edits: edits}})
		case fast != "":
			p.Report(Finding{Start: v.Start(), End: v.End(), Severity: SeverityInfo,
				Message: fmt.Sprintf("attn_implementation=%q does not use cuDNN SDPA; left as it is", fast)})
		}
	}
	trlStringModels(p, func(t *trlLoad) {
		if !gemma2ID.MatchString(t.modelID) || !p.Runs(gemma2EagerAttention.Code) {
			trlAttention(p, t)
		}
	})
}

// remoteCodeCaveat qualifies the eager fix of a load through remote code
// (trust_remote_code=True) of a model the rules do not know to run on
// transformers' own classes: modeling code written before
// attn_implementation existed ignores it, so eager may change nothing.
func remoteCodeCaveat(f *semantic.Facts, l *semantic.Load) string {
	text := f.Src.Text
	v := l.Arg("trust_remote_code", text)
	if v == nil || v.Content(text) != "True" {
		return ""
	}
	if fam := padFamilyOf(l); fam != padDynamic && fam != padOther {
		return ""
	}
	return "; with trust_remote_code=True the model's own code may ignore attn_implementation (code older than transformers 4.36 does) and call SDPA itself: check it, or switch the cuDNN SDPA backend off before training (--select LTF007)"
}

// eagerInPlaceOfSDPA are the edits that make attn_implementation=v, whose
// values sdpa are "sdpa", "eager": a literal in the call is edited where
// it stands; a name's value is replaced at the use site (the name may
// serve others).
func eagerInPlaceOfSDPA(v *syntree.Node, sdpa []*syntree.Node) []Edit {
	if !semantic.Within(sdpa[0], v) {
		return []Edit{{Start: v.Start(), End: v.End(), NewText: `"eager"`}}
	}
	var edits []Edit
	for _, lit := range sdpa {
		edits = append(edits, Edit{Start: lit.Start() + 1, End: lit.End() - 1, NewText: "eager"})
	}
	return edits
}

// noAttnKeyword says why the transformers that governs the file may lack
// attn_implementation (it came in 4.36), or "": pinned below 4.36, or to a
// commit or a vendored copy, whose version nobody can read (a keyword it
// lacks is a TypeError at load).
func noAttnKeyword(tv Version) string {
	switch {
	case tv.Below(4, 36):
		return tv.Describe("transformers") + " has no attn_implementation"
	case tv.Known && tv.MayBeBelow(4, 36):
		// A range whose lower bound predates the keyword: a TypeError at
		// load wherever that bound is what gets installed.
		return tv.Describe("transformers") + " admits releases before 4.36, which have no attn_implementation"
	case tv.Unreadable():
		return tv.Describe("transformers") + ": it may be older than 4.36, which has no attn_implementation"
	}
	return ""
}

// replaceOldFlashKeyword turns use_flash_attention_2=False into
// attn_implementation="eager": the old keyword is deprecated, and the two
// side by side are a ValueError in transformers 4.36-4.5x whenever the old
// one is True.
func replaceOldFlashKeyword(p *Pass, old *syntree.Node) {
	fd := Finding{Start: old.Parent().Start(), End: old.Parent().End(),
		Message: `use_flash_attention_2=False leaves the default SDPA attention, whose cuDNN backward gives NaN on fully masked (left-padded) rows; train with attn_implementation="eager" in place of the old keyword (O(L^2) memory; --profile lean fences cuDNN instead)`}
	if e, ok := eagerInPlaceOf(old, p.Src.Text); ok {
		fd.Fix = &Fix{Message: `replace use_flash_attention_2=False by attn_implementation="eager"`, Edits: []Edit{e}}
	} else {
		fd.Severity = SeverityWarning
		fd.Message += "; it is set where it cannot be replaced in place: replace it by hand"
	}
	p.Report(fd)
}

// trlAttention is LTF002 for a model TRL loads by name.
func trlAttention(p *Pass, t *trlLoad) {
	text := p.Src.Text
	if t.packing {
		p.Report(Finding{Start: t.trainer.Node.Start(), End: t.trainer.Node.Start(), Severity: SeverityInfo,
			Message: "packing/padding_free needs flash attention: attention left as it is (left padding does not arise there)"})
		return
	}
	v := t.entries["attn_implementation"]
	if old := t.entries["use_flash_attention_2"]; old != nil && v == nil {
		if old.Content(text) == "False" {
			replaceOldFlashKeyword(p, old)
		} else {
			p.Report(Finding{Start: old.Start(), End: old.End(), Severity: SeverityInfo,
				Message: `use_flash_attention_2 in model_init_kwargs chooses the attention (True: flash, which does not use cuDNN SDPA); left as it is (attn_implementation beside use_flash_attention_2=True raises ValueError in transformers 4.36-4.5x)`})
		}
		return
	}
	if v != nil {
		s, ok := semantic.StringValue(v, text)
		if !ok && v.Type() != "string" {
			p.Report(Finding{Start: v.Start(), End: v.End(), Severity: SeverityWarning,
				Message: fmt.Sprintf(`TRL builds %s from model_init_kwargs with the attention %s: SDPA's cuDNN backward gives NaN on fully masked rows; train with "eager"`, t.name(), p.Facts.DecidedAtRunTime(v, t.trainer.Func))})
			return
		}
		if !ok || s != "sdpa" {
			return
		}
	}
	fd := Finding{Start: t.trainer.Node.Start(), End: t.trainer.Node.Start(),
		Message: fmt.Sprintf(`TRL loads %s with the default SDPA attention, whose cuDNN backward gives NaN on fully masked rows; pass attn_implementation="eager" in model_init_kwargs`, t.name())}
	if v != nil {
		fd.Message = fmt.Sprintf(`TRL loads %s with attn_implementation="sdpa" from model_init_kwargs, whose cuDNN backward gives NaN on fully masked rows; make it "eager"`, t.name())
	}
	if noAttn := noAttnKeyword(p.Versions.Transformers); noAttn != "" {
		fd.Severity = SeverityWarning
		fd.Message = fmt.Sprintf(`TRL loads %s; %s: switch the cuDNN SDPA backend off instead (--select LTF007)`, t.name(), noAttn)
		p.Report(fd)
		return
	}
	if t.jsonString {
		fd.Severity = SeverityWarning
		fd.Message += "; model_init_kwargs is a JSON string here: edit it by hand"
		p.Report(fd)
		return
	}
	if fix, ok := t.setInit(p, "attn_implementation", `"eager"`); ok {
		fix.Message = `model_init_kwargs "attn_implementation": "eager"`
		fd.Fix = fix
		fd.Start, fd.End = t.site(fix) // in a notebook, the cell the fix edits
	}
	p.Report(fd)
}

// allOf reports whether every string of ss satisfies ok.
func allOf(ss []string, ok func(string) bool) bool {
	for _, s := range ss {
		if !ok(s) {
			return false
		}
	}
	return true
}
