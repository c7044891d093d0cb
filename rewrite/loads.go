package rewrite

import (
	"bytes"
	"regexp"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// Load is one model load: Class.from_pretrained(...) or from_config(...).
type Load struct {
	*Call
	Use Use
	// Quantized loads (QLoRA) keep their dtype and device_map.
	Quantized bool
	// MaybeQuantized: quantized on some paths only (a quantization_config
	// added to the kwargs dict under an if): a warning, never an edit.
	MaybeQuantized bool
	Stmt           *sitter.Node // the statement holding the call
	Target         string       // what the result is assigned to, "model"
	ModelID        string       // the literal model id, when known
	IDKnown        bool
	kwargs         kwargs
}

var modelClass = regexp.MustCompile(`^(AutoModel\w*|AutoPeftModel\w*|\w+For[A-Z]\w*|\w*Model)$`)

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
		if c.Method != "from_pretrained" && c.Method != "from_config" {
			continue
		}
		parts := strings.Split(c.Qual, ".")
		if len(parts) < 2 {
			continue
		}
		class := parts[len(parts)-2]
		if !modelClass.MatchString(class) && !f.modelSubclass(class) || class == "PeftModel" || strings.Contains(class, "Tokenizer") {
			continue
		}
		l := &Load{Call: c, Stmt: Statement(c.Node)}
		l.Use = f.TrainingUse(c.Func)
		if l.Use == NotTraining && c.Func == f.module && f.usedByTraining(l) {
			l.Use = Training
		}
		if strings.HasPrefix(class, "AutoPeftModel") {
			// An adapter checkpoint: training only with is_trainable=True.
			if v := KeywordValue(c.Args, "is_trainable", text); v == nil || v.Content(text) != "True" {
				l.Use = NotTraining
			}
		}
		l.kwargs = f.resolveKwargs(c)
		l.Quantized, l.MaybeQuantized = f.quantized(l)
		l.Target = assignedTo(c.Node, text)
		if l.Use != NotTraining && f.auxiliary(l) {
			l.Use = NotTraining // a frozen reference, reward or teacher model
		}
		if c.Method == "from_pretrained" {
			id := KeywordValue(c.Args, "pretrained_model_name_or_path", text)
			if args := realArgs(c.Args); id == nil && len(args) > 0 && args[0].Type() != "keyword_argument" {
				id = args[0]
			}
			l.ModelID, l.IDKnown = f.ValueOf(id, c.Func)
		}
		out = append(out, l)
	}
	return out
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

// usedByTraining: a module-level load whose variable a training function
// uses (notebook and script style).
func (f *Facts) usedByTraining(l *Load) bool {
	target := assignedTo(l.Node, f.Src.Text)
	if target == "" || strings.ContainsAny(target, ".[") {
		return false
	}
	for _, fn := range f.Funcs {
		if fn.Training && containsWord(f.Src.Text[fn.Body.StartByte():fn.Body.EndByte()], target) {
			return true
		}
	}
	return false
}

// containsWord reports word in text between word boundaries (as the
// regular expression \bword\b, for a word of identifier bytes).
func containsWord(text []byte, word string) bool {
	for at := 0; at < len(text); {
		i := bytes.Index(text[at:], []byte(word))
		if i < 0 {
			return false
		}
		start, end := at+i, at+i+len(word)
		if (start == 0 || !isWordByte(text[start-1])) && (end == len(text) || !isWordByte(text[end])) {
			return true
		}
		at = start + 1
	}
	return false
}

func isWordByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

var quantKeywords = []string{"quantization_config", "load_in_4bit", "load_in_8bit"}

// quantized reports a quantized load: a quantization config or a
// load_in_4bit/8bit flag that is not a literal False. Mxfp4Config with
// dequantize=True loads plain weights: not quantized training.
func (f *Facts) quantized(l *Load) (always, sometimes bool) {
	text := f.Src.Text
	for _, k := range quantKeywords {
		v := l.Arg(k, text)
		if v == nil || v.Content(text) == "False" || v.Content(text) == "None" {
			continue
		}
		if cfg := f.definition(v, l.Func); cfg != nil && cfg.Type() == "call" {
			callee := dottedName(cfg.ChildByFieldName("function"), text)
			if strings.HasSuffix(callee, "Mxfp4Config") {
				if d := KeywordValue(cfg.ChildByFieldName("arguments"), "dequantize", text); d != nil && d.Content(text) == "True" {
					continue
				}
			}
		}
		if KeywordValue(l.Args, k, text) == nil && l.kwargs.conditional[k] {
			sometimes = true
			continue
		}
		return true, false
	}
	return false, sometimes
}

// definition follows a name to the value last assigned to it before n in
// scope fn (or at module level); other nodes are their own definition.
func (f *Facts) definition(n *sitter.Node, fn *Func) *sitter.Node {
	if n.Type() != "identifier" {
		return n
	}
	if a := f.lastAssign(n.Content(f.Src.Text), fn, n); a != nil {
		return a.Value
	}
	return nil
}

// lastAssign is the last assignment to name before n, in fn or at module
// level (fn's own assignments win).
func (f *Facts) lastAssign(name string, fn *Func, n *sitter.Node) *Assign {
	var best *Assign
	for _, a := range f.Assigns {
		if a.Text != name || a.Node.StartByte() >= n.StartByte() || (a.Func != fn && a.Func != f.module) {
			continue
		}
		if best == nil || a.Func == fn || best.Func == f.module {
			best = a
		}
	}
	return best
}

// assignedTo is the target of "target = <call>" (the call possibly chained,
// as in .to(device)), or "".
func assignedTo(call *sitter.Node, text []byte) string {
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
			if l := p.ChildByFieldName("left"); l != nil && l.Type() != "pattern_list" && l.Type() != "tuple_pattern" {
				if t := compact(l.Content(text)); !strings.Contains(t, "#") {
					return t
				}
				return "" // a target spanning a comment cannot be written back
			}
		}
		return ""
	}
	return ""
}

// statementIn returns the statement holding n that sits directly in the
// body of scope fn (or the module), or nil.
func (f *Facts) statementIn(n *sitter.Node, fn *Func) *sitter.Node {
	body := f.Root
	if fn.Node != nil {
		body = fn.Body
	}
	for cur := n; cur != nil; cur = cur.Parent() {
		if p := cur.Parent(); p != nil && p.Equal(body) {
			return cur
		}
	}
	return nil
}

// torchName renders torch.<attr> with the file's alias for torch, adding
// the import when the file lacks it.
func (f *Facts) torchName(attr string) (string, []Edit) {
	local, edits := ensureImport(f, "torch")
	return local + "." + attr, edits
}

var auxName = regexp.MustCompile(`(?i)(^|[._])(ref|reference|reward|teacher|embed\w*|judge)(_?model)?$`)

// auxiliary reports a model that a trainer uses frozen: passed as
// ref_model=/reward_model=/teacher_model=, or named so.
func (f *Facts) auxiliary(l *Load) bool {
	if l.Target == "" {
		return false
	}
	if auxName.MatchString(l.Target) {
		return true
	}
	text := f.Src.Text
	for _, c := range f.Calls {
		if !c.IsTrainerCall() {
			continue
		}
		for _, k := range []string{"ref_model", "reward_model", "teacher_model", "reward_funcs"} {
			if v := KeywordValue(c.Args, k, text); v != nil && compact(v.Content(text)) == l.Target {
				return true
			}
		}
	}
	return false
}

// modelSubclass reports a class of this file that derives from a model
// class (class MyLlama(LlamaForCausalLM): ...).
func (f *Facts) modelSubclass(class string) bool {
	text := f.Src.Text
	for i := 0; i < int(f.Root.NamedChildCount()); i++ {
		n := f.Root.NamedChild(i)
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
		for j := 0; j < int(supers.NamedChildCount()); j++ {
			base := dottedName(supers.NamedChild(j), text)
			base = base[strings.LastIndexByte(base, '.')+1:]
			if modelClass.MatchString(base) || base != class && f.modelSubclass(base) {
				return true
			}
		}
	}
	return false
}
