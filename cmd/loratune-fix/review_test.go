package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/review"
)

// The pull request of the "done when" case: the base has a training script
// with an old bf16 load; the pull request changes one argument of that load
// (device_map) and adds a second bf16 load with its own trainer.
const baseScript = `import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments

BASE = "meta-llama/Llama-3.1-8B"

tokenizer = AutoTokenizer.from_pretrained(BASE)

model = AutoModelForCausalLM.from_pretrained(
    BASE,
    torch_dtype=torch.bfloat16,
    device_map="cuda",
)
model = get_peft_model(model, LoraConfig(r=8))

args = TrainingArguments(output_dir="out", bf16=True)
trainer = Trainer(model=model, args=args)
trainer.train()
`

func prScript() string {
	return strings.Replace(baseScript, `device_map="cuda"`, `device_map="auto"`, 1) + `
critic = AutoModelForCausalLM.from_pretrained(
    BASE,
    torch_dtype=torch.bfloat16,
)
critic = get_peft_model(critic, LoraConfig(r=8))
critic_trainer = Trainer(model=critic, args=args)
critic_trainer.train()
`
}

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// prRepo builds the pull request's repository: main holds the base commit,
// the checked-out branch "pr" the pull request's commit.
func prRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed (.ci/run installs it)")
	}
	dir := t.TempDir()
	gitRun(t, dir, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(dir, "train.py"), []byte(baseScript), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, dir, "add", "train.py")
	gitRun(t, dir, "commit", "-q", "-m", "base")
	gitRun(t, dir, "checkout", "-q", "-b", "pr")
	if err := os.WriteFile(filepath.Join(dir, "train.py"), []byte(prScript()), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, dir, "commit", "-q", "-am", "load a critic; shard the model")
	return dir
}

// runCLI runs the command in dir and returns stdout, stderr and the error.
func runCLI(t *testing.T, dir string, args ...string) (string, string, error) {
	t.Helper()
	t.Chdir(dir)
	root := newRoot()
	var stdout, stderr bytes.Buffer
	root.SetOut(&stdout)
	root.SetErr(&stderr)
	root.SetArgs(args)
	err := root.Execute()
	return stdout.String(), stderr.String(), err
}

// changedLines are the lines of the pull request's version that differ from
// the base, computed from the two texts (both have the same lines up to the
// appended part), not from any diff code under test.
func changedLines() map[int]bool {
	base, pr := strings.Split(baseScript, "\n"), strings.Split(prScript(), "\n")
	out := map[int]bool{}
	for i := range pr[:len(pr)-1] {
		if i >= len(base)-1 || base[i] != pr[i] {
			out[i+1] = true
		}
	}
	return out
}

// suggestionBlock returns the text of a comment's suggestion block, whose
// fence may be longer than three backticks.
func suggestionBlock(body string) (string, bool) {
	i := strings.Index(body, "suggestion\n")
	if i < 3 {
		return "", false
	}
	f := i
	for f > 0 && body[f-1] == '`' {
		f--
	}
	fence := body[f:i]
	rest := body[i+len("suggestion\n"):]
	end := strings.Index(rest, fence+"\n")
	if len(fence) < 3 || end < 0 {
		return "", false
	}
	return rest[:end], true
}

// replacement replaces the original's lines from..to (1-based, inclusive).
type replacement struct {
	from, to int
	lines    []string
}

// applyReplacements applies non-overlapping line replacements to text, the
// way GitHub commits a suggestion: the block replaces the commented lines.
func applyReplacements(t *testing.T, text string, rs []replacement) string {
	t.Helper()
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].from > rs[j].from })
	for i := 1; i < len(rs); i++ {
		if rs[i].to >= rs[i-1].from {
			t.Fatalf("replacements overlap: lines %d-%d and %d-%d", rs[i].from, rs[i].to, rs[i-1].from, rs[i-1].to)
		}
	}
	for _, r := range rs {
		repl := append([]string(nil), r.lines...)
		lines = append(lines[:r.from-1], append(repl, lines[r.to:]...)...)
	}
	return strings.Join(lines, "")
}

// hunkReplacements turns a patch's hunks into their minimal line
// replacements (common leading and trailing context stripped).
func hunkReplacements(t *testing.T, patch string) []replacement {
	t.Helper()
	var out []replacement
	hdr := regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@`)
	var cur *replacement
	var old, neu []string
	flush := func() {
		if cur == nil {
			return
		}
		p := 0
		for p < len(old) && p < len(neu) && old[p] == neu[p] {
			p++
		}
		s := 0
		for s < len(old)-p && s < len(neu)-p && old[len(old)-1-s] == neu[len(neu)-1-s] {
			s++
		}
		from := cur.from + p
		out = append(out, replacement{from: from, to: from + len(old) - p - s - 1, lines: neu[p : len(neu)-s]})
		cur = nil
	}
	for _, l := range strings.SplitAfter(patch, "\n") {
		switch {
		case strings.HasPrefix(l, "@@"):
			flush()
			m := hdr.FindStringSubmatch(l)
			if m == nil {
				t.Fatalf("bad hunk header %q", l)
			}
			start, _ := strconv.Atoi(m[1])
			cur, old, neu = &replacement{from: start}, nil, nil
		case cur == nil || l == "":
		case l[0] == ' ':
			old, neu = append(old, l[1:]), append(neu, l[1:])
		case l[0] == '-':
			old = append(old, l[1:])
		case l[0] == '+':
			neu = append(neu, l[1:])
		}
	}
	flush()
	return out
}

var patchRE = regexp.MustCompile("(?s)```diff\n(.*?)```\n")

func TestReviewBaseSuggestsOnlyOnChangedLinesAndMatchesFixWrite(t *testing.T) {
	dir := prRepo(t)
	stdout, stderr, err := runCLI(t, dir, "review", "--base", "main", "--output-format", "github-review")
	if err != nil {
		t.Fatalf("review: %v\n%s", err, stderr)
	}
	var req review.Request
	if err := json.Unmarshal([]byte(stdout), &req); err != nil {
		t.Fatalf("github-review output is not JSON: %v\n%s", err, stdout)
	}
	head := strings.TrimSpace(gitRun(t, dir, "rev-parse", "HEAD"))
	if req.CommitID != head || req.Event != "COMMENT" {
		t.Errorf("commit_id %q event %q, want %q COMMENT", req.CommitID, req.Event, head)
	}

	changed := changedLines()
	var rs []replacement
	for _, c := range req.Comments {
		from := c.Line
		if c.StartLine > 0 {
			from = c.StartLine
			if c.StartSide != "RIGHT" {
				t.Errorf("comment on %d-%d: start_side %q", c.StartLine, c.Line, c.StartSide)
			}
		}
		if c.Path != "train.py" || c.Side != "RIGHT" {
			t.Errorf("comment %+v: want path train.py, side RIGHT", c)
		}
		for l := from; l <= c.Line; l++ {
			if !changed[l] {
				t.Errorf("suggestion on line %d, which the pull request did not change (changed: %v)", l, changed)
			}
		}
		block, ok := suggestionBlock(c.Body)
		if !ok {
			t.Fatalf("comment on line %d has no suggestion block:\n%s", c.Line, c.Body)
		}
		if !strings.Contains(c.Body, "docs/rules.md#ltf") {
			t.Errorf("comment on line %d does not link its rule's doc:\n%s", c.Line, c.Body)
		}
		var lines []string
		if block != "" {
			lines = strings.SplitAfter(block, "\n")
			lines = lines[:len(lines)-1]
		}
		rs = append(rs, replacement{from, c.Line, lines})
	}
	// The new load (lines 18-21) and the changed argument (line 11) each
	// get a suggestion; the old load's other fixes do not.
	if len(rs) < 2 {
		t.Fatalf("want suggestions on the changed argument and on the new load, got %d:\n%s", len(rs), stdout)
	}
	suggested := applyReplacements(t, prScript(), append([]replacement(nil), rs...))
	for _, want := range []string{"    device_map=None,\n", "critic = AutoModelForCausalLM.from_pretrained(\n    BASE,\n    torch_dtype=torch.float32,\n"} {
		if !strings.Contains(suggested, want) {
			t.Errorf("the suggestions applied do not give %q:\n%s", want, suggested)
		}
	}
	if !strings.Contains(suggested, "    torch_dtype=torch.bfloat16,\n    device_map=None,") {
		t.Errorf("the old load's unchanged dtype line was touched by a suggestion:\n%s", suggested)
	}

	// The rest is in the body, as patches that git apply takes.
	patches := patchRE.FindAllStringSubmatch(req.Body, -1)
	if len(patches) == 0 || !strings.Contains(req.Body, "<details>") {
		t.Fatalf("no patches in the body:\n%s", req.Body)
	}
	// They apply once the suggestions are committed (one edits the line
	// above a suggestion, so it says it needs them first).
	if err := os.WriteFile(filepath.Join(dir, "train.py"), []byte(suggested), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, p := range patches {
		pf := filepath.Join(t.TempDir(), "p.diff")
		os.WriteFile(pf, []byte(p[1]), 0o644)
		gitRun(t, dir, "apply", "--check", pf)
		for _, r := range hunkReplacements(t, p[1]) {
			// A pure insertion (to < from) sits between lines from-1 and from.
			outside := false
			for l := min(r.from, r.to); l <= max(r.from, r.to); l++ {
				outside = outside || !changed[l]
			}
			if !outside {
				t.Errorf("body patch %d only changes lines %d-%d, which the pull request changed: it belongs in a suggestion\n%s", i, r.from, r.to, p[1])
			}
		}
		gitRun(t, dir, "apply", pf)
	}

	// Suggestions and body patches together are exactly fix --write.
	applied, err := os.ReadFile(filepath.Join(dir, "train.py"))
	if err != nil {
		t.Fatal(err)
	}
	all := string(applied)
	if err := os.WriteFile(filepath.Join(dir, "train.py"), []byte(prScript()), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := runCLI(t, dir, "fix", "--write", "train.py"); err != nil {
		t.Fatalf("fix --write: %v\n%s", err, stderr)
	}
	written, err := os.ReadFile(filepath.Join(dir, "train.py"))
	if err != nil {
		t.Fatal(err)
	}
	if all != string(written) {
		t.Errorf("suggestions + body patches differ from fix --write:\n--- suggestions+patches\n%s\n--- fix --write\n%s", all, written)
	}
	if all == prScript() {
		t.Error("nothing was fixed")
	}
}

// review prints workflow annotations with --output-format github, and the
// old --format still works (hidden, deprecated).
func TestReviewGitHubAnnotationsAndTheOldFormatFlag(t *testing.T) {
	dir := prRepo(t)
	out, stderr, err := runCLI(t, dir, "review", "--base", "main", "--output-format", "github")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 {
		t.Fatalf("review --output-format github: %q", out)
	}
	for _, l := range lines {
		if !regexp.MustCompile(`^::(error|warning|notice) file=train\.py,line=\d+,col=\d+,endLine=\d+,endColumn=\d+,title=LTF\d{3}::`).MatchString(l) {
			t.Errorf("not an annotation: %q", l)
		}
	}
	old, _, err := runCLI(t, dir, "review", "--base", "main", "--format", "sarif")
	if err != nil || !strings.Contains(old, `"version": "2.1.0"`) {
		t.Errorf("--format sarif: %v\n%.200s", err, old)
	}
}

// --fail-on-findings fails on errors and warnings, never on info notes.
func TestReviewFailOnFindingsIgnoresInfo(t *testing.T) {
	dir := prRepo(t)
	for sel, want := range map[string]int{"LTF009": exitOK, "LTF003": exitFindings} {
		out, stderr, err := runCLI(t, dir, "review", "--base", "main", "--select", sel, "--fail-on-findings")
		code := exitStatus(err, io.Discard)
		if code != want || !strings.Contains(out, sel) {
			t.Errorf("--select %s: exit %d, want %d\n%s%s", sel, code, want, out, stderr)
		}
	}
}

// A finding on a line the pull request did not touch is already in the
// file: --fail-on-findings passes it, --fail-on-findings=all fails it.
func TestReviewFailOnFindingsCountsChangedLines(t *testing.T) {
	dir := t.TempDir()
	gitRun(t, dir, "init", "-q", "-b", "main")
	old := `import torch
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
steps = 10
`
	if err := os.WriteFile(filepath.Join(dir, "train.py"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, dir, "add", "train.py")
	gitRun(t, dir, "commit", "-q", "-m", "base")
	gitRun(t, dir, "checkout", "-q", "-b", "pr")
	if err := os.WriteFile(filepath.Join(dir, "train.py"), []byte(strings.Replace(old, "steps = 10", "steps = 20", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, dir, "commit", "-q", "-am", "more steps")
	for _, c := range []struct {
		flag string
		want int
	}{{"--fail-on-findings", exitOK}, {"--fail-on-findings=changed", exitOK}, {"--fail-on-findings=all", exitFindings}, {"--fail-on-findings=false", exitOK}} {
		out, stderr, err := runCLI(t, dir, "review", "--base", "main", "--select", "LTF004", c.flag)
		if code := exitStatus(err, io.Discard); code != c.want || !strings.Contains(out, "1 finding already in the file") {
			t.Errorf("%s: exit %d, want %d\n%s%s", c.flag, code, c.want, out, stderr)
		}
	}
	if _, _, err := runCLI(t, dir, "review", "--base", "main", "--fail-on-findings=some"); err == nil || !strings.Contains(err.Error(), "want changed") {
		t.Errorf("--fail-on-findings=some: %v", err)
	}
}
