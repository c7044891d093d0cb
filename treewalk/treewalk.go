// Package treewalk lists a tree-sitter node's children through a pooled
// cursor. NamedChild(i) and Child(i) walk from the first child each time,
// so a loop over them is quadratic in the number of children (a script of
// 20,000 top-level comments took 50 s); a cursor steps from one child to
// the next in constant time. Every loop over a go-tree-sitter node's
// children (the launch-config readers', and the engine's few reads of
// tree-sitter's own tree) goes through here; the engine's analyses read
// the Go copy of package syntree.
package treewalk

import (
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

// cursors are reused tree cursors: one costs a C allocation and a
// finalizer to make.
var cursors = sync.Pool{}

// NamedChildren lists n's named children (comments included, as
// NamedChild counts them).
func NamedChildren(n *sitter.Node) []*sitter.Node {
	var out []*sitter.Node
	walk(n, func(c *sitter.TreeCursor) {
		if ch := c.CurrentNode(); ch.IsNamed() {
			out = append(out, ch)
		}
	})
	return out
}

// Field is a child and the name of the field it fills ("" for none).
type Field struct {
	Name string
	Node *sitter.Node
}

// Fields lists all of n's children with their field names.
func Fields(n *sitter.Node) []Field {
	var out []Field
	walk(n, func(c *sitter.TreeCursor) { out = append(out, Field{c.CurrentFieldName(), c.CurrentNode()}) })
	return out
}

func walk(n *sitter.Node, yield func(*sitter.TreeCursor)) {
	if n == nil || n.ChildCount() == 0 {
		return
	}
	c, _ := cursors.Get().(*sitter.TreeCursor)
	if c == nil {
		c = sitter.NewTreeCursor(n)
	} else {
		c.Reset(n)
	}
	defer cursors.Put(c)
	for ok := c.GoToFirstChild(); ok; ok = c.GoToNextSibling() {
		yield(c)
	}
}
