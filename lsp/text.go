package lsp

import (
	"fmt"
	"sort"
	"unicode/utf8"

	"github.com/loratune/loratune-fix/finding"
)

// lines indexes a text's line starts, to turn byte offsets into the
// protocol's positions (UTF-16 code units) and back.
type lines struct {
	text   []byte
	starts []int
}

func newLines(text []byte) *lines {
	l := &lines{text: text, starts: []int{0}}
	for i, b := range text {
		if b == '\n' {
			l.starts = append(l.starts, i+1)
		}
	}
	return l
}

// position is the protocol position of byte offset at (clamped to the text).
func (l *lines) position(at int) Position {
	at = max(0, min(at, len(l.text)))
	line := sort.Search(len(l.starts), func(i int) bool { return l.starts[i] > at }) - 1
	col := 0
	for _, r := range string(l.text[l.starts[line]:at]) {
		col += utf16Len(r)
	}
	return Position{Line: line, Character: col}
}

// offset is the byte offset of p; a character past the line's end is its
// end, a line past the text's end is the text's end.
func (l *lines) offset(p Position) (int, error) {
	if p.Line < 0 || p.Character < 0 {
		return 0, fmt.Errorf("negative position %d:%d", p.Line, p.Character)
	}
	if p.Line >= len(l.starts) {
		return len(l.text), nil
	}
	at := l.starts[p.Line]
	end := len(l.text)
	if p.Line+1 < len(l.starts) {
		end = l.starts[p.Line+1] - 1 // the newline
	}
	if end > at && l.text[end-1] == '\r' {
		end-- // a line ends before its \r\n, as editors count
	}
	for col := 0; at < end && col < p.Character; {
		r, n := utf8.DecodeRune(l.text[at:end])
		col += utf16Len(r)
		at += n
	}
	return at, nil
}

func (l *lines) rangeOf(start, end int) Range {
	return Range{Start: l.position(start), End: l.position(end)}
}

func utf16Len(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// applyChanges applies a didChange's events in order to text.
func applyChanges(text []byte, changes []TextDocumentContentChangeEvent) ([]byte, error) {
	for _, c := range changes {
		if c.Range == nil {
			text = []byte(c.Text)
			continue
		}
		l := newLines(text)
		start, err := l.offset(c.Range.Start)
		if err != nil {
			return nil, err
		}
		end, err := l.offset(c.Range.End)
		if err != nil {
			return nil, err
		}
		if end < start {
			return nil, fmt.Errorf("range ends before it starts")
		}
		out := make([]byte, 0, len(text)-(end-start)+len(c.Text))
		out = append(append(append(out, text[:start]...), c.Text...), text[end:]...)
		text = out
	}
	return text, nil
}

// minimalEdit is one edit that turns old into text: the part between
// their common prefix and suffix, so that an editor keeps the cursor and
// folds of the lines a fix leaves alone. Its ends fall between whole
// UTF-8 characters of both texts.
func minimalEdit(old, text []byte) TextEdit {
	c := changeOf(old, text)
	p, oldEnd := c.prefix, c.oldEnd
	cont := func(b []byte, i int) bool { return i < len(b) && !utf8.RuneStart(b[i]) }
	for p > 0 && (cont(old, p) || cont(text, p)) {
		p--
	}
	for oldEnd < len(old) && cont(old, oldEnd) {
		oldEnd++ // the suffixes are equal bytes: one check serves both texts
	}
	// Nor inside a \r\n, which editors do not split.
	if p > 0 && old[p-1] == '\r' && (p < len(old) && old[p] == '\n' || p < len(text) && text[p] == '\n') {
		p--
	}
	if oldEnd > 0 && oldEnd < len(old) && old[oldEnd-1] == '\r' && old[oldEnd] == '\n' {
		oldEnd++
	}
	oldEnd = max(oldEnd, p)
	newEnd := oldEnd + c.delta
	l := newLines(old)
	return TextEdit{Range: l.rangeOf(p, oldEnd), NewText: string(text[p:newEnd])}
}

// change is the one changed region between two texts: their common
// prefix and suffix.
type change struct{ prefix, oldEnd, delta int }

func changeOf(old, text []byte) change {
	e := finding.Changed(old, text)
	return change{prefix: e.Start, oldEnd: e.End, delta: len(text) - len(old)}
}

// shift moves byte offset at of the old text to where it lies in the new
// one; ok is false for an offset strictly inside the changed region.
func (c change) shift(at int) (int, bool) {
	switch {
	case at <= c.prefix:
		return at, true
	case at >= c.oldEnd:
		return at + c.delta, true
	}
	return 0, false
}
