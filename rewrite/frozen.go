package rewrite

// Span is a byte range [Start, End) of a text.
type Span struct{ Start, End int }

// TouchesFrozen reports whether an edit of fx replaces bytes of a frozen
// span or inserts strictly inside one. Inserting at a span's edge is fine.
func TouchesFrozen(fx *Fix, frozen []Span) bool {
	if fx == nil {
		return false
	}
	for _, e := range fx.Edits {
		for _, s := range frozen {
			if e.Start == e.End {
				if s.Start < e.Start && e.Start < s.End {
					return true
				}
			} else if e.Start < s.End && s.Start < e.End {
				return true
			}
		}
	}
	return false
}

// applied are the edits of the chosen fixes that were not dropped.
func applied(chosen, dropped []*Finding) []Edit {
	out := []Edit{}
	for _, c := range chosen {
		keep := true
		for _, d := range dropped {
			if d == c {
				keep = false
			}
		}
		if keep {
			out = append(out, c.Fix.Edits...)
		}
	}
	return out
}

// shiftSpans moves frozen spans past the applied edits, which never touch
// them: an insertion at a span's start goes before it, one at its end after.
func shiftSpans(frozen []Span, edits []Edit) []Span {
	if len(frozen) == 0 || len(edits) == 0 {
		return frozen
	}
	out := make([]Span, len(frozen))
	for i, s := range frozen {
		delta := 0
		for _, e := range edits {
			if e.End <= s.Start { // before the span, insertions at its start included
				delta += len(e.NewText) - (e.End - e.Start)
			}
		}
		out[i] = Span{s.Start + delta, s.End + delta}
	}
	return out
}
