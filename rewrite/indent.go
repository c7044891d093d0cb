package rewrite

import (
	"time"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/loratune/loratune-fix/syntree"
	"github.com/loratune/loratune-fix/treewalk"
)

// Tree-sitter's Python grammar accepts a statement indented deeper than
// its neighbours as one more statement of their block (no ERROR node),
// where CPython says "unexpected indent". Two insertions at the end of a
// branch can make exactly that, so the verifying parse also checks that the
// statements of each block it looks at start at one column.

// indentNode is what the indentation check reads of a node: the Go copy
// of a tree (syntree), which the binding guard builds for the output
// anyway, or tree-sitter's own, read directly where one fix at a time is
// tried and a Go copy of the whole file per try would cost more than the
// few blocks looked at.
type indentNode[N any] interface {
	comparable
	Type() string
	StartByte() uint32
	EndByte() uint32
	StartPoint() sitter.Point
	Parent() N
}

// indentReader reads a tree for the check: the smallest named node over
// a byte range, and a node's named children.
type indentReader[N indentNode[N]] struct {
	text       []byte
	descendant func(from, to uint32) N
	children   func(N) []N
}

// goTreeIndent reads the Go copy of a tree.
func goTreeIndent(root *syntree.Node, text []byte) indentReader[*syntree.Node] {
	return indentReader[*syntree.Node]{text, root.NamedDescendantForByteRange, (*syntree.Node).NamedChildren}
}

// cTreeIndent reads tree-sitter's tree through cgo.
func cTreeIndent(root *sitter.Node, text []byte) indentReader[*sitter.Node] {
	return indentReader[*sitter.Node]{text, func(from, to uint32) *sitter.Node {
		return root.NamedDescendantForPointRange(pointOf(text, int(from)), pointOf(text, int(to)))
	}, treewalk.NamedChildren}
}

// misindentedNear reports a block touched by the new text of edits (made
// text from the text before them), or lying inside it, whose statements do
// not share one indentation.
func misindentedNear[N indentNode[N]](r indentReader[N], edits []Edit) bool {
	var none N
	for _, sp := range outputSpans(edits) {
		from, to := uint32(sp.start), uint32(sp.start+len(sp.text))
		n := r.descendant(from, to)
		for n != none && n.Type() != "block" && n.Type() != "module" {
			n = n.Parent()
		}
		if n != none && r.misindentedWithin(n, from, to, true) {
			return true
		}
	}
	return false
}

// misindentedWithin checks block n (when check) and the blocks under it
// that overlap [from, to].
func (r indentReader[N]) misindentedWithin(n N, from, to uint32, check bool) bool {
	kids := r.children(n)
	if check && !evenlyIndented(kids, r.text) {
		return true
	}
	for _, c := range kids {
		if c.EndByte() < from || c.StartByte() > to {
			continue
		}
		if r.misindentedWithin(c, from, to, c.Type() == "block") {
			return true
		}
	}
	return false
}

// outputParses is the verifying parse of text, which edits made of
// before (parsed as tree, or nil): no ERROR or MISSING node, and the
// blocks the edits touch evenly indented. The parse reuses what the edits
// left of tree; only a failure is confirmed from scratch. whole says the
// parse is the pass's output, whose Go copy the binding guard reads next.
// It returns the parse, or nil.
func outputParses(before []byte, tree *parsed, text []byte, edits []Edit, limit time.Duration, whole bool) *parsed {
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
	p := &parsed{ts: ts}
	if whole {
		// The binding guard reads the Go copy of the output next. It
		// takes what the parse reused from the copy of the input.
		if tree != nil && tree.gt != nil {
			p.gt = syntree.NewReusing(ts, pythonNames, tree.gt)
		}
		if misindentedNear(goTreeIndent(p.goTree().Root(), text), edits) {
			p.Close()
			return nil
		}
	} else if misindentedNear(cTreeIndent(ts.RootNode(), text), edits) {
		p.Close()
		return nil
	}
	return p
}

// evenlyIndented reports whether the statements of a block that begin
// their line all begin at the same column (comments may sit anywhere).
func evenlyIndented[N indentNode[N]](stmts []N, text []byte) bool {
	col := -1
	for _, st := range stmts {
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
