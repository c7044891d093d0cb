//go:build unix

package runner_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/internal/nobody"
	"github.com/loratune/loratune-fix/rewrite"
	"github.com/loratune/loratune-fix/runner"
)

// The 10 MiB default skips generated files and data long before memory or
// time matter; a 50 MB file is skipped with a message, without reading it.
func TestLargeFileSkipped(t *testing.T) {
	if runner.DefaultMaxFileSize < 1<<20 || runner.DefaultMaxFileSize > 64<<20 {
		t.Errorf("DefaultMaxFileSize %d: want between 1 MiB (real scripts fit) and 64 MiB", runner.DefaultMaxFileSize)
	}
	path := filepath.Join(t.TempDir(), "huge.py")
	writeFile(t, path, script, 0o644)
	if err := os.Truncate(path, 50<<20); err != nil { // sparse: no 50 MB written
		t.Fatal(err)
	}
	f := runner.ProcessPath(options(t, true), path)
	if f.Err == nil || !strings.Contains(f.Err.Error(), "over --max-file-size") {
		t.Fatalf("want a skip message naming --max-file-size, got %v", f.Err)
	}
	if f.Before != nil || f.Written {
		t.Error("a file over the limit was read or written")
	}
}

// 200,000 lines (3.4 MB) pass the size limits and are processed, and the
// load on the last line is found there. The time limit is raised: it
// bounds the whole analysis (several seconds of CPU here), which a
// loaded machine can stretch past the default; TestAnalysisStopsBetweenRules
// tests that bound.
func TestManyLines(t *testing.T) {
	if testing.Short() {
		t.Skip("parses 3.4 MB")
	}
	var b bytes.Buffer
	b.WriteString(script)
	for i := strings.Count(script, "\n"); i < 200000-1; i++ {
		fmt.Fprintf(&b, "x_%d = %d\n", i, i)
	}
	b.WriteString("other = AutoModelForCausalLM.from_pretrained(\"x\", device_map=\"auto\")\n")
	path := filepath.Join(t.TempDir(), "long.py")
	writeFile(t, path, b.String(), 0o644)
	opts := options(t, false)
	opts.Fix = false // the findings tell it all; a fix would parse it four times
	eng, err := rewrite.New(rewrite.Options{ParseTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	opts.Engine = eng
	f := runner.ProcessPath(opts, path)
	if f.Err != nil {
		t.Fatal(f.Err)
	}
	last := 0
	for _, d := range f.Diags {
		last = max(last, d.StartPos.Line)
	}
	if last != 200000 {
		t.Errorf("last finding on line %d, want 200000", last)
	}
}

// NUL bytes, invalid UTF-8 and UTF-16 are one-line errors naming the file;
// the file is not written; the other files of the run are still fixed.
func TestNonTextFilesReported(t *testing.T) {
	dir := t.TempDir()
	utf16 := []byte{0xff, 0xfe}
	for _, r := range script {
		utf16 = append(utf16, byte(r), byte(r>>8))
	}
	files := map[string]struct {
		data []byte
		want error
	}{
		"nul.py":      {[]byte(script + "\x00"), rewrite.ErrBinary},
		"nul_only.py": {[]byte("\x00\x01\x02"), rewrite.ErrBinary},
		"latin1.py":   {[]byte("# caf\xe9\n" + script), rewrite.ErrNotUTF8},
		"utf16.py":    {utf16, rewrite.ErrUTF16},
		"utf16be.py":  {[]byte{0xfe, 0xff, 0, 'x'}, rewrite.ErrUTF16},
	}
	var paths []string
	for name, c := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	good := filepath.Join(dir, "good.py")
	writeFile(t, good, script, 0o644)
	paths = append(paths, good)
	got := map[string]*finding.FileResult{}
	runner.Run(t.Context(), options(t, true), paths, func(f *finding.FileResult) { got[filepath.Base(f.Path)] = f })
	for name, c := range files {
		f := got[name]
		if !errors.Is(f.Err, c.want) {
			t.Errorf("%s: want %v, got %v", name, c.want, f.Err)
			continue
		}
		if msg := f.Err.Error(); !strings.HasPrefix(msg, f.Path+": ") || strings.Contains(msg, "\n") {
			t.Errorf("%s: want one line naming the file, got %q", name, msg)
		}
		if after, _ := os.ReadFile(filepath.Join(dir, name)); !bytes.Equal(after, c.data) || f.Written {
			t.Errorf("%s was changed", name)
		}
	}
	if !got["good.py"].Written {
		t.Errorf("good.py not written next to the bad files: %v", got["good.py"].Err)
	}
}

// An empty file is no error and is left alone.
func TestEmptyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.py")
	writeFile(t, path, "", 0o644)
	f := runner.ProcessPath(options(t, true), path)
	if f.Err != nil || f.Changed || f.Written {
		t.Fatalf("empty file: err %v changed %v written %v", f.Err, f.Changed, f.Written)
	}
}

// A FIFO or a device in the tree is never opened: a walk does not list it,
// and named on the command line it is skipped with a message.
func TestFIFOAndDeviceNeverBlock(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.py")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	writeFile(t, filepath.Join(dir, "train.py"), script, 0o644)
	var found []string
	within(t, "Discover", func() { found, _ = runner.Discover([]string{dir}) })
	if len(found) != 1 || filepath.Base(found[0]) != "train.py" {
		t.Errorf("walk listed %v, want only train.py", found)
	}
	for _, p := range []string{fifo, os.DevNull} {
		var f *finding.FileResult
		within(t, "ProcessPath "+p, func() { f = runner.ProcessPath(options(t, true), p) })
		if f.Err == nil || !strings.Contains(f.Err.Error(), "not a regular file") {
			t.Errorf("%s: want a not-a-regular-file message, got %v", p, f.Err)
		}
	}
}

// A walk does not follow symlinks: a link to a file outside the tree is not
// fixed through the walk, and link loops end the walk without a hang or
// duplicate. Named on the command line, a link to a file is written
// through: its target is fixed and the link stays a link.
func TestSymlinks(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside.py")
	writeFile(t, outside, script, 0o644)
	tree := filepath.Join(root, "tree")
	writeFile(t, filepath.Join(tree, "train.py"), script, 0o644)
	links := map[string]string{
		"out.py":        outside,
		"loop_a.py":     filepath.Join(tree, "loop_b.py"),
		"loop_b.py":     filepath.Join(tree, "loop_a.py"),
		"self.py":       filepath.Join(tree, "self.py"),
		"sub/up":        tree,
		"dangling.py":   filepath.Join(tree, "missing.py"),
		"sub/inner.txt": outside,
	}
	for name, target := range links {
		p := filepath.Join(tree, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	var found []string
	within(t, "Discover", func() { found, _ = runner.Discover([]string{tree}) })
	seen := map[string]bool{}
	for _, p := range found {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			t.Errorf("listed %s, which does not resolve: %v", p, err)
			continue
		}
		if seen[real] {
			t.Errorf("%s listed twice", real)
		}
		seen[real] = true
	}
	if !seen[filepath.Join(tree, "train.py")] {
		t.Errorf("train.py not listed: %v", found)
	}

	// Named directly: a loop is an error, a link to a file is written through.
	f := runner.ProcessPath(options(t, true), filepath.Join(tree, "loop_a.py"))
	if f.Err == nil {
		t.Error("a symlink loop named on the command line gave no error")
	}
	link := filepath.Join(tree, "out.py")
	f = runner.ProcessPath(options(t, true), link)
	if f.Err != nil || !f.Written {
		t.Fatalf("link to a file: err %v written %v", f.Err, f.Written)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file")
	}
	if after, _ := os.ReadFile(outside); bytes.Equal(after, []byte(script)) {
		t.Errorf("the link's target was not fixed")
	}
	if left := tempFiles(t, tree); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A read-only file is reported under --write, not written, and its mode
// is not touched (root could write it: the check is the mode, not EACCES).
func TestReadOnlyFileNotWritten(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ro.py")
	writeFile(t, path, script, 0o444)
	f := runner.ProcessPath(options(t, true), path)
	if !errors.Is(f.Err, runner.ErrReadOnly) || f.Written {
		t.Fatalf("want ErrReadOnly, got %v (written %v)", f.Err, f.Written)
	}
	info, _ := os.Stat(path)
	if info.Mode().Perm() != 0o444 {
		t.Errorf("mode changed to %v", info.Mode().Perm())
	}
	if after, _ := os.ReadFile(path); string(after) != script {
		t.Error("read-only file changed")
	}
	if left := tempFiles(t, dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// Unreadable files and folders are one error each; the rest is processed.
// Root reads everything whatever the mode, so as root it runs as nobody.
func TestUnreadable(t *testing.T) {
	if asNobody(t) {
		return
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "ok.py"), script, 0o644)
	writeFile(t, filepath.Join(dir, "secret.py"), script, 0o000)
	writeFile(t, filepath.Join(dir, "locked", "inner.py"), script, 0o644)
	os.Chmod(filepath.Join(dir, "locked"), 0o000)
	t.Cleanup(func() { os.Chmod(filepath.Join(dir, "locked"), 0o755) })
	found, errs := runner.Discover([]string{dir})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "locked") {
		t.Errorf("want one error naming the locked folder, got %v", errs)
	}
	var bad, good int
	runner.Run(t.Context(), options(t, true), found, func(f *finding.FileResult) {
		if f.Err != nil {
			bad++
			if !strings.Contains(f.Err.Error(), "secret.py") {
				t.Errorf("unexpected error %v", f.Err)
			}
		} else if f.Written {
			good++
		}
	})
	if bad != 1 || good != 1 {
		t.Errorf("want 1 unreadable and 1 fixed file, got %d and %d", bad, good)
	}
}

// Names with spaces, non-ASCII characters and a newline are listed,
// fixed and written like any other.
func TestAwkwardNames(t *testing.T) {
	dir := t.TempDir()
	names := []string{"with space.py", "ünïcødé_训练.py", "new\nline.py", "-dash.py", "quote\"'.py"}
	for _, n := range names {
		writeFile(t, filepath.Join(dir, n), script, 0o644)
	}
	found, errs := runner.Discover([]string{dir})
	if len(errs) > 0 || len(found) != len(names) {
		t.Fatalf("listed %q (errors %v)", found, errs)
	}
	runner.Run(t.Context(), options(t, true), found, func(f *finding.FileResult) {
		if f.Err != nil || !f.Written {
			t.Errorf("%q: err %v written %v", f.Path, f.Err, f.Written)
		}
	})
	if left := tempFiles(t, dir); len(left) > 0 {
		t.Errorf("temporary files left: %q", left)
	}
}

// asNobody runs the calling test again as the user nobody when the tests
// run as root, whom file modes do not bind, and reports whether it did:
// the caller then returns. In CI (CI set) a test that cannot drop
// privileges fails rather than skips.
func asNobody(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	dir, err := os.MkdirTemp("", "loratune-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	cmd, err := nobody.Command(dir, "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err != nil && !errors.As(err, &exit):
		if os.Getenv("CI") != "" {
			t.Fatalf("cannot run as nobody: %v", err)
		}
		t.Skipf("cannot run as nobody here: %v", err)
	case err != nil:
		t.Fatalf("as nobody: %v\n%s", err, out)
	case !strings.Contains(string(out), "--- PASS: "+t.Name()):
		t.Fatalf("as nobody, %s did not pass:\n%s", t.Name(), out)
	}
	return true
}
