package rewrite

import (
	"testing"

	"github.com/loratune/loratune-fix/semantic"
)

// namesGemma2 answers what gemma2ID matching the whole text answers, on
// every fixture and on ids at the edges of the pattern.
func TestNamesGemma2MatchesRegexp(t *testing.T) {
	texts := []string{
		"", "gemma", "gemma2", "Gemma-2", "GEMMA_2", "gemma-2b", "gemma-2B", "gemma2.0", "gemma20", "gemma-2-9b",
		"paligemma2-3b", "gemma--2", "gemma-_2", "gemma 2", "gemma3", "gemma_3 then gemma2", "gemma-2\n", "gemma2é",
		"gemma-2b and google/gemma-2-9b", "gemm", "gemma-", "gGemma2", "gemmagemma2", "gemma\xff2",
	}
	for _, b := range fixtureTexts(t) {
		texts = append(texts, string(b))
	}
	named := 0
	for _, text := range texts {
		f := &semantic.Facts{Src: semantic.NewSource([]byte(text))}
		want := gemma2ID.MatchString(text)
		if got := namesGemma2(f); got != want {
			t.Errorf("%.60q: namesGemma2 %v, regexp %v", text, got, want)
		}
		if want {
			named++
		}
	}
	if named < 10 {
		t.Fatalf("only %d texts name a Gemma-2 model", named)
	}
}
