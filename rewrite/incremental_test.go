package rewrite

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// An analysis that reuses the last parse finds what one from scratch
// finds, edit after edit, through texts that do not parse (mid-typing).
func TestIncrementalAnalysisEqualsFresh(t *testing.T) {
	inputs, _ := filepath.Glob("../fixtures/LTF00*/*.py")
	if len(inputs) < 20 {
		t.Fatalf("%d fixture inputs found", len(inputs))
	}
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"", "x", "(", ")", "\n", "    ", ",", "a=1", "#", "'", "import torch\n"}
	broken, compared := 0, 0
	for _, in := range inputs[:20] {
		text, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		var inc Incremental
		cur := text
		for step := 0; step < 12; step++ {
			if step > 0 {
				at := rng.IntN(len(cur) + 1)
				end := min(len(cur), at+rng.IntN(4))
				next := append(append(append([]byte{}, cur[:at]...), pieces[rng.IntN(len(pieces))]...), cur[end:]...)
				if step%4 == 0 {
					next = text // back to the original, as an undo does
				}
				cur = next
			}
			got, gerr := e.FixIncremental(context.Background(), cur, Versions{}, nil, &inc)
			want, werr := e.Fix(cur, Versions{})
			var se *SyntaxError
			if errors.As(werr, &se) {
				broken++
			}
			if (gerr == nil) != (werr == nil) {
				t.Fatalf("%s step %d: incremental error %v, fresh error %v", in, step, gerr, werr)
			}
			if werr != nil {
				continue
			}
			compared++
			if !reflect.DeepEqual(got.Findings, want.Findings) || string(got.Output) != string(want.Output) {
				t.Fatalf("%s step %d: incremental and fresh analyses differ", in, step)
			}
		}
		inc.Close()
	}
	if broken == 0 || compared < 100 {
		t.Fatalf("weak test: %d broken texts, %d compared", broken, compared)
	}
}
