package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run executes the command line in-process and returns its output and exit code.
func run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	root := newRoot()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(args)
	code := exitStatus(root.Execute(), &errOut)
	return out.String(), errOut.String(), code
}

func writeDemo(t *testing.T) (dir, path string) {
	dir = t.TempDir()
	path = filepath.Join(dir, "train.py")
	if err := os.WriteFile(path, demoScript, 0o640); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

func TestFixPreviewPrintsADiffAndWritesNothing(t *testing.T) {
	_, path := writeDemo(t)
	out, _, code := run(t, "", "fix", "--color", "never", path)
	if code != 0 {
		t.Fatalf("exit %d, want 0", code)
	}
	name := strings.TrimPrefix(path, "/") // an absolute path is written as git writes it
	if !strings.Contains(out, "--- a/"+name) || !strings.Contains(out, "+++ b/"+name) || !strings.Contains(out, "+        torch_dtype=torch.float32,") {
		t.Errorf("diff lacks headers or the dtype fix:\n%s", out)
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("--color never printed escape codes")
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, demoScript) {
		t.Error("preview changed the file")
	}
	colored, _, _ := run(t, "", "fix", "--color", "always", path)
	if !strings.Contains(colored, "\x1b[32m+") {
		t.Error("--color always printed no colour")
	}
}

func TestFixWriteAppliesAndKeepsTheMode(t *testing.T) {
	_, path := writeDemo(t)
	_, stderr, code := run(t, "", "fix", "--write", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := "fixed " + path + "\nFixed 8 of 8 findings in 1 file.\n"; stderr != want {
		t.Errorf("stderr %q, want %q: one line naming the file, then the summary", stderr, want)
	}
	got, _ := os.ReadFile(path)
	want, _ := os.ReadFile("demo/train.py.golden")
	if !bytes.Equal(got, want) {
		t.Error("written file differs from the demo's golden output")
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640 kept", info.Mode().Perm())
	}
	// A second run finds nothing to do.
	out, _, code := run(t, "", "fix", "--check", path)
	if code != 0 || out != "" {
		t.Errorf("second run: exit %d, output %q", code, out)
	}
}

func TestFixCheckExitsOneWhenSomethingWouldChange(t *testing.T) {
	_, path := writeDemo(t)
	out, _, code := run(t, "", "fix", "--check", path)
	if code != 1 || !strings.Contains(out, "@@") {
		t.Errorf("exit %d (want 1), diff printed: %v", code, strings.Contains(out, "@@"))
	}
}

func TestCheckTextAndJSON(t *testing.T) {
	_, path := writeDemo(t)
	out, _, code := run(t, "", "check", path)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(out, path+":40:20: error: LTF003 training-device-map: [*] ") {
		t.Errorf("text output lacks the device_map finding:\n%s", out)
	}
	out, _, _ = run(t, "", "check", "--output-format", "json", path)
	var findings []map[string]any
	if err := json.Unmarshal([]byte(out), &findings); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(findings) == 0 {
		t.Fatal("no findings in JSON")
	}
	for _, f := range findings {
		for _, key := range []string{"path", "code", "name", "severity", "message", "line", "column", "end_line", "end_column", "fix"} {
			if _, ok := f[key]; !ok {
				t.Errorf("finding lacks %q: %v", key, f)
			}
		}
		fix, _ := f["fix"].(map[string]any)
		if fix == nil {
			continue
		}
		if a := fix["applicability"]; a != "safe" && a != "unsafe" {
			t.Errorf("applicability %v", a)
		}
		for _, e := range fix["edits"].([]any) {
			edit := e.(map[string]any)
			for _, key := range []string{"start_byte", "end_byte", "new_text"} {
				if _, ok := edit[key]; !ok {
					t.Errorf("edit lacks %q", key)
				}
			}
		}
	}
	// The JSON edits, applied, give the fixed file for the device_map finding.
	for _, f := range findings {
		if f["code"] != "LTF003" {
			continue
		}
		e := f["fix"].(map[string]any)["edits"].([]any)[0].(map[string]any)
		s, end := int(e["start_byte"].(float64)), int(e["end_byte"].(float64))
		if got := string(demoScript[s:end]); got != `"auto"` {
			t.Errorf("LTF003 edit covers %q, want \"auto\"", got)
		}
	}
}

func TestCleanFileExitsZero(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "util.py")
	os.WriteFile(path, []byte("def add(a, b):\n    return a + b\n"), 0o644)
	if _, _, code := run(t, "", "check", path); code != 0 {
		t.Errorf("check exit %d, want 0", code)
	}
	if _, stderr, code := run(t, "", "fix", "--check", path); code != 0 {
		t.Errorf("fix --check exit %d, want 0 (%s)", code, stderr)
	}
}

func TestStdinFixWritesTheFixedSource(t *testing.T) {
	out, _, code := run(t, string(demoScript), "fix", "-", "--stdin-filename", "train.py")
	want, _ := os.ReadFile("demo/train.py.golden")
	if code != 0 || out != string(want) {
		t.Errorf("exit %d; stdout differs from the golden output", code)
	}
	out, _, code = run(t, string(demoScript), "check", "-", "--stdin-filename", "train.py")
	if code != 1 || !strings.HasPrefix(out, "train.py:") {
		t.Errorf("check on stdin: exit %d, output %q", code, out)
	}
}

func TestBadFilesAreOneLineEachAndTheOthersStillRun(t *testing.T) {
	dir, path := writeDemo(t)
	broken := filepath.Join(dir, "broken.py")
	brokenText := "from transformers import AutoModelForCausalLM, Trainer\nmodel = AutoModelForCausalLM.from_pretrained(\n"
	os.WriteFile(broken, []byte(brokenText), 0o644)
	binary := filepath.Join(dir, "blob.py")
	os.WriteFile(binary, []byte("from_pretrained\x00\x01"), 0o644)
	latin1 := filepath.Join(dir, "latin1.py")
	os.WriteFile(latin1, []byte("# caf\xe9\nx = 'from_pretrained'\ntrainer.train()\n"), 0o644)
	missing := filepath.Join(dir, "missing.py")

	_, stderr, code := run(t, "", "fix", "--write", dir, missing)
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	for _, name := range []string{broken, binary, latin1, missing} {
		lines := 0
		for _, l := range strings.Split(stderr, "\n") {
			if strings.Contains(l, name+":") {
				lines++
			}
		}
		if lines != 1 {
			t.Errorf("%s: %d lines on stderr, want 1:\n%s", name, lines, stderr)
		}
	}
	if !strings.Contains(stderr, broken+": syntax error at 2:") {
		t.Errorf("the syntax error line does not say where:\n%s", stderr)
	}
	if got, _ := os.ReadFile(broken); string(got) != brokenText {
		t.Error("the broken file was changed")
	}
	if got, _ := os.ReadFile(path); bytes.Equal(got, demoScript) {
		t.Error("the good file was not fixed")
	}
}

func TestSelectAndIgnore(t *testing.T) {
	_, path := writeDemo(t)
	out, _, _ := run(t, "", "check", "--select", "LTF003,eager-attention", path)
	if strings.Count(out, "\n") != 2 || !strings.Contains(out, "LTF002") || !strings.Contains(out, "LTF003") {
		t.Errorf("--select: %s", out)
	}
	out, _, _ = run(t, "", "check", "--ignore", "LTF001,LTF002,LTF003,LTF004,LTF005,LTF006,LTF008,LTF009", path)
	if out != "" {
		t.Errorf("--ignore every finding rule left: %s", out)
	}
	if _, stderr, code := run(t, "", "check", "--select", "LTF999", path); code != 2 || !strings.Contains(stderr, "LTF999") {
		t.Errorf("unknown rule: exit %d, %s", code, stderr)
	}
}

func TestRulesListsAndDocuments(t *testing.T) {
	out, _, code := run(t, "", "rules")
	if code != 0 || !strings.Contains(out, "LTF007  sdpa-backend-fence") {
		t.Errorf("rules list:\n%s", out)
	}
	// The red herrings are listed as such, after the rules.
	if _, after, ok := strings.Cut(out, "Not the cause (no rule):"); !ok || !strings.Contains(after, "Sliding Window Attention") || !strings.Contains(after, "label smoothing") {
		t.Errorf("rules list lacks the not-the-cause section:\n%s", out)
	}
	out, _, code = run(t, "", "rules", "LTF002")
	for _, want := range []string{"# LTF002 eager-attention", "## Why", "## Example", "## When it stays away", "## Cost"} {
		if !strings.Contains(out, want) {
			t.Errorf("rules LTF002 lacks %q", want)
		}
	}
	if code != 0 {
		t.Errorf("exit %d", code)
	}
}

func TestDemoPrintsTheDiff(t *testing.T) {
	out, stderr, code := run(t, "", "demo", "--color", "never")
	if code != 0 || !strings.Contains(out, `+        attn_implementation="eager",`) {
		t.Errorf("demo: exit %d\n%s", code, out)
	}
	// It says nothing was written and what to run next, with a command
	// that runs here (the test binary stands for go run's), never a path
	// into a checkout.
	if !strings.Contains(stderr, "Nothing was written") || !strings.Contains(stderr, "go run ./cmd/loratune-fix fix --write train.py") || strings.Contains(stderr, "demo/train.py") {
		t.Errorf("demo's hint:\n%s", stderr)
	}
	for arg0, want := range map[string]string{
		"loratune-fix":                           "loratune-fix",
		"/tmp/go-build123/b001/exe/loratune-fix": "go run ./cmd/loratune-fix",
		"./bin/loratune-fix-not-on-path":         "./bin/loratune-fix-not-on-path",
	} {
		if got := selfCommand(arg0); got != want {
			t.Errorf("selfCommand(%q) = %q, want %q", arg0, got, want)
		}
	}
}

// A full fine-tune gets its findings without fixes: the reason is said
// once, in the text's "(not fixed: ...)" and JSON's reason, never in the
// message.
func TestOutOfScopeReasonSaidOnce(t *testing.T) {
	src, err := os.ReadFile("../../fixtures/scope/full_finetune.py")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "train.py")
	if err := os.WriteFile(path, src, 0o640); err != nil {
		t.Fatal(err)
	}
	const why = "full fine-tune: only adapter training is edited"
	out, _, _ := run(t, "", "check", path)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) == 0 || lines[0] == "" {
		t.Fatal("no findings")
	}
	for _, l := range lines {
		if strings.Count(l, why) != 1 || !strings.Contains(l, "(not fixed: "+why+") ") {
			t.Errorf("want the reason once, as (not fixed: %s): %s", why, l)
		}
	}
	out, _, _ = run(t, "", "check", "--output-format", "json", path)
	var findings []struct{ Message, Outcome, Reason string }
	if err := json.Unmarshal([]byte(out), &findings); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, f := range findings {
		if f.Outcome != "not-fixed" || f.Reason != why || strings.Contains(f.Message, "fine-tune") {
			t.Errorf("JSON finding: outcome %q, reason %q, message %q; want not-fixed, %q, and a message without it", f.Outcome, f.Reason, f.Message, why)
		}
	}
}
