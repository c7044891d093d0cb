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
// it goes unnoticed, while the same error next to a trigger word is
// reported by the parser.
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
			hit := Process(opts, "hit.py", []byte("# "+w+"\n"+broken))
			if hit.Skipped || hit.Err == nil {
				t.Errorf("trigger %q of %s: Skipped=%v Err=%v, want parsed and a syntax error", w, r.Code, hit.Skipped, hit.Err)
			}
		}
	}
}
