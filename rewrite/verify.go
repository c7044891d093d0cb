package rewrite

import (
	"bytes"
	"strings"
	"time"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/loratune/loratune-fix/finding"
)

// applyVerified applies the chosen fixes together and keeps the result if it
// parses (fe.Verify); otherwise it adds them one at a time, dropping each
// that breaks the parse alone. Every attempt applies edits to the original
// text: offsets are the original's, and a fix applied first (an import at
// the top) would shift the places of the others. It returns the text, the
// edits applied, the fixes dropped and, when all applied together, the
// text's parse.
func applyVerified[P comparable](fe FrontEnd[P], text []byte, tree P, chosen []*Finding) ([]byte, []Edit, []*Finding, P) {
	var none P
	var all []Edit
	for _, c := range chosen {
		all = append(all, c.Fix.Edits...)
	}
	if out, err := finding.ApplyEdits(text, all); err == nil {
		if p := fe.Verify(text, tree, out, all, true); p != none {
			return out, all, nil, p
		}
	}
	parses := func(out []byte, edits []Edit) bool {
		p := fe.Verify(text, tree, out, edits, false)
		if p != none {
			fe.Close(p)
		}
		return p != none
	}
	var dropped []*Finding
	var kept []Edit
	cur := text
	for _, c := range chosen {
		edits := append(append([]Edit(nil), kept...), c.Fix.Edits...)
		out, err := finding.ApplyEdits(text, edits)
		if err == nil && parses(out, edits) {
			kept, cur = edits, out
			continue
		}
		// A fix that parses alone only clashed with another (two keywords
		// inserted at one place): it waits for the next pass, recomputed
		// on the new text. One that breaks the parse alone is dropped.
		if alone, err := finding.ApplyEdits(text, c.Fix.Edits); err != nil || !parses(alone, c.Fix.Edits) {
			dropped = append(dropped, c)
		}
	}
	return cur, kept, dropped, none
}

// verified is the parse of text when it has no ERROR or MISSING node,
// else nil. old, when not nil, is the tree of the text
// before the edits that made text, edited to match (see edited); the
// parse reuses what the edits left alone, and closes old.
func verified(text []byte, old *sitter.Tree, limit time.Duration) *sitter.Tree {
	tree, err := reparse(old, text, limit)
	if old != nil {
		old.Close()
	}
	if err != nil {
		return nil
	}
	if tree.RootNode().HasError() {
		tree.Close()
		return nil
	}
	return tree
}

// edited returns a copy of tree, the parse of text, told of edits (as
// applyEdits applies them) so that a parse of the edited text can reuse
// the subtrees they leave alone: tree-sitter's incremental parsing gives
// the tree a parse from scratch gives, for a fraction of the work.
func edited(tree *sitter.Tree, text []byte, edits []Edit) *sitter.Tree {
	if tree == nil {
		return nil
	}
	cp := tree.Copy()
	// The edits in the order they were applied, told from the last to the
	// first, so that each one's offsets and points in text still hold when
	// it is told (an insertion and a replacement at one place included).
	es := finding.InOrder(edits)
	for i := len(es) - 1; i >= 0; i-- {
		e := es[i]
		at := pointOf(text, e.Start)
		cp.Edit(sitter.EditInput{
			StartIndex:  uint32(e.Start),
			OldEndIndex: uint32(e.End),
			NewEndIndex: uint32(e.Start + len(e.NewText)),
			StartPoint:  at,
			OldEndPoint: pointOf(text, e.End),
			NewEndPoint: advance(at, e.NewText),
		})
	}
	return cp
}

// pointOf is the row and byte column of offset in text, as tree-sitter
// counts them.
func pointOf(text []byte, offset int) sitter.Point {
	line := bytes.LastIndexByte(text[:offset], '\n') + 1
	return sitter.Point{Row: uint32(bytes.Count(text[:offset], []byte("\n"))), Column: uint32(offset - line)}
}

// advance is the point after s, written from p.
func advance(p sitter.Point, s string) sitter.Point {
	if n := strings.Count(s, "\n"); n > 0 {
		return sitter.Point{Row: p.Row + uint32(n), Column: uint32(len(s) - strings.LastIndexByte(s, '\n') - 1)}
	}
	return sitter.Point{Row: p.Row, Column: p.Column + uint32(len(s))}
}
