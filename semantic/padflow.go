package semantic

import (
	"regexp"
	"strings"

	"github.com/loratune/loratune-fix/syntree"
)

// The little flow LTF004 needs, kept in one file so that the program
// model of issue 11 can replace it: which tokenizer belongs to the trained
// load, and whether a name is bound on every path after a statement.

// PadTokenizer is the tokenizer of the trained model.
type PadTokenizer struct {
	Name string        // the name it is bound to, "tokenizer"
	Stmt *syntree.Node // the statement that binds it
	Call *syntree.Node // the from_pretrained call (in a factory: the factory's call)
	// Factory: the same-file function that builds and returns it
	// (def load_tokenizer(): ...; return tok), or nil.
	Factory *Func
	// Inner is the factory's own name for it ("tok").
	Inner string
}

var tokenizerAuxName = regexp.MustCompile(`(?i)(^|[._])(ref|reference|reward|teacher|embed\w*|judge|retriever|encoder)_?(tok|tokenizer)$`)

// IsTokenizerLoad reports X.from_pretrained(...) with a tokenizer class.
func (f *Facts) IsTokenizerLoad(n *syntree.Node) bool {
	callee := f.CalleeOf(n)
	return strings.HasSuffix(callee, ".from_pretrained") && strings.Contains(callee, "Tokenizer")
}

// tokenizerFactories maps the name of each function of the file that loads
// a tokenizer and returns it to that function and its local name.
func (f *Facts) tokenizerFactories() map[string]PadTokenizer {
	out := map[string]PadTokenizer{}
	text := f.Src.Text
	inner := map[*Func]*Assign{} // each function's last tokenizer load
	for _, a := range f.Assigns {
		if a.Func != f.Module && f.IsTokenizerLoad(a.Value) {
			inner[a.Func] = a
		}
	}
	for fn, a := range inner {
		returned := false
		WalkNodes(fn.Body, func(n *syntree.Node) bool {
			if n.Type() == "function_definition" || n.Type() == "class_definition" {
				return false
			}
			if n.Type() == "return_statement" && n.NamedChildCount() == 1 && n.NamedChild(0).Content(text) == a.Text {
				returned = true
			}
			return true
		})
		if returned {
			out[fn.Name] = PadTokenizer{Factory: fn, Inner: a.Text, Call: a.Value}
		}
	}
	return out
}

// WalkNodes visits n and its named descendants, pre-order; visit returns
// false to skip a node's children.
func WalkNodes(n *syntree.Node, visit func(*syntree.Node) bool) {
	if n == nil || !visit(n) {
		return
	}
	for _, c := range n.NamedChildren() {
		WalkNodes(c, visit)
	}
}

// TrainedTokenizer is the tokenizer that belongs to the trained load:
// TokenizerFor's answer (the one handed to the trainer with the model,
// else one of the same model id, else the only one beside it), unless it
// is created once training has started (at or after before: a reload for
// generation). Failing that, a tokenizer built by a factory function of the
// file (tokenizer = load_tokenizer(...)), created before training in the
// load's scope or at module level. reason says why none was chosen where
// several were possible.
func (f *Facts) TrainedTokenizer(load *Load, before *syntree.Node) (*PadTokenizer, string) {
	text := f.Src.Text
	late := func(n *syntree.Node) bool {
		return before != nil && f.ScopeOf(n) == load.Func && n.StartByte() >= before.StartByte()
	}
	a, why := f.TokenizerFor(load)
	if a != nil && !late(a.Node) && !strings.ContainsAny(a.Text, "[(") {
		if stmt := Statement(a.Node); stmt != nil && stmt.Type() == "expression_statement" {
			return &PadTokenizer{Name: a.Text, Stmt: stmt, Call: a.Value}, ""
		}
	}
	factories := f.tokenizerFactories()
	var found *PadTokenizer
	for _, a := range f.Assigns {
		if a.Func != load.Func && a.Func != f.Module || a.Value.Type() != "call" || late(a.Node) || strings.ContainsAny(a.Text, "[(") {
			continue
		}
		fac, ok := factories[DottedName(a.Value.ChildByFieldName("function"), text)]
		if !ok || fac.Factory == a.Func || tokenizerAuxName.MatchString(a.Text) {
			continue
		}
		// The statement (a climb of Parent() calls) only for a candidate.
		stmt := Statement(a.Node)
		if stmt == nil || stmt.Type() != "expression_statement" {
			continue
		}
		if found != nil && found.Name != a.Text {
			return nil, "several tokenizers are built here and none is loaded from the trained model's id"
		}
		fac.Name, fac.Stmt = a.Text, stmt
		found = &fac
	}
	if found != nil {
		return found, ""
	}
	if strings.HasPrefix(why, "several") {
		return nil, why
	}
	return nil, ""
}
