package review

import (
	"strings"

	"github.com/loratune/loratune-fix/udiff"
)

// Change replaces lines From..To of the original (1-based, inclusive) by
// New: the unit of a GitHub suggestion, which always replaces whole lines.
type Change struct {
	From, To int
	Old, New string // whole lines with their endings
}

// op is one line of a line diff; old is its line in the original (0 for an
// inserted line).
type op struct {
	kind byte // ' ', '-', '+'
	line string
	old  int
}

func lineOps(a, b string) []op {
	var out []op
	old := 1
	for _, d := range udiff.LineDiff(a, b) {
		o := op{kind: d.Kind, line: d.Line}
		if d.Kind != '+' {
			o.old = old
			old++
		}
		out = append(out, o)
	}
	return out
}

// changes splits the difference between before and after into line
// replacements. A pure insertion has no line of its own to replace, so it
// takes a neighbour along: the line above, or the one below when only that
// one is in the pull request (prefer says which lines are). Replacements
// that would share a neighbour are merged, so no two overlap.
func changes(before, after string, prefer func(line int) bool) []Change {
	ops := lineOps(before, after)
	type span struct{ i, j int } // ops[i:j]
	var spans []span
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		j, deletes := i, false
		for j < len(ops) && ops[j].kind != ' ' {
			deletes = deletes || ops[j].kind == '-'
			j++
		}
		s := span{i, j}
		if !deletes {
			above, below := i > 0, j < len(ops) // neighbours are ' ' ops
			switch {
			case above && prefer(ops[i-1].old):
				s.i--
			case below && prefer(ops[j].old):
				s.j++
			case above:
				s.i--
			case below:
				s.j++
			}
		}
		if n := len(spans); n > 0 && s.i < spans[n-1].j {
			spans[n-1].j = max(spans[n-1].j, s.j)
		} else {
			spans = append(spans, s)
		}
		i = j
	}
	out := make([]Change, 0, len(spans))
	for _, s := range spans {
		var c Change
		var old, neu strings.Builder
		for _, o := range ops[s.i:s.j] {
			if o.kind != '+' {
				if c.From == 0 {
					c.From = o.old
				}
				c.To = o.old
				old.WriteString(o.line)
			}
			if o.kind != '-' {
				neu.WriteString(o.line)
			}
		}
		if c.From == 0 {
			continue // an insertion into an empty file: no line to hold it
		}
		c.Old, c.New = old.String(), neu.String()
		out = append(out, c)
	}
	return out
}

// lineStarts returns the byte offset of each line's start (index 0 is line
// 1) and, last, the length of text.
func lineStarts(text string) []int {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' && i+1 < len(text) {
			starts = append(starts, i+1)
		}
	}
	return append(starts, len(text))
}

// byteSpan is the byte range of lines from..to in a text with these starts.
func byteSpan(starts []int, from, to int) (int, int) {
	end := len(starts) - 1 // the sentinel: text length
	hi := starts[end]
	if to < end {
		hi = starts[to]
	}
	return starts[from-1], hi
}

// applyChanges replaces each change's lines of text by its New text.
// Changes must not overlap; any order.
func applyChanges(text string, cs []Change) string {
	starts := lineStarts(text)
	sorted := append([]Change(nil), cs...)
	for i := 1; i < len(sorted); i++ {
		for k := i; k > 0 && sorted[k].From < sorted[k-1].From; k-- {
			sorted[k], sorted[k-1] = sorted[k-1], sorted[k]
		}
	}
	var b strings.Builder
	last := 0
	for _, c := range sorted {
		lo, hi := byteSpan(starts, c.From, c.To)
		b.WriteString(text[last:lo])
		b.WriteString(c.New)
		last = hi
	}
	b.WriteString(text[last:])
	return b.String()
}
