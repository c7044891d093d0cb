package rewrite

import (
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
	Stmt      *sitter.Node // the statement holding the call
	Target    string       // what the result is assigned to, "model"
	ModelID   string       // the literal model id, when known
	IDKnown   bool
}

var modelClass = regexp.MustCompile(`^(AutoModel\w*|AutoPeftModel\w*|\w+For[A-Z]\w*|\w*Model)$`)

// ModelLoads lists the model loads of the file in source order, each with
// whether it flows into training.
func (f *File) ModelLoads() []*Load {
	if f.loads == nil {
		f.loads = f.findLoads()
	}
	return f.loads
}

func (f *File) findLoads() []*Load {
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
		if !modelClass.MatchString(class) || class == "PeftModel" || strings.Contains(class, "Tokenizer") {
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
		l.Quantized = f.quantized(c)
		l.Target = assignedTo(c.Node, text)
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
func (f *File) TrainingLoads() []*Load {
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
func (f *File) usedByTraining(l *Load) bool {
	target := assignedTo(l.Node, f.Src.Text)
	if target == "" || strings.ContainsAny(target, ".[") {
		return false
	}
	word := regexp.MustCompile(`\b` + regexp.QuoteMeta(target) + `\b`)
	for _, fn := range f.Funcs {
		if fn.Training && word.Match(f.Src.Text[fn.Body.StartByte():fn.Body.EndByte()]) {
			return true
		}
	}
	return false
}

var quantKeywords = []string{"quantization_config", "load_in_4bit", "load_in_8bit"}

// quantized reports a quantized load: a quantization config or a
// load_in_4bit/8bit flag that is not a literal False.
func (f *File) quantized(c *Call) bool {
	text := f.Src.Text
	for _, k := range quantKeywords {
		if v := KeywordValue(c.Args, k, text); v != nil && v.Content(text) != "False" && v.Content(text) != "None" {
			return true
		}
	}
	return false
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
				return compact(l.Content(text))
			}
		}
		return ""
	}
	return ""
}

// statementIn returns the statement holding n that sits directly in the
// body of scope fn (or the module), or nil.
func (f *File) statementIn(n *sitter.Node, fn *Func) *sitter.Node {
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
func (f *File) torchName(attr string) (string, []Edit) {
	local, edits := ensureImport(f, "torch")
	return local + "." + attr, edits
}
