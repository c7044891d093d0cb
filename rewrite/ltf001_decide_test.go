package rewrite

import "testing"

// LTF001's exceptions win in one order for every front end: each case
// holds the exception that wins and the one it wins over, so swapping two
// of them fails here.
func TestDecideFP32Order(t *testing.T) {
	cases := []struct {
		facts FP32Facts
		want  FP32Verdict
	}{
		{FP32Facts{}, FP32Masters},
		{FP32Facts{Quantized: true, Qwen1: true, Unsloth: true, FullFineTune: true}, FP32Quantized},
		{FP32Facts{Qwen1: true, Unsloth: true}, FP32Qwen1},
		{FP32Facts{Unsloth: true, MaybeQuantized: true, FullFineTune: true}, FP32Unsloth},
		{FP32Facts{MaybeQuantized: true, Moot: "m"}, FP32SomePaths},
		{FP32Facts{Moot: "m", AdapterUnknown: true}, FP32Moot},
		{FP32Facts{AdapterUnknown: true, FullFineTune: true}, FP32AdapterUnknown},
		{FP32Facts{FullFineTune: true, NotTheLoad: "n", Flash: "f"}, FP32FullFineTune},
		{FP32Facts{NotTheLoad: "n", Flash: "f"}, FP32NotTheLoad},
		{FP32Facts{Flash: "f"}, FP32Flash},
	}
	for _, c := range cases {
		if got, why := DecideFP32(c.facts); got != c.want || (got != FP32Masters) != (why != "") {
			t.Errorf("%+v: verdict %d (why %q), want %d with a reason", c.facts, got, why, c.want)
		}
	}
}
