package rewrite

import (
	"fmt"
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// trlLoad is a model handed to a TRL trainer as a name: TRL loads it, with
// the keywords of SFTConfig(model_init_kwargs={...}).
type trlLoad struct {
	trainer    *Call
	modelID    string
	configArgs *sitter.Node // the argument list of SFTConfig(...), or nil
	initKw     *sitter.Node // the model_init_kwargs value, or nil
	entries    map[string]*sitter.Node
	jsonString bool // model_init_kwargs given as a JSON string
	packing    bool // packing=True or padding_free=True: flash attention needed
}

// trlKinds are TRL's trainer and config families: SFTTrainer, SFTConfig...
var trlKinds = []string{"SFT", "DPO", "KTO", "ORPO", "CPO", "GRPO", "Reward", "PPO"}

// isTRLTrainer reports a method name ending in a TRL trainer's
// (CustomSFTTrainer too).
func isTRLTrainer(method string) bool {
	kind, ok := strings.CutSuffix(method, "Trainer")
	if !ok {
		return false
	}
	for _, k := range trlKinds {
		if strings.HasSuffix(kind, k) {
			return true
		}
	}
	return false
}

// isTrainingArgsClass reports a name of training arguments: any
// *TrainingArguments, or a TRL config (SFTConfig, DPOConfig...).
func isTrainingArgsClass(name string) bool {
	if strings.HasSuffix(name, "TrainingArguments") {
		return true
	}
	kind, ok := strings.CutSuffix(name, "Config")
	return ok && slices.Contains(trlKinds, kind)
}

// trlStringModels calls fn for every TRL trainer given a model name.
func trlStringModels(p *Pass, fn func(*trlLoad)) {
	f, text := p.File, p.Src.Text
	for _, c := range f.Calls {
		if !isTRLTrainer(c.Method) || f.TrainingUse(c.Func) == NotTraining && c.Func != f.module {
			continue
		}
		model := KeywordValue(c.Args, "model", text)
		if args := realArgs(c.Args); model == nil && len(args) > 0 && args[0].Type() != "keyword_argument" {
			model = args[0]
		}
		if model == nil {
			continue
		}
		id, ok := f.ValueOf(model, c.Func)
		if !ok {
			continue
		}
		t := &trlLoad{trainer: c, modelID: id, entries: map[string]*sitter.Node{}}
		if cfg := KeywordValue(c.Args, "args", text); cfg != nil {
			if def := f.definition(cfg, c.Func); def != nil && def.Type() == "call" {
				t.configArgs = def.ChildByFieldName("arguments")
			}
		}
		if t.configArgs != nil {
			for _, k := range []string{"packing", "padding_free"} {
				if v := KeywordValue(t.configArgs, k, text); v != nil && v.Content(text) == "True" {
					t.packing = true
				}
			}
			if v := KeywordValue(t.configArgs, "model_init_kwargs", text); v != nil {
				t.initKw = f.definition(v, c.Func)
				if t.initKw != nil && t.initKw.Type() == "string" {
					t.jsonString = true
				} else if t.initKw == nil || !dictEntries(t.initKw, text, t.entries) {
					t.initKw = nil
					continue // built elsewhere: nothing to say safely
				}
			}
		}
		fn(t)
	}
}

// setInit sets key in model_init_kwargs: replaces its value, adds the entry
// to the dict, or adds model_init_kwargs to the config.
func (t *trlLoad) setInit(p *Pass, key, value string) (*Fix, bool) {
	if v := t.entries[key]; v != nil {
		return &Fix{Edits: []Edit{{Start: start(v), End: end(v), NewText: value}}}, true
	}
	switch {
	case t.initKw != nil && t.initKw.Type() == "dictionary":
		return addingFix("", listAddition(p.Src, t.initKw, fmt.Sprintf("%q: %s", key, value))), true
	case t.initKw != nil && t.initKw.Type() == "call":
		args := t.initKw.ChildByFieldName("arguments")
		return addingFix("", listAddition(p.Src, args, key+"="+value)), true
	case t.initKw == nil && t.configArgs != nil && !HasSplat(t.configArgs):
		// Not an item that merges: two of these would pass model_init_kwargs
		// twice; the second waits for the next pass and adds to the dict.
		edits, ok := addKeyword(p.Src, t.configArgs, "model_init_kwargs", fmt.Sprintf("{%q: %s}", key, value))
		return &Fix{Edits: edits, Claim: argsClaim(t.configArgs)}, ok
	}
	return nil, false
}

// trlDtype is LTF001 for a model TRL loads by name.
func trlDtype(p *Pass, t *trlLoad) {
	f := p.File
	key := "torch_dtype"
	if tv := p.Versions.TRL; tv.AtLeast(0, 23) || !tv.Known && f.fileDtypeKeyword() == "dtype" {
		key = "dtype" // its name from TRL 0.23; with no pin, as the file spells it
	}
	v := t.entries["dtype"]
	if v != nil {
		key = "dtype"
	} else if v = t.entries["torch_dtype"]; v != nil {
		key = "torch_dtype"
	}
	where := start(t.trainer.Node)
	if v != nil {
		if k := lowPrecision(f, v); k != "bfloat16" && k != "float16" && k != "auto" {
			return
		}
		where = start(v)
	} else if p.Versions.TRL.AtLeast(0, 27) || t.entries["quantization_config"] != nil {
		return // TRL >= 0.27 loads float32 when no dtype is given
	}
	msg := fmt.Sprintf("TRL loads %s itself in %s; pass float32 masters in model_init_kwargs (compute stays bf16 through SFTConfig's autocast); %s (assumed: %s)",
		t.modelID, map[bool]string{true: "the dtype given", false: "the checkpoint's dtype (bf16 for Llama-3) when none is given before TRL 0.27"}[v != nil], fp32Cost, p.Versions.TRL.Describe("trl"))
	fd := Finding{Start: where, End: where, Message: msg}
	if t.jsonString {
		fd.Severity = SeverityWarning
		fd.Message += "; model_init_kwargs is a JSON string here: edit it by hand"
		p.Report(fd)
		return
	}
	name, imp := f.torchName("float32")
	if fix, ok := t.setInit(p, key, name); ok {
		fix.Message = fmt.Sprintf("model_init_kwargs %q: %s", key, name)
		fix.Edits = append(fix.Edits, imp...)
		fd.Fix = fix
	}
	p.Report(fd)
}

// trlAttention is LTF002 for a model TRL loads by name.
func trlAttention(p *Pass, t *trlLoad) {
	text := p.Src.Text
	if t.packing {
		p.Report(Finding{Start: start(t.trainer.Node), End: start(t.trainer.Node), Severity: SeverityInfo,
			Message: "packing/padding_free needs flash attention: attention left as it is (left padding does not arise there)"})
		return
	}
	v := t.entries["attn_implementation"]
	if old := t.entries["use_flash_attention_2"]; old != nil && v == nil {
		if old.Content(text) == "False" {
			replaceOldFlashKeyword(p, old)
		} else {
			p.Report(Finding{Start: start(old), End: end(old), Severity: SeverityInfo,
				Message: `use_flash_attention_2 in model_init_kwargs chooses the attention (True: flash, which does not use cuDNN SDPA); left as it is (attn_implementation beside use_flash_attention_2=True raises ValueError in transformers 4.36-4.5x)`})
		}
		return
	}
	if v != nil {
		if s, ok := StringValue(v, text); !ok || s != "sdpa" {
			return
		}
	}
	fd := Finding{Start: start(t.trainer.Node), End: start(t.trainer.Node),
		Message: fmt.Sprintf(`TRL loads %s with the default SDPA attention, whose cuDNN backward gives NaN on fully masked rows; pass attn_implementation="eager" in model_init_kwargs`, t.modelID)}
	if t.jsonString {
		fd.Severity = SeverityWarning
		fd.Message += "; model_init_kwargs is a JSON string here: edit it by hand"
		p.Report(fd)
		return
	}
	if fix, ok := t.setInit(p, "attn_implementation", `"eager"`); ok {
		fix.Message = `model_init_kwargs "attn_implementation": "eager"`
		fd.Fix = fix
	}
	p.Report(fd)
}

// packingInFile reports an SFTConfig with packing=True or padding_free=True.
func packingInFile(f *File) bool {
	text := f.Src.Text
	for _, c := range f.Calls {
		if !isTrainingArgsClass(c.Method) {
			continue
		}
		for _, k := range []string{"packing", "padding_free"} {
			if v := KeywordValue(c.Args, k, text); v != nil && v.Content(text) == "True" {
				return true
			}
		}
	}
	return false
}
