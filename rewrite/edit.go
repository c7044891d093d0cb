package rewrite

import (
	"fmt"
	"sort"
)

// conflicts reports whether two fixes cannot be applied in the same pass:
// an edit of one replaces bytes that an edit of the other touches, or both
// claim one place (unless both add an item to the claimed list, under
// different keys: those are rendered together). Two pure insertions at the
// same offset do not conflict; they keep rule order.
func conflicts(a, b *Fix) bool {
	if a.Claim != "" && a.Claim == b.Claim && (a.Adds == nil || b.Adds == nil || a.Adds.Key() == b.Adds.Key()) {
		return true
	}
	for _, x := range a.Edits {
		for _, y := range b.Edits {
			if x.Start == x.End && y.Start == y.End {
				continue
			}
			if x.Start < y.End && y.Start < x.End {
				return true
			}
			// An insertion strictly inside a replaced range conflicts too.
			if x.Start == x.End && y.Start < x.Start && x.Start < y.End {
				return true
			}
			if y.Start == y.End && x.Start < y.Start && y.Start < x.End {
				return true
			}
		}
	}
	return false
}

// inOrder returns edits in the order applyEdits applies them: by start;
// at one place an insertion before a replacement, otherwise as given.
func inOrder(edits []Edit) []Edit {
	es := append([]Edit(nil), edits...)
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].Start != es[j].Start {
			return es[i].Start < es[j].Start
		}
		return es[i].End-es[i].Start < es[j].End-es[j].Start && es[i].Start == es[i].End
	})
	return es
}

// applyEdits applies non-overlapping edits to text. Edits at the same
// offset keep the order they were given in.
func applyEdits(text []byte, edits []Edit) ([]byte, error) {
	es := inOrder(edits)
	out := make([]byte, 0, len(text)+256)
	last := 0
	for _, e := range es {
		if e.Start < last || e.End < e.Start || e.End > len(text) {
			return nil, fmt.Errorf("edit %d..%d overlaps or lies outside the text", e.Start, e.End)
		}
		out = append(out, text[last:e.Start]...)
		out = append(out, e.NewText...)
		last = e.End
	}
	return append(out, text[last:]...), nil
}

// Key is the keyword or dict key the added item sets (Fix.Adds).
func (a *listAdd) Key() string { return a.key }

// additionOf is the list addition fx makes, or nil.
func additionOf(fx *Fix) *listAdd {
	a, _ := fx.Adds.(*listAdd)
	return a
}
