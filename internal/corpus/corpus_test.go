package corpus

import (
	"bytes"
	"testing"

	"github.com/loratune/loratune-fix/rewrite"
	"github.com/loratune/loratune-fix/version"
)

func TestDeterministic(t *testing.T) {
	if !bytes.Equal(Training(7, 3), Training(7, 3)) || !bytes.Equal(Plain(7, 3, 4000), Plain(7, 3, 4000)) {
		t.Fatal("the same seed gave different bytes")
	}
	if bytes.Equal(Training(7, 3), Training(7, 4)) || bytes.Equal(Training(7, 3), Training(8, 3)) {
		t.Fatal("different scripts are equal")
	}
}

// The corpus is what the benchmarks claim: ordinary modules never pass the
// prefilter, training scripts parse, have findings, and fix cleanly.
func TestCorpusShapes(t *testing.T) {
	eng, err := rewrite.New(rewrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 40; i++ {
		if p := Plain(1, i, 3000); eng.MayMatch(p) {
			t.Errorf("plain module %d passes the prefilter", i)
		} else if len(p) < 3000 {
			t.Errorf("plain module %d is %d bytes, want >= 3000", i, len(p))
		}
	}
	withFindings := 0
	for i := 0; i < 40; i++ {
		src := Training(1, i)
		res, err := eng.Fix(src, version.Versions{})
		if err != nil {
			t.Fatalf("training script %d: %v\n%s", i, err, src)
		}
		if len(res.Dropped) > 0 {
			t.Errorf("training script %d: dropped fixes %v", i, res.Dropped)
		}
		if len(res.Findings) > 0 {
			withFindings++
		}
		if err := rewrite.Parses(res.Output); err != nil {
			t.Errorf("training script %d: fixed output does not parse: %v", i, err)
		}
	}
	if withFindings < 30 {
		t.Errorf("only %d of 40 training scripts have findings", withFindings)
	}
}
