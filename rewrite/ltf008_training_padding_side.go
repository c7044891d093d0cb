package rewrite

import (
	"fmt"
	"strings"

	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

var trainingPaddingSide = &Rule{
	Code:         "LTF008",
	Name:         "training-padding-side",
	Summary:      `tokenizer.padding_side = "left" in training code becomes "right"`,
	Severity:     SeverityError,
	Profiles:     []string{ProfileDefault, ProfileLean},
	Triggers:     []string{"padding_side"},
	TrainingOnly: true,
	Doc: `## What it does
In training code, tokenizer.padding_side = "left" (or padding_side="left"
passed to the tokenizer's from_pretrained) becomes "right".

## Why
Left padding is inference advice ("Allow batched inference" in alpaca-lora
and DoRA) copied into training. It puts pad queries at the front, whose
rows the causal mask leaves fully masked, and cuDNN SDPA's backward returns
NaN for those rows (reproduced on an H200). Training pads on the right;
TRL always does.

## Example
    tokenizer.padding_side = "left"  # Allow batched inference
becomes
    tokenizer.padding_side = "right"  # right padding for training; left is for batched inference
(a trailing remark about inference or left padding is reworded; other
comment bytes stay)

## When it stays away
Generation and evaluation code keep left padding, which batched generate()
needs (with flash attention, right padding there raises): a padding side
set in a function that calls generate, one set after trainer.train() (it
restores the setting for generation), and a tokenizer that also drives
generation (an online trainer such as GRPOTrainer, or batches padded for
generate()) are left as they are, with a note. So is left padding where
every training load of the file asks for flash attention
(attn_implementation="flash_attention_2", use_flash_attention_2=True):
flash attention never runs cuDNN SDPA, and authors set left padding for it
on purpose. So is left padding where the file masks labels by position from
the right end (labels[:, :-n] = -100 keeps the answer only under left
padding): a warning, since right padding would train on the pads.

## Cost
None.

## Evidence

| status | what was run |
| --- | --- |
| failure reproduced | left padding with cuDNN SDPA at L % 128 == 64, on torch 2.11, cuDNN 9.19, transformers 5.17, peft 0.21, H200 (docs/gpu-validation.md) |
| cure shown elsewhere | right padding alone prevented it in the first reproduction (same versions); in the harness every right-padded variant also has eager or the fence |`,
	Run: runTrainingPaddingSide,
}

func runTrainingPaddingSide(p *Pass) {
	f, text := p.Facts, p.Src.Text
	if f.NoDecoderTrained() {
		return
	}
	for _, a := range f.Assigns {
		if !strings.HasSuffix(a.Text, ".padding_side") || f.TrainingUse(a.Func) != semantic.Training {
			continue
		}
		reportLeft(p, a.Value, a.Func, strings.TrimSuffix(a.Text, ".padding_side"))
	}
	for _, c := range f.Calls {
		if c.Method != "from_pretrained" || !strings.Contains(c.Qual, "Tokenizer") || f.TrainingUse(c.Func) != semantic.Training {
			continue
		}
		if v := semantic.KeywordValue(c.Args, "padding_side", text); v != nil {
			reportLeft(p, v, c.Func, semantic.AssignedTo(c.Node, text))
		}
	}
}

// reportLeft reports padding_side "left" set on tokenizer tok (its name, or
// "") in scope fn: a fix, or a note where the left side serves generation.
func reportLeft(p *Pass, v *syntree.Node, fn *semantic.Func, tok string) {
	text := p.Src.Text
	if s, ok := semantic.StringValue(v, text); !ok || s != "left" {
		return
	}
	st, en := v.Start(), v.End()
	if flash := flashTraining(p.Facts); flash != "" {
		p.Report(Finding{Start: st, End: en, Severity: SeverityInfo,
			Message: `padding_side="left" left as it is: the training load asks for ` + flash + `, which never runs cuDNN SDPA`})
		return
	}
	if why, shared := leftForGeneration(p.Facts, v, fn, tok); why != "" {
		fd := Finding{Start: st, End: en, Severity: SeverityInfo,
			Message: `padding_side="left" left as it is: ` + why + ` (batched generation needs left padding)`}
		if shared {
			fd.Severity = SeverityWarning
			fd.Message += `; the same tokenizer pads the training batches: set "right" before training and "left" just before generate()`
		}
		p.Report(fd)
		return
	}
	if mask := maskedFromTheEnd(p.Facts); mask != nil {
		p.Report(Finding{Start: st, End: en, Severity: SeverityWarning,
			Message: fmt.Sprintf(`padding_side="left" left as it is: labels are masked by position from the right end (%s), which keeps the answer only under left padding; right padding would train on the pads. Mask by the attention mask or the prompt length first, then pad on the right (left padding makes fully masked rows, whose cuDNN SDPA backward is NaN: eager attention avoids it)`,
				oneLine(mask.Content(text)))})
		return
	}
	edits := []Edit{{Start: st + 1, End: en - 1, NewText: "right"}}
	if e, ok := staleLeftPaddingComment(p.Src, en); ok {
		edits = append(edits, e)
	}
	p.Report(Finding{Start: st, End: en,
		Message: `left padding in training makes fully masked query rows, whose cuDNN SDPA backward is NaN; training pads on the right (keep "left" for generation)`,
		Fix:     &Fix{Message: `padding_side = "right"`, Edits: edits}})
}

// oneLine is s as written, or compacted when it spans lines.
func oneLine(s string) string {
	if strings.Contains(s, "\n") {
		return semantic.Compact(s)
	}
	return s
}

// maskedFromTheEnd is an assignment that masks labels by position counted
// from the right end, x[..., :-n] = -100 (or a name for -100), or nil.
// Such a mask keeps the last n tokens, the answer only when the padding is
// on the left.
func maskedFromTheEnd(f *semantic.Facts) *syntree.Node {
	text := f.Src.Text
	for _, a := range f.Assigns {
		if a.Target.Type() != "subscript" || !f.IgnoreIndex(a.Value) {
			continue
		}
		for _, sl := range a.Target.NamedChildren() {
			if sl.Type() != "slice" {
				continue
			}
			kids := sl.Children()
			if len(kids) >= 2 && kids[0].Type() == ":" && kids[1].Type() == "unary_operator" && strings.HasPrefix(kids[1].Content(text), "-") {
				return a.Node
			}
		}
	}
	return nil
}

// flashTraining names the flash attention that every training load of the
// file asks for, or "" (none, or a load without it).
func flashTraining(f *semantic.Facts) string {
	flash := ""
	for _, l := range f.ModelLoads() {
		if l.Use == semantic.NotTraining {
			continue
		}
		if flash = flashLoad(f, l); flash == "" {
			return ""
		}
	}
	return flash
}

// staleLeftPaddingComment rewords the comment at the end of the line of
// offset at when it gives the reason for left padding ("# Allow batched
// inference"), which would then sit beside "right". Only that remark is
// replaced: what follows it in the comment (a "# noqa: E501") and every
// byte around it stay.
func staleLeftPaddingComment(src *semantic.Source, at int) (Edit, bool) {
	end := src.ContentEnd(at)
	for i := at; i < end; i++ {
		if src.Text[i] != '#' {
			continue
		}
		comment := commentAt(src, src.Root, i)
		if comment == "" {
			continue // a '#' inside a string
		}
		remark := comment[1:]
		if j := strings.IndexByte(remark, '#'); j >= 0 {
			remark = remark[:j]
		}
		words := strings.ToLower(remark)
		if !strings.Contains(words, "inference") && !strings.Contains(words, "left") && !strings.Contains(words, "generat") {
			return Edit{}, false
		}
		from := i + 1 + len(remark) - len(strings.TrimLeft(remark, " \t"))
		to := i + 1 + len(strings.TrimRight(remark, " \t"))
		return Edit{Start: from, End: to, NewText: "right padding for training; left is for batched inference"}, true
	}
	return Edit{}, false
}

// onlineTrainers generate completions during training with the
// tokenizer they are given (GRPO, PPO, the online preference trainers,
// GKD's on-policy student).
var onlineTrainers = []string{"GRPO", "PPO", "OnlineDPO", "RLOO", "XPO", "NashMD", "GKD"}

// leftForGeneration says why a left padding side set at v serves
// generation (DOMAIN.md §11: right padding must not reach batched
// generate), or "": it sits in a function that calls generate, after
// training in its scope (restoring the setting), or on a tokenizer that an
// online trainer or a batched generate also uses. shared: the tokenizer
// pads training batches too (the batched generate case).
func leftForGeneration(f *semantic.Facts, v *syntree.Node, fn *semantic.Func, tok string) (why string, shared bool) {
	text := f.Src.Text
	generates := func(fn *semantic.Func) bool {
		for _, c := range f.Calls {
			if c.Func == fn && c.Method == "generate" {
				return true
			}
		}
		return false
	}
	if fn.Node != nil && generates(fn) {
		return fmt.Sprintf("%s() calls generate", fn.Name), false
	}
	for _, c := range f.Calls {
		if c.Func == fn && c.Method == "train" && strings.Contains(strings.ToLower(c.Object()), "trainer") && c.Node.EndByte() <= v.StartByte() {
			return fmt.Sprintf("it comes after %s, where it restores the setting for generation", c.Node.Content(text)), false
		}
	}
	for _, c := range f.Calls {
		kind, ok := strings.CutSuffix(c.Method, "Trainer")
		if !ok {
			continue
		}
		for _, k := range onlineTrainers {
			if strings.HasSuffix(kind, k) {
				return fmt.Sprintf("%s generates completions during training with the tokenizer it is given", c.Method), false
			}
		}
	}
	if tok == "" {
		return "", false
	}
	for _, c := range f.Calls {
		if (c.Dotted == tok || c.Dotted == tok+".batch_encode_plus") && semantic.Keyword(c.Args, "padding", text) != nil && generates(c.Func) {
			return fmt.Sprintf("%s also pads the batches of generate() in %s", tok, scopeName(c.Func)), true
		}
	}
	return "", false
}

// scopeName is "name()" for a function, "module-level code" for the module.
func scopeName(fn *semantic.Func) string {
	if fn.Node == nil {
		return "module-level code"
	}
	return fn.Name + "()"
}
