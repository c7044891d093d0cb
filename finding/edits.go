package finding

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Conflicts reports whether two fixes cannot be applied in the same pass:
// an edit of one replaces bytes that an edit of the other touches, both
// insert the same text at one place (the import they both need: the
// second, recomputed on the next pass, finds it there), or both claim one
// place (unless both are additions to the claimed list that compose, under
// different keys). Other insertions at one offset keep rule order when
// their lines start at one indentation. Whole lines at different
// indentations go deepest first (InOrder): a line for the end of a branch
// before a block for the statement after the branch, the only order that
// parses. Insertions at one offset that start at different indentations
// otherwise (within a line, or tabs against spaces) conflict: which goes
// first decides where each lands, so the second waits for the next pass,
// placed on the new text. So the edits of the fixes applied in one pass,
// put together, are exactly what the pass changes.
func Conflicts(a, b *Fix) bool {
	sameList := a.Claim != "" && a.Claim == b.Claim
	if sameList && (a.Adds == nil || b.Adds == nil || a.Adds.Key() == b.Adds.Key()) {
		return true
	}
	for _, x := range a.Edits {
		for _, y := range b.Edits {
			if x.Start == x.End && y.Start == y.End {
				if x == y || x.Start == y.Start && !sameList && indentOf(x.NewText) != indentOf(y.NewText) && !nestedLines(x.NewText, y.NewText) {
					return true
				}
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

// InOrder returns edits in the order ApplyEdits applies them: by start; at
// one offset an insertion before a replacement, otherwise as given (so
// insertions at one offset keep the order of the fixes that make them),
// except that insertions at one offset that are all whole lines go
// deepest indented first (see Conflicts).
func InOrder(edits []Edit) []Edit {
	es := append([]Edit(nil), edits...)
	// (slices' sort, not sort.SliceStable's: no reflection and no
	// allocation, and the same order, both being stable.)
	slices.SortStableFunc(es, func(a, b Edit) int {
		if a.Start != b.Start {
			return cmp.Compare(a.Start, b.Start)
		}
		return cmp.Compare(replaces(a), replaces(b)) // an insertion first
	})
	for i := 0; i < len(es); {
		j := i + 1
		for j < len(es) && es[j].Start == es[i].Start && es[j].End == es[j].Start {
			j++
		}
		if run := es[i:j]; len(run) > 1 && run[0].End == run[0].Start && allWholeLines(run) {
			slices.SortStableFunc(run, func(a, b Edit) int {
				return cmp.Compare(len(indentOf(b.NewText)), len(indentOf(a.NewText))) // deepest first
			})
		}
		i = j
	}
	return es
}

// replaces is 1 for an edit that replaces bytes, 0 for an insertion.
func replaces(e Edit) int {
	if e.Start == e.End {
		return 0
	}
	return 1
}

// wholeLines reports text that inserts whole lines: it ends a line and
// does not open with a line break.
func wholeLines(text string) bool {
	return strings.HasSuffix(text, "\n") && text[0] != '\n' && text[0] != '\r'
}

func allWholeLines(edits []Edit) bool {
	for _, e := range edits {
		if !wholeLines(e.NewText) {
			return false
		}
	}
	return true
}

// nestedLines reports two insertions of whole lines whose indentations
// nest (one is a prefix of the other), so that InOrder can put the deeper
// first.
func nestedLines(a, b string) bool {
	ia, ib := indentOf(a), indentOf(b)
	return wholeLines(a) && wholeLines(b) && (strings.HasPrefix(ia, ib) || strings.HasPrefix(ib, ia))
}

// Overlapping reports whether edits cannot be applied together: two of
// them overlap (an insertion strictly inside a replaced range included;
// insertions at one offset, or at a range's edge, do not), or one ends
// before it starts. One fix's insertions at one offset must also start at
// one indentation: InOrder would put the deeper lines first, which is for
// the insertions of different fixes, not the order one fix wrote.
func Overlapping(edits []Edit) bool {
	last := 0
	es := InOrder(edits)
	for i, e := range es {
		if e.Start < last || e.End < e.Start {
			return true
		}
		last = e.End
		if i > 0 && e.Start == e.End && es[i-1].Start == e.Start && es[i-1].End == e.Start && indentOf(e.NewText) != indentOf(es[i-1].NewText) {
			return true
		}
	}
	return false
}

// ApplyEdits applies non-overlapping edits to text, in InOrder's order. An
// edit that overlaps another or lies outside the text is an error.
func ApplyEdits(text []byte, edits []Edit) ([]byte, error) {
	out := make([]byte, 0, len(text)+256)
	last := 0
	for _, e := range InOrder(edits) {
		if e.Start < last || e.End < e.Start || e.End > len(text) {
			return nil, fmt.Errorf("edit %d..%d overlaps another or lies outside the text", e.Start, e.End)
		}
		out = append(out, text[last:e.Start]...)
		out = append(out, e.NewText...)
		last = e.End
	}
	return append(out, text[last:]...), nil
}

// indentOf is the indentation of the first line an insertion writes: its
// leading blanks after any line break it opens with ("" for text such as
// ", name=value" inserted within a line).
func indentOf(s string) string {
	rest := strings.TrimLeft(s, "\r\n")
	return rest[:len(rest)-len(strings.TrimLeft(rest, " \t"))]
}

// Changed is the one edit that turns old into text: what lies between
// their common prefix and their common suffix (the two never overlap).
func Changed(old, text []byte) Edit {
	p := 0
	for p < len(old) && p < len(text) && old[p] == text[p] {
		p++
	}
	s := 0
	for s < len(old)-p && s < len(text)-p && old[len(old)-1-s] == text[len(text)-1-s] {
		s++
	}
	return Edit{Start: p, End: len(old) - s, NewText: string(text[p : len(text)-s])}
}
