package semantic

import (
	"strings"

	"github.com/loratune/loratune-fix/syntree"
)

// The scope of edits (issue 11): the training rules fix scripts that
// train an adapter (LoRA, QLoRA, DoRA). A full fine-tune, or library code
// that loads and wraps models but runs no training itself, gets the same
// findings without their fixes: what suits an adapter run (fp32 masters,
// device_map=None) can be wrong there, and library code serves callers the
// tool cannot see.

// TrainsAdapter reports an adapter in the file: an adapter call, a trainer
// given peft_config= (TRL wraps the model itself), or an adapter
// checkpoint loaded with is_trainable=True.
func (f *Facts) TrainsAdapter() bool {
	text := f.Src.Text
	for _, c := range f.Calls {
		switch {
		case c.Is(AdapterWrap):
			return true
		case c.IsTrainerCall():
			if f.trainerTrainsAdapter(c) {
				return true
			}
		case c.Is(AdapterCheckpoint):
			if v := KeywordValue(c.Args, "is_trainable", text); v != nil && v.Content(text) == "True" {
				return true
			}
		}
	}
	return false
}

// hasTrainingEntry reports a place where the file runs training: a
// trainer or an optimizer built, a .train() call, a backward pass or an
// optimizer step anywhere, or a training signal in module-level code (a script that wraps
// its model with get_peft_model at top level runs it). A file whose only
// signals are get_peft_model calls inside functions is a library's model
// builder.
func (f *Facts) hasTrainingEntry() bool {
	if f.Module.Training {
		return true
	}
	for _, c := range f.Calls {
		// An optimizer built here: the loop that steps it may live in a
		// helper module.
		if c.IsTrainerCall() || c.Method == "backward" || c.Is(Optimizer) ||
			c.Method == "train" && c.Args.NamedChildCount() == 0 && strings.Contains(c.Dotted, ".") ||
			c.Method == "step" && strings.Contains(strings.ToLower(c.Dotted), "optim") {
			return true
		}
	}
	return false
}

// loadsModel reports a model load in the file, or a TRL trainer given a
// model by name: with no adapter in sight, the file fine-tunes that model
// whole. A file that only receives its model (a parameter) shows neither.
func (f *Facts) loadsModel() bool {
	if len(f.ModelLoads()) > 0 {
		return true
	}
	text := f.Src.Text
	for _, c := range f.Calls {
		if c.Is(TRLTrainer) {
			if _, ok := f.ValueOf(KeywordValue(c.Args, "model", text)); ok {
				return true
			}
		}
	}
	return false
}

// FullFineTune is why a full fine-tune's findings carry no fix.
const FullFineTune = "full fine-tune: only adapter training is edited"

// NotEditedBecause says why the training rules' fixes are withheld from
// this file, or "" when they apply; short, as it ends up in the finding's
// outcome (Finding.Withheld, then Reason). It is decided once per file.
func (f *Facts) NotEditedBecause() string {
	if f.editScope == nil {
		why := ""
		switch {
		case !f.TrainsAdapter() && f.loadsModel():
			why = FullFineTune
		case !f.TrainsAdapter():
			why = "no adapter in sight (get_peft_model, a trainer's peft_config=): only adapter training is edited"
		case !f.hasTrainingEntry():
			why = "library code: nothing here runs training"
		}
		f.editScope = &why
	}
	return *f.editScope
}

// trainerTrainsAdapter reports a trainer given peft_config= (TRL wraps its
// model in an adapter itself); a literal None is no adapter.
func (f *Facts) trainerTrainsAdapter(c *Call) bool {
	v := KeywordValue(c.Args, "peft_config", f.Src.Text)
	return v != nil && v.Type() != "none"
}

// UndecidedAt reports a finding on a load whose use the flow cannot tell
// (shared by training and other callers, or passed where it cannot see).
func (f *Facts) UndecidedAt(start, end int) bool {
	for _, l := range f.ModelLoads() {
		if !l.Undecided() {
			continue
		}
		if int(l.Node.StartByte()) <= start && end <= int(l.Node.EndByte()) {
			return true
		}
		for _, v := range l.kwargs.entries { // a value in its **kwargs dict
			if int(v.StartByte()) <= start && end <= int(v.EndByte()) {
				return true
			}
		}
	}
	return false
}

// LoadAt is the training load whose call holds [start, end), or nil.
func (f *Facts) LoadAt(start, end int) *Load {
	for _, l := range f.ModelLoads() {
		if l.Use == Training && int(l.Node.StartByte()) <= start && end <= int(l.Node.EndByte()) {
			return l
		}
	}
	return nil
}

// trainerAlwaysAdapts reports a peft_config= that is an adapter config on
// every path: not None on some path, nor TRL's get_peft_config(args),
// which returns None unless --use_peft is given.
func (f *Facts) trainerAlwaysAdapts(c *Call) bool {
	v := KeywordValue(c.Args, "peft_config", f.Src.Text)
	if v != nil && v.Type() == "conditional_expression" {
		return false
	}
	vals, _ := f.Values(v)
	for _, x := range vals {
		if x.Type() == "none" || Last(f.CalleeOf(x)) == "get_peft_config" {
			return false
		}
	}
	return true // a config, or one passed in: an adapter as far as this file shows
}

// underRuntimeCondition reports a node inside an if (or a conditional
// expression) whose condition is decided at run time, and which does not
// also hold from: code that runs on some of from's paths only.
func (f *Facts) underRuntimeCondition(n, from *syntree.Node) bool {
	for cur := n; cur != nil; cur = cur.Parent() {
		p := cur.Parent()
		if p == nil || Within(from, p) {
			return false
		}
		switch p.Type() {
		case "function_definition", "module":
			return false
		case "if_statement", "elif_clause":
			if cond := p.ChildByFieldName("condition"); cond != nil && !cond.Equal(cur) {
				if v, kind := f.condition(cond, 0); kind != condKnown || !v {
					return true
				}
			}
		case "else_clause":
			return true
		case "conditional_expression":
			if kids := NamedNoComments(p); len(kids) == 3 && !kids[1].Equal(cur) {
				return true
			}
		}
	}
	return false
}

// Dead reports code that a constant condition of the file never runs:
// the else of `if USE_LORA:` with USE_LORA = True at module level, the body
// of `if False:`. Rules neither report nor edit there.
func (f *Facts) Dead(at int) bool {
	if f.dead == nil {
		f.dead = f.deadSpans()
	}
	for _, s := range *f.dead {
		if int(s[0]) <= at && at < int(s[1]) {
			return true
		}
	}
	return false
}

func (f *Facts) deadSpans() *[][2]uint32 {
	spans := [][2]uint32{}
	if f.globalsRewritten() {
		return &spans
	}
	WalkNodes(f.Root, func(n *syntree.Node) bool {
		if n.Type() != "if_statement" {
			return true
		}
		taken := false // an earlier branch always runs: the rest never do
		branch := func(cond, body, whole *syntree.Node) {
			switch {
			case taken:
				spans = append(spans, [2]uint32{whole.StartByte(), whole.EndByte()})
			case cond == nil || body == nil:
			default:
				if v, kind := f.condition(cond, 0); kind == condKnown {
					if v {
						taken = true
					} else {
						spans = append(spans, [2]uint32{body.StartByte(), body.EndByte()})
					}
				}
			}
		}
		branch(n.ChildByFieldName("condition"), n.ChildByFieldName("consequence"), n)
		for _, c := range n.NamedChildren() {
			switch c.Type() {
			case "elif_clause":
				branch(c.ChildByFieldName("condition"), c.ChildByFieldName("consequence"), c)
			case "else_clause":
				if taken {
					spans = append(spans, [2]uint32{c.StartByte(), c.EndByte()})
				}
			}
		}
		return true
	})
	return &spans
}

// globalsRewritten reports a file that can rebind its globals where the
// flow does not look (exec(open("configurator.py").read()), globals().update,
// as nanoGPT-style scripts take overrides from the command line): none of its
// module constants is folded.
func (f *Facts) globalsRewritten() bool {
	if f.rebinds == nil {
		r := f.rebindsGlobals()
		f.rebinds = &r
	}
	return *f.rebinds
}

func (f *Facts) rebindsGlobals() bool {
	for _, c := range f.Calls {
		switch {
		case c.Qual == "exec":
			return true
		case c.Qual == "globals" || c.Qual == "vars" && len(RealArgs(c.Args)) == 0:
			if f.writesThrough(c.Node) {
				return true
			}
		}
	}
	return false
}

// writesThrough reports a globals() (or vars()) dict that may bind a name:
// updated, set by key, or handed on (g = globals(); f(globals())). Reading
// it (globals().get("x"), "x" in globals()) or dropping names from it
// (globals().pop("old_model", None), a memory helper's habit) binds
// nothing.
func (f *Facts) writesThrough(call *syntree.Node) bool {
	text := f.Src.Text
	p := call.Parent()
	switch p.Type() {
	case "attribute":
		switch p.ChildByFieldName("attribute").Content(text) {
		case "get", "keys", "items", "values", "pop", "copy", "__contains__":
			return false
		}
		return true
	case "subscript":
		stmt := p.Parent()
		switch {
		case stmt.Type() == "delete_statement":
			return false
		case (stmt.Type() == "assignment" || stmt.Type() == "augmented_assignment") && stmt.ChildByFieldName("left").Equal(p):
			return true
		}
		return false // globals()["x"]: a read
	case "comparison_operator":
		return false // "x" in globals()
	}
	return true
}
