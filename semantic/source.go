package semantic

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/syntree"
)

// Source is one Python text as the rules see it: UTF-8 without a byte order
// mark (the caller strips and restores it), with the line ending and indent
// unit that inserted lines must follow.
type Source struct {
	Text       []byte
	EOL        string // "\n" or "\r\n": whichever the file uses most
	LineStarts []int
	Root       *syntree.Node // set once parsed: the indent unit is read from it
	unit       string
	// LineLength is the formatter's line length that inserted lines keep
	// within (0: DefaultLineLength).
	LineLength int
}

// NewSource indexes text for line and column lookups.
func NewSource(text []byte) *Source {
	s := &Source{Text: text}
	s.LineStarts = make([]int, 1, bytes.Count(text, []byte("\n"))+1)
	crlf, lf := 0, 0
	// From line ending to line ending (IndexByte skips a line in a few
	// instructions; a loop over every byte took 8 a byte).
	for i := bytes.IndexByte(text, '\n'); i >= 0; {
		s.LineStarts = append(s.LineStarts, i+1)
		if i > 0 && text[i-1] == '\r' {
			crlf++
		} else {
			lf++
		}
		j := bytes.IndexByte(text[i+1:], '\n')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	s.EOL = "\n"
	if crlf > lf {
		s.EOL = "\r\n"
	}
	return s
}

// IndentUnit is one level of indentation as the file writes it: the step
// from a compound statement's line to the first statement of its block
// (read from the tree, so lines inside strings do not count), else the
// text's own guess.
func (s *Source) IndentUnit() string {
	if s.unit == "" {
		if s.Root != nil {
			s.unit = s.unitFromTree(s.Root)
		}
		if s.unit == "" {
			s.unit = detectIndentUnit(s.Text)
		}
	}
	return s.unit
}

func (s *Source) unitFromTree(n *syntree.Node) string {
	for _, c := range n.NamedChildren() {
		if c.Type() == "block" {
			for _, first := range c.NamedChildren() {
				if first.Type() == "comment" {
					continue
				}
				inner, own := s.Indent(int(first.StartByte()))
				outer, _ := s.Indent(int(n.StartByte()))
				if own && len(inner) > len(outer) && strings.HasPrefix(inner, outer) {
					return inner[len(outer):]
				}
				break
			}
		}
		if u := s.unitFromTree(c); u != "" {
			return u
		}
	}
	return ""
}

// detectIndentUnit returns "\t" when indented lines start with tabs, else the
// smallest non-zero run of leading spaces (4 when nothing is indented).
func detectIndentUnit(text []byte) string {
	tabs, spaces, smallest := 0, 0, 0
	for _, line := range bytes.Split(text, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		switch line[0] {
		case '\t':
			tabs++
		case ' ':
			spaces++
			n := len(line) - len(bytes.TrimLeft(line, " "))
			if smallest == 0 || n < smallest {
				smallest = n
			}
		}
	}
	if tabs > spaces {
		return "\t"
	}
	if smallest == 0 {
		smallest = 4
	}
	return string(bytes.Repeat([]byte(" "), smallest))
}

// Position converts a byte offset.
func (s *Source) Position(offset int) finding.Position {
	if offset > len(s.Text) {
		offset = len(s.Text)
	}
	lo, hi := 0, len(s.LineStarts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if s.LineStarts[mid] <= offset {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	col := utf8.RuneCount(s.Text[s.LineStarts[lo]:offset]) + 1
	return finding.Position{Line: lo + 1, Column: col}
}

// LineStart is the offset of the first byte of the line holding offset.
func (s *Source) LineStart(offset int) int {
	return s.LineStarts[s.Position(offset).Line-1]
}

// LineEnd is the offset just past the line ending of the line holding
// offset (or the end of the text on a last line without one).
func (s *Source) LineEnd(offset int) int {
	line := s.Position(offset).Line
	if line < len(s.LineStarts) {
		return s.LineStarts[line]
	}
	return len(s.Text)
}

// ContentEnd is the offset of the line ending of the line holding offset
// (the end of the text on a last line without one).
func (s *Source) ContentEnd(offset int) int {
	e := s.LineEnd(offset)
	if e > 0 && s.Text[e-1] == '\n' {
		e--
		if e > 0 && s.Text[e-1] == '\r' {
			e--
		}
	}
	return e
}

// Indent is the leading whitespace of the line holding offset, and whether
// only whitespace stands between the line start and offset.
func (s *Source) Indent(offset int) (string, bool) {
	start := s.LineStart(offset)
	prefix := s.Text[start:offset]
	trimmed := bytes.TrimLeft(prefix, " \t")
	if len(trimmed) != 0 {
		n := len(prefix) - len(bytes.TrimLeft(prefix, " \t"))
		return string(prefix[:n]), false
	}
	return string(prefix), true
}
