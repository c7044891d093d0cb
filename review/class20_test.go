package review

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/rewrite"
	"github.com/loratune/loratune-fix/runner"
)

const class20Main = `import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, DataCollatorForLanguageModeling, Trainer, TrainingArguments
from peft import LoraConfig, get_peft_model

name = "mistralai/Mistral-7B-v0.1"
model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.float32, attn_implementation="eager")
tokenizer = AutoTokenizer.from_pretrained(name)
tokenizer.pad_token = tokenizer.eos_token
model.config.use_cache = False
model = get_peft_model(model, LoraConfig(r=8, task_type="CAUSAL_LM"))
args = TrainingArguments(output_dir="o", logging_nan_inf_filter=False)
collator = DataCollatorForLanguageModeling(tokenizer, mlm=False)
Trainer(model=model, args=args, data_collator=collator).train()
`

// countsRE reads the body's header: the total, then each part.
var countsRE = regexp.MustCompile(`found (\d+) findings? in the changed files[^:]*: (.*)\.\n`)

// headerAddsUp checks that the parts of the body's count sum to its total.
func headerAddsUp(t *testing.T, body string) {
	t.Helper()
	m := countsRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no count in the body:\n%s", body)
	}
	total, _ := strconv.Atoi(m[1])
	sum := 0
	for _, n := range regexp.MustCompile(`(?:^|, (?:and )?)(\d+) `).FindAllStringSubmatch(m[2], -1) {
		k, _ := strconv.Atoi(n[1])
		sum += k
	}
	if sum != total {
		t.Errorf("the header's parts add up to %d, not %d: %s", sum, total, m[0])
	}
}

// REPROS class 20: a pull request edits two lines of an old script. The
// review, from the real git diff, carries suggestions on them and the rest
// in the body; once the suggestions are committed as GitHub commits them,
// the body's patch still applies with git, and the whole gives fix's output.
func TestClass20BodyPatchAppliesAfterTheSuggestions(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(text string) {
		if err := os.WriteFile(filepath.Join(dir, "train.py"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("init", "-q", "-b", "main")
	write(class20Main)
	run("add", ".")
	run("commit", "-q", "-m", "main")
	run("switch", "-q", "-c", "feature")
	feature := strings.Replace(class20Main, `torch_dtype=torch.float32, attn_implementation="eager")`, `torch_dtype=torch.bfloat16)`, 1)
	feature = strings.Replace(feature, "model.config.use_cache = False", "model.config.use_cache = True", 1)
	write(feature)
	run("commit", "-q", "-am", "feature")

	gc, err := GitDiff(context.Background(), dir, "main")
	if err != nil {
		t.Fatal(err)
	}
	files, err := ParseDiff(strings.NewReader(string(gc.Diff)))
	if err != nil {
		t.Fatal(err)
	}
	eng, err := rewrite.New(rewrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := runner.Process(&runner.Options{Engine: eng, Fix: true}, "train.py", []byte(feature))
	if f.Err != nil || !f.Changed {
		t.Fatalf("fix: %v, changed %v", f.Err, f.Changed)
	}
	rv := &Review{CommitID: gc.Head, Files: []*FileReview{Build(f, files["train.py"], false)}}
	req := rv.Request()
	headerAddsUp(t, req.Body)
	var suggestions []PendingComment
	for _, c := range rv.Comments() {
		if strings.Contains(c.Body, "suggestion\n") {
			suggestions = append(suggestions, c)
		}
	}
	patches, after := bodyPatches(req.Body)
	if len(suggestions) == 0 || len(patches) == 0 {
		t.Fatalf("%d suggestions, %d patches: want both\n%s", len(suggestions), len(patches), req.Body)
	}
	got, err := gitApply(t, "train.py", applySuggestions(t, feature, suggestions), patches)
	if err != nil {
		t.Fatalf("the body's patch after the suggestions: %v\n%s", err, req.Body)
	}
	if got != string(f.After) {
		t.Errorf("suggestions then patch give\n%s\nfix gives\n%s", got, f.After)
	}
	// A patch applies on the untouched head too, unless it says it needs
	// the suggestions first (it edits the line above one).
	for i, p := range patches {
		if _, err := gitApply(t, "train.py", feature, []string{p}); err != nil && !after[i] {
			t.Errorf("the body's patch on the untouched head: %v", err)
		}
	}
	// The pad line (8) is not the pull request's: its finding is already
	// in the file, and does not fail --fail-on-findings.
	c := rv.Counts()
	if c.Already == 0 || c.Failing >= c.FailingAll || c.Comments+c.Below+c.Already != c.Findings {
		t.Errorf("counts %+v: want findings already in the file, failing only on changed lines", c)
	}
	if !strings.Contains(req.Body, "already in the file, on lines this pull request did not touch</summary>") {
		t.Errorf("no folded block of findings already in the file:\n%s", req.Body)
	}
}
