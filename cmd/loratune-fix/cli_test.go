package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	out, _, code := run(t, "", "--version")
	if code != 0 || !strings.HasPrefix(out, "loratune-fix ") || !strings.Contains(out, "go1.") {
		t.Errorf("--version: exit %d, %q", code, out)
	}
	info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-12-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"},
	}}
	if got, want := buildVersion(info, true), "(devel) 0123456789ab 2026-12-01T10:00:00Z, modified (go1.26.8)"; got != want {
		t.Errorf("checkout build: %q, want %q", got, want)
	}
	info.Main.Version = "v0.3.0"
	if got, want := buildVersion(info, true), "v0.3.0 (go1.26.8)"; got != want {
		t.Errorf("tagged build: %q, want %q", got, want)
	}
	// A release build (packaging/wheel.sh) says its tag, whatever the
	// toolchain recorded.
	info.Main.Version = "(devel)"
	releaseVersion = "v0.4.0"
	defer func() { releaseVersion = "" }()
	if got, want := buildVersion(info, true), "v0.4.0 (go1.26.8)"; got != want {
		t.Errorf("release build: %q, want %q", got, want)
	}
}

func TestErrorsHaveOnePrefix(t *testing.T) {
	_, path := writeDemo(t)
	broken := filepath.Join(filepath.Dir(path), "broken.py")
	os.WriteFile(broken, append(append([]byte{}, demoScript...), "\ndef f(:\n"...), 0o644)
	for _, args := range [][]string{
		{"check", "--output-format", "xml", path}, // usage
		{"check", broken},                         // a file
		{"review", "--output-format", "xml", "--diff", "-"},
		{"rules", "LTF999"},
	} {
		_, stderr, code := run(t, "", args...)
		first := strings.SplitN(stderr, "\n", 2)[0]
		if code != exitError || !strings.HasPrefix(first, "loratune-fix: error: ") {
			t.Errorf("%v: exit %d, first line %q, want loratune-fix: error: ...", args, code, first)
		}
	}
}

func TestCheckDiffShowsTheFixAndWritesNothing(t *testing.T) {
	_, path := writeDemo(t)
	out, stderr, code := run(t, "", "check", "--diff", path)
	if code != 1 || !strings.Contains(out, "+        device_map=None,") || strings.Contains(out, ": error: LTF") {
		t.Errorf("check --diff: exit %d (want 1), want the diff and no finding lines:\n%s\n%s", code, out, stderr)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, demoScript) {
		t.Error("check --diff wrote the file")
	}
	fixOut, _, _ := run(t, "", "fix", "--diff", path)
	if fixOut != out {
		t.Error("check --diff and fix --diff print different diffs")
	}
	if _, stderr, code := run(t, "", "fix", "--diff", "--write", path); code != exitError || !strings.Contains(stderr, "give one") {
		t.Errorf("fix --diff --write: exit %d, %q", code, stderr)
	}
}

func TestCheckFixIsFixWrite(t *testing.T) {
	_, path := writeDemo(t)
	out, stderr, code := run(t, "", "check", "--fix", path)
	want, _ := os.ReadFile("demo/train.py.golden")
	if now, _ := os.ReadFile(path); !bytes.Equal(now, want) {
		t.Error("check --fix did not write what fix --write writes")
	}
	// Every finding of the demo is fixed: nothing remains, exit 0.
	if code != 0 || out != "" || !strings.Contains(stderr, "fixed "+path) || !strings.Contains(stderr, "Fixed 8 of 8 findings in 1 file.") {
		t.Errorf("check --fix: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	// An unsafe fix left out remains, is listed, and fails the check.
	dir := t.TempDir()
	unsafe := filepath.Join(dir, "t.py")
	src, err := os.ReadFile("../../fixtures/realworld/state_dict_override.py")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(unsafe, src, 0o644)
	out, stderr, code = run(t, "", "check", "--fix", "--select", "LTF004", unsafe)
	if now, _ := os.ReadFile(unsafe); !bytes.Equal(now, src) {
		t.Error("check --fix applied an unsafe fix")
	}
	if code != 1 || !strings.Contains(out, "LTF004") || !strings.Contains(stderr, "Fixed 0 of 1 finding in 0 files; 1 remain (1 with `--unsafe-fixes`") {
		t.Errorf("unsafe left: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}

func TestExitZeroAndInfoNeverFails(t *testing.T) {
	_, path := writeDemo(t)
	if _, _, code := run(t, "", "check", "--exit-zero", path); code != 0 {
		t.Errorf("--exit-zero: exit %d", code)
	}
	// LTF009 reports at info severity: a note, not a failure.
	out, stderr, code := run(t, "", "check", "--select", "LTF009", path)
	if code != 0 || !strings.Contains(out, ": info: LTF009 ") {
		t.Errorf("info only: exit %d (want 0)\n%s%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "Found 1 finding (1 info): 1 fixable with `loratune-fix fix --write`.") {
		t.Errorf("summary: %q", stderr)
	}
}

func TestStatistics(t *testing.T) {
	_, path := writeDemo(t)
	out, _, code := run(t, "", "check", "--statistics", "--select", "LTF001,LTF003,LTF009", path)
	want := "1  LTF001  fp32-master-weights  [*]\n1  LTF003  training-device-map  [*]\n1  LTF009  visible-nan-logging  [*]\n"
	if code != 1 || out != want {
		t.Errorf("--statistics: exit %d\n%s\nwant\n%s", code, out, want)
	}
}

func TestCurrentFolderIsTheDefaultPath(t *testing.T) {
	dir, _ := writeDemo(t)
	t.Chdir(dir)
	out, _, code := run(t, "", "check")
	if code != 1 || !strings.Contains(out, "train.py:40:20: error: LTF003") {
		t.Errorf("check with no path: exit %d\n%s", code, out)
	}
	out, _, _ = run(t, "", "fix")
	if !strings.Contains(out, "+++ b/train.py") {
		t.Errorf("fix with no path: no diff of train.py\n%s", out)
	}
}

func TestFixWithNothingToDoSaysSo(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "clean.py")
	os.WriteFile(path, []byte("print('hello')\n"), 0o644)
	out, stderr, code := run(t, "", "fix", path)
	if code != 0 || out != "" || stderr != "No findings: nothing to fix.\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}

// demo, review and migrate list only the flags that do something there.
func TestHelpListsOnlyFlagsThatApply(t *testing.T) {
	absent := map[string][]string{
		"demo":    {"--stdin-filename", "--jobs", "--max-file-size", "--config", "--exclude", "--shard"},
		"review":  {"--stdin-filename", "--exclude", "--format "},
		"migrate": {"--stdin-filename"},
	}
	for cmd, flags := range absent {
		out, _, _ := run(t, "", cmd, "--help")
		if !strings.Contains(out, "--profile") {
			t.Fatalf("%s --help: %s", cmd, out)
		}
		for _, f := range flags {
			if strings.Contains(out, f) {
				t.Errorf("%s --help lists %s, which does nothing there", cmd, f)
			}
		}
	}
}

func TestShowFixesListsWhatTheFixesResolve(t *testing.T) {
	_, path := writeDemo(t)
	out, stderr, _ := run(t, "", "check", "--fix", "--show-fixes", "--select", "LTF001,LTF003,LTF009", path)
	want := "Fixed:\n- " + path + ":\n    1 × LTF001 (fp32-master-weights)\n    1 × LTF003 (training-device-map)\n    1 × LTF009 (visible-nan-logging)\n"
	if out != "" || !strings.Contains(stderr, want) {
		t.Errorf("stdout %q, stderr %q, want it to contain %q", out, stderr, want)
	}
	// Nothing left to fix: nothing listed.
	_, stderr, _ = run(t, "", "check", "--show-fixes", "--select", "LTF001", path)
	if strings.Contains(stderr, "Fixed") {
		t.Errorf("a fixed file: %q", stderr)
	}
}
