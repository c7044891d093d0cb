package rewrite

import (
	"bytes"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/loratune/loratune-fix/treewalk"
)

// Questions about the syntax tree that any rule may ask.

// within reports whether inner lies inside outer.
func within(inner, outer *sitter.Node) bool {
	return inner.StartByte() >= outer.StartByte() && inner.EndByte() <= outer.EndByte()
}

// identifiers lists the identifier nodes under n that name a variable
// spelled name (not an attribute's or a keyword argument's name).
func identifiers(n *sitter.Node, name string, text []byte) []*sitter.Node {
	var out []*sitter.Node
	var walk func(*sitter.Node)
	walk = func(c *sitter.Node) {
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
		for _, ch := range namedChildren(c) {
			walk(ch)
		}
	}
	walk(n)
	return out
}

// importedNames finds "from <module>[.x] import name [as alias]" anywhere in
// the file and returns the name nodes.
func importedNames(f *Facts, module, name string) []*sitter.Node {
	text := f.Src.Text
	if !bytes.Contains(text, []byte(name)) {
		return nil // the walk below costs a cgo call per node
	}
	var out []*sitter.Node
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		if n.Type() == "import_from_statement" {
			mod := n.ChildByFieldName("module_name")
			if mod != nil && (mod.Content(text) == module || strings.HasPrefix(mod.Content(text), module+".")) {
				for _, c := range namedChildren(n) {
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
		for _, ch := range namedChildren(n) {
			walk(ch)
		}
	}
	walk(f.Root)
	return out
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

// namedChildren lists n's named children and children all of them,
// through package treewalk's cursor walk: every loop over a node's
// children goes through one of them (TestNoIndexedChildWalks).
func namedChildren(n *sitter.Node) []*sitter.Node { return treewalk.NamedChildren(n) }

func children(n *sitter.Node) []*sitter.Node { return treewalk.Children(n) }
