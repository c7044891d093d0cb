package rewrite

import (
	"bytes"
	"testing"
)

// ownLabelMask, which finds the lines by pad_token_id, answers what a test
// of every line answers, on every fixture and on edge cases.
func TestOwnLabelMaskMatchesEveryLine(t *testing.T) {
	everyLine := func(text []byte) bool {
		for _, line := range bytes.Split(text, []byte("\n")) {
			if bytes.Contains(line, []byte("pad_token_id")) && bytes.Contains(line, []byte("-100")) &&
				(bytes.Contains(line, []byte("==")) || bytes.Contains(line, []byte("!="))) {
				return true
			}
		}
		return false
	}
	texts := []string{
		"", "pad_token_id", "labels[labels == tok.pad_token_id] = -100",
		"x = 1\nlabels[labels == tok.pad_token_id] = -100", "labels[labels == tok.pad_token_id] = -100\n",
		"a = tok.pad_token_id\nb = -100 if x == y else 0\n", "pad_token_id pad_token_id\n-100 ==",
		"m = ids != tok.pad_token_id\r\nl[~m] = -100\r\n", "l[l != pad_token_id] = -100\r\n",
		"tok.pad_token_id = 0\nlabels[labels == tok.pad_token_id] = -100",
	}
	for _, b := range fixtureTexts(t) {
		texts = append(texts, string(b))
	}
	masks := 0
	for _, text := range texts {
		want := everyLine([]byte(text))
		if got := ownLabelMask([]byte(text)); got != want {
			t.Errorf("%.60q: ownLabelMask %v, every line %v", text, got, want)
		}
		if want {
			masks++
		}
	}
	if masks < 4 {
		t.Fatalf("only %d texts mask labels", masks)
	}
}
