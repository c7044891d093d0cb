package semantic

import (
	"bytes"
	"strings"

	"github.com/loratune/loratune-fix/syntree"
)

// Questions about the syntax tree that any rule may ask.

// Within reports whether inner lies inside outer.
func Within(inner, outer *syntree.Node) bool {
	return inner.StartByte() >= outer.StartByte() && inner.EndByte() <= outer.EndByte()
}

// Identifiers lists the identifier nodes under n that name a variable
// spelled name (not an attribute's or a keyword argument's name).
func Identifiers(n *syntree.Node, name string, text []byte) []*syntree.Node {
	var out []*syntree.Node
	var walk func(*syntree.Node)
	walk = func(c *syntree.Node) {
		if c.Type() == "identifier" {
			if c.Content(text) == name {
				out = append(out, c)
			}
			return
		}
		switch c.Type() {
		case "attribute":
			// x.name reads x, not a variable called name.
			if obj := c.ChildByFieldName("object"); obj != nil {
				walk(obj)
			}
			return
		case "keyword_argument":
			// f(name=x): name is the parameter's, not a variable.
			if v := c.ChildByFieldName("value"); v != nil {
				walk(v)
			}
			return
		}
		for _, ch := range c.NamedChildren() {
			walk(ch)
		}
	}
	walk(n)
	return out
}

// ImportedNames finds "from <module>[.x] import name [as alias]" anywhere in
// the file and returns the name nodes.
func ImportedNames(f *Facts, module, name string) []*syntree.Node {
	text := f.Src.Text
	if !bytes.Contains(text, []byte(name)) {
		return nil // the walk below costs a cgo call per node
	}
	var out []*syntree.Node
	var walk func(n *syntree.Node)
	walk = func(n *syntree.Node) {
		if n.Type() == "import_from_statement" {
			mod := n.ChildByFieldName("module_name")
			if mod != nil && (mod.Content(text) == module || strings.HasPrefix(mod.Content(text), module+".")) {
				for _, c := range n.NamedChildren() {
					if c.Equal(mod) {
						continue
					}
					if c.Type() == "aliased_import" {
						c = c.ChildByFieldName("name")
					}
					if c != nil && c.Content(text) == name {
						out = append(out, c)
					}
				}
			}
			return
		}
		for _, ch := range n.NamedChildren() {
			walk(ch)
		}
	}
	walk(f.Root)
	return out
}

// ContainsWord reports word in text between word boundaries (as the
// regular expression \bword\b, for a word of identifier bytes).
func ContainsWord(text []byte, word string) bool {
	for at := 0; at < len(text); {
		i := bytes.Index(text[at:], []byte(word))
		if i < 0 {
			return false
		}
		start, end := at+i, at+i+len(word)
		if (start == 0 || !IsWordByte(text[start-1])) && (end == len(text) || !IsWordByte(text[end])) {
			return true
		}
		at = start + 1
	}
	return false
}

// RealArgs are the arguments of an argument_list, comments left out.
func RealArgs(args *syntree.Node) []*syntree.Node { return NamedNoComments(args) }
