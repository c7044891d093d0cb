package rewrite

import (
	"fmt"
	"strings"

	"github.com/loratune/loratune-fix/pyedit"
	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

// trlLoad is a model handed to a TRL trainer as a name: TRL loads it, with
// the keywords of SFTConfig(model_init_kwargs={...}).
type trlLoad struct {
	trainer *semantic.Call
	// modelID is the literal id, or (idKnown false) the expression that
	// names it at run time ("args.model_name_or_path").
	modelID    string
	idKnown    bool
	configArgs *syntree.Node // the argument list of SFTConfig(...), or nil
	// configTRL: configArgs belongs to a TRL config, the only training
	// arguments that take model_init_kwargs (TrainingArguments has none).
	configTRL  bool
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
		if !c.Is(semantic.TRLTrainer) || f.TrainingUse(c.Func) == semantic.NotTraining && c.Func != f.Module {
			continue
		}
		model := semantic.KeywordValue(c.Args, "model", text)
		if args := semantic.RealArgs(c.Args); model == nil && len(args) > 0 && args[0].Type() != "keyword_argument" {
			model = args[0]
		}
		if model == nil {
			continue
		}
		id, known := f.ValueOf(model)
		if !known {
			if !namesModelAtRunTime(f, model) {
				continue // a model object, not a name
			}
			id = semantic.Compact(model.Content(text))
		}
		t := &trlLoad{trainer: c, modelID: id, idKnown: known, entries: map[string]*syntree.Node{}}
		cfgName := ""
		if cfg := semantic.KeywordValue(c.Args, "args", text); cfg != nil {
			cfgName = semantic.Compact(cfg.Content(text))
			if def := f.SoleValue(cfg); def != nil && def.Type() == "call" {
				t.configArgs = def.ChildByFieldName("arguments")
				t.configTRL = semantic.Of(f.CalleeOf(def)).Has(semantic.TRLConfig)
			}
		}
		if t.configArgs != nil {
			for _, k := range []string{"packing", "padding_free"} {
				if v := semantic.KeywordValue(t.configArgs, k, text); v != nil && v.Content(text) == "True" {
					t.packing = true
				}
			}
		}
		// Where TRL reads its load keywords, the last that applies: the
		// trainer's own model_init_kwargs= (older TRL), the config's
		// keyword, then cfg.model_init_kwargs = {...} set after it.
		kw := semantic.KeywordValue(c.Args, "model_init_kwargs", text)
		if kw == nil && t.configArgs != nil {
			kw = semantic.KeywordValue(t.configArgs, "model_init_kwargs", text)
		}
		if a := lastAttrWrite(f, cfgName, "model_init_kwargs", c.Node); a != nil {
			kw = a.Value
		}
		if kw != nil {
			t.initKw = f.SoleValue(kw)
			if t.initKw != nil && t.initKw.Type() == "string" {
				t.jsonString = true
			} else if t.initKw == nil || !semantic.DictEntries(t.initKw, text, t.entries) {
				t.initKw = nil
				continue // built elsewhere: nothing to say safely
			}
		}
		fn(t)
	}
}

// setInit sets key in model_init_kwargs: replaces its value, adds the entry
// to the dict, or adds model_init_kwargs to the config.
func (t *trlLoad) setInit(p *Pass, key, value string) (*Fix, bool) {
	if v := t.entries[key]; v != nil {
		return &Fix{Edits: []Edit{{Start: v.Start(), End: v.End(), NewText: value}}}, true
	}
	switch {
	case t.initKw != nil && t.initKw.Type() == "dictionary":
		return pyedit.AddingFix("", pyedit.ListAddition(p.Src, t.initKw, fmt.Sprintf("%q: %s", key, value))), true
	case t.initKw != nil && t.initKw.Type() == "call":
		args := t.initKw.ChildByFieldName("arguments")
		return pyedit.AddingFix("", pyedit.ListAddition(p.Src, args, key+"="+value)), true
	case t.initKw == nil && t.configArgs != nil && t.configTRL && !semantic.HasSplat(t.configArgs):
		// Two of these add the one keyword model_init_kwargs: they conflict,
		// and the second adds to the dict on the next pass.
		return pyedit.AddKeyword(p.Src, t.configArgs, "", "model_init_kwargs", fmt.Sprintf("{%q: %s}", key, value)), true
	}
	return nil, false
}

// quantized reports a model TRL loads quantized: a quantization_config in
// model_init_kwargs or given to the trainer itself (not a literal None), or
// a checkpoint published quantized.
func (t *trlLoad) quantized(f *semantic.Facts) (always, maybe bool) {
	text := f.Src.Text
	for _, v := range []*syntree.Node{t.entries["quantization_config"], semantic.KeywordValue(t.trainer.Args, "quantization_config", text)} {
		if v == nil || v.Content(text) == "None" {
			continue
		}
		if v.Type() == "call" && semantic.Last(f.CalleeOf(v)) == "get_quantization_config" {
			maybe = true // TRL's helper: None unless load_in_4bit or load_in_8bit is given
			continue
		}
		return true, false
	}
	return semantic.PreQuantizedID(t.modelID), maybe
}

// flash describes a flash attention TRL loads the model with, from
// model_init_kwargs, or "".
func (t *trlLoad) flash(f *semantic.Facts) string {
	text := f.Src.Text
	if s, ok := semantic.StringValue(t.entries["attn_implementation"], text); ok && flashValues[s] {
		return fmt.Sprintf("attn_implementation=%q", s)
	}
	if v := t.entries["use_flash_attention_2"]; v != nil && v.Content(text) == "True" {
		return "use_flash_attention_2=True"
	}
	return ""
}

// namesModelAtRunTime reports a trainer's model= that is a name chosen at
// run time (args.model_name_or_path, a parameter), not a model object: its
// every value is a plain attribute or name the flow cannot follow further,
// and none of them is a load.
func namesModelAtRunTime(f *semantic.Facts, model *syntree.Node) bool {
	vals, _ := f.Values(model)
	if len(vals) == 0 {
		return false
	}
	for _, v := range vals {
		if v.Type() != "attribute" && v.Type() != "identifier" {
			return false
		}
		if !strings.Contains(strings.ToLower(v.Content(f.Src.Text)), "model") {
			return false // a name that does not say it names a model
		}
		for _, l := range f.ModelLoads() {
			if l.Target == semantic.Compact(v.Content(f.Src.Text)) {
				return false
			}
		}
	}
	return true
}

// lastAttrWrite is the last statement before at, in at's scope or the
// module, that sets obj.attr = value, or nil.
func lastAttrWrite(f *semantic.Facts, obj, attr string, at *syntree.Node) *semantic.Assign {
	if obj == "" {
		return nil
	}
	var last *semantic.Assign
	for _, a := range f.Assigns {
		if a.Text == obj+"."+attr && a.Node.EndByte() <= at.StartByte() && !f.Dead(int(a.Node.StartByte())) {
			last = a
		}
	}
	return last
}

// name is the model for messages: its id, or what names it at run time.
func (t *trlLoad) name() string {
	if t.idKnown {
		return t.modelID
	}
	return "the model named by " + t.modelID
}

// site is where a finding about model_init_kwargs stands when fix edits
// it: at the first edit (the dict or the config, which a notebook may
// hold in an earlier cell than the trainer's), so that finding and fix
// are in one cell.
func (t *trlLoad) site(fix *Fix) (int, int) {
	at := fix.Edits[0].Start
	return at, at
}
