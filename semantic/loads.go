package semantic

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/loratune/loratune-fix/syntree"
)

// Load is one model load: Class.from_pretrained(...) or from_config(...).
type Load struct {
	*Call
	// Use: whether the loaded model is trained, decided by where its value
	// goes (model.go); Why says so in words, for messages.
	Use   Use
	Why   string
	Sinks []Sink
	// Quantized loads (QLoRA) keep their dtype and device_map.
	Quantized bool
	// MaybeQuantized: quantized on some paths only (a quantization_config
	// added to the kwargs dict under an if): a warning, never an edit.
	MaybeQuantized bool
	Stmt           *syntree.Node // the statement holding the call
	Target         string        // what the result is assigned to, "model"
	ModelID        string        // the literal model id, when known
	IDKnown        bool
	// DefaultID: where the id comes from the command line, its default
	// (argparse, a dataclass field): the model of a run given no options.
	// Family knowledge reads it for warnings, never for an edit.
	DefaultID string
	// Kind: the architecture the class and id tell (semantic.KindOf).
	Kind Kind
	// Adapter: the value reaches an adapter on its way to training; a
	// training load without one is a full fine-tune, reported, not edited.
	// OptionalAdapter: only on some paths (if args.use_lora: ...), so a
	// fix for the adapter run would change the full fine-tune too.
	Adapter, OptionalAdapter bool
	// Lazy: described by a config dict, not called here (lazyLoad).
	Lazy   bool
	kwargs kwargs
}

// ModelLoads lists the model loads of the file in source order, each with
// whether it flows into training.
func (f *Facts) ModelLoads() []*Load {
	if f.loads == nil {
		f.loads = f.findLoads()
	}
	return f.loads
}

func (f *Facts) findLoads() []*Load {
	out := []*Load{}
	text := f.Src.Text
	for _, c := range f.Calls {
		if c.Qual == "dict" {
			if l := f.lazyLoad(c); l != nil {
				out = append(out, l)
			}
			continue
		}
		if c.Method != "from_pretrained" && c.Method != "from_config" || Of(c.Qual) == 0 && c.Qual != c.Dotted {
			continue // a class of another framework, resolved through its import
		}
		parts := strings.Split(c.Qual, ".")
		if len(parts) < 2 {
			continue
		}
		class := parts[len(parts)-2]
		if len(parts) == 2 && !ModelClass(class) && !f.modelSubclass(class) {
			// loader = AutoModelForCausalLM if text_only else AutoModelForImageTextToText
			if held := f.heldClass(c); held != "" {
				class = held
			}
		}
		if !ModelClass(class) && !f.modelSubclass(class) || class == "PeftModel" || strings.Contains(class, "Tokenizer") {
			continue
		}
		if f.Dead(int(c.Node.StartByte())) {
			continue
		}
		l := &Load{Call: c, Stmt: Statement(c.Node)}
		l.Target = AssignedTo(c.Node, text)
		l.Sinks = f.traceLoad(c.Node)
		l.Use, l.Why = Verdict(l.Sinks)
		always := false
		var optional []*syntree.Node
		for _, s := range l.Sinks {
			l.Adapter = l.Adapter || s.adapter
			always = always || s.adapter && !s.optional
			if s.adapter && s.optional && s.At != nil {
				optional = append(optional, s.At)
			}
		}
		l.OptionalAdapter = l.Adapter && !always && !f.everyBranch(optional)
		trains := f.TrainingUse(c.Func) != NotTraining || c.Func == f.Module && f.HasTraining()
		if l.Use == Unseen && !trains && !f.readsTrainingOption(c) {
			l.Use = NotTraining // nothing trains here: no edit was ever due
		}
		if strings.HasPrefix(class, "AutoPeftModel") {
			// An adapter checkpoint: training only with is_trainable=True.
			if v := KeywordValue(c.Args, "is_trainable", text); v == nil || v.Content(text) != "True" {
				l.Use, l.Why = NotTraining, "an adapter checkpoint loaded without is_trainable=True"
			} else {
				l.Adapter = true // the load builds base and trainable adapter at once
				if l.Use == Unseen {
					l.Use, l.Why = Training, "an adapter checkpoint loaded with is_trainable=True"
				}
			}
		}
		if l.Use != Training && l.Target != "" && auxName.MatchString(l.Target) {
			l.Use, l.Why = NotTraining, "named as a reference, reward, teacher or embedding model"
		}
		l.kwargs = f.resolveKwargs(c)
		if c.Method == "from_pretrained" {
			arg := FirstArg(c.Args, "pretrained_model_name_or_path", text)
			l.ModelID, l.IDKnown = f.ValueOf(arg)
			if !l.IDKnown {
				l.ModelID, l.IDKnown = f.classAttribute(arg)
			}
			if !l.IDKnown {
				l.DefaultID = f.optionDefaultString(arg)
			}
		}
		l.Kind = KindOf(class, l.ModelID)
		l.Quantized, l.MaybeQuantized = f.quantized(l)
		if l.Quantized {
			// A base quantized on every path cannot be trained whole (the
			// Trainer refuses purely quantized models): an adapter under a
			// flag has no full fine-tune to spare.
			l.OptionalAdapter = false
		}
		out = append(out, l)
	}
	return out
}

// readsTrainingOption reports a load whose own arguments (or the kwargs
// dict it is given) read a training option: use_cache=False if
// args.gradient_checkpointing else True, quantization_config=bnb if
// args.use_lora else None. Its value leaves the file (a helper module's
// return), yet the load itself says it builds a model to train: Unseen,
// warnings without edits, where a loader that says nothing of training
// stays silent (REPROS 7C; fixtures/flow/leave_library_loader_uncalled).
func (f *Facts) readsTrainingOption(c *Call) bool {
	text := f.Src.Text
	vals := []*syntree.Node{c.Args}
	for _, v := range f.resolveKwargs(c).entries {
		vals = append(vals, v)
	}
	found := false
	for _, v := range vals {
		WalkNodes(v, func(n *syntree.Node) bool {
			if p := n.Parent(); n.Type() == "identifier" && !(p.Type() == "keyword_argument" && p.ChildByFieldName("name").Equal(n)) {
				name := strings.ToLower(n.Content(text))
				found = found || strings.Contains(name, "gradient_checkpointing") || strings.Contains(name, "lora") || strings.Contains(name, "peft")
			}
			return !found
		})
	}
	return found
}

// lazyLoad reads a load that a config describes and a config-driven
// trainer (mmengine's, xtuner's) makes later by calling type with the other
// keys: dict(type=AutoModelForCausalLM.from_pretrained, torch_dtype=...).
// Nothing here calls it, so the flow cannot see it trained: it is Unseen
// (rules warn, never edit), and only with an adapter config beside it in
// the enclosing dict (lora=dict(type=LoraConfig, ...)), the evidence that
// an adapter trains it; without one it is no load (a config of anything).
func (f *Facts) lazyLoad(c *Call) *Load {
	text := f.Src.Text
	v := KeywordValue(c.Args, "type", text)
	if v == nil || v.Type() != "attribute" {
		return nil
	}
	qual := f.Resolve(DottedName(v, text))
	if !Of(qual).Has(ModelLoad) || strings.Contains(qual, "PeftModel") || f.Dead(int(c.Node.StartByte())) {
		return nil
	}
	parts := strings.Split(qual, ".")
	if len(parts) < 2 || !f.adapterConfigBeside(c) {
		return nil
	}
	l := &Load{Call: c, Stmt: Statement(c.Node), Use: Unseen, Adapter: true, Lazy: true,
		Why: fmt.Sprintf("a config dict describes it, type=%s, for a trainer to make later", v.Content(text))}
	l.kwargs = f.resolveKwargs(c)
	arg := KeywordValue(c.Args, "pretrained_model_name_or_path", text)
	l.ModelID, l.IDKnown = f.ValueOf(arg)
	l.Kind = KindOf(parts[len(parts)-2], l.ModelID)
	l.Quantized, l.MaybeQuantized = f.quantized(l)
	return l
}

// adapterConfigBeside reports a peft adapter config among the values of
// the dict call that holds the lazy load c: lora=dict(type=LoraConfig, ...)
// or lora=LoraConfig(...).
func (f *Facts) adapterConfigBeside(c *Call) bool {
	text := f.Src.Text
	kw := c.Node.Parent()
	if kw == nil || kw.Type() != "keyword_argument" || kw.Parent() == nil {
		return false
	}
	for _, arg := range RealArgs(kw.Parent()) {
		val := arg.ChildByFieldName("value")
		if arg.Type() != "keyword_argument" || val == nil || val.Type() != "call" {
			continue
		}
		callee := f.CalleeOf(val)
		if callee == "dict" {
			if t := KeywordValue(val.ChildByFieldName("arguments"), "type", text); t != nil {
				callee = f.Resolve(DottedName(t, text))
			}
		}
		if Of(callee).Has(AdapterConfig) {
			return true
		}
	}
	return false
}

// Undecided reports a load that may or may not be trained: shared by
// training and other callers, or whose value goes where the flow cannot
// see. Rules warn there instead of editing.
func (l *Load) Undecided() bool { return l.Use == Shared || l.Use == Unseen }

// UndecidedMessage says why a load gets advice instead of an edit.
func (l *Load) UndecidedMessage(advice string) string {
	if l.Use == Shared {
		return fmt.Sprintf("%s: %s", l.Why, advice)
	}
	return fmt.Sprintf("the flow cannot see whether this load is trained (%s): %s", l.Why, advice)
}

// NoDecoderTrained reports a file whose loads that may train are all
// encoders or seq2seq models (BERT, T5): the causal-LM rules (padding
// side, pad token, KV cache, attention) have nothing to say there.
func (f *Facts) NoDecoderTrained() bool {
	seen := false
	for _, l := range f.ModelLoads() {
		if l.Use == NotTraining {
			continue
		}
		if l.Kind.Decoder() {
			return false
		}
		seen = true
	}
	return seen
}

// TrainingLoads are the loads that flow into training only.
func (f *Facts) TrainingLoads() []*Load {
	var out []*Load
	for _, l := range f.ModelLoads() {
		if l.Use == Training {
			out = append(out, l)
		}
	}
	return out
}

func IsWordByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

var QuantKeywords = []string{"quantization_config", "load_in_4bit", "load_in_8bit"}

// quantized reports a quantized load on every path (always) or on some
// paths only (sometimes), from its quantization_config, load_in_4bit and
// load_in_8bit on each path: None or False is a plain load (USE_4BIT =
// False in the file), a BitsAndBytesConfig whose bits come from a run-time
// flag, a value that is None unless a flag is given, or a keyword added to
// the kwargs under an if, quantize on some paths. Mxfp4Config with
// dequantize=True loads plain weights: not quantized training.
func (f *Facts) quantized(l *Load) (always, sometimes bool) {
	text := f.Src.Text
	if l.IDKnown && PreQuantizedID(l.ModelID) {
		return true, false
	}
	for _, k := range QuantKeywords {
		v := l.Arg(k, text)
		if v == nil {
			continue
		}
		vals, ok := f.Values(v)
		if v.Type() == "conditional_expression" {
			if kids := NamedNoComments(v); len(kids) == 3 {
				vals, ok = []*syntree.Node{kids[0], kids[2]}, true // X if opt else None
			}
		}
		plain, quant := 0, 0
		for _, x := range vals {
			if f.Dead(int(x.StartByte())) {
				continue // else: bnb_config = None under if USE_QLORA: with USE_QLORA = True
			}
			switch f.quantizes(x) {
			case quantNever:
				plain++
			case quantAlways:
				quant++
			default:
				sometimes = true
			}
		}
		switch {
		case !ok || len(vals) == 0:
			sometimes = true // a value the flow cannot see
		case plain > 0 && quant > 0:
			sometimes = true
		case quant > 0 && KeywordValue(l.Args, k, text) == nil && l.kwargs.conditional[k]:
			sometimes = true
		case quant > 0 && !sometimes:
			return true, false
		}
	}
	return false, sometimes
}

type quantKind int

const (
	quantNever quantKind = iota
	quantAlways
	quantMaybe
)

// quantizes judges one value of a quantization argument.
func (f *Facts) quantizes(x *syntree.Node) quantKind {
	text := f.Src.Text
	switch x.Type() {
	case "none", "false":
		return quantNever
	case "true":
		return quantAlways
	case "call":
		args := x.ChildByFieldName("arguments")
		callee := f.CalleeOf(x)
		if strings.HasSuffix(callee, "Mxfp4Config") {
			if d := KeywordValue(args, "dequantize", text); d != nil && d.Content(text) == "True" {
				return quantNever
			}
			return quantAlways
		}
		if !strings.HasSuffix(callee, "BitsAndBytesConfig") {
			return quantAlways
		}
		// BitsAndBytesConfig(load_in_4bit=args.bits == 4, ...): the bits
		// decide; a config with neither bit set True quantizes nothing.
		kind := quantNever
		for _, bit := range []string{"load_in_4bit", "load_in_8bit"} {
			b := KeywordValue(args, bit, text)
			switch {
			case b == nil:
			case f.Always(b, "true"):
				return quantAlways
			case !f.Always(b, "false"):
				kind = quantMaybe
			}
		}
		if kind == quantNever && HasSplat(args) {
			return quantAlways // bits hidden in **kwargs: as before, quantized
		}
		return kind
	}
	return quantAlways
}

// PreQuantizedID reports a checkpoint published already quantized
// ("unsloth/llama-3-8b-bnb-4bit", "TheBloke/Llama-2-7B-GPTQ"): its own
// config quantizes the load, whatever the call says.
func PreQuantizedID(id string) bool {
	id = strings.ToLower(id)
	for _, mark := range []string{"bnb-4bit", "bnb_4bit", "-4bit", "-8bit", "gptq", "-awq", "_awq", "-int4", "-int8"} {
		if strings.Contains(id, mark) {
			return true
		}
	}
	return false
}

// AssignedTo is the target of "target = <call>" (the call possibly chained,
// as in .to(device)), or "".
func AssignedTo(call *syntree.Node, text []byte) string {
	n := call
	for p := n.Parent(); p != nil; p = n.Parent() {
		switch p.Type() {
		case "attribute", "call", "argument_list":
			if p.Type() == "argument_list" {
				return ""
			}
			n = p
			continue
		case "assignment":
			l := p.ChildByFieldName("left")
			if l != nil && (l.Type() == "pattern_list" || l.Type() == "tuple_pattern") && n.Equal(call) {
				// model, info = X.from_pretrained(..., output_loading_info=True);
				// model, tokenizer = FastLanguageModel.from_pretrained(...):
				// the first name is the model.
				if first := NamedNoComments(l); len(first) > 0 && first[0].Type() == "identifier" {
					return first[0].Content(text)
				}
				return ""
			}
			if l != nil && l.Type() != "pattern_list" && l.Type() != "tuple_pattern" {
				if t := Compact(l.Content(text)); !strings.Contains(t, "#") {
					return t
				}
				return "" // a target spanning a comment cannot be written back
			}
		}
		return ""
	}
	return ""
}

// StatementIn returns the statement holding n that sits directly in the
// body of scope fn (or the module), or nil.
func (f *Facts) StatementIn(n *syntree.Node, fn *Func) *syntree.Node {
	body := f.Root
	if fn.Node != nil {
		body = fn.Body
	} else if g := f.mainGuardBody(n); g != nil {
		body = g // the script's body under if __name__ == "__main__":
	}
	for cur := n; cur != nil; cur = cur.Parent() {
		if p := cur.Parent(); p != nil && p.Equal(body) {
			return cur
		}
	}
	return nil
}

// auxName: a model named as one a trainer keeps frozen, or an embedding model.
var auxName = regexp.MustCompile(`(?i)(^|[._])(ref|reference|reward|teacher|embed\w*|judge)(_?model)?$`)

// modelSubclass reports a class of this file that derives from a model
// class (class MyLlama(LlamaForCausalLM): ...).
func (f *Facts) modelSubclass(class string) bool {
	text := f.Src.Text
	for _, n := range f.Root.NamedChildren() {
		if n.Type() == "decorated_definition" {
			n = n.ChildByFieldName("definition")
		}
		if n == nil || n.Type() != "class_definition" || n.ChildByFieldName("name").Content(text) != class {
			continue
		}
		supers := n.ChildByFieldName("superclasses")
		if supers == nil {
			return false
		}
		for _, sup := range supers.NamedChildren() {
			base := DottedName(sup, text)
			base = base[strings.LastIndexByte(base, '.')+1:]
			if ModelClass(base) || base != class && f.modelSubclass(base) {
				return true
			}
		}
	}
	return false
}

// classAttribute is the string a class attribute of this file holds when
// read on the class itself (Settings.model_name, with model_name: str =
// "google/gemma-2-2b" in class Settings): a constant, as the class is not
// an instance a parser filled.
func (f *Facts) classAttribute(n *syntree.Node) (string, bool) {
	text := f.Src.Text
	if n == nil || n.Type() != "attribute" {
		return "", false
	}
	obj, attr := n.ChildByFieldName("object"), n.ChildByFieldName("attribute")
	if obj == nil || attr == nil || obj.Type() != "identifier" {
		return "", false
	}
	class := f.classNamed(obj.Content(text))
	if class == nil {
		return "", false
	}
	body := class.ChildByFieldName("body")
	found := ""
	ok := false
	for _, st := range body.NamedChildren() {
		if st.Type() != "expression_statement" || st.NamedChildCount() != 1 {
			continue
		}
		a := st.NamedChild(0)
		if a.Type() != "assignment" {
			continue
		}
		if l := a.ChildByFieldName("left"); l == nil || l.Content(text) != attr.Content(text) {
			continue
		}
		v := a.ChildByFieldName("right")
		if v != nil && Last(f.CalleeOf(v)) == "field" {
			v = KeywordValue(v.ChildByFieldName("arguments"), "default", text)
		}
		found, ok = StringValue(v, text) // the last assignment in the body wins
	}
	return found, ok
}

// classNamed is the top-level class definition of that name, or nil.
func (f *Facts) classNamed(name string) *syntree.Node {
	text := f.Src.Text
	for _, n := range f.Root.NamedChildren() {
		if n.Type() == "decorated_definition" {
			n = n.ChildByFieldName("definition")
		}
		if n != nil && n.Type() == "class_definition" && n.ChildByFieldName("name").Content(text) == name {
			return n
		}
	}
	return nil
}

// optionDefaultString is the default of the command-line option an
// expression reads (args.model_name_or_path with --model_name_or_path
// defaulting to "Qwen/Qwen-7B"), when it is a plain string; else "".
func (f *Facts) optionDefaultString(n *syntree.Node) string {
	if n == nil || n.Type() != "attribute" {
		return ""
	}
	o := f.Option(n.ChildByFieldName("attribute").Content(f.Src.Text))
	if o == nil {
		return ""
	}
	s, _ := StringValue(o.Def, f.Src.Text)
	return s
}

// mainGuardBody is the block of the top-level `if __name__ == "__main__":`
// that holds n, or nil: a script's statements there run in order, as at
// module level.
func (f *Facts) mainGuardBody(n *syntree.Node) *syntree.Node {
	for cur := n; cur != nil; cur = cur.Parent() {
		p := cur.Parent()
		if p == nil || !p.Equal(f.Root) {
			continue
		}
		if cur.Type() != "if_statement" {
			return nil
		}
		cond := cur.ChildByFieldName("condition")
		body := cur.ChildByFieldName("consequence")
		if cond == nil || body == nil || !strings.Contains(Compact(cond.Content(f.Src.Text)), "__name__==") ||
			!strings.Contains(cond.Content(f.Src.Text), "__main__") || !Within(n, body) {
			return nil
		}
		return body
	}
	return nil
}

// heldClass is the model class a name holds on every path where a load is
// called on it (loader.from_pretrained(...) with loader =
// AutoModelForCausalLM if ... else AutoModelForImageTextToText): the first
// of them, when each is a model class of transformers; else "".
func (f *Facts) heldClass(c *Call) string {
	fn := c.Node.ChildByFieldName("function")
	obj := fn.ChildByFieldName("object")
	if obj == nil || obj.Type() != "identifier" {
		return ""
	}
	var classes []string
	var add func(n *syntree.Node, depth int) bool
	add = func(n *syntree.Node, depth int) bool {
		if depth > 3 {
			return false
		}
		switch n.Type() {
		case "conditional_expression":
			kids := NamedNoComments(n)
			return len(kids) == 3 && add(kids[0], depth+1) && add(kids[2], depth+1)
		case "parenthesized_expression":
			kids := NamedNoComments(n)
			return len(kids) == 1 && add(kids[0], depth+1)
		case "identifier", "attribute":
			if n.Equal(obj) {
				vals, ok := f.Values(n)
				if !ok && len(vals) == 0 {
					return false
				}
				for _, v := range vals {
					if v.Equal(obj) || !add(v, depth+1) {
						return false
					}
				}
				return len(vals) > 0
			}
			q := f.Resolve(DottedName(n, f.Src.Text))
			name := Last(q)
			if !ModelClass(name) || !Of(q+".from_pretrained").Has(ModelLoad) || q == name {
				return false // a class this file imports from a library
			}
			classes = append(classes, name)
			return true
		}
		return false
	}
	if !add(obj, 0) || len(classes) == 0 {
		return ""
	}
	return classes[0]
}

// everyBranch reports adapter calls that cover every branch of one
// if/elif/else (if a.adapter: PeftModel.from_pretrained(...,
// is_trainable=True) else: get_peft_model(...)): an adapter on every path,
// whichever the condition (corpus shape N16).
func (f *Facts) everyBranch(calls []*syntree.Node) bool {
	for _, c := range calls {
		ifs := Enclosing(c, "if_statement")
		if ifs == nil {
			continue
		}
		branches := []*syntree.Node{ifs.ChildByFieldName("consequence")}
		hasElse := false
		for _, k := range ifs.NamedChildren() {
			switch k.Type() {
			case "elif_clause":
				branches = append(branches, k.ChildByFieldName("consequence"))
			case "else_clause":
				branches = append(branches, k.ChildByFieldName("body"))
				hasElse = true
			}
		}
		covered := hasElse
		for _, b := range branches {
			in := false
			for _, o := range calls {
				in = in || b != nil && Within(o, b)
			}
			covered = covered && in
		}
		if covered {
			return true
		}
	}
	return false
}
