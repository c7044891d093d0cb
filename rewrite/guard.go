package rewrite

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

// The binding guard, beside the parse guard: a fix must not make a script
// crash at run time. Every name a line it inserts or edits reads must be
// bound on every path that reaches it (definite assignment, flow.go) and,
// where the line reads an attribute of it (model.config), hold an object,
// not a string id or a class; a statement it inserts or edits must not lie
// after the training it is meant for (trainer.train()). A fix that fails
// is dropped, and its finding says why.

// GuardPrefix starts the reason given for a fix the binding guard drops.
const GuardPrefix = "binding guard: "

// Refusal is one fix a guard drops, with why (the guard's prefix
// first): what FrontEnd.Applied returns.
type Refusal struct {
	fix *Finding
	why string
}

// bindingGuard checks out, the text the edits applied (in before's
// offsets) made of before, for the fixes chosen, and returns those that
// fail.
func bindingGuard(before, out []byte, tree *parsed, applied []Edit, chosen []*Finding) []Refusal {
	q, err := semantic.LoadQueries()
	if err != nil {
		return nil
	}
	src := semantic.NewSource(out)
	pt := tree.goTree()
	src.Root = pt.Root()
	// A span that reads no name passes (checkSpan says "" for it): where
	// no span reads one, the output needs no file model at all.
	type reading struct {
		span  outputSpan
		reads []*syntree.Node
	}
	var spans []reading
	for _, span := range outputSpans(applied) {
		if span.text == "" {
			continue
		}
		if reads := readsIn(pt.Root(), span.start, span.start+len(span.text)); len(reads) > 0 {
			spans = append(spans, reading{span, reads})
		}
	}
	if len(spans) == 0 {
		return nil
	}
	f := semantic.BuildFacts(src, pt, q)
	var fails []Refusal
	for _, r := range spans {
		span := r.span
		why := checkSpan(f, span.start, span.start+len(span.text), r.reads)
		if why == "" {
			continue
		}
		for _, c := range chosen {
			if ownsEdit(c.Fix, span.edit) {
				fails = append(fails, Refusal{c, GuardPrefix + why})
			}
		}
	}
	return fails
}

// outputSpan is where an applied edit's new text lies in the output.
type outputSpan struct {
	edit  Edit
	start int
	text  string
}

func outputSpans(edits []Edit) []outputSpan {
	es := finding.InOrder(edits)
	var out []outputSpan
	shift := 0
	for _, e := range es {
		out = append(out, outputSpan{edit: e, start: e.Start + shift, text: e.NewText})
		shift += len(e.NewText) - (e.End - e.Start)
	}
	return out
}

// ownsEdit reports a fix that made edit e: one of its own edits, or an
// addition to the same list rendered with others (mergedEdits).
func ownsEdit(fx *Fix, e Edit) bool {
	for _, own := range fx.Edits {
		if own.Start == e.Start && own.End == e.End || own.Start < e.End && e.Start < own.End {
			return true
		}
	}
	return false
}

// checkSpan checks reads, the reads of names in out[from:to] (new text of
// a fix, readsIn): "" when each is bound on every path and of the right
// kind, and the statement does not come after training; else why not.
func checkSpan(f *semantic.Facts, from, to int, reads []*syntree.Node) string {
	text := f.Src.Text
	for _, r := range reads {
		name := r.Content(text)
		at := f.Src.Position(r.Start()).Line
		reach := f.ReachingAt(r)
		if reach.MaybeUnbound {
			if len(reach.Defs) == 0 {
				return fmt.Sprintf("%s is not bound where line %d reads it", name, at)
			}
			return fmt.Sprintf("%s may be unbound where line %d reads it (bound on some paths only)", name, at)
		}
		if p := r.Parent(); p != nil && p.Type() == "attribute" && p.ChildByFieldName("object").Equal(r) {
			if kind := wrongKind(f, r); kind != "" {
				return fmt.Sprintf("%s may hold %s where line %d reads %s", name, kind, at, semantic.Compact(p.Content(text)))
			}
		}
	}
	for _, r := range reads {
		if p := r.Parent(); p != nil && p.Type() == "attribute" && p.ChildByFieldName("object").Equal(r) {
			if attr := p.ChildByFieldName("attribute").Content(text); attr == "pad_token_id" || attr == "pad_token" {
				if later := padSetAfter(f, r, to); later != nil {
					return fmt.Sprintf("line %d sets or reads %s before the script sets its own pad (line %d)", f.Src.Position(r.Start()).Line, semantic.Compact(p.Content(text)), f.Src.Position(later.Start()).Line)
				}
			}
		}
	}
	if len(reads) > 0 {
		if t := trainingBefore(f, from); t != nil {
			return fmt.Sprintf("line %d comes after the training at line %d, which it would not change", f.Src.Position(from).Line, f.Src.Position(t.Start()).Line)
		}
	}
	return ""
}

// readsIn lists, in order, the identifiers under root that start in
// [from, to) and are read there (comments and strings skipped).
func readsIn(root *syntree.Node, from, to int) []*syntree.Node {
	var reads []*syntree.Node
	var walk func(n *syntree.Node)
	walk = func(n *syntree.Node) {
		if int(n.EndByte()) <= from || int(n.StartByte()) >= to {
			return
		}
		switch n.Type() {
		case "identifier":
			if int(n.StartByte()) >= from && isRead(n) {
				reads = append(reads, n)
			}
			return
		case "comment", "string":
			return
		}
		// The children in order: the first that ends past from is found
		// by a binary search (the module has hundreds), and the walk stops
		// at the first that starts at or after to.
		kids := n.NamedChildren()
		for _, c := range kids[sort.Search(len(kids), func(i int) bool { return int(kids[i].EndByte()) > from }):] {
			if int(c.StartByte()) >= to {
				break
			}
			walk(c)
		}
	}
	walk(root)
	sort.Slice(reads, func(i, j int) bool { return reads[i].StartByte() < reads[j].StartByte() })
	return reads
}

// isRead reports an identifier that is read: not a keyword argument's
// name, an attribute's name, an assignment target or a parameter.
func isRead(n *syntree.Node) bool {
	p := n.Parent()
	if p == nil {
		return true
	}
	switch p.Type() {
	case "keyword_argument":
		return !p.ChildByFieldName("name").Equal(n)
	case "attribute":
		return !p.ChildByFieldName("attribute").Equal(n)
	case "assignment", "augmented_assignment":
		return !p.ChildByFieldName("left").Equal(n)
	case "pattern_list", "tuple_pattern", "parameters", "default_parameter", "typed_parameter", "dotted_name", "aliased_import", "global_statement", "nonlocal_statement", "function_definition", "class_definition":
		return false
	}
	return true
}

// idLike: a name that holds a model id or a path, not a model.
var idLike = regexp.MustCompile(`(?i)(name_or_path|model_id|model_name|_path|_dir|_repo|checkpoint)$`)

// wrongKind says what non-object the name n may hold on some path: a
// string (a literal, or an id spelled like one), or a class; "" when
// every value it may hold is something else.
func wrongKind(f *semantic.Facts, n *syntree.Node) string {
	text := f.Src.Text
	for _, d := range f.ReachingAt(n).Defs {
		v := d.Value
		if d.Kind != semantic.DefAssign || v == nil || d.Index >= 0 {
			continue
		}
		switch v.Type() {
		case "string", "concatenated_string":
			return "a string (" + v.Content(text) + ", line " + fmt.Sprint(f.Src.Position(v.Start()).Line) + ")"
		case "attribute", "identifier":
			name := semantic.DottedName(v, text)
			last := name[strings.LastIndexByte(name, '.')+1:]
			if idLike.MatchString(last) {
				return "a model id (" + name + ", line " + fmt.Sprint(f.Src.Position(v.Start()).Line) + ")"
			}
			if q := f.Resolve(name); q != name && semantic.ModelClass(last) {
				return "a class (" + name + ")"
			}
		}
	}
	return ""
}

// trainingBefore is the training call (x.train() on a trainer, or a
// Trainer's train()) of the scope holding offset that ends before it, when
// no training of the scope comes after offset; else nil. Lines there
// change nothing any training sees.
func trainingBefore(f *semantic.Facts, offset int) *syntree.Node {
	scope := f.Module
	for _, fn := range f.Funcs {
		if int(fn.Start) <= offset && offset < int(fn.End) {
			scope = fn
		}
	}
	var before *syntree.Node
	for _, c := range f.Calls {
		if c.Func != scope || c.Method != "train" || len(semantic.RealArgs(c.Args)) > 0 || !isTrainer(f, c) {
			continue
		}
		switch {
		case int(c.Node.StartByte()) >= offset:
			return nil // a later training (a second model's) may still use it
		case int(c.Node.EndByte()) > offset:
			// Trainer(..., args=<here>).train(): part of the training call.
		case !sharedLoop(c.Node, offset):
			// (Inside a loop that also holds the offset, a later iteration
			// still trains after it.)
			before = c.Node
		}
	}
	return before
}

// isTrainer reports x.train() where x holds a Trainer, or Trainer(...).train().
func isTrainer(f *semantic.Facts, c *semantic.Call) bool {
	obj := c.Node.ChildByFieldName("function").ChildByFieldName("object")
	if obj == nil {
		return false
	}
	vals, _ := f.Values(obj)
	for _, v := range vals {
		if v.Type() == "call" {
			if tc := f.CallAt(v); tc != nil && tc.IsTrainerCall() {
				return true
			}
		}
	}
	return strings.Contains(strings.ToLower(obj.Content(f.Src.Text)), "trainer")
}

// sharedLoop reports a for/while loop holding both n and offset.
func sharedLoop(n *syntree.Node, offset int) bool {
	for p := n.Parent(); p != nil; p = p.Parent() {
		switch p.Type() {
		case "for_statement", "while_statement":
			if int(p.StartByte()) <= offset && offset < int(p.EndByte()) {
				return true
			}
		case "function_definition":
			return false
		}
	}
	return false
}

// Unsafe reads, by name, over a whole text: what the binding guard checks
// of a fix's lines, asked of every read of the file. A fixed output must
// have no more of them than its input: no name the fixes made possibly
// unbound, or possibly a string where an attribute is read.
func UnsafeReads(text []byte) (map[string]int, error) {
	f, done, err := wholeText(text)
	if err != nil {
		return nil, err
	}
	defer done()
	out := map[string]int{}
	var walk func(n *syntree.Node)
	walk = func(n *syntree.Node) {
		switch n.Type() {
		case "identifier":
			if !isRead(n) {
				return
			}
			name := n.Content(text)
			if f.ReachingAt(n).MaybeUnbound {
				out["unbound "+name]++
			}
			if p := n.Parent(); p != nil && p.Type() == "attribute" && p.ChildByFieldName("object").Equal(n) && wrongKind(f, n) != "" {
				out["not an object "+name]++
			}
			return
		case "comment", "string":
			return
		}
		for _, c := range n.NamedChildren() {
			walk(c)
		}
	}
	walk(f.Root)
	return out, nil
}

// padSetAfter is a statement after offset, in the scope of the read tok
// (a tokenizer) and before training, that sets tok's pad: tok.pad_token =
// ..., tok.add_special_tokens({"pad_token": ...}), or a call of the file's
// function given tok that does either to its parameter. A pad read before
// it reads what the script then replaces.
func padSetAfter(f *semantic.Facts, tok *syntree.Node, offset int) *syntree.Node {
	text := f.Src.Text
	name := tok.Content(text)
	scope := f.ScopeOf(tok)
	setsPad := func(fn *semantic.Func, param string) bool {
		addTokens, pad, padID := param+".add_special_tokens", param+".pad_token", param+".pad_token_id"
		for _, c := range f.Calls {
			if c.Func == fn && c.Dotted == addTokens && strings.Contains(c.Args.Content(text), "pad_token") {
				return true
			}
		}
		for _, a := range f.Assigns {
			if a.Func == fn && (a.Text == pad || a.Text == padID) {
				return true
			}
		}
		return false
	}
	addTokens := name + ".add_special_tokens"
	for _, c := range f.Calls {
		if c.Func != scope || int(c.Node.StartByte()) < offset {
			continue
		}
		// (Whether training came before is asked last, of the calls
		// that would count: it reads the flow of each training call.)
		if c.Dotted == addTokens && strings.Contains(c.Args.Content(text), "pad_token") {
			if trainingBefore(f, int(c.Node.StartByte())) == nil {
				return c.Node
			}
			continue
		}
		fn := f.LocalFunc(c.Node)
		if fn == nil || trainingBefore(f, int(c.Node.StartByte())) != nil {
			continue
		}
		for i, a := range semantic.RealArgs(c.Args) {
			if a.Type() != "identifier" || a.Content(text) != name {
				continue
			}
			params := semantic.NamedNoComments(fn.Node.ChildByFieldName("parameters"))
			if i < len(params) {
				p := params[i]
				if p.Type() == "default_parameter" || p.Type() == "typed_default_parameter" {
					p = p.ChildByFieldName("name")
				}
				if p != nil && setsPad(fn, p.Content(text)) {
					return c.Node
				}
			}
		}
	}
	pad, padID := name+".pad_token", name+".pad_token_id"
	for _, a := range f.Assigns {
		if a.Func == scope && int(a.Node.StartByte()) >= offset && (a.Text == pad || a.Text == padID) && trainingBefore(f, int(a.Node.StartByte())) == nil {
			return a.Node
		}
	}
	return nil
}

// wholeText parses text and builds its file model, for the checks over a
// whole text (UnsafeReads, KeywordUses); done releases the parse.
func wholeText(text []byte) (f *semantic.Facts, done func(), err error) {
	tree, err := parse(text, 0)
	if err != nil {
		return nil, nil, err
	}
	q, err := semantic.LoadQueries()
	if err != nil {
		tree.Close()
		return nil, nil, err
	}
	src := semantic.NewSource(text)
	pt := goTree(tree)
	src.Root = pt.Root()
	return semantic.BuildFacts(src, pt, q), func() { tree.Close() }, nil
}
