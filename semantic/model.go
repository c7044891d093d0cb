package semantic

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/loratune/loratune-fix/syntree"
)

// The trained model, by data flow. A load is trained when its value
// reaches a training sink: get_peft_model(x) (unless what it returns is
// only saved: an adapter initialisation), prepare_model_for_kbit_training(x),
// PeftModel.from_pretrained(x, ..., is_trainable=True), the model of a
// Trainer (model= or the first argument; TRL's trainers and subclasses
// too), accelerator.prepare(x, ...), an optimizer over x.parameters(),
// x.train(), or a call of x in a scope that calls backward(). The value is
// followed through assignments, chained calls (.to(), .cuda()), tuples,
// returns of the file's functions to their callers, parameters of the
// file's functions, self.x attributes, dicts of keyword arguments, and
// notebook cells in order (a notebook is one program). A load whose value
// reaches only generate, pipeline, .eval(), merge_and_unload, a
// PeftModel.from_pretrained without is_trainable, ref_model= or the like is
// not trained. One whose value goes where the flow cannot see (a call of an
// imported helper, a return to no caller of this file) is Unseen: rules
// warn there and edit nothing.

// Sink is one place a load's value reaches.
type Sink struct {
	Use Use           // Training, NotTraining (inference, merge, export, frozen), Shared, Unseen
	Why string        // for messages: "passed to get_peft_model at line 12"
	At  *syntree.Node // the call that consumes the value (nil for a return)
	// adapter: the sink trains an adapter on the value (get_peft_model, a
	// trainer given peft_config=, an adapter loaded with is_trainable=True);
	// optional: only on some paths (under a run-time if, or a peft_config=
	// that is None unless an option is given).
	adapter, optional bool
}

// Verdict decides a load's Use from the sinks its value reaches: any
// training sink trains; otherwise a path the flow cannot see makes it
// Unseen; otherwise it is not trained.
func Verdict(sinks []Sink) (Use, string) {
	for _, want := range []Use{Shared, Training, Unseen} {
		for _, s := range sinks {
			if s.Use == want {
				return want, s.Why
			}
		}
	}
	if len(sinks) > 0 {
		return NotTraining, sinks[0].Why
	}
	return Unseen, "its value reaches nothing this file trains or runs"
}

// tracer follows one value.
type tracer struct {
	f      *Facts
	origin *syntree.Node // the load whose value is followed
	seen   map[traceKey]bool
	sinks  []Sink
	depth  int
}

type traceKey struct {
	start, end uint32
	index      int
	tag        string
}

// maxTraceDepth bounds the hops between functions.
const maxTraceDepth = 6

// traceLoad follows the value of a load call to the sinks it reaches.
func (f *Facts) traceLoad(call *syntree.Node) []Sink {
	t := &tracer{f: f, origin: call, seen: map[traceKey]bool{}}
	index := -1
	if p := call.Parent(); p != nil && p.Type() == "assignment" {
		if l := p.ChildByFieldName("left"); l != nil && (l.Type() == "pattern_list" || l.Type() == "tuple_pattern") {
			index = 0 // model, tokenizer = FastLanguageModel.from_pretrained(...)
		}
	}
	t.from(call, index, "", nil)
	return t.sinks
}

func (t *tracer) line(n *syntree.Node) int { return t.f.Src.Position(n.Start()).Line }

func (t *tracer) hit(use Use, n *syntree.Node, format string, args ...any) {
	t.sinks = append(t.sinks, Sink{Use: use, Why: fmt.Sprintf(format, args...) + fmt.Sprintf(" at line %d", t.line(n)), At: n})
}

// adapterHit is a training sink that puts an adapter on the value.
func (t *tracer) adapterHit(n *syntree.Node, format string, args ...any) {
	t.hit(Training, n, format, args...)
	s := &t.sinks[len(t.sinks)-1]
	s.adapter = true
	s.optional = t.f.underRuntimeCondition(n, t.origin)
}

// onlySaved reports a wrapped model (the value of wrap, an adapter
// call) that reaches save_pretrained or push_to_hub and nothing else:
// no training, no path the flow cannot see.
func (t *tracer) onlySaved(wrap *syntree.Node, rets []*syntree.Node) bool {
	sub := &tracer{f: t.f, origin: t.origin, seen: map[traceKey]bool{}, depth: t.depth}
	sub.from(wrap, -1, "", rets)
	for _, s := range sub.sinks {
		if s.Use != NotTraining || s.At == nil || s.At.Type() != "call" {
			return false
		}
		if m := s.At.ChildByFieldName("function"); m == nil || m.Type() != "attribute" {
			return false
		} else if name := m.ChildByFieldName("attribute").Content(t.f.Src.Text); name != "save_pretrained" && name != "push_to_hub" {
			return false
		}
	}
	return len(sub.sinks) > 0
}

// from follows the value of n: all of it (index -1, tag ""), element index
// of it (a tuple), or its entry tag (a dict of keyword arguments). rets are
// the calls of the file's functions the trace went into, innermost last: a
// return goes back to the last one.
func (t *tracer) from(n *syntree.Node, index int, tag string, rets []*syntree.Node) {
	k := traceKey{n.StartByte(), n.EndByte(), index, tag}
	if t.seen[k] || t.depth > maxTraceDepth {
		return
	}
	t.seen[k] = true
	text := t.f.Src.Text
	p := n.Parent()
	if p == nil {
		return
	}
	switch p.Type() {
	case "parenthesized_expression":
		t.from(p, index, tag, rets)
	case "conditional_expression":
		if c := NamedNoComments(p); len(c) == 3 && !c[1].Equal(n) {
			t.from(p, index, tag, rets)
		}
	case "expression_list", "tuple":
		if index < 0 && tag == "" {
			for i, e := range NamedNoComments(p) {
				if e.Equal(n) {
					t.from(p, i, "", rets)
				}
			}
		}
	case "attribute":
		if obj := p.ChildByFieldName("object"); obj != nil && obj.Equal(n) && index < 0 && tag == "" {
			t.method(p, rets)
		}
	case "call":
		if fn := p.ChildByFieldName("function"); fn != nil && fn.Equal(n) && index < 0 && tag == "" {
			t.called(p)
		}
	case "argument_list":
		pos := 0
		for _, a := range RealArgs(p) {
			if a.Equal(n) {
				break
			}
			if a.Type() != "keyword_argument" && a.Type() != "list_splat" && a.Type() != "dictionary_splat" {
				pos++
			}
		}
		if call := p.Parent(); call != nil && call.Type() == "call" && tag == "" {
			t.argument(call, pos, "", index, rets)
		}
	case "keyword_argument":
		name := p.ChildByFieldName("name").Content(text)
		args := p.Parent()
		if args == nil || args.Type() != "argument_list" {
			return
		}
		call := args.Parent()
		if call == nil || call.Type() != "call" {
			return
		}
		if DottedName(call.ChildByFieldName("function"), text) == "dict" && tag == "" && index < 0 {
			t.from(call, -1, name, rets) // dict(model=m): the dict carries it
			return
		}
		if tag == "" {
			t.argument(call, -1, name, index, rets)
		}
	case "pair":
		if v := p.ChildByFieldName("value"); v != nil && v.Equal(n) && tag == "" && index < 0 {
			if key, ok := StringValue(p.ChildByFieldName("key"), text); ok {
				if d := p.Parent(); d != nil && d.Type() == "dictionary" {
					t.from(d, -1, key, rets)
				}
			}
		}
	case "dictionary_splat":
		if tag == "" {
			return
		}
		if args := p.Parent(); args != nil && args.Type() == "argument_list" {
			if call := args.Parent(); call != nil && call.Type() == "call" {
				t.argument(call, -1, tag, index, rets)
			}
		}
	case "subscript":
		// kwargs["model"] or pair[0]: the entry is the value.
		if v := p.ChildByFieldName("value"); v != nil && v.Equal(n) {
			sub := p.ChildByFieldName("subscript")
			if s, ok := StringValue(sub, text); ok && s == tag && tag != "" {
				t.from(p, -1, "", rets)
			} else if sub != nil && sub.Type() == "integer" && sub.Content(text) == fmt.Sprint(index) {
				t.from(p, -1, "", rets)
			}
		}
	case "assignment":
		if r := p.ChildByFieldName("right"); r == nil || !r.Equal(n) {
			return
		}
		// a = b = value: every target of the chain.
		top := p
		for top.Parent() != nil && top.Parent().Type() == "assignment" {
			top = top.Parent()
		}
		for a := top; a != nil && a.Type() == "assignment"; a = a.ChildByFieldName("right") {
			t.bound(a.ChildByFieldName("left"), n, index, tag, rets)
		}
	case "return_statement":
		t.returned(p, index, tag, rets)
	}
}

// bound follows a value assigned to target: to every read the binding
// reaches.
func (t *tracer) bound(target, value *syntree.Node, index int, tag string, rets []*syntree.Node) {
	text := t.f.Src.Text
	switch target.Type() {
	case "pattern_list", "tuple_pattern", "list_pattern":
		elts := NamedNoComments(target)
		if index >= 0 && index < len(elts) {
			t.bound(elts[index], value, -1, tag, rets)
		}
		return
	case "subscript":
		// kwargs["model"] = m: reads of kwargs carry it under that key.
		if key, ok := StringValue(target.ChildByFieldName("subscript"), text); ok && index < 0 && tag == "" {
			obj := target.ChildByFieldName("value")
			for _, r := range t.laterReads(obj, Statement(target)) {
				t.from(r, -1, key, rets)
			}
		}
		return
	case "identifier", "attribute":
	default:
		return
	}
	key := Compact(target.Content(text))
	stmt := Statement(target)
	for _, r := range t.f.readsOf(key, stmt) {
		t.from(r, index, tag, rets)
	}
}

// laterReads are the reads of the name obj in its scope after stmt.
func (t *tracer) laterReads(obj, stmt *syntree.Node) []*syntree.Node {
	key := Compact(obj.Content(t.f.Src.Text))
	var out []*syntree.Node
	for _, r := range t.f.flow(t.f.ScopeOf(obj), key).readNodes {
		if r.StartByte() >= stmt.EndByte() {
			out = append(out, r)
		}
	}
	return out
}

// readsOf are the reads of key that the binding made by stmt reaches: in
// its scope, in functions that read it from outside, and for self.x in the
// other methods of the class.
func (f *Facts) readsOf(key string, stmt *syntree.Node) []*syntree.Node {
	fn := f.ScopeOf(stmt)
	var out []*syntree.Node
	binds := func(defs []*Def) bool {
		for _, d := range defs {
			if d.Stmt != nil && d.Stmt.Equal(stmt) {
				return true
			}
		}
		return false
	}
	scopes := []*Func{fn}
	for _, g := range f.Funcs {
		if g != fn {
			scopes = append(scopes, g)
		}
	}
	if fn != f.Module {
		scopes = append(scopes, f.Module)
	}
	// A function whose text never names the key (its first part, a plain
	// name) reads none of it: its walk is not needed.
	root, _, _ := strings.Cut(key, ".")
	plain := PlainDotted([]byte(root))
	for _, s := range scopes {
		if s != fn && s != f.Module && plain && !bytes.Contains(f.Src.Text[s.Body.StartByte():s.Body.EndByte()], []byte(root)) {
			continue
		}
		r := f.flow(s, key)
		for _, n := range r.readNodes {
			if s != fn && r.local && !strings.HasPrefix(key, "self.") {
				continue // the other scope has its own binding
			}
			if binds(f.ReachingAt(n).Defs) {
				out = append(out, n)
			}
		}
	}
	return out
}

// returned follows a value returned by a function: to the call it was
// entered from, or to every call of the function in the file.
func (t *tracer) returned(ret *syntree.Node, index int, tag string, rets []*syntree.Node) {
	if k := len(rets); k > 0 {
		t.from(rets[k-1], index, tag, rets[:k-1])
		return
	}
	def := Enclosing(ret, "function_definition")
	fn := t.f.funcOf(def)
	if fn == nil || t.depth >= maxTraceDepth {
		return
	}
	var calls []*Call
	for _, c := range t.f.Calls {
		// LocalFunc finds fn only by its last name: the name test spares
		// it the other calls; a call within fn is recursion.
		if c.Method != fn.Name || Within(c.Node, fn.Node) {
			continue
		}
		if lf := t.f.LocalFunc(c.Node); lf == fn {
			calls = append(calls, c)
		}
	}
	if len(calls) == 0 {
		t.sinks = append(t.sinks, Sink{Use: Unseen, Why: fmt.Sprintf("returned by %s(), which nothing in this file calls", fn.Name)})
		return
	}
	// Each caller on its own: all training makes it training, a mix makes
	// it shared between training and other uses.
	var train, other []string
	var sub []Sink
	for _, c := range calls {
		ct := &tracer{f: t.f, origin: t.origin, seen: t.seen, depth: t.depth + 1}
		ct.from(c.Node, index, tag, nil)
		use, why := Verdict(ct.sinks)
		if use == Training {
			train = append(train, why)
		} else {
			other = append(other, fmt.Sprint(t.line(c.Node)))
		}
		sub = append(sub, ct.sinks...)
	}
	switch {
	case len(train) > 0 && len(other) > 0:
		t.sinks = append(t.sinks, Sink{Use: Shared, Why: fmt.Sprintf("%s() loads the model for training (%s) and for other callers (line %s)", fn.Name, train[0], strings.Join(other, ", "))})
	case len(train) > 0:
		t.sinks = append(t.sinks, Sink{Use: Training, Why: fmt.Sprintf("returned by %s() and %s", fn.Name, train[0])})
		t.sinks = append(t.sinks, sub...) // the trainers reached, for TokenizerFor
	default:
		t.sinks = append(t.sinks, sub...)
	}
}

// passThrough are methods that return the model they are called on.
var passThrough = map[string]bool{"to": true, "cuda": true, "cpu": true, "float": true, "half": true, "bfloat16": true,
	"requires_grad_": true, "train": true, "eval": true, "to_empty": true}

var optimizerName = regexp.MustCompile(`(^|\.)(\w*Adam\w*|SGD|Adafactor|Lion\w*|RMSprop|Adagrad|\w*Optimizer|\w*[Oo]ptim\w*)$`)

// method follows model.m(...).
func (t *tracer) method(attr *syntree.Node, rets []*syntree.Node) {
	text := t.f.Src.Text
	name := attr.ChildByFieldName("attribute").Content(text)
	call := attr.Parent()
	if call == nil || call.Type() != "call" {
		return // model.config, model.device: not a use of the model as a whole
	}
	switch name {
	case "train":
		if args := RealArgs(call.ChildByFieldName("arguments")); len(args) == 0 || args[0].Content(text) == "True" {
			t.hit(Training, call, "put in training mode by .train()")
		}
	case "add_adapter":
		t.adapterHit(call, "given an adapter by add_adapter()")
		return
	case "eval":
		t.hit(NotTraining, call, "put in evaluation mode by .eval()")
	case "generate":
		t.hit(NotTraining, call, "used by generate()")
		return
	case "merge_and_unload", "merge_adapter", "unload":
		t.hit(NotTraining, call, "merged by %s()", name)
		return
	case "push_to_hub", "save_pretrained":
		t.hit(NotTraining, call, "saved by %s()", name)
		return
	case "parameters", "named_parameters":
		for a := call.Parent(); a != nil && a.Type() != "expression_statement" && a.Type() != "block"; a = a.Parent() {
			if a.Type() == "call" {
				if callee := t.f.CalleeOf(a); optimizerName.MatchString(callee) {
					t.hit(Training, call, "its parameters() go to %s", callee)
					return
				}
			}
		}
		return
	case "forward":
		t.called(call)
		return
	}
	if passThrough[name] {
		t.from(call, -1, "", rets)
	}
}

// called: model(...) trains when its scope calls backward(), outside a
// torch.no_grad() or torch.inference_mode() block.
func (t *tracer) called(call *syntree.Node) {
	text := t.f.Src.Text
	for w := Enclosing(call, "with_statement"); w != nil; w = Enclosing(w, "with_statement") {
		for _, c := range w.NamedChildren() {
			if c.Type() == "with_clause" {
				if s := c.Content(text); strings.Contains(s, "no_grad") || strings.Contains(s, "inference_mode") {
					return
				}
			}
		}
	}
	fn := t.f.ScopeOf(call)
	for _, c := range t.f.Calls {
		if c.Func == fn && c.Method == "backward" {
			t.hit(Training, call, "called in a scope that runs backward()")
			return
		}
	}
}

// trainerSide are a trainer's keywords for models it does not train.
var trainerSide = map[string]bool{"ref_model": true, "reward_model": true, "teacher_model": true, "value_model": true,
	"reward_funcs": true, "judge": true, "peft_ref_model": true, "reward_processing_classes": true}

// argument follows a value passed to call: positional pos (or keyword kw).
func (t *tracer) argument(call *syntree.Node, pos int, kw string, index int, rets []*syntree.Node) {
	text := t.f.Src.Text
	c := t.f.CallAt(call)
	if c == nil {
		return
	}
	if index >= 0 {
		return // a tuple passed whole: not followed
	}
	first := pos == 0 && kw == "" || kw == "model"
	switch {
	case c.Is(AdapterWrap):
		switch {
		case !first:
		case t.onlySaved(call, rets):
			// PiSSA/LoftQ/OLoRA initialisation: the adapter is built and
			// saved here and trained by another script.
			t.hit(NotTraining, call, "wrapped by %s and only saved (an adapter initialisation; training runs elsewhere)", c.Dotted)
		default:
			t.adapterHit(call, "passed to %s", c.Dotted)
		}
	case c.Is(KbitPrepare):
		if first {
			// model = prepare_model_for_kbit_training(model): the adapter
			// comes after, on the value it returns.
			t.hit(Training, call, "passed to %s", c.Dotted)
			t.from(call, -1, "", rets)
		}
	case c.Is(AdapterCheckpoint):
		if first {
			if v := KeywordValue(c.Args, "is_trainable", text); v != nil && v.Content(text) == "True" {
				t.adapterHit(call, "passed to %s(..., is_trainable=True)", c.Dotted)
			} else {
				t.hit(NotTraining, call, "reloaded with an adapter by %s without is_trainable (inference or merge)", c.Dotted)
			}
		}
	case c.IsTrainerCall():
		switch {
		case first && t.f.trainerTrainsAdapter(c):
			t.adapterHit(call, "the model of %s, which gets peft_config=", c.Dotted)
			if !t.f.trainerAlwaysAdapts(c) {
				t.sinks[len(t.sinks)-1].optional = true
			}
		case first:
			t.hit(Training, call, "the model of %s", c.Dotted)
		case trainerSide[kw]:
			t.hit(NotTraining, call, "passed to %s as %s= (kept frozen)", c.Dotted, kw)
		}
	case c.Method == "prepare" && strings.Contains(strings.ToLower(c.Object()), "accelerator"):
		t.hit(Training, call, "passed to %s", c.Dotted)
	case c.Dotted == "pipeline" || strings.HasSuffix(c.Qual, ".pipeline"):
		t.hit(NotTraining, call, "used by pipeline()")
	case c.Qual == "torch.compile" || c.Method == "setup_chat_format":
		if first {
			i := -1
			if c.Method == "setup_chat_format" {
				i = 0 // returns (model, tokenizer)
			}
			t.from(call, i, "", rets)
		}
	case c.Dotted == "dict" || c.Dotted == "print" || c.Dotted == "len" || c.Dotted == "str" || c.Dotted == "type" || c.Dotted == "isinstance" || c.Dotted == "id" || c.Dotted == "repr":
	default:
		if fn := t.f.LocalFunc(call); fn != nil {
			t.into(fn, call, pos, kw, rets)
			return
		}
		if rebindsSame(call, pos, kw, text) {
			// model = patch(model): the name goes on meaning the model.
			t.from(call, -1, "", rets)
			return
		}
		if resultUsed(call) {
			t.hit(Unseen, call, "passed to %s(), whose result the flow cannot follow", c.Dotted)
		}
	}
}

// into follows an argument into a function of the file: the reads of its
// parameter; a return goes back to call.
func (t *tracer) into(fn *Func, call *syntree.Node, pos int, kw string, rets []*syntree.Node) {
	text := t.f.Src.Text
	params := NamedNoComments(fn.Node.ChildByFieldName("parameters"))
	if Enclosing(fn.Node, "class_definition") != nil && len(params) > 0 {
		params = params[1:] // self
	}
	name := kw
	if kw == "" {
		if pos >= len(params) {
			return
		}
		p := params[pos]
		switch p.Type() {
		case "default_parameter", "typed_default_parameter":
			p = p.ChildByFieldName("name")
		case "typed_parameter":
			p = p.NamedChild(0)
		}
		if p == nil || p.Type() != "identifier" {
			return
		}
		name = p.Content(text)
	}
	if ParamNode(fn, name, text) == nil {
		return
	}
	t.depth++
	defer func() { t.depth-- }()
	for _, r := range t.f.flow(fn, name).readNodes {
		for _, d := range t.f.ReachingAt(r).Defs {
			if d.Kind == DefParam {
				t.from(r, -1, "", append(append([]*syntree.Node(nil), rets...), call))
				break
			}
		}
	}
}

// rebindsSame reports "x = f(x, ...)": the result of a call given x
// (positional pos or keyword kw) is assigned back to x.
func rebindsSame(call *syntree.Node, pos int, kw string, text []byte) bool {
	p := call.Parent()
	if p == nil || p.Type() != "assignment" || !p.ChildByFieldName("right").Equal(call) {
		return false
	}
	var arg *syntree.Node
	if kw != "" {
		arg = KeywordValue(call.ChildByFieldName("arguments"), kw, text)
	} else if args := RealArgs(call.ChildByFieldName("arguments")); pos < len(args) {
		arg = args[pos]
	}
	return arg != nil && Compact(arg.Content(text)) == Compact(p.ChildByFieldName("left").Content(text))
}

// resultUsed reports a call whose result is kept: assigned, passed on,
// returned.
func resultUsed(call *syntree.Node) bool {
	p := call.Parent()
	return p != nil && p.Type() != "expression_statement"
}

// CallAt is the Call of a call node.
func (f *Facts) CallAt(n *syntree.Node) *Call {
	for _, c := range f.Calls {
		if c.Node.StartByte() == n.StartByte() && c.Node.EndByte() == n.EndByte() {
			return c
		}
	}
	return nil
}

// TokenizerFor is the tokenizer that belongs to load l, as the assignment
// that makes it, and why: the one passed with the model to its trainer
// (tokenizer= or processing_class=); else one loaded from the same model
// id (the same literal or the same variable); else the only tokenizer
// loaded in the load's scope (or the module) that belongs to no other
// model load. nil when none can be told: never the tokenizer of another
// model (an embedding, reward or reference model).
func (f *Facts) TokenizerFor(l *Load) (*Assign, string) {
	text := f.Src.Text
	toks := f.tokenizerLoads()
	for _, s := range l.Sinks {
		if s.Use != Training || s.At == nil {
			continue
		}
		c := f.CallAt(s.At)
		if c == nil || !c.IsTrainerCall() {
			continue
		}
		for _, kw := range []string{"processing_class", "tokenizer"} {
			v := KeywordValue(c.Args, kw, text)
			if v == nil {
				continue
			}
			vals, _ := f.Values(v)
			for _, val := range vals {
				for _, tok := range toks {
					if tok.Value.Equal(val) {
						return tok, fmt.Sprintf("passed with the model to %s as %s=", c.Dotted, kw)
					}
				}
			}
		}
	}
	var sameID []*Assign
	for _, tok := range toks {
		if f.sameModelID(l, tok) {
			sameID = append(sameID, tok)
		}
	}
	if len(sameID) > 0 {
		// The one a collator pads with is the trained one (a later
		// tokenizer of the same id may only probe generation).
		collated := f.collatorTokenizers()
		for _, tok := range sameID {
			if collated[tok.Text] {
				return tok, "loaded from the same model id and given to the collator"
			}
		}
		best := sameID[0]
		for _, tok := range sameID {
			if tok.Func == l.Func {
				best = tok
			}
		}
		return best, "loaded from the same model id"
	}
	// The only tokenizer in scope that is no other model's.
	var lone *Assign
	for _, tok := range toks {
		if tok.Func != l.Func && tok.Func != f.Module {
			continue
		}
		mine := true
		for _, other := range f.ModelLoads() {
			if other != l && f.sameModelID(other, tok) {
				mine = false
			}
		}
		if !mine {
			continue
		}
		if lone != nil {
			// Two candidates: the one in the load's own branch, if only one is.
			if beside := f.besideLoad(l, toks); beside != nil {
				return beside, "the only tokenizer loaded beside the model in its branch"
			}
			return nil, "several tokenizers could belong to this model"
		}
		lone = tok
	}
	if lone != nil {
		return lone, "the only tokenizer loaded beside the model"
	}
	return nil, "no tokenizer of this model is loaded in view"
}

// tokenizerLoads are the assignments name = <Tokenizer or Processor>.from_pretrained(...).
func (f *Facts) tokenizerLoads() []*Assign {
	var out []*Assign
	for _, a := range f.Assigns {
		if a.Value.Type() != "call" || a.Target.Type() != "identifier" && a.Target.Type() != "attribute" {
			continue
		}
		c := f.CallAt(a.Value)
		if c == nil || c.Method != "from_pretrained" {
			continue
		}
		if c.Is(TokenizerLoad) {
			out = append(out, a)
		}
	}
	return out
}

// sameModelID reports a tokenizer loaded from what load l is loaded from:
// the same literal id, or the same variable.
func (f *Facts) sameModelID(l *Load, tok *Assign) bool {
	text := f.Src.Text
	a, b := FirstArg(l.Args, "pretrained_model_name_or_path", text), FirstArg(tok.Value.ChildByFieldName("arguments"), "pretrained_model_name_or_path", text)
	if a == nil || b == nil {
		return false
	}
	if Compact(a.Content(text)) == Compact(b.Content(text)) && (a.Type() == "identifier" || a.Type() == "attribute") {
		return true
	}
	ia, oka := f.ValueOf(a)
	ib, okb := f.ValueOf(b)
	return oka && okb && ia == ib
}

// FirstArg is the first positional argument of an argument list, or the
// keyword kw.
func FirstArg(args *syntree.Node, kw string, text []byte) *syntree.Node {
	if args == nil {
		return nil
	}
	if v := KeywordValue(args, kw, text); v != nil {
		return v
	}
	if list := RealArgs(args); len(list) > 0 && list[0].Type() != "keyword_argument" && list[0].Type() != "list_splat" && list[0].Type() != "dictionary_splat" {
		return list[0]
	}
	return nil
}

// collatorTokenizers are the names given to a data collator as its
// tokenizer (DataCollatorForLanguageModeling(tokenizer, ...), tokenizer=).
func (f *Facts) collatorTokenizers() map[string]bool {
	text := f.Src.Text
	out := map[string]bool{}
	for _, c := range f.Calls {
		if !strings.HasPrefix(c.Method, "DataCollator") {
			continue
		}
		if v := FirstArg(c.Args, "tokenizer", text); v != nil {
			out[Compact(v.Content(text))] = true
		}
	}
	return out
}

// besideLoad is the one tokenizer among toks bound in the same block as
// load l (the branch of an if that loads it), or nil.
func (f *Facts) besideLoad(l *Load, toks []*Assign) *Assign {
	if l.Stmt == nil || l.Stmt.Parent() == nil {
		return nil
	}
	block := l.Stmt.Parent()
	var found *Assign
	for _, tok := range toks {
		st := Statement(tok.Node)
		if st == nil || st.Parent() == nil || !st.Parent().Equal(block) {
			continue
		}
		if found != nil {
			return nil
		}
		found = tok
	}
	return found
}

// OffGPU says where this file trains when that is never a CUDA GPU, so
// that cuDNN's attention never runs: "the CPU (use_cpu=True)" when every
// training-arguments call of the file asks for it, "a TPU (torch_xla)"
// when the file uses torch_xla; "" otherwise.
func (f *Facts) OffGPU() string {
	text := f.Src.Text
	for _, imp := range f.ImportStmts {
		if bytes.Contains(text[imp.Start():imp.End()], []byte("torch_xla")) {
			return "a TPU (torch_xla)"
		}
	}
	cpu := ""
	for _, c := range f.Calls {
		if !c.Is(TrainingArgs) && !c.Is(TRLConfig) {
			continue
		}
		on := ""
		for _, k := range []string{"use_cpu", "no_cuda"} {
			if v := KeywordValue(c.Args, k, text); v != nil && v.Content(text) == "True" {
				on = k
			}
		}
		if on == "" {
			return "" // one of them may run on a GPU
		}
		cpu = "the CPU (" + on + "=True)"
	}
	return cpu
}

// Packs reports training batches packed into fixed-length rows with no
// padding: TRL's packing=True or padding_free=True (an SFTConfig, or an
// older SFTTrainer), llama-recipes' batching_strategy "packing", xtuner's
// pack_to_max_length=True.
func (f *Facts) Packs() bool {
	text := f.Src.Text
	for _, a := range f.Assigns {
		if strings.HasSuffix(a.Text, ".batching_strategy") {
			if s, ok := StringValue(a.Value, text); ok && s == "packing" {
				return true
			}
		}
	}
	for _, c := range f.Calls {
		if s, ok := StringValue(KeywordValue(c.Args, "batching_strategy", text), text); ok && s == "packing" {
			return true
		}
		if v := KeywordValue(c.Args, "pack_to_max_length", text); v != nil && f.Always(v, "true") {
			return true
		}
		if c.Is(TrainingArgs) || c.Is(TRLTrainer) {
			for _, k := range []string{"packing", "padding_free"} {
				if v := KeywordValue(c.Args, k, text); v != nil && v.Content(text) == "True" {
					return true
				}
			}
		}
	}
	return false
}
