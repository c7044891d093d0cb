package rewrite

import (
	"fmt"
	"strings"

	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

var trainingUseCache = &Rule{
	Code:            "LTF005",
	Name:            "training-use-cache",
	Summary:         "set model.config.use_cache = False before training",
	Severity:        SeverityWarning,
	Profiles:        []string{ProfileDefault, ProfileLean},
	Triggers:        []string{"from_pretrained", "from_config"},
	TrainingOnly:    true,
	FullFineTuneToo: true,
	Doc: `## What it does
Adds model.config.use_cache = False right after the statement that loads
each training model, inside the branch that loads it (once per branch), so
that it runs wherever the model is bound and before it is trained.

## Why
The KV cache is for generation. During training it holds memory for
nothing and conflicts with gradient checkpointing (transformers warns and
turns it off at every step). transformers 5's Trainer sets it itself; on
4.x the script must.

## Example
    model = AutoModelForCausalLM.from_pretrained(name)
becomes
    model = AutoModelForCausalLM.from_pretrained(name)
    model.config.use_cache = False

## When it stays away
A model whose cache is already off (use_cache=False passed to the load, or
model.config.use_cache = False on it or on its peft wrapper). transformers
>= 5 (the Trainer does it). unsloth's loaders (FastLanguageModel and kin:
unsloth's forward turns the cache off while training). Loads that only
serve inference, and loaders shared by training and inference callers
(library code).

## Cost
None: the cache is not used by a training forward pass.

## Evidence

| status | what was run |
| --- | --- |
| moot on transformers 5.x | the Trainer sets use_cache itself |
| mechanism only | on 4.x (the cache conflicts with gradient checkpointing); not run |`,
	Run: runTrainingUseCache,
}

func runTrainingUseCache(p *Pass) {
	f := p.Facts
	if p.Versions.Transformers.AtLeast(5, 0) {
		return
	}
	later := "" // what sets it from 5.0: the script's own trainer, if any
	if t := trainerName(f); t != "" {
		later = fmt.Sprintf("; %s sets it itself from transformers 5.0", t)
	}
	// A load the flow cannot follow (a helper module's, a config's) that
	// is given a use_cache which may be True: a warning, no edit.
	trained := map[[2]uint32]bool{} // the use_cache values of training loads: fixed below
	for _, l := range f.TrainingLoads() {
		if v := l.Arg("use_cache", p.Src.Text); v != nil {
			trained[[2]uint32{v.StartByte(), v.EndByte()}] = true
		}
	}
	for _, l := range f.ModelLoads() {
		if v := l.Arg("use_cache", p.Src.Text); l.Undecided() && l.Kind.Decoder() && v != nil && !f.Always(v, "false") && !trained[[2]uint32{v.StartByte(), v.EndByte()}] {
			p.Report(Finding{Start: v.Start(), End: v.End(), Severity: SeverityWarning,
				Message: l.UndecidedMessage(fmt.Sprintf("use_cache=%s leaves the KV cache on for training on some path: pass False for training (%s%s)", strings.Join(strings.Fields(v.Content(p.Src.Text)), " "), p.Versions.Transformers.Describe("transformers"), later))})
		}
	}
	// Each training load gets the line right after the statement that
	// binds it, in its own branch: a model bound in an if/elif/else gets
	// it in every branch, never after the whole statement (where another
	// branch left the name unbound, or holding the model id).
	for _, l := range f.TrainingLoads() {
		if l.Target == "" || !l.Kind.Decoder() {
			continue
		}
		if writes := cacheWrites(f, l); len(writes) > 0 {
			// The script sets the cache itself: the writes that can be the
			// last before training are the sites that win; those that leave
			// it on are set to False where they are (a line added above them
			// would be undone).
			for _, w := range lastCacheWrites(f, writes) {
				p.Report(Finding{Start: w.Node.Start(), End: w.Node.End(),
					Message: fmt.Sprintf("%s = %s leaves the KV cache on for training on some path: set it False (%s%s)", w.Text, strings.Join(strings.Fields(w.Value.Content(p.Src.Text)), " "), p.Versions.Transformers.Describe("transformers"), later),
					Fix:     &Fix{Message: "use_cache = False", Edits: []Edit{{Start: w.Value.Start(), End: w.Value.End(), NewText: "False"}}}})
			}
			continue
		}
		if cacheOffAtLoad(f, l) || forwardsWithoutCache(f, l) || unslothLoad(f, l) {
			continue // off already, or unsloth's own forward turns it off in training
		}
		if v := l.Arg("use_cache", p.Src.Text); v != nil && !l.Opaque() {
			// use_cache=... at the load (or in its kwargs dict, which other
			// paths may share): the value itself is the site.
			p.Report(Finding{Start: v.Start(), End: v.End(),
				Message: fmt.Sprintf("use_cache=%s leaves the KV cache on for training on some path: pass False (%s%s)", strings.Join(strings.Fields(v.Content(p.Src.Text)), " "), p.Versions.Transformers.Describe("transformers"), later),
				Fix:     &Fix{Message: "use_cache=False", Edits: []Edit{{Start: v.Start(), End: v.End(), NewText: "False"}}}})
			continue
		}
		fd := Finding{Start: l.Node.Start(), End: l.Args.End(),
			Message: fmt.Sprintf("the KV cache is for generation: set %s.config.use_cache = False for training (%s%s)", l.Target, p.Versions.Transformers.Describe("transformers"), later)}
		if e, ok := InsertAfterBinding(f, l, []string{l.Target + ".config.use_cache = False"}); ok {
			fd.Fix = &Fix{Message: "model.config.use_cache = False", Edits: []Edit{e}}
		}
		p.Report(fd)
	}
	// A model TRL builds from a name with "use_cache": True in its
	// model_init_kwargs: the entry itself is the site that wins.
	trlStringModels(p, func(t *trlLoad) {
		if v := t.entries["use_cache"]; v != nil && v.Type() == "true" {
			p.Report(Finding{Start: v.Start(), End: v.End(),
				Message: fmt.Sprintf("TRL builds %s with use_cache=True from model_init_kwargs: the KV cache is for generation; turn it off for training (%s)", t.name(), p.Versions.Transformers.Describe("transformers")),
				Fix:     &Fix{Message: "use_cache False", Edits: []Edit{{Start: v.Start(), End: v.End(), NewText: "False"}}}})
		}
	})
}

// cacheOffAtLoad reports use_cache=False passed to the load.
func cacheOffAtLoad(f *semantic.Facts, l *semantic.Load) bool {
	v := l.Arg("use_cache", f.Src.Text)
	return v != nil && f.Always(v, "false")
}

// forwardsWithoutCache reports a file whose training forwards all pass
// use_cache=False (model(**batch, use_cache=False) in a loop that runs
// backward()): the cache is never on while it trains.
func forwardsWithoutCache(f *semantic.Facts, l *semantic.Load) bool {
	text := f.Src.Text
	off := map[string]bool{} // callee -> every call of it passes use_cache=False
	for _, c := range f.Calls {
		if !c.Func.Training || strings.Contains(c.Dotted, ".") && !strings.HasPrefix(c.Dotted, "self.") {
			continue // a forward is a call of the model object itself
		}
		v := semantic.KeywordValue(c.Args, "use_cache", text)
		isOff := v != nil && f.Always(v, "false")
		if was, seen := off[c.Dotted]; seen {
			off[c.Dotted] = was && isOff
		} else if isOff || bindsFromLoad(f, c.Dotted, l) {
			off[c.Dotted] = isOff
		}
	}
	n := 0
	for _, ok := range off {
		if !ok {
			return false
		}
		n++
	}
	return n > 0
}

// bindsFromLoad reports a name assigned from the load or from an adapter
// call on it, in the load's scope.
func bindsFromLoad(f *semantic.Facts, name string, l *semantic.Load) bool {
	if name == l.Target {
		return true
	}
	for _, a := range f.Assigns {
		if a.Text == name && a.Func == l.Func && semantic.Of(f.CalleeOf(a.Value)).Has(semantic.AdapterWrap) {
			return true
		}
	}
	return false
}

// cacheWrites are the statements, in source order, that set the cache of a
// training load's model before training starts, outside dead code:
// cfg.use_cache = v on the config the load is given (config=cfg), and
// x.config.use_cache = v where x holds the model (its name in its scope, a
// name bound from it, or from a call of the function that loads it).
func cacheWrites(f *semantic.Facts, l *semantic.Load) []*semantic.Assign {
	text := f.Src.Text
	cfg := ""
	if v := l.Arg("config", text); v != nil && v.Type() == "identifier" {
		cfg = v.Content(text)
	}
	var out []*semantic.Assign
	for _, a := range f.Assigns {
		if f.Dead(int(a.Node.StartByte())) {
			continue
		}
		if cfg != "" && a.Text == cfg+".use_cache" && a.Func == l.Func && a.Node.EndByte() <= l.Node.StartByte() {
			out = append(out, a)
			continue
		}
		obj, ok := strings.CutSuffix(a.Text, ".config.use_cache")
		if !ok || !holdsModel(f, l, obj, a) {
			continue
		}
		if trainedBefore(f, obj, a) {
			continue // after training: for generation
		}
		out = append(out, a)
	}
	return out
}

// holdsModel reports whether obj, written in a, is the model of load l.
func holdsModel(f *semantic.Facts, l *semantic.Load, obj string, a *semantic.Assign) bool {
	text := f.Src.Text
	// An attribute (self.model) is matched by name in its function; a
	// plain name by its reaching definitions, so that the line of one
	// branch does not count for the load of another.
	if obj == l.Target && a.Func == l.Func && strings.Contains(obj, ".") {
		return true
	}
	root := a.Target
	for root.Type() == "attribute" {
		root = root.ChildByFieldName("object")
	}
	for _, d := range f.ReachingAt(root).Defs {
		if d.Value == nil {
			continue
		}
		if semantic.Within(l.Node, d.Value) || len(semantic.Identifiers(d.Value, l.Target, text)) > 0 {
			return true
		}
		if fn := f.LocalFunc(d.Value); fn != nil && fn == l.Func {
			return true // model = build(...), the function that loads it
		}
		if adaptsStoredModel(f, d.Value, l) {
			return true // model = get_peft_model(self.base_model, ...), self.base_model = model where it loads
		}
	}
	return false
}

// lastCacheWrites are the writes that leave the cache on and that no later
// write turns off on every path (a later False in the same block or one
// that holds it).
func lastCacheWrites(f *semantic.Facts, writes []*semantic.Assign) []*semantic.Assign {
	var out []*semantic.Assign
	for i, w := range writes {
		if f.Always(w.Value, "false") {
			continue
		}
		overridden := false
		for _, later := range writes[i+1:] {
			if stmt := semantic.Statement(later.Node); stmt != nil && f.Always(later.Value, "false") && semantic.Within(w.Node, stmt.Parent()) {
				overridden = true
			}
		}
		if !overridden {
			out = append(out, w)
		}
	}
	return out
}

// trainedBefore reports a .train() of the model obj, or of a trainer,
// earlier in a's scope: a write after it serves generation.
func trainedBefore(f *semantic.Facts, obj string, a *semantic.Assign) bool {
	for _, c := range f.Calls {
		if c.Func == a.Func && c.Method == "train" && c.Node.EndByte() <= a.Node.StartByte() &&
			(c.Object() == obj || strings.Contains(strings.ToLower(c.Object()), "trainer")) {
			return true
		}
	}
	return false
}

// adaptsStoredModel reports an adapter call on an attribute that the
// load's function set from the loaded model (self.base_model = model).
func adaptsStoredModel(f *semantic.Facts, v *syntree.Node, l *semantic.Load) bool {
	c := f.CallAt(v)
	if c == nil || !c.Is(semantic.AdapterWrap) && !c.Is(semantic.AdapterCheckpoint) && !c.Is(semantic.KbitPrepare) {
		return false
	}
	arg := semantic.FirstArg(c.Args, "model", f.Src.Text)
	if arg == nil || arg.Type() != "attribute" {
		return false
	}
	stored := semantic.Compact(arg.Content(f.Src.Text))
	for _, a := range f.Assigns {
		if a.Func == l.Func && a.Text == stored && semantic.Compact(a.Value.Content(f.Src.Text)) == l.Target {
			return true
		}
	}
	return false
}
