package rewrite

import (
	"github.com/loratune/loratune-fix/syntree"
)

// Tree-sitter's Python grammar accepts a statement indented deeper than
// its neighbours as one more statement of their block (no ERROR node),
// where CPython says "unexpected indent". Two insertions at the end of a
// branch can make exactly that, so the verifying parse also checks that the
// statements of each block it looks at start at one column.

// misindentedIn reports a block touched by the new text of edits (made
// text from the text before them) whose statements do not share one
// indentation.
func misindentedIn(root *syntree.Node, text []byte, edits []Edit) bool {
	for _, sp := range outputSpans(edits) {
		n := root.NamedDescendantForByteRange(uint32(sp.start), uint32(sp.start+len(sp.text)))
		for n != nil && n.Type() != "block" && n.Type() != "module" {
			n = n.Parent()
		}
		if n != nil && !evenlyIndented(n, text) {
			return true
		}
	}
	return false
}

// parsesAsOutput is the verifying parse of a text built by fixes, from
// scratch: no ERROR or MISSING node, and every block evenly indented.
func parsesAsOutput(text []byte) bool {
	tree, err := parse(text, 0)
	if err != nil {
		return false
	}
	defer tree.Close()
	return !tree.RootNode().HasError() && !misindented(goTree(tree).Root(), text)
}

// misindented reports any block of the tree whose statements do not share
// one indentation.
func misindented(n *syntree.Node, text []byte) bool {
	if (n.Type() == "block" || n.Type() == "module") && !evenlyIndented(n, text) {
		return true
	}
	for _, c := range n.Children() {
		if misindented(c, text) {
			return true
		}
	}
	return false
}

// evenlyIndented reports whether the statements of block that begin their
// line all begin at the same column (comments may sit anywhere).
func evenlyIndented(block *syntree.Node, text []byte) bool {
	col := -1
	for _, st := range block.NamedChildren() {
		if st.Type() == "comment" || !startsLine(text, int(st.StartByte())) {
			continue
		}
		c := int(st.StartPoint().Column)
		if col < 0 {
			col = c
		} else if c != col {
			return false
		}
	}
	return true
}

// startsLine reports only blanks between the line's start and at.
func startsLine(text []byte, at int) bool {
	for i := at - 1; i >= 0 && text[i] != '\n'; i-- {
		if text[i] != ' ' && text[i] != '\t' && text[i] != '\f' {
			return false
		}
	}
	return true
}
