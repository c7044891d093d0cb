package semantic

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/loratune/loratune-fix/syntree"
)

// Facts is what the rules know about one parsed source: imports with their
// aliases, every call and assignment, and the function scopes with what
// each one does (train, infer). It is built once per pass from the queries.
type Facts struct {
	Src   *Source
	Root  *syntree.Node
	Calls []*Call
	// Assigns holds every assignment, chained ones once per target.
	Assigns []*Assign
	Funcs   []*Func
	// Names is the file's import table (the semantic model's): "th" ->
	// "torch", "AMC" -> "transformers.AutoModelForCausalLM".
	Names Imports
	// ImportStmts are the top-level import statements, in order.
	ImportStmts  []*syntree.Node
	Module       *Func
	loads        []*Load                 // computed on first use
	useDepthMemo map[useKey]Use          // trainingUse, by scope and depth
	UseEvals     int                     // trainingUse's evaluations, for a test that they stay few
	flows        map[flowKey]*flowResult // the flow of names, per scope and name (flow.go)
	editScope    *string                 // NotEditedBecause, once decided
	dead         *[][2]uint32            // Dead's spans, once found
	byMethod     map[string][]*Call      // Calls by their last name, on first use
	Gemma2Named  *bool                   // namesGemma2, once decided
	rebinds      *bool                   // globalsRewritten, once
	seen         map[string][]int        // where each first name of a flow's key occurs (flow.go)
	stmtsIn      map[*Func]int           // how many statements a flow walk of the scope records
}

// Call is one call expression.
type Call struct {
	Node   *syntree.Node
	Args   *syntree.Node
	Dotted string // the callee as written, "tf.AutoModelForCausalLM.from_pretrained"
	Qual   string // with import aliases resolved, "transformers.AutoModelForCausalLM.from_pretrained"
	// Method is the last name of Qual, not of Dotted: after `from peft
	// import get_peft_model as wrap`, wrap(...) has Method "get_peft_model".
	Method string
	Roles  Role // what the callee is (semantic.Of(Qual))
	Func   *Func
}

// Is reports whether the callee has the role r.
func (c *Call) Is(r Role) bool { return c.Roles.Has(r) }

// Object is the callee as written before its last name: "model" for
// model.half(), "" for a bare half().
func (c *Call) Object() string {
	i := strings.LastIndexByte(c.Dotted, '.')
	if i < 0 {
		return ""
	}
	return c.Dotted[:i]
}

// Assign is one assignment "target = value".
type Assign struct {
	Node   *syntree.Node // the assignment node
	Target *syntree.Node
	Value  *syntree.Node // for a chain a = b = v, the final value v
	Text   string        // the target as written, whitespace removed
	Func   *Func
}

// Func is a function scope; the module is a Func with a nil Node.
type Func struct {
	Node, Body *syntree.Node
	Name       string
	// Training: the scope itself trains (a Trainer, get_peft_model, .train(),
	// backward or an optimizer step). Inference: it generates or evaluates.
	Training, Inference bool
	// start, end: Node's byte range, kept in Go so that ScopeOf, run for
	// every call and assignment, makes no cgo call per function.
	Start, End uint32
	// outer is the innermost function that holds this one (nil: none).
	outer *Func
}

func BuildFacts(src *Source, tree *syntree.Tree, q *Queries) *Facts {
	root := tree.Root()
	f := &Facts{Src: src, Root: root, Module: &Func{Name: "<module>"}}
	text := src.Text
	// The captures by id, looked up once (a match binds nil where it has
	// no such capture).
	id := q.capture
	var (
		cFunction, cBody, cName      = id["function"], id["body"], id["name"]
		cImport, cAlias, cFrom, cMod = id["import"], id["alias"], id["from"], id["module"]
		cCall, cCallee, cArgs        = id["call"], id["callee"], id["args"]
		cAssignment, cTarget, cValue = id["assignment"], id["target"], id["value"]
	)

	// One walk finds the matches of every query file. Functions and
	// imports are read as they come; calls and assignments are kept (the
	// captures they read) and read once the walk is done, as they need
	// the scopes and the imports.
	// Funcs, Calls and Assigns point into one array each: one allocation
	// instead of one per function, call and assignment.
	var funcs []Func
	// Room for about as many as a training script has (a call per 20
	// nodes, an assignment per 40), so that most files never grow them.
	callCaps := make([][3]*syntree.Node, 0, tree.Len()/16)
	assignCaps := make([][3]*syntree.Node, 0, tree.Len()/32)
	q.all.Each(tree, func(pattern int, c []*syntree.Node) {
		switch queryFiles[q.file[pattern]] {
		case "functions.scm":
			fn := c[cFunction]
			funcs = append(funcs, Func{Node: fn, Body: c[cBody], Name: c[cName].Content(text), Start: fn.StartByte(), End: fn.EndByte()})
		case "imports.scm":
			f.addImport(c[cImport], c[cAlias], c[cFrom], c[cName], c[cMod])
		case "calls.scm":
			callCaps = append(callCaps, [3]*syntree.Node{c[cCall], c[cCallee], c[cArgs]})
		case "assignments.scm":
			assignCaps = append(assignCaps, [3]*syntree.Node{c[cAssignment], c[cTarget], c[cValue]})
		}
	})

	f.Funcs = make([]*Func, len(funcs))
	for i := range funcs {
		f.Funcs[i] = &funcs[i]
	}
	sort.Slice(f.Funcs, func(i, j int) bool { return f.Funcs[i].Start < f.Funcs[j].Start })
	var open []*Func // the functions holding the one being read, outermost first
	for _, fn := range f.Funcs {
		for len(open) > 0 && open[len(open)-1].End < fn.End {
			open = open[:len(open)-1]
		}
		if len(open) > 0 {
			fn.outer = open[len(open)-1]
		}
		open = append(open, fn)
	}

	calls := make([]Call, 0, len(callCaps))
	f.Calls = make([]*Call, 0, cap(calls))
	for _, c := range callCaps {
		call, callee, args := c[0], c[1], c[2]
		dotted := DottedName(callee, text)
		if dotted == "" {
			continue
		}
		qual := f.Resolve(dotted)
		calls = append(calls, Call{Node: call, Args: args, Dotted: dotted, Qual: qual, Func: f.ScopeOf(call),
			Method: Last(qual), Roles: Of(qual)})
		f.Calls = append(f.Calls, &calls[len(calls)-1])
	}

	assigns := make([]Assign, len(assignCaps))
	f.Assigns = make([]*Assign, 0, len(assigns))
	for i, c := range assignCaps {
		assignment, target, value := c[0], c[1], c[2]
		for value.Type() == "assignment" {
			if r := value.ChildByFieldName("right"); r != nil {
				value = r
			} else {
				break
			}
		}
		assigns[i] = Assign{Node: assignment, Target: target, Value: value,
			Text: Compact(target.Content(text)), Func: f.ScopeOf(assignment)}
		f.Assigns = append(f.Assigns, &assigns[i])
	}

	f.markScopes()
	return f
}

// addImport reads one match of imports.scm: the import statement stmt,
// binding alias (nil: none) to the module mod, or to name from the module
// from (from import).
func (f *Facts) addImport(stmt, aliasNode, from, nameNode, modNode *syntree.Node) {
	text := f.Src.Text
	if stmt.Parent() == f.Root {
		if len(f.ImportStmts) == 0 || f.ImportStmts[len(f.ImportStmts)-1] != stmt {
			f.ImportStmts = append(f.ImportStmts, stmt)
		}
	}
	alias := ""
	if aliasNode != nil {
		alias = aliasNode.Content(text)
	}
	if from != nil {
		name := nameNode.Content(text)
		if alias == "" {
			alias = name
		}
		f.Names.Bind(alias, from.Content(text)+"."+name)
		return
	}
	mod := modNode.Content(text)
	if alias == "" {
		// "import torch.nn" binds "torch".
		alias = strings.SplitN(mod, ".", 2)[0]
		mod = alias
	}
	f.Names.Bind(alias, mod)
}

// PlainDotted reports ASCII identifiers joined by dots, none of them a
// keyword that can stand before a dot (None.x is not a name).
func PlainDotted(s []byte) bool {
	// One pass over the bytes; each part is judged at the dot or the end
	// that closes it.
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' {
			if !IsWordByte(s[i]) {
				return false
			}
			continue
		}
		part := s[start:i]
		if len(part) == 0 || '0' <= part[0] && part[0] <= '9' {
			return false
		}
		switch string(part) {
		case "None", "True", "False":
			return false
		}
		start = i + 1
	}
	return true
}

// DottedName renders identifier / attribute chains ("a.b.c"); a chain whose
// root is something else (a call, a subscript) renders as "?.b.c".
func DottedName(n *syntree.Node, text []byte) string {
	switch n.Type() {
	case "identifier":
		return n.Content(text)
	case "attribute":
		// Most chains are written plainly ("torch.nn.Module"): the bytes
		// are the name, without a walk down the chain.
		if s := text[n.StartByte():n.EndByte()]; PlainDotted(s) {
			return string(s)
		}
		obj := n.ChildByFieldName("object")
		attr := n.ChildByFieldName("attribute")
		if obj == nil || attr == nil {
			return ""
		}
		prefix := DottedName(obj, text)
		if prefix == "" {
			prefix = "?"
		}
		return prefix + "." + attr.Content(text)
	}
	return ""
}

// Compact is s without its white space (unicode.IsSpace), as
// strings.Fields splits on it.
func Compact(s string) string {
	if !HasSpace(s) {
		return s // most are: no copy
	}
	return strings.Join(strings.Fields(s), "")
}

// HasSpace reports a unicode.IsSpace rune in s. ASCII bytes, nearly all
// of a name, are told without decoding (IndexFunc's decoding and call per
// rune were most of compact).
func HasSpace(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf:
			return strings.IndexFunc(s[i:], unicode.IsSpace) >= 0
		case c == ' ' || '\t' <= c && c <= '\r':
			return true
		}
	}
	return false
}

// Resolve replaces the first name of a dotted name by what it was imported
// as (semantic.Imports.Resolve).
func (f *Facts) Resolve(dotted string) string { return f.Names.Resolve(dotted) }

// CalleeOf is the callee of a call node with the file's imports resolved
// ("" for a callee that is no name).
func (f *Facts) CalleeOf(call *syntree.Node) string {
	if call == nil || call.Type() != "call" {
		return ""
	}
	return f.Resolve(DottedName(call.ChildByFieldName("function"), f.Src.Text))
}

// Alias returns the local name bound to a module ("torch" -> "th"), and
// whether the file imports it at all.
func (f *Facts) Alias(module string) (string, bool) { return f.Names.Local(module) }

func (f *Facts) ScopeOf(n *syntree.Node) *Func {
	start, end := n.StartByte(), n.EndByte()
	// Functions nest, so every function that holds n holds the last one
	// to start at or before n too, or is that one: the innermost holder is
	// found up that one's chain of outer functions, as deep as the nesting
	// (a scan of every function for every call was quadratic).
	i := sort.Search(len(f.Funcs), func(i int) bool { return f.Funcs[i].Start > start })
	if i == 0 {
		return f.Module
	}
	for fn := f.Funcs[i-1]; fn != nil; fn = fn.outer {
		if end <= fn.End {
			return fn
		}
	}
	return f.Module
}

// IsTrainerCall is Trainer(...), SFTTrainer(...), transformers.Trainer(...)
// and any other class whose name ends in Trainer.
func (c *Call) IsTrainerCall() bool { return c.Is(Trainer) }

func (f *Facts) markScopes() {
	for _, c := range f.Calls {
		switch {
		case c.IsTrainerCall(), c.Is(AdapterWrap) && c.Method != "add_adapter", c.Is(KbitPrepare),
			c.Method == "backward", c.Method == "train" && c.Args.NamedChildCount() == 0 && strings.Contains(c.Dotted, "."),
			c.Method == "step" && strings.Contains(strings.ToLower(c.Dotted), "optim"):
			c.Func.Training = true
		case c.Method == "generate", c.Method == "eval" && c.Args.NamedChildCount() == 0, c.Dotted == "pipeline":
			c.Func.Inference = true
		}
	}
}

// HasTraining reports whether anything in the file trains.
func (f *Facts) HasTraining() bool {
	if f.Module.Training {
		return true
	}
	for _, fn := range f.Funcs {
		if fn.Training {
			return true
		}
	}
	return false
}

// Use says how a scope's result is used: by training code, by inference
// code, by both, or by neither.
type Use int

const (
	NotTraining Use = iota
	Training
	// Shared: loaded by one function for training and for other callers.
	Shared
	// Unseen: the value goes where the flow cannot see (a helper of
	// another module, a return to no caller of this file), in code that
	// trains: rules warn and edit nothing.
	Unseen
)

// TrainingUse decides whether code in scope fn flows into training. A scope
// that trains is training. A helper that does not train is judged by its
// callers in this file: all training callers make it training, a mix of
// training and other callers makes it shared.
func (f *Facts) TrainingUse(fn *Func) Use { return f.trainingUse(fn, 0) }

func (f *Facts) trainingUse(fn *Func, depth int) Use {
	if fn.Training {
		return Training
	}
	if fn.Node == nil || depth > 4 {
		return NotTraining
	}
	// Kept by scope and depth: rules ask for the same scopes again and
	// again, and a helper called from hundreds of places (a test file's
	// self.get_model()) would be asked again for each caller's caller,
	// four levels deep.
	key := useKey{fn, depth}
	if u, ok := f.useDepthMemo[key]; ok {
		return u
	}
	u := f.trainingUseOf(fn, depth)
	if f.useDepthMemo == nil {
		f.useDepthMemo = map[useKey]Use{}
	}
	f.useDepthMemo[key] = u
	return u
}

// useKey is a scope and the depth at which its use is asked.
type useKey struct {
	fn    *Func
	depth int
}

func (f *Facts) trainingUseOf(fn *Func, depth int) Use {
	f.UseEvals++
	train, other := 0, 0
	for _, c := range f.CallsOf(fn.Name) {
		if c.Func == fn {
			continue // recursion
		}
		switch f.trainingUse(c.Func, depth+1) {
		case Training:
			train++
		case Shared:
			train++
			other++
		default:
			other++
		}
	}
	switch {
	case train > 0 && other == 0:
		return Training
	case train > 0:
		return Shared
	}
	return NotTraining
}

// Keyword returns the keyword argument name=... of a call's argument list.
func Keyword(args *syntree.Node, name string, text []byte) *syntree.Node {
	// (The children are read in Go memory: a byte search of the whole
	// list first, once cheaper than a cgo call per child, cost more. The
	// name's bytes are compared in place, without a copy.)
	for _, a := range args.NamedChildren() {
		if a.Type() == "keyword_argument" {
			if k := a.ChildByFieldName("name"); k != nil && string(text[k.StartByte():k.EndByte()]) == name {
				return a
			}
		}
	}
	return nil
}

// KeywordValue is the value node of name=..., or nil.
func KeywordValue(args *syntree.Node, name string, text []byte) *syntree.Node {
	if kw := Keyword(args, name, text); kw != nil {
		return kw.ChildByFieldName("value")
	}
	return nil
}

// HasSplat reports a **kwargs argument.
func HasSplat(args *syntree.Node) bool {
	for _, a := range args.NamedChildren() {
		if a.Type() == "dictionary_splat" {
			return true
		}
	}
	return false
}

// Statement returns the statement that holds n and sits directly in a block
// or the module, or nil.
func Statement(n *syntree.Node) *syntree.Node {
	// Parent() walks down from the root, so each is asked once.
	for cur := n; cur != nil; {
		p := cur.Parent()
		if p == nil {
			return nil
		}
		if t := p.Type(); t == "block" || t == "module" {
			return cur
		}
		cur = p
	}
	return nil
}

// StringValue returns the contents of a plain string literal ("x", 'x',
// r"x"), and false for anything else: f-strings (their value is computed
// at run time), bytes, concatenations, names.
func StringValue(n *syntree.Node, text []byte) (string, bool) {
	if n == nil || n.Type() != "string" {
		return "", false
	}
	s := n.Content(text)
	q := strings.IndexAny(s, `"'`)
	if q < 0 || strings.ContainsAny(s[:q], "fFbBtT") {
		return "", false
	}
	s = s[q:]
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if len(s) >= 2*len(q) && strings.HasPrefix(s, q) && strings.HasSuffix(s, q) {
			return s[len(q) : len(s)-len(q)], true
		}
	}
	return "", false
}

// CallsOf lists the calls of name (see callsName). Calls are indexed by
// their last name: a scan of every call for each function made a file of
// many functions quadratic.
func (f *Facts) CallsOf(name string) []*Call {
	if f.byMethod == nil {
		f.byMethod = map[string][]*Call{}
		for _, c := range f.Calls {
			f.byMethod[c.Method] = append(f.byMethod[c.Method], c)
		}
	}
	var out []*Call
	for _, c := range f.byMethod[name[strings.LastIndexByte(name, '.')+1:]] {
		if callsName(c.Dotted, name) {
			out = append(out, c)
		}
	}
	return out
}

// callsName reports whether a callee as written ("self.helper", "helper")
// names fn: the name itself or its last dotted part, without allocating.
func callsName(dotted, name string) bool {
	if !strings.HasSuffix(dotted, name) {
		return false
	}
	rest := len(dotted) - len(name)
	return rest == 0 || dotted[rest-1] == '.'
}
