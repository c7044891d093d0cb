//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loratune/loratune-fix/internal/nobody"
)

// runWithin is run with a bound that only catches a blocked command.
func runWithin(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	type result struct {
		out, errOut string
		code        int
	}
	done := make(chan result, 1)
	go func() {
		out, errOut, code := run(t, "", args...)
		done <- result{out, errOut, code}
	}()
	select {
	case r := <-done:
		return r.out, r.errOut, r.code
	case <-time.After(2 * time.Minute):
		t.Fatalf("loratune-fix %v blocked", args)
		return "", "", 0
	}
}

// One tree with every hostile file next to good ones: each bad file is one
// line on stderr, the good ones are fixed, nothing blocks, no temporary file
// is left, exit 2.
func TestHostileTreeWithWrite(t *testing.T) {
	dir := t.TempDir()
	put := func(name string, data []byte, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	utf16 := []byte{0xff, 0xfe}
	for _, r := range string(demoScript) {
		utf16 = append(utf16, byte(r), byte(r>>8))
	}
	good := []string{
		put("train.py", demoScript, 0o644),
		put("with space.py", demoScript, 0o644),
		put("ünïcødé 训练.py", demoScript, 0o644),
		put("new\nline.py", demoScript, 0o644),
		put("crlf.py", bytes.ReplaceAll(demoScript, []byte("\n"), []byte("\r\n")), 0o644),
	}
	bad := map[string]string{
		put("utf16.py", utf16, 0o644):                                                                         "UTF-16 text",
		put("nul.py", append([]byte("import torch\x00"), demoScript...), 0o644):                               "binary file",
		put("latin1.py", append([]byte("# caf\xe9\n"), demoScript...), 0o644):                                 "not UTF-8",
		put("ro.py", demoScript, 0o444):                                                                       "read-only file",
		put("huge.py", demoScript, 0o644):                                                                     "over --max-file-size",
		put("broken.py", append(append([]byte{}, demoScript...), "\nAutoModel.from_pretrained(\n"...), 0o644): "syntax error",
	}
	os.Truncate(filepath.Join(dir, "huge.py"), 50<<20)
	put("empty.py", nil, 0o644)
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.py"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Symlink(filepath.Join(dir, "loop_b.py"), filepath.Join(dir, "loop_a.py"))
	os.Symlink(filepath.Join(dir, "loop_a.py"), filepath.Join(dir, "loop_b.py"))
	os.Symlink(dir, filepath.Join(dir, "sub", "up"))

	_, stderr, code := runWithin(t, "fix", "--write", dir)
	if code != exitError {
		t.Errorf("exit %d, want %d", code, exitError)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for path, want := range bad {
		n := 0
		for _, l := range lines {
			if strings.HasPrefix(l, "loratune-fix: error: "+path+": ") && strings.Contains(l, want) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s: want one error line with %q, got %d in:\n%s", filepath.Base(path), want, n, stderr)
		}
	}
	for _, p := range good {
		if now, _ := os.ReadFile(p); bytes.Equal(now, demoScript) || bytes.Contains(now, []byte("torch.bfloat16")) {
			t.Errorf("%q not fixed", p)
		}
	}
	if !strings.Contains(stderr, `fixed "`+filepath.Join(dir, "new\\nline.py")+`"`) {
		t.Errorf("a name with a newline is not quoted:\n%s", stderr)
	}
	if now, _ := os.ReadFile(filepath.Join(dir, "ro.py")); !bytes.Equal(now, demoScript) {
		t.Error("read-only file written")
	}
	if info, _ := os.Stat(filepath.Join(dir, "ro.py")); info.Mode().Perm() != 0o444 {
		t.Errorf("read-only file's mode changed to %v", info.Mode().Perm())
	}
	if len(lines) != len(bad)+len(good)+1 {
		t.Errorf("want %d lines (one per bad file, one per fixed file, the summary), got %d:\n%s", len(bad)+len(good)+1, len(lines), stderr)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".loratune-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}

	// Named on the command line, a FIFO, a device and a symlink loop are
	// one error each and block nothing.
	_, stderr, code = runWithin(t, "check", filepath.Join(dir, "pipe.py"), os.DevNull, filepath.Join(dir, "loop_a.py"))
	if code != exitError || strings.Count(stderr, "\n") != 3 || strings.Count(stderr, "not a regular file") != 2 || strings.Contains(stderr, "No findings") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
}

// --parse-timeout gives up on a file whose analysis takes longer, with a
// message, and the run goes on. The 8 MB file's analysis takes about 10 s
// on a 2-CPU VM (its parse alone is 200 ms at tree-sitter's fastest); the
// 150-byte one's well under a millisecond. The limit is wall-clock time, so
// it is set at a full second: at 50 ms, one CI run starved the small file
// past it while many test binaries shared the machine.
func TestParseTimeoutFlag(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.py")
	os.WriteFile(small, []byte("from transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_pretrained(\"x\", device_map=\"auto\")\nmodel.train()\n"), 0o644)
	var big bytes.Buffer
	big.Write(demoScript)
	for big.Len() < 8<<20 {
		fmt.Fprintf(&big, "values_%d = [%d, %d, %d]\n", big.Len(), 1, 2, 3)
	}
	bigPath := filepath.Join(dir, "big.py")
	os.WriteFile(bigPath, big.Bytes(), 0o644)
	out, stderr, code := runWithin(t, "check", "--parse-timeout", "1s", dir)
	if code != exitError {
		t.Errorf("exit %d, want %d", code, exitError)
	}
	if !strings.Contains(stderr, bigPath+": parse and analysis took longer than the limit") {
		t.Errorf("no timeout message for big.py:\n%s", stderr)
	}
	if !strings.Contains(out, small+":") {
		t.Errorf("small.py was not checked after the timeout:\nstdout:\n%s\nstderr:\n%s", out, stderr)
	}
}

// Unreadable files and folders are one error each and the rest is checked.
func TestUnreadableAsNobody(t *testing.T) {
	dir, err := os.MkdirTemp("", "loratune-unreadable-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(dir, "tree", "locked"), 0o755); os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	tree := filepath.Join(dir, "tree")
	os.MkdirAll(filepath.Join(tree, "locked"), 0o755)
	os.WriteFile(filepath.Join(tree, "ok.py"), demoScript, 0o644)
	os.WriteFile(filepath.Join(tree, "secret.py"), demoScript, 0o600)
	os.WriteFile(filepath.Join(tree, "locked", "inner.py"), demoScript, 0o644)
	os.Chmod(filepath.Join(tree, "secret.py"), 0o000)
	os.Chmod(filepath.Join(tree, "locked"), 0o000)

	stdout, stderr, code := runUnprivileged(t, dir, "check", tree)
	if code != exitError {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, exitError, stderr)
	}
	for _, name := range []string{"secret.py", "locked"} {
		want := "loratune-fix: error: " + filepath.Join(tree, name) + ": permission denied"
		if strings.Count(stderr, want) != 1 {
			t.Errorf("want one %q line, got:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, filepath.Join(tree, "ok.py")+":") {
		t.Errorf("ok.py not checked:\n%s", stdout)
	}
}

// runUnprivileged runs the command as a user whom file modes bind. Root
// reads and writes everything whatever the mode, so as root the command
// runs as the user nobody: this test binary, copied into dir (which nobody
// must be able to enter), which bulk_test.go's TestMain turns into the
// command. As another user it runs in-process.
func runUnprivileged(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	if os.Geteuid() != 0 {
		return runWithin(t, args...)
	}
	cmd, err := nobody.Command(dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Dir = "" // the arguments are relative to this folder
	cmd.Env = append(cmd.Env, "LORATUNE_FIX_AS_MAIN=1")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("cannot run as nobody here: %v", err)
	}
	return o.String(), e.String(), code
}

// A file in a folder that cannot be written: the error names the folder,
// the file is left as it is, and the others are fixed.
func TestUnwritableFolderIsNamed(t *testing.T) {
	dir, err := os.MkdirTemp("", "loratune-unwritable-")
	if err != nil {
		t.Fatal(err)
	}
	locked := filepath.Join(dir, "tree", "locked")
	t.Cleanup(func() { os.Chmod(locked, 0o755); os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	os.MkdirAll(locked, 0o755)
	inner, ok := filepath.Join(locked, "train.py"), filepath.Join(dir, "tree", "ok.py")
	for _, p := range []string{inner, ok} {
		os.WriteFile(p, demoScript, 0o666)
		os.Chmod(p, 0o644)
		if os.Geteuid() == 0 {
			os.Chown(p, 65534, 65534) // nobody's files, as a user's are theirs
		}
	}
	os.Chmod(filepath.Join(dir, "tree"), 0o777)
	os.Chmod(locked, 0o555)
	_, stderr, code := runUnprivileged(t, dir, "fix", "--write", inner, ok)
	if code != exitError {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, exitError, stderr)
	}
	want := "loratune-fix: error: " + inner + ": cannot write in the folder " + locked + ": permission denied"
	if !strings.Contains(stderr, want) {
		t.Errorf("want %q in stderr:\n%s", want, stderr)
	}
	if now, _ := os.ReadFile(inner); !bytes.Equal(now, demoScript) {
		t.Error("the file in the locked folder changed")
	}
	if now, _ := os.ReadFile(ok); bytes.Equal(now, demoScript) {
		t.Error("the writable file was not fixed")
	}
}
