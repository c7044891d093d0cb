package rewrite

import (
	"regexp"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// The little flow LTF004 needs, kept in one file so that the program
// model of issue 11 can replace it: which tokenizer belongs to the trained
// load, and whether a name is bound on every path after a statement.

// padTokenizer is the tokenizer of the trained model.
type padTokenizer struct {
	Name string       // the name it is bound to, "tokenizer"
	Stmt *sitter.Node // the statement that binds it
	Call *sitter.Node // the from_pretrained call (in a factory: the factory's call)
	// Factory: the same-file function that builds and returns it
	// (def load_tokenizer(): ...; return tok), or nil.
	Factory *Func
	// Inner is the factory's own name for it ("tok").
	Inner string
}

var tokenizerAuxName = regexp.MustCompile(`(?i)(^|[._])(ref|reference|reward|teacher|embed\w*|judge|retriever|encoder)_?(tok|tokenizer)$`)

// isTokenizerLoad reports X.from_pretrained(...) with a tokenizer class.
func isTokenizerLoad(n *sitter.Node, text []byte) bool {
	if n == nil || n.Type() != "call" {
		return false
	}
	callee := dottedName(n.ChildByFieldName("function"), text)
	return strings.HasSuffix(callee, ".from_pretrained") && strings.Contains(callee, "Tokenizer")
}

// tokenizerFactories maps the name of each function of the file that loads
// a tokenizer and returns it to that function and its local name.
func (f *Facts) tokenizerFactories() map[string]padTokenizer {
	out := map[string]padTokenizer{}
	text := f.Src.Text
	for _, fn := range f.Funcs {
		var inner *Assign
		for _, a := range f.Assigns {
			if a.Func == fn && isTokenizerLoad(a.Value, text) {
				inner = a
			}
		}
		if inner == nil {
			continue
		}
		returned := false
		walkNodes(fn.Body, func(n *sitter.Node) bool {
			if n.Type() == "function_definition" || n.Type() == "class_definition" {
				return false
			}
			if n.Type() == "return_statement" && n.NamedChildCount() == 1 && n.NamedChild(0).Content(text) == inner.Text {
				returned = true
			}
			return true
		})
		if returned {
			out[fn.Name] = padTokenizer{Factory: fn, Inner: inner.Text, Call: inner.Value}
		}
	}
	return out
}

// walkNodes visits n and its named descendants, pre-order; visit returns
// false to skip a node's children.
func walkNodes(n *sitter.Node, visit func(*sitter.Node) bool) {
	if n == nil || !visit(n) {
		return
	}
	for _, ch := range namedChildren(n) {
		walkNodes(ch, visit)
	}
}

// modelIDArg is the first positional argument of a from_pretrained call, or
// its pretrained_model_name_or_path keyword.
func modelIDArg(call *sitter.Node, text []byte) *sitter.Node {
	args := call.ChildByFieldName("arguments")
	if args == nil {
		return nil
	}
	if v := KeywordValue(args, "pretrained_model_name_or_path", text); v != nil {
		return v
	}
	if ra := realArgs(args); len(ra) > 0 && ra[0].Type() != "keyword_argument" {
		return ra[0]
	}
	return nil
}

// trainedTokenizer finds the tokenizer that belongs to the trained load:
// created in the load's scope or at module level (directly, or by a
// factory function of the file), from the same model id. A tokenizer of
// another model (a different literal id, or named for an embedding,
// reward or reference model) is never taken. reason says why none was
// chosen when several were possible.
func (f *Facts) trainedTokenizer(load *Load) (*padTokenizer, string) {
	text := f.Src.Text
	factories := f.tokenizerFactories()
	var cands []*padTokenizer
	for _, a := range f.Assigns {
		if a.Func != load.Func && a.Func != f.module || strings.ContainsAny(a.Text, "[(") {
			continue
		}
		// The statement (a climb of Parent() calls, each a walk from the
		// root) only for an assignment that is a candidate.
		wholeStatement := func() *sitter.Node {
			if stmt := Statement(a.Node); stmt != nil && stmt.Type() == "expression_statement" {
				return stmt
			}
			return nil
		}
		if isTokenizerLoad(a.Value, text) {
			if stmt := wholeStatement(); stmt != nil {
				cands = append(cands, &padTokenizer{Name: a.Text, Stmt: stmt, Call: a.Value})
			}
			continue
		}
		if a.Value.Type() == "call" {
			callee := dottedName(a.Value.ChildByFieldName("function"), text)
			if fac, ok := factories[callee]; ok && fac.Factory != a.Func {
				if stmt := wholeStatement(); stmt != nil {
					fac.Name, fac.Stmt = a.Text, stmt
					cands = append(cands, &fac)
				}
			}
		}
	}
	// A tokenizer of another model (its literal id differs from the load's,
	// or its name says so) is left out; one of the model's own id wins.
	var mine []*padTokenizer
	var same *padTokenizer
	for _, t := range cands {
		if tokenizerAuxName.MatchString(t.Name) {
			continue
		}
		if t.Factory == nil {
			arg := modelIDArg(t.Call, text)
			id, known := f.ValueOf(arg)
			if known && load.IDKnown && id != load.ModelID {
				continue
			}
			if arg != nil && (known && load.IDKnown || compact(arg.Content(text)) == compact(loadIDText(load, text))) {
				same = t
			}
		}
		mine = append(mine, t)
	}
	if same != nil {
		return same, ""
	}
	names := map[string]bool{}
	for _, t := range mine {
		names[t.Name] = true
	}
	switch len(names) {
	case 0:
		return nil, ""
	case 1:
		return mine[len(mine)-1], ""
	}
	return nil, "several tokenizers are created and none is loaded from the trained model's id"
}

// loadIDText is the model id argument of the load as written, or "".
func loadIDText(load *Load, text []byte) string {
	if arg := modelIDArg(load.Node, text); arg != nil {
		return arg.Content(text)
	}
	return ""
}

// bindsOnEveryPath reports whether statement stmt, once it completes
// normally, has bound name on every path through it: an assignment to the
// name, or an if/elif/else, try or with whose every branch binds it (a
// branch that returns or raises does not complete, so it counts).
func bindsOnEveryPath(stmt *sitter.Node, name string, text []byte) bool {
	switch stmt.Type() {
	case "expression_statement":
		for _, c := range namedChildren(stmt) {
			for c != nil && c.Type() == "assignment" {
				if l := c.ChildByFieldName("left"); l != nil && targetBinds(l, name, text) {
					return true
				}
				c = c.ChildByFieldName("right")
			}
		}
		return false
	case "return_statement", "raise_statement":
		return true
	case "if_statement":
		// Without an else, the path where no condition holds binds nothing.
		if !blockBinds(stmt.ChildByFieldName("consequence"), name, text) {
			return false
		}
		hasElse := false
		for _, c := range namedChildren(stmt) {
			switch c.Type() {
			case "elif_clause":
				if !blockBinds(c.ChildByFieldName("consequence"), name, text) {
					return false
				}
			case "else_clause":
				hasElse = true
				if !blockBinds(c.ChildByFieldName("body"), name, text) {
					return false
				}
			}
		}
		return hasElse
	case "with_statement":
		return blockBinds(stmt.ChildByFieldName("body"), name, text)
	case "try_statement":
		if !blockBinds(stmt.ChildByFieldName("body"), name, text) {
			return false
		}
		for _, c := range namedChildren(stmt) {
			if c.Type() == "except_clause" {
				var body *sitter.Node
				for _, cc := range namedChildren(c) {
					if cc.Type() == "block" {
						body = cc
					}
				}
				if !blockBinds(body, name, text) {
					return false
				}
			}
		}
		return true
	}
	return false
}

func targetBinds(l *sitter.Node, name string, text []byte) bool {
	switch l.Type() {
	case "pattern_list", "tuple_pattern", "list_pattern":
		for _, ch := range namedChildren(l) {
			if targetBinds(ch, name, text) {
				return true
			}
		}
		return false
	}
	return compact(l.Content(text)) == name
}

// blockBinds: some statement of block binds name on every path, and no
// earlier statement of it deletes the name.
func blockBinds(block *sitter.Node, name string, text []byte) bool {
	if block == nil {
		return false
	}
	for _, s := range namedChildren(block) {
		if s.Type() == "delete_statement" && containsWord([]byte(s.Content(text)), name) {
			return false
		}
		if bindsOnEveryPath(s, name, text) {
			return true
		}
	}
	return false
}
