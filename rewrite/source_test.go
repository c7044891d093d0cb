package rewrite

import (
	"slices"
	"testing"

	"github.com/loratune/loratune-fix/semantic"
)

// NewSource's line index, found from line ending to line ending, is the
// one a look at every byte finds, on every fixture and on the edge cases.
func TestNewSourceLinesEqualByteScan(t *testing.T) {
	plain := func(text []byte) ([]int, string) {
		starts, crlf, lf := []int{0}, 0, 0
		for i, b := range text {
			if b == '\n' {
				starts = append(starts, i+1)
				if i > 0 && text[i-1] == '\r' {
					crlf++
				} else {
					lf++
				}
			}
		}
		if crlf > lf {
			return starts, "\r\n"
		}
		return starts, "\n"
	}
	extra := [][]byte{nil, []byte("\n"), []byte("\r\n"), []byte("\n\n"), []byte("a\r\nb\r\nc\n"), []byte("x = 1"), []byte("\r\n\r\n\n"), []byte("a\rb\n")}
	texts := fixtureTexts(t, extra...)
	for _, text := range texts {
		s := semantic.NewSource(text)
		starts, eol := plain(text)
		if !slices.Equal(s.LineStarts, starts) || s.EOL != eol {
			t.Errorf("%q: lines %v %q, byte scan %v %q", text[:min(len(text), 40)], s.LineStarts, s.EOL, starts, eol)
		}
	}
}
