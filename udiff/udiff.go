// Package udiff renders unified diffs that git apply and patch -p1 accept.
package udiff

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Context is the number of unchanged lines shown around a change.
const Context = 3

type op struct {
	kind byte // ' ', '-', '+'
	line string
}

// LineOp is one line of a line diff: Kind is ' ' (kept), '-' or '+', and
// Line keeps its line ending.
type LineOp struct {
	Kind byte
	Line string
}

// LineDiff is the line diff of a and b, in order.
func LineDiff(a, b string) []LineOp {
	all := ops(a, b)
	out := make([]LineOp, len(all))
	for i, o := range all {
		out[i] = LineOp{o.kind, o.line}
	}
	return out
}

// lines splits text into lines that keep their line endings.
func lines(text string) []string {
	if text == "" {
		return nil
	}
	out := strings.SplitAfter(text, "\n")
	if out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// ops computes a line diff with diffmatchpatch on runes that stand for
// lines. diffmatchpatch's own DiffLinesToRunes numbers lines with runes
// straight, and from line 55,296 on those fall in the surrogate range and
// decode as U+FFFD: a 200,000-line file panicked. Here the numbering skips
// the surrogates.
func ops(a, b string) []op {
	index := map[string]rune{}
	var table []string
	toRunes := func(text string) []rune {
		var rs []rune
		for _, l := range lines(text) {
			r, ok := index[l]
			if !ok {
				r = lineRune(len(table))
				index[l] = r
				table = append(table, l)
			}
			rs = append(rs, r)
		}
		return rs
	}
	ra, rb := toRunes(a), toRunes(b)
	if len(table) > maxLines {
		return wholeFile(a, b) // more distinct lines than runes: no line diff
	}
	var out []op
	for _, d := range diffmatchpatch.New().DiffMainRunes(ra, rb, false) {
		kind := byte(' ')
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			kind = '-'
		case diffmatchpatch.DiffInsert:
			kind = '+'
		}
		for _, r := range d.Text {
			out = append(out, op{kind, table[lineIndex(r)]})
		}
	}
	return out
}

// Line numbers as runes: 0..0xD7FF as they are, then past the surrogates.
const (
	surrogates = 0xE000 - 0xD800
	maxLines   = utf8.MaxRune + 1 - surrogates
)

func lineRune(i int) rune {
	if i >= 0xD800 {
		return rune(i + surrogates)
	}
	return rune(i)
}

func lineIndex(r rune) int {
	if r >= 0xE000 {
		return int(r) - surrogates
	}
	return int(r)
}

// wholeFile is the diff that deletes every line of a and adds every line of b.
func wholeFile(a, b string) []op {
	var out []op
	for _, l := range lines(a) {
		out = append(out, op{'-', l})
	}
	for _, l := range lines(b) {
		out = append(out, op{'+', l})
	}
	return out
}

// Hunk is one block of changes with its context.
type Hunk struct {
	OldStart, OldLines, NewStart, NewLines int
	Lines                                  []string // each with its ' ', '-' or '+' prefix and line ending
}

// Hunks computes the hunks between a and b.
func Hunks(a, b string) []Hunk {
	all := ops(a, b)
	var hunks []Hunk
	oldLine, newLine := 1, 1
	i := 0
	for i < len(all) {
		if all[i].kind == ' ' {
			oldLine++
			newLine++
			i++
			continue
		}
		// A change starts at i: back up for context.
		from := i
		back := 0
		for from > 0 && back < Context && all[from-1].kind == ' ' {
			from--
			back++
		}
		h := Hunk{OldStart: oldLine - back, NewStart: newLine - back}
		j := from
		lastChange := i
		for j < len(all) {
			if all[j].kind != ' ' {
				lastChange = j
			} else if j-lastChange > 2*Context {
				break
			}
			j++
		}
		stop := min(lastChange+Context+1, len(all))
		for k := from; k < stop; k++ {
			o := all[k]
			h.Lines = append(h.Lines, string(o.kind)+o.line)
			if o.kind != '+' {
				h.OldLines++
			}
			if o.kind != '-' {
				h.NewLines++
			}
			if k >= i {
				switch o.kind {
				case ' ':
					oldLine++
					newLine++
				case '-':
					oldLine++
				case '+':
					newLine++
				}
			}
		}
		hunks = append(hunks, h)
		i = stop
	}
	return hunks
}

func rangeOf(start, n int) string {
	if n == 0 {
		start-- // an empty range names the line before it
	}
	if n == 1 {
		return fmt.Sprintf("%d", start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// Palette colours a diff's lines; the zero value prints plain text.
type Palette struct {
	Header, Hunk, Del, Add, Reset string
}

// ANSI is the usual terminal colouring.
var ANSI = Palette{Header: "\x1b[1m", Hunk: "\x1b[36m", Del: "\x1b[31m", Add: "\x1b[32m", Reset: "\x1b[0m"}

// headerName is a path as git writes it in a diff header: forward
// slashes, no "./", and no leading "/" (git diff --no-index /tmp/x.py
// ... writes a/tmp/x.py, which git apply -p1 takes from the root).
func headerName(p string) string {
	return strings.TrimLeft(path.Clean(filepath.ToSlash(p)), "/")
}

// Unified renders the diff of a and b under the name file ("a/file",
// "b/file"); empty when they are equal.
func Unified(file, a, b string, pal Palette) string {
	if a == b {
		return ""
	}
	var sb strings.Builder
	name := headerName(file)
	fmt.Fprintf(&sb, "%s--- a/%s%s\n%s+++ b/%s%s\n", pal.Header, name, pal.Reset, pal.Header, name, pal.Reset)
	for _, h := range Hunks(a, b) {
		fmt.Fprintf(&sb, "%s@@ -%s +%s @@%s\n", pal.Hunk, rangeOf(h.OldStart, h.OldLines), rangeOf(h.NewStart, h.NewLines), pal.Reset)
		for _, l := range h.Lines {
			colour := ""
			switch l[0] {
			case '-':
				colour = pal.Del
			case '+':
				colour = pal.Add
			}
			body := l
			nl := strings.HasSuffix(body, "\n")
			body = strings.TrimSuffix(body, "\n")
			if colour != "" {
				sb.WriteString(colour + body + pal.Reset)
			} else {
				sb.WriteString(body)
			}
			sb.WriteString("\n")
			if !nl {
				sb.WriteString("\\ No newline at end of file\n")
			}
		}
	}
	return sb.String()
}
