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
			hit := Process(opts, "hit.py", []byte(text+broken))
			if hit.Skipped || hit.Err == nil {
				t.Errorf("trigger %q of %s: Skipped=%v Err=%v, want parsed and a syntax error", w, r.Code, hit.Skipped, hit.Err)
			}
		}
	}
}
