package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fix --diff exits 1 when it shows a diff, as ruff's check --diff; the
// plain preview (no --diff) stays exit 0.
func TestFixDiffExitsOneWhenADiffIsShown(t *testing.T) {
	_, path := writeDemo(t)
	out, _, code := run(t, "", "fix", "--diff", "--color", "never", path)
	if code != 1 || !strings.Contains(out, "+++ b/") {
		t.Errorf("fix --diff: exit %d, want 1 with a diff", code)
	}
	if _, _, code := run(t, "", "fix", "--color", "never", path); code != 0 {
		t.Errorf("fix (preview): exit %d, want 0", code)
	}
	clean := filepath.Join(t.TempDir(), "clean.py")
	os.WriteFile(clean, demoGolden(t), 0o644)
	if out, _, code := run(t, "", "fix", "--diff", clean); code != 0 || out != "" {
		t.Errorf("fix --diff on a fixed file: exit %d, stdout %q", code, out)
	}
}

func demoGolden(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("demo/train.py.golden")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// concise is ruff's short line: path:line:col: CODE [*] message.
func TestConciseFormat(t *testing.T) {
	_, path := writeDemo(t)
	out, stderr, code := run(t, "", "check", "--output-format", "concise", "--select", "LTF003", path)
	want := path + ":40:20: LTF003 [*] device_map=\"auto\" shards"
	if code != 1 || !strings.HasPrefix(out, want) || strings.Count(out, "\n") != 1 || !strings.HasPrefix(stderr, "Found 1 finding") {
		t.Errorf("exit %d, stdout %q, stderr %q; want a line starting %q and the summary", code, out, stderr, want)
	}
}

// json-lines is ruff's name; jsonl, the earlier one, stays an alias.
func TestJSONLinesAndItsAlias(t *testing.T) {
	_, path := writeDemo(t)
	for _, cmd := range []string{"check", "fix"} {
		a, _, codeA := run(t, "", cmd, "--output-format", "json-lines", path)
		b, _, codeB := run(t, "", cmd, "--output-format", "jsonl", path)
		var line struct {
			Path     string
			Findings []json.RawMessage
		}
		if err := json.Unmarshal([]byte(a), &line); err != nil || line.Path != path || len(line.Findings) == 0 {
			t.Errorf("%s json-lines: %v, %q", cmd, err, a)
		}
		if a != b || codeA != codeB {
			t.Errorf("%s: jsonl differs from json-lines", cmd)
		}
	}
}

// -q prints the findings and nothing else; -s not the findings either,
// and the exit status still tells.
func TestQuietAndSilent(t *testing.T) {
	_, path := writeDemo(t)
	full, _, _ := run(t, "", "check", path)
	out, stderr, code := run(t, "", "check", "-q", path)
	if code != 1 || out != full || stderr != "" {
		t.Errorf("check -q: exit %d, stdout equal to the full run's: %v, stderr %q", code, out == full, stderr)
	}
	out, stderr, code = run(t, "", "check", "--silent", path)
	if code != 1 || out != "" || stderr != "" {
		t.Errorf("check -s: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	out, stderr, code = run(t, "", "check", "-s", "--output-format", "json", path)
	if code != 1 || out != "" || stderr != "" {
		t.Errorf("check -s json: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	// fix: the diff stays (it is what was asked for), the summary goes.
	out, stderr, code = run(t, "", "fix", "-q", "--color", "never", path)
	if code != 0 || !strings.Contains(out, "+++ b/") || stderr != "" {
		t.Errorf("fix -q: exit %d, stderr %q", code, stderr)
	}
	_, stderr, code = run(t, "", "fix", "--write", "-s", path)
	if code != 0 || stderr != "" {
		t.Errorf("fix --write -s: exit %d, stderr %q", code, stderr)
	}
	if now, _ := os.ReadFile(path); string(now) != string(demoGolden(t)) {
		t.Error("fix --write -s did not write")
	}
	// Errors are never hushed.
	_, stderr, code = run(t, "", "check", "-s", filepath.Join(t.TempDir(), "missing.py"))
	if code != 2 || !strings.Contains(stderr, "loratune-fix: error:") {
		t.Errorf("check -s on a missing file: exit %d, stderr %q", code, stderr)
	}
}

// --line-length wins over the project's; ruff.toml's line-length is read.
func TestLineLengthFlagAndRuffTOML(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "train.py")
	src := "from peft import LoraConfig, get_peft_model\nfrom transformers import AutoModelForCausalLM, Trainer\n\n" +
		"model = AutoModelForCausalLM.from_pretrained(\"acme/model-7b\", device_map=\"auto\")\n" +
		"model = get_peft_model(model, LoraConfig(r=8))\nTrainer(model=model).train()\n"
	os.WriteFile(path, []byte(src), 0o644)
	oneLine := "model = AutoModelForCausalLM.from_pretrained(\"acme/model-7b\", device_map=None, attn_implementation=\"eager\")\n"
	fixed := func(args ...string) string {
		t.Helper()
		out, stderr, _ := run(t, "", append([]string{"fix", "--select", "LTF002,LTF003", "-q", "--color", "never"}, append(args, path)...)...)
		if stderr != "" {
			t.Fatalf("stderr %q", stderr)
		}
		return out
	}
	if out := fixed(); strings.Contains(out, "+"+oneLine) {
		t.Fatalf("at 88 the load fits one line:\n%s", out)
	}
	if out := fixed("--line-length", "120"); !strings.Contains(out, "+"+oneLine) {
		t.Errorf("--line-length 120: the load is split:\n%s", out)
	}
	os.WriteFile(filepath.Join(dir, "ruff.toml"), []byte("line-length = 120\n"), 0o644)
	if out := fixed(); !strings.Contains(out, "+"+oneLine) {
		t.Errorf("ruff.toml line-length = 120 not read:\n%s", out)
	}
	if out := fixed("--line-length", "88"); strings.Contains(out, "+"+oneLine) {
		t.Errorf("--line-length 88 does not win over ruff.toml:\n%s", out)
	}
	if _, stderr, code := run(t, "", "fix", "--line-length", "-1", path); code != 2 || !strings.Contains(stderr, "--line-length") {
		t.Errorf("--line-length -1: exit %d, %q", code, stderr)
	}
}

// A folder with nothing to read: one warning, exit 0, as ruff.
func TestEmptySelectionSaysSo(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# notes\n"), 0o644)
	for _, cmd := range [][]string{{"check"}, {"fix"}, {"fix", "--write"}, {"check", "--fix"}} {
		out, stderr, code := run(t, "", append(cmd, dir)...)
		want := "loratune-fix: warning: no Python files, notebooks or launch configs found under " + dir + "\n"
		if code != 0 || out != "" || stderr != want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", cmd, code, out, stderr, want)
		}
	}
	if _, stderr, _ := run(t, "", "check", "-q", dir); stderr != "" {
		t.Errorf("check -q: %q", stderr)
	}
}

// A file that cannot be read is its error line, with no "No findings"
// summary after it; findings elsewhere still get theirs.
func TestNoSummaryAfterAFileError(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.py")
	for _, cmd := range [][]string{{"check"}, {"fix"}, {"fix", "--write"}, {"check", "--fix"}} {
		_, stderr, code := run(t, "", append(cmd, missing)...)
		if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "loratune-fix: error: "+missing) {
			t.Errorf("%v: exit %d, stderr %q; want one error line", cmd, code, stderr)
		}
	}
	_, path := writeDemo(t)
	_, stderr, _ := run(t, "", "check", path, missing)
	if !strings.Contains(stderr, "Found 8 findings") {
		t.Errorf("findings beside an error lost their summary: %q", stderr)
	}
}

// migrate --dry-run alone: each commit shown on stdout, nothing made.
func TestMigrateDryRunAlone(t *testing.T) {
	env := bulkGitEnv(t)
	dir, _ := writeDemo(t)
	bulkGit(t, env, dir, "init", "-q", "-b", "main")
	bulkGit(t, env, dir, "add", ".")
	bulkGit(t, env, dir, "commit", "-q", "-m", "initial")
	cmd := bulkCommand(dir, env, "migrate", "--dry-run", "--quiet", dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if code := bulkExitStatus(err); code != 0 || !strings.Contains(string(out), "would commit to") || !strings.Contains(string(out), "+++ b/train.py") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", code, out, stderr.String())
	}
	if !strings.Contains(stderr.String(), "1 would change (dry run)") {
		t.Errorf("summary: %s", stderr.String())
	}
	if st := bulkGit(t, env, dir, "status", "--porcelain"); st != "" || bulkGit(t, env, dir, "branch", "--list") != "* main" {
		t.Errorf("the dry run changed the checkout: %q", st)
	}
}
