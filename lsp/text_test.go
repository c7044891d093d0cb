package lsp

import (
	"math/rand/v2"
	"testing"
)

// Positions count UTF-16 code units: "é" is one, an emoji two.
func TestPositionsInUTF16(t *testing.T) {
	text := []byte("a\ncafé = 1  # 🙂 x\r\nend")
	l := newLines(text)
	for _, c := range []struct {
		at   int
		want Position
	}{
		{0, Position{0, 0}}, {2, Position{1, 0}}, {8, Position{1, 5}}, // after "café": 4 characters, 5 bytes
		{len("a\ncafé = 1  # "), Position{1, 12}},
		{len("a\ncafé = 1  # 🙂"), Position{1, 14}},
		{len(text), Position{2, 3}},
	} {
		if got := l.position(c.at); got != c.want {
			t.Errorf("position(%d) = %+v, want %+v", c.at, got, c.want)
		}
		if back, _ := l.offset(c.want); back != c.at {
			t.Errorf("offset(%+v) = %d, want %d", c.want, back, c.at)
		}
	}
	// Past the line's end: its end, before its \r\n.
	if got, _ := l.offset(Position{1, 99}); got != len("a\ncafé = 1  # 🙂 x") {
		t.Errorf("offset past the line: %d", got)
	}
}

// Applying the minimal edit of two texts to the first gives the second,
// whatever characters they share at the edges (an edge inside a UTF-8
// character or a \r\n would be misplaced by the positions).
func TestMinimalEditApplies(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "é", "è", "🙂", "\n", "\r\n", " ", "x"}
	gen := func() []byte {
		var b []byte
		for n := rng.IntN(12); n > 0; n-- {
			b = append(b, alphabet[rng.IntN(len(alphabet))]...)
		}
		return b
	}
	for i := 0; i < 5000; i++ {
		old, text := gen(), gen()
		if rng.IntN(2) == 0 {
			text = append(append(gen(), old...), gen()...)
		}
		e := minimalEdit(old, text)
		got, err := applyChanges(old, []TextDocumentContentChangeEvent{{Range: &e.Range, Text: e.NewText}})
		if err != nil || string(got) != string(text) {
			t.Fatalf("minimalEdit(%q, %q) = %+v gives %q (%v)", old, text, e, got, err)
		}
	}
}
