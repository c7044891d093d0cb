package review

import (
	"fmt"
	"sort"
	"strings"

	"github.com/loratune/loratune-fix/udiff"
)

// patchContext is the most context lines a hunk takes on each side, as
// git diff's default.
const patchContext = 3

// patch is the unified diff (git apply form) of cs, changes of before,
// whose context lines are never lines that other changes replace: others
// (other patches) and suggested (suggestions). So the patch applies to
// before and to before with any of those changes applied, in any order.
//
// But git apply takes a hunk without trailing context only at the end of
// the file, so a change directly followed by a suggestion takes its
// trailing context from the suggestion's text: then the patch applies
// only once the suggestion is committed, and after says so. (A change
// directly followed by another patch's is merged with it: see separate.)
// Changes must not overlap.
func patch(path, before string, cs, others, suggested []Change) (text string, after bool) {
	if len(cs) == 0 {
		return "", false
	}
	blocked := func(n int) bool {
		for _, c := range others {
			if c.From <= n && n <= c.To {
				return true
			}
		}
		for _, c := range suggested {
			if c.From <= n && n <= c.To {
				return true
			}
		}
		return false
	}
	cs = append([]Change(nil), cs...)
	sort.Slice(cs, func(i, j int) bool { return cs[i].From < cs[j].From })
	starts := lineStarts(before)
	nlines := len(starts) - 1
	if before == "" {
		nlines = 0
	}
	line := func(n int) string { lo, hi := byteSpan(starts, n, n); return before[lo:hi] }
	free := func(n int) bool { return n >= 1 && n <= nlines && !blocked(n) }

	type hunk struct {
		oldStart, newStart int
		lines              []string // with their ' ', '-', '+' prefix and ending
		oldN, newN         int
		end                int // the last old line in the hunk
	}
	var hunks []*hunk
	var cur *hunk
	used := 0 // the last old line a closed hunk holds: hunks must not overlap
	add := func(kind byte, text string) {
		cur.lines = append(cur.lines, string(kind)+text)
		if kind != '+' {
			cur.oldN++
		}
		if kind != '-' {
			cur.newN++
		}
	}
	// closeHunk ends the hunk with trailing context up to line limit
	// (exclusive), where the patch's next change starts.
	closeHunk := func(limit int) {
		if cur == nil {
			return
		}
		taken, n := 0, cur.end+1
		if !free(n) {
			for _, s := range suggested {
				if s.From == n {
					for _, l := range strings.SplitAfter(s.New, "\n") {
						if l != "" && taken < patchContext {
							add(' ', l)
							taken++
						}
					}
					after, n = true, s.To+1
				}
			}
		}
		for ; taken < patchContext && n < limit && free(n); n++ {
			add(' ', line(n))
			taken++
		}
		used = n - 1
		hunks = append(hunks, cur)
		cur = nil
	}
	for _, c := range cs {
		// Join the hunk before when the lines between are few and free.
		gapFree := cur != nil && c.From-cur.end-1 <= 2*patchContext
		for n := c.From - 1; gapFree && n > cur.end; n-- {
			gapFree = free(n)
		}
		if gapFree {
			for n := cur.end + 1; n < c.From; n++ {
				add(' ', line(n))
			}
		} else {
			closeHunk(c.From)
			lead := c.From
			for lead-1 > used && c.From-lead < patchContext && free(lead-1) {
				lead--
			}
			cur = &hunk{oldStart: lead}
			for n := lead; n < c.From; n++ {
				add(' ', line(n))
			}
		}
		for _, d := range udiff.LineDiff(c.Old, c.New) {
			add(d.Kind, d.Line)
		}
		cur.end = c.To
	}
	closeHunk(nlines + 1)

	var b strings.Builder
	name := strings.TrimLeft(strings.ReplaceAll(path, "\\", "/"), "/")
	fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", name, name)
	shift := 0 // new line numbers run ahead of old ones by the hunks before
	for _, h := range hunks {
		h.newStart = h.oldStart + shift
		shift += h.newN - h.oldN
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(h.oldStart, h.oldN), hunkRange(h.newStart, h.newN))
		for _, l := range h.lines {
			b.WriteString(l)
			if !strings.HasSuffix(l, "\n") {
				b.WriteString("\n\\ No newline at end of file\n")
			}
		}
	}
	return b.String(), after
}

func hunkRange(start, n int) string {
	if n == 0 {
		start-- // an empty range names the line before it
	}
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}
