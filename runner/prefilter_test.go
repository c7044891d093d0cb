package runner

import (
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/rewrite"
)

func TestEveryRuleHasTriggers(t *testing.T) {
	for _, r := range rewrite.All() {
		if len(r.Triggers) == 0 {
			t.Errorf("%s %s has no trigger words: the prefilter would skip every file for it", r.Code, r.Name)
		}
		for _, w := range r.Triggers {
			if strings.TrimSpace(w) == "" {
				t.Errorf("%s has an empty trigger word", r.Code)
			}
		}
	}
}

// A file with none of the trigger words is not parsed: a syntax error in
// it goes unnoticed, while the same error next to any rule's trigger word
// (and a training word, for a rule that reports only in training files)
// is reported by the parser.
func TestPrefilterSkipsParse(t *testing.T) {
	eng, err := rewrite.New(rewrite.Options{Select: []string{"ALL"}})
	if err != nil {
		t.Fatal(err)
	}
	opts := &Options{Engine: eng}
	broken := "def f(:\n    return 1\n"
	miss := Process(opts, "miss.py", []byte(broken))
	if !miss.Skipped || miss.Err != nil {
		t.Errorf("no trigger word: Skipped=%v Err=%v, want skipped without a parse", miss.Skipped, miss.Err)
	}
	for _, r := range eng.Rules() {
		for _, w := range r.Triggers {
			text := "# " + w + "\n"
			if r.TrainingOnly {
				// Such a rule also needs a training word (any will do).
				text += "# Trainer get_peft_model train( backward optim\n"
			}
			if len(r.Also) > 0 {
				text += "# " + r.Also[0] + "\n"
			}
			hit := Process(opts, "hit.py", []byte(text+broken))
			if hit.Skipped || hit.Err == nil {
				t.Errorf("trigger %q of %s: Skipped=%v Err=%v, want parsed and a syntax error", w, r.Code, hit.Skipped, hit.Err)
			}
		}
	}
}

// re.compile in a file with a training word is not parsed for LTF006: its
// trigger "compile" needs one of the rule's Also words too.
func TestPrefilterAlsoWords(t *testing.T) {
	eng, err := rewrite.New(rewrite.Options{Select: []string{"LTF006"}})
	if err != nil {
		t.Fatal(err)
	}
	regex := []byte("import re\nPAT = re.compile('x')\n\ndef backward(x):\n    return x\n")
	if eng.MayMatch(regex) {
		t.Error("re.compile with a training word passes the LTF006 prefilter")
	}
	for _, w := range []string{"import torch\n", "model = get_peft_model(m, c)\n"} {
		if !eng.MayMatch(append([]byte(w), regex...)) {
			t.Errorf("compile with %q fails the LTF006 prefilter", w)
		}
	}
}
