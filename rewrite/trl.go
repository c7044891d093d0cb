package rewrite

import (
	"fmt"

	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

// trlLoad is a model handed to a TRL trainer as a name: TRL loads it, with
// the keywords of SFTConfig(model_init_kwargs={...}).
type trlLoad struct {
	trainer    *Call
	modelID    string
	configArgs *syntree.Node // the argument list of SFTConfig(...), or nil
	initKw     *syntree.Node // the model_init_kwargs value, or nil
	entries    map[string]*syntree.Node
	jsonString bool // model_init_kwargs given as a JSON string
	packing    bool // packing=True or padding_free=True: flash attention needed
}

// isTRLTrainer reports a callee name of a TRL trainer (CustomSFTTrainer
// too): semantic.TRLTrainer.
func isTRLTrainer(name string) bool { return semantic.Of(name).Has(semantic.TRLTrainer) }

// isTrainingArgsClass reports a name of training arguments: any
// *TrainingArguments, or a TRL config (SFTConfig, DPOConfig...).
func isTrainingArgsClass(name string) bool { return semantic.Of(name).Has(semantic.TrainingArgs) }

// trlStringModels calls fn for every TRL trainer given a model name.
func trlStringModels(p *Pass, fn func(*trlLoad)) {
	f, text := p.Facts, p.Src.Text
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
		id, ok := f.ValueOf(model)
		if !ok {
			continue
		}
		t := &trlLoad{trainer: c, modelID: id, entries: map[string]*syntree.Node{}}
		if cfg := KeywordValue(c.Args, "args", text); cfg != nil {
			if def := f.SoleValue(cfg); def != nil && def.Type() == "call" {
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
				t.initKw = f.SoleValue(v)
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
		// Two of these add the one keyword model_init_kwargs: they conflict,
		// and the second adds to the dict on the next pass.
		return addKeyword(p.Src, t.configArgs, "", "model_init_kwargs", fmt.Sprintf("{%q: %s}", key, value)), true
	}
	return nil, false
}

// packingInFile reports an SFTConfig (or, in TRL's older keyword form, an
// SFTTrainer) with packing=True or padding_free=True.
func packingInFile(f *Facts) bool {
	text := f.Src.Text
	for _, c := range f.Calls {
		if !isTrainingArgsClass(c.Method) && !isTRLTrainer(c.Method) {
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

// quantized reports a model TRL loads quantized: a quantization_config in
// model_init_kwargs or given to the trainer itself (not a literal None), or
// a checkpoint published quantized.
func (t *trlLoad) quantized(f *Facts) bool {
	text := f.Src.Text
	for _, v := range []*syntree.Node{t.entries["quantization_config"], KeywordValue(t.trainer.Args, "quantization_config", text)} {
		if v != nil && v.Content(text) != "None" {
			return true
		}
	}
	return preQuantizedID(t.modelID)
}
