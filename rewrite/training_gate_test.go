package rewrite

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/loratune/loratune-fix/semantic"
)

// The training gate of the prefilter sees every training call markScopes
// knows, and none of the words that merely look like one.
func TestTrainingCallsPattern(t *testing.T) {
	for _, src := range []string{
		"loss.backward()", "accelerator.backward(loss)", "loss.backward (\n)",
		"optimizer.step()", "self.optim_g.step()", "Optimizer.step ()", "optimizers[0].step()",
		"trainer.train ()", "self.optimizer\n    .step()", "optimizer. step()",
	} {
		if !hasTrainingCall([]byte(src)) {
			t.Errorf("%q is a training call the prefilter misses", src)
		}
	}
	for _, src := range []string{
		"kept for backwards compatibility", "def optimize(x):", "self.optimize_step = 1", "scheduler.step()",
		"optimizer.steps()", "optim = 1\nx.step()",
	} {
		if hasTrainingCall([]byte(src)) {
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

// The anchored search finds exactly the words bytes.Contains finds: words
// at the very start and end, overlapping, repeated, cut, absent.
func TestSearchEqualsContains(t *testing.T) {
	eng, err := New(Options{Select: []string{"ALL"}})
	if err != nil {
		t.Fatal(err)
	}
	var all []int // every word, not only the triggers
	for i := range eng.words {
		all = append(all, i)
	}
	eng.anchors = anchorWords(eng.words, all)
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("abcdefgiklmnoprstuvwz_.=( \n8TCA")
	for trial := 0; trial < 3000; trial++ {
		var b []byte
		for len(b) < rng.IntN(300) {
			if rng.IntN(8) == 0 {
				w := eng.words[rng.IntN(len(eng.words))]
				if rng.IntN(2) == 0 {
					w = w[:rng.IntN(len(w))] // a cut word must not count
				}
				b = append(b, w...)
			} else {
				b = append(b, alphabet[rng.IntN(len(alphabet))])
			}
		}
		found := make([]uint8, len(eng.words))
		eng.search(b, found)
		for i, w := range eng.words {
			if want := bytes.Contains(b, w); want != (found[i] == 1) || found[i] == 0 {
				t.Fatalf("word %q in %q: search says %v, bytes.Contains %v", w, b, found[i] == 1, want)
			}
		}
	}
}

// hasTrainingCall is the regular expression it documents, written out.
func TestHasTrainingCallEqualsRegexp(t *testing.T) {
	re := regexp.MustCompile(`(backward|train)[\t\n\f\r\v ]*\(|(?i:optim)[\w.\[\]\t\n\f\r\v ]*\.[\t\n\f\r\v ]*step[\t\n\f\r\v ]*\(`)
	pieces := []string{"backward", "train", "optim", "Optim", ".step", "step", "(", " ", "\n", ".", "x", "[0]", "_g", "-", "back", "izer", "s", "="}
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 20000; trial++ {
		var b []byte
		for n := rng.IntN(8); n >= 0; n-- {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		if got, want := hasTrainingCall(b), re.Match(b); got != want {
			t.Fatalf("%q: hasTrainingCall %v, regexp %v", b, got, want)
		}
	}
}

// ContainsWord is the regular expression \bword\b it documents.
func TestContainsWordEqualsRegexp(t *testing.T) {
	pieces := []string{"model", "models", "_model", "model_", "x", ".", " ", "(", "\n", "2", "mo", "del"}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, word := range []string{"model", "m", "model_2"} {
		re := regexp.MustCompile(`\b` + regexp.QuoteMeta(word) + `\b`)
		for trial := 0; trial < 5000; trial++ {
			var b []byte
			for n := rng.IntN(6); n >= 0; n-- {
				b = append(b, pieces[rng.IntN(len(pieces))]...)
			}
			if got, want := semantic.ContainsWord(b, word), re.Match(b); got != want {
				t.Fatalf("%q in %q: containsWord %v, regexp %v", word, b, got, want)
			}
		}
	}
}

// isTRLTrainer and isTrainingArgsClass are the regular expressions they
// replaced, on identifiers.
func TestClassNamePredicatesEqualRegexps(t *testing.T) {
	trainer := regexp.MustCompile(`(SFT|DPO|KTO|ORPO|CPO|GRPO|Reward|PPO)Trainer$`)
	args := regexp.MustCompile(`^(\w*TrainingArguments|SFTConfig|DPOConfig|KTOConfig|ORPOConfig|CPOConfig|GRPOConfig|RewardConfig|PPOConfig)$`)
	pieces := []string{"SFT", "DPO", "GRPO", "PO", "Reward", "Trainer", "Config", "Training", "Arguments", "TrainingArguments", "Seq2Seq", "My", "_", "x"}
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 20000; trial++ {
		var name string
		for n := rng.IntN(4); n >= 0; n-- {
			name += pieces[rng.IntN(len(pieces))]
		}
		if got, want := isTRLTrainer(name), trainer.MatchString(name); got != want {
			t.Fatalf("isTRLTrainer(%q) = %v, regexp %v", name, got, want)
		}
		if got, want := isTrainingArgsClass(name), args.MatchString(name); got != want {
			t.Fatalf("isTrainingArgsClass(%q) = %v, regexp %v", name, got, want)
		}
	}
}

// Loads whose model leaves the file pass the training gate on their own
// evidence: a config's lazy load beside an adapter config, a helper
// module's load that reads a training option. The same loads without it
// are not parsed.
func TestPrefilterLoadsThatLeaveTheFile(t *testing.T) {
	eng, err := New(Options{Select: []string{"LTF001"}})
	if err != nil {
		t.Fatal(err)
	}
	lazy := "model = dict(llm=dict(type=AutoModelForCausalLM.from_pretrained, torch_dtype=torch.bfloat16)%s)\n"
	helper := "def get(a):\n    return AutoModelForCausalLM.from_pretrained(a.name, torch_dtype=getattr(torch, a.dtype)%s)\n"
	for _, c := range []struct{ shape, with, without string }{
		{lazy, ", lora=dict(type=LoraConfig, r=8)", ""},
		{helper, ", use_cache=not a.gradient_checkpointing", ""},
	} {
		src := []byte(fmt.Sprintf(c.shape, c.with))
		if !eng.MayMatch(src) || checkFindings(t, eng, string(src)) == 0 {
			t.Errorf("no finding through the prefilter in\n%s", src)
		}
		if src := []byte(fmt.Sprintf(c.shape, c.without)); eng.MayMatch(src) {
			t.Errorf("no evidence, yet the prefilter passes\n%s", src)
		}
	}
}
