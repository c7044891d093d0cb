package rewrite

import (
	"bytes"
	"fmt"
	"testing"
)

// manyLoads is a training script with n model loads, each followed by a
// cast of its own model back to half precision.
func manyLoads(n int) []byte {
	var b bytes.Buffer
	b.WriteString("import torch\nfrom peft import LoraConfig, get_peft_model\nfrom transformers import AutoModelForCausalLM\n\n\ndef main():\n")
	for i := range n {
		fmt.Fprintf(&b, "    m%d = AutoModelForCausalLM.from_pretrained(\"org/model-%d\", torch_dtype=torch.float32)\n", i, i)
		fmt.Fprintf(&b, "    m%d.half()\n", i)
		fmt.Fprintf(&b, "    m%d = get_peft_model(m%d, LoraConfig(r=16))\n", i, i)
		fmt.Fprintf(&b, "    m%d.train()\n", i)
	}
	return b.Bytes()
}

// LTF001 looks at each call once to find the casts after the loads, not
// once per load: four times the loads, at most about four times the calls
// looked at (the per-load scan looked at every call for every load).
func TestPostLoadCastsGrowLinearly(t *testing.T) {
	e, err := New(Options{Select: []string{"LTF001"}})
	if err != nil {
		t.Fatal(err)
	}
	checks := func(n int) int64 {
		before := castChecks.Load()
		res, err := e.Check(manyLoads(n), Versions{})
		if err != nil {
			t.Fatal(err)
		}
		casts := 0
		for _, f := range res.Findings {
			if f.Code == "LTF001" && bytes.Contains([]byte(f.Message), []byte(".half() after the fp32 load")) {
				casts++
			}
		}
		if casts != n {
			t.Fatalf("%d loads: %d casts reported, want %d", n, casts, n)
		}
		return castChecks.Load() - before
	}
	small, large := checks(25), checks(100)
	if ratio := float64(large) / float64(small); ratio > 4.2 {
		t.Errorf("calls looked at as casts: %d for 25 loads, %d for 100: x%.1f, want at most x4.2", small, large, ratio)
	}
}

// BenchmarkPostLoadCasts is LTF001 on a script of 200 loads, each cast
// back to half precision. Read it against BenchmarkPostLoadCasts50: a
// ratio near 4 is linear in the loads, near 16 quadratic.
func BenchmarkPostLoadCasts(b *testing.B) { benchLoads(b, 200) }

// BenchmarkPostLoadCasts50 is the same with 50 loads.
func BenchmarkPostLoadCasts50(b *testing.B) { benchLoads(b, 50) }

func benchLoads(b *testing.B, n int) {
	e, err := New(Options{Select: []string{"LTF001"}})
	if err != nil {
		b.Fatal(err)
	}
	src := manyLoads(n)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := e.Check(src, Versions{}); err != nil {
			b.Fatal(err)
		}
	}
}
