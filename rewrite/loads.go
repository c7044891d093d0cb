package rewrite

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

// Load is one model load: Class.from_pretrained(...) or from_config(...).
type Load struct {
	*Call
	// Use: whether the loaded model is trained, decided by where its value
	// goes (model.go); Why says so in words, for messages.
	Use   Use
	Why   string
	sinks []sink
	// Quantized loads (QLoRA) keep their dtype and device_map.
	Quantized bool
	// MaybeQuantized: quantized on some paths only (a quantization_config
	// added to the kwargs dict under an if): a warning, never an edit.
	MaybeQuantized bool
	Stmt           *syntree.Node // the statement holding the call
	Target         string        // what the result is assigned to, "model"
	ModelID        string        // the literal model id, when known
	IDKnown        bool
	kwargs         kwargs
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
		if c.Method != "from_pretrained" && c.Method != "from_config" {
			continue
		}
		parts := strings.Split(c.Qual, ".")
		if len(parts) < 2 {
			continue
		}
		class := parts[len(parts)-2]
		if !semantic.ModelClass(class) && !f.modelSubclass(class) || class == "PeftModel" || strings.Contains(class, "Tokenizer") {
			continue
		}
		l := &Load{Call: c, Stmt: Statement(c.Node)}
		l.Target = assignedTo(c.Node, text)
		l.sinks = f.traceLoad(c.Node)
		l.Use, l.Why = verdict(l.sinks)
		trains := f.TrainingUse(c.Func) != NotTraining || c.Func == f.module && f.HasTraining()
		if l.Use == Unseen && !trains {
			l.Use = NotTraining // nothing trains here: no edit was ever due
		}
		if strings.HasPrefix(class, "AutoPeftModel") {
			// An adapter checkpoint: training only with is_trainable=True.
			if v := KeywordValue(c.Args, "is_trainable", text); v == nil || v.Content(text) != "True" {
				l.Use, l.Why = NotTraining, "an adapter checkpoint loaded without is_trainable=True"
			} else if l.Use == Unseen {
				l.Use, l.Why = Training, "an adapter checkpoint loaded with is_trainable=True"
			}
		}
		if l.Use != Training && l.Target != "" && auxName.MatchString(l.Target) {
			l.Use, l.Why = NotTraining, "named as a reference, reward, teacher or embedding model"
		}
		l.kwargs = f.resolveKwargs(c)
		if c.Method == "from_pretrained" {
			l.ModelID, l.IDKnown = f.ValueOf(firstArg(c.Args, "pretrained_model_name_or_path", text))
		}
		l.Quantized, l.MaybeQuantized = f.quantized(l)
		out = append(out, l)
	}
	return out
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

func isWordByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

var quantKeywords = []string{"quantization_config", "load_in_4bit", "load_in_8bit"}

// quantized reports a quantized load: a quantization config or a
// load_in_4bit/8bit flag that is not a literal False. Mxfp4Config with
// dequantize=True loads plain weights: not quantized training.
func (f *Facts) quantized(l *Load) (always, sometimes bool) {
	text := f.Src.Text
	if l.IDKnown && preQuantizedID(l.ModelID) {
		return true, false
	}
	for _, k := range quantKeywords {
		v := l.Arg(k, text)
		if v == nil || v.Content(text) == "False" || v.Content(text) == "None" {
			continue
		}
		if cfg := f.SoleValue(v); cfg != nil && cfg.Type() == "call" {
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

// preQuantizedID reports a checkpoint published already quantized
// ("unsloth/llama-3-8b-bnb-4bit", "TheBloke/Llama-2-7B-GPTQ"): its own
// config quantizes the load, whatever the call says.
func preQuantizedID(id string) bool {
	id = strings.ToLower(id)
	for _, mark := range []string{"bnb-4bit", "bnb_4bit", "-4bit", "-8bit", "gptq", "-awq", "_awq", "-int4", "-int8"} {
		if strings.Contains(id, mark) {
			return true
		}
	}
	return false
}

// assignedTo is the target of "target = <call>" (the call possibly chained,
// as in .to(device)), or "".
func assignedTo(call *syntree.Node, text []byte) string {
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
func (f *Facts) statementIn(n *syntree.Node, fn *Func) *syntree.Node {
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
			base := dottedName(sup, text)
			base = base[strings.LastIndexByte(base, '.')+1:]
			if semantic.ModelClass(base) || base != class && f.modelSubclass(base) {
				return true
			}
		}
	}
	return false
}
