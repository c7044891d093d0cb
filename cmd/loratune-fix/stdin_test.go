package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stdinScript has one fix (device_map) and one finding that stays (a dtype
// decided at run time) under --select LTF001,LTF003.
const stdinScript = `import os

import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments

model = AutoModelForCausalLM.from_pretrained(
    "acme/model-7b", torch_dtype=getattr(torch, os.environ["DTYPE"]), device_map="auto"
)
model = get_peft_model(model, LoraConfig(r=8, task_type="CAUSAL_LM"))
args = TrainingArguments(output_dir="o", bf16=True)
Trainer(model=model, args=args).train()
`

var stdinFixed = strings.Replace(stdinScript, `device_map="auto"`, `device_map=None`, 1)

// A source that names a load but does not parse.
const stdinBroken = "from transformers import AutoModelForCausalLM, Trainer\nmodel = AutoModelForCausalLM.from_pretrained(\n"

// runStdin runs a command on stdinScript (or src) read from stdin as
// train.py, in an empty folder: a run that walked the folder instead
// would find nothing.
func runStdin(t *testing.T, src string, args ...string) (string, string, int) {
	t.Helper()
	t.Chdir(t.TempDir())
	return run(t, src, append(args, "--select", "LTF001,LTF003", "--stdin-filename", "train.py")...)
}

// The stdin contract is ruff's: the fixed source alone on stdout for a
// filter (fix -, fix --write -, check --fix -), a diff naming the stdin
// filename for --diff and --check, the findings on stdout for check -, and
// exit codes as for files.
func TestStdinFixPrintsTheFixedSource(t *testing.T) {
	for _, args := range [][]string{{"fix", "-"}, {"fix", "--write", "-"}, {"fix"}} {
		out, stderr, code := runStdin(t, stdinScript, args...)
		if code != 0 || out != stdinFixed || stderr != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 0, the fixed source and nothing else", args, code, out, stderr)
		}
	}
}

func TestStdinCheckFixPrintsTheSourceAndTheRestOnStderr(t *testing.T) {
	for _, args := range [][]string{{"check", "--fix", "-"}, {"check", "--fix"}} {
		out, stderr, code := runStdin(t, stdinScript, args...)
		if code != 1 || out != stdinFixed {
			t.Errorf("%v: exit %d (want 1: a warning is left), stdout %q", args, code, out)
		}
		if !strings.HasPrefix(stderr, "train.py:8:34: warning: LTF001") || strings.Contains(stderr, "LTF003") ||
			!strings.HasSuffix(stderr, "Fixed 1 of 2 findings in 1 file; 1 remain (1 not fixed; see `loratune-fix check`).\n") {
			t.Errorf("%v: stderr %q; want the finding left, then the summary", args, stderr)
		}
	}
	// Nothing left: exit 0.
	out, _, code := run(t, stdinScript, "check", "--fix", "--select", "LTF003", "--stdin-filename", "train.py", "-")
	if code != 0 || out != stdinFixed {
		t.Errorf("all fixed: exit %d, stdout %q", code, out)
	}
}

func TestStdinDiffNamesTheStdinFilename(t *testing.T) {
	for _, args := range [][]string{{"fix", "--diff", "-"}, {"fix", "--check", "-"}, {"check", "--diff", "-"}} {
		out, _, code := runStdin(t, stdinScript, append(args, "--color", "never")...)
		want := "--- a/train.py\n+++ b/train.py\n"
		if code != 1 || !strings.HasPrefix(out, want) || !strings.Contains(out, "\n-    \"acme/model-7b\", torch_dtype=getattr(torch, os.environ[\"DTYPE\"]), device_map=\"auto\"\n+    \"acme/model-7b\", torch_dtype=getattr(torch, os.environ[\"DTYPE\"]), device_map=None\n") {
			t.Errorf("%v: exit %d (want 1), stdout:\n%s", args, code, out)
		}
		// Nothing would change: no diff, exit 0.
		out, _, code = runStdin(t, stdinFixed, append(args, "--color", "never")...)
		if code != 0 || out != "" {
			t.Errorf("%v on fixed source: exit %d, stdout %q", args, code, out)
		}
	}
}

func TestStdinCheckListsTheFindings(t *testing.T) {
	for _, args := range [][]string{{"check", "-"}, {"check"}} {
		out, _, code := runStdin(t, stdinScript, args...)
		if code != 1 || !strings.HasPrefix(out, "train.py:8:34: warning: LTF001") || !strings.Contains(out, "train.py:8:82: error: LTF003") {
			t.Errorf("%v: exit %d, stdout %q", args, code, out)
		}
	}
}

// --stdin-filename alone reads stdin, not the current folder.
func TestStdinFilenameAloneReadsStdin(t *testing.T) {
	dir, _ := writeDemo(t)
	t.Chdir(dir)
	out, _, code := run(t, "print('hello')\n", "check", "--stdin-filename", "other.py")
	if code != 0 || out != "" {
		t.Errorf("the folder was walked: exit %d, stdout %q", code, out)
	}
	// Its configuration is found from the stdin filename's folder.
	sub := filepath.Join(dir, "sub")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "pyproject.toml"), []byte("[tool.loratune-fix]\nselect = [\"LTF001\"]\n"), 0o644)
	out, _, _ = run(t, stdinScript, "check", "--stdin-filename", "sub/train.py")
	if strings.Contains(out, "LTF003") || !strings.Contains(out, "LTF001") {
		t.Errorf("sub/pyproject.toml not read for --stdin-filename sub/train.py:\n%s", out)
	}
}

// A source that does not parse: a filter passes it through unchanged (an
// editor keeps its buffer), a diff shows nothing; exit 2 with the error.
func TestStdinBrokenSource(t *testing.T) {
	for _, tt := range []struct {
		args []string
		out  string
	}{
		{[]string{"fix", "-"}, stdinBroken},
		{[]string{"check", "--fix", "-"}, stdinBroken},
		{[]string{"fix", "--diff", "-"}, ""},
		{[]string{"fix", "--check", "-"}, ""},
		{[]string{"check", "-"}, ""},
	} {
		out, stderr, code := runStdin(t, stdinBroken, tt.args...)
		if code != exitError || out != tt.out || !strings.Contains(stderr, "loratune-fix: error: train.py: syntax error") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tt.args, code, out, stderr)
		}
		if strings.Contains(stderr, "No findings") {
			t.Errorf("%v: a summary after the error: %q", tt.args, stderr)
		}
	}
}
