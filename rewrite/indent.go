package rewrite

import (
	"time"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/loratune/loratune-fix/treewalk"
)

// Tree-sitter's Python grammar accepts a statement indented deeper than
// its neighbours as one more statement of their block (no ERROR node),
// where CPython says "unexpected indent". Two insertions at the end of a
// branch can make exactly that, so the verifying parse also checks that the
// statements of each block it looks at start at one column.

// misindentedNear reports a block touched by the new text of edits (made
// text from the text before them), or lying inside it, whose statements do
// not share one indentation. It reads tree-sitter's tree directly: a few
// blocks, not the whole tree, so that a file whose fixes are tried one at
// a time is not copied into Go once per try.
func misindentedNear(root *sitter.Node, text []byte, edits []Edit) bool {
	for _, sp := range outputSpans(edits) {
		from, to := uint32(sp.start), uint32(sp.start+len(sp.text))
		n := root.NamedDescendantForPointRange(pointOf(text, sp.start), pointOf(text, sp.start+len(sp.text)))
		for n != nil && n.Type() != "block" && n.Type() != "module" {
			n = n.Parent()
		}
		if n != nil && misindentedWithin(n, text, from, to, true) {
			return true
		}
	}
	return false
}

// misindentedWithin checks block n (when check) and the blocks under it
// that overlap [from, to].
func misindentedWithin(n *sitter.Node, text []byte, from, to uint32, check bool) bool {
	if check && !evenlyIndented(n, text) {
		return true
	}
	for _, c := range treewalk.NamedChildren(n) {
		if c.EndByte() < from || c.StartByte() > to {
			continue
		}
		if misindentedWithin(c, text, from, to, c.Type() == "block") {
			return true
		}
	}
	return false
}

// outputParses is the verifying parse of text, which edits made of
// before (parsed as tree, or nil): no ERROR or MISSING node, and the
// blocks the edits touch evenly indented. The parse reuses what the edits
// left of tree; only a failure is confirmed from scratch. It returns the
// parse, or nil.
func outputParses(before []byte, tree *parsed, text []byte, edits []Edit, limit time.Duration) *parsed {
	var old *sitter.Tree
	if tree != nil {
		old = edited(tree.ts, before, edits)
	}
	ts := verified(text, old, limit)
	if ts == nil && old != nil {
		// The incremental parse can see an error that a parse from
		// scratch does not (tree-sitter's recovery differs); the parse
		// from scratch is the verdict, as for the text a later run reads.
		ts = verified(text, nil, limit)
	}
	if ts == nil {
		return nil
	}
	if misindentedNear(ts.RootNode(), text, edits) {
		ts.Close()
		return nil
	}
	return &parsed{ts: ts}
}

// evenlyIndented reports whether the statements of block that begin their
// line all begin at the same column (comments may sit anywhere).
func evenlyIndented(block *sitter.Node, text []byte) bool {
	col := -1
	for _, st := range treewalk.NamedChildren(block) {
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
