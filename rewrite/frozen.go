package rewrite

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
		out[i] = Span{Start: s.Start + delta, End: s.End + delta, Wall: s.Wall}
	}
	return out
}
