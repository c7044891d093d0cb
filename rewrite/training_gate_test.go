package rewrite

import "testing"

// The training gate of the prefilter sees every training call markScopes
// knows, and none of the words that merely look like one.
func TestTrainingCallsPattern(t *testing.T) {
	for _, src := range []string{
		"loss.backward()", "accelerator.backward(loss)", "loss.backward (\n)",
		"optimizer.step()", "self.optim_g.step()", "Optimizer.step ()", "optimizers[0].step()",
	} {
		if !trainingCalls.MatchString(src) {
			t.Errorf("%q is a training call the prefilter misses", src)
		}
	}
	for _, src := range []string{
		"kept for backwards compatibility", "def optimize(x):", "self.optimize_step = 1", "scheduler.step()",
	} {
		if trainingCalls.MatchString(src) {
			t.Errorf("%q passes the training gate", src)
		}
	}
}

// A file that loads a model and trains only through an optimizer step is
// parsed; the same file without the step is not.
func TestPrefilterTrainingGate(t *testing.T) {
	eng, err := New(Options{Select: []string{"LTF003"}})
	if err != nil {
		t.Fatal(err)
	}
	load := "model = AutoModelForCausalLM.from_pretrained(name, device_map=\"auto\")\n"
	if eng.MayMatch([]byte(load + "# optimize the backwards path\n")) {
		t.Error("no training call, yet the prefilter passes")
	}
	if !eng.MayMatch([]byte(load + "optimizer.step()\n")) {
		t.Error("an optimizer step, yet the prefilter skips")
	}
	if findings := checkFindings(t, eng, load+"optimizer.step()\n"); findings == 0 {
		t.Error("the engine finds nothing in the file the prefilter let through: the test proves nothing")
	}
}

func checkFindings(t *testing.T, eng *Engine, src string) int {
	t.Helper()
	res, err := eng.Check([]byte(src), Versions{})
	if err != nil {
		t.Fatal(err)
	}
	return len(res.Findings)
}
