//go:build linux

package runner_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loratune/loratune-fix/runner"
)

// A file saved by someone else between the read and the write is not
// overwritten: WriteAtomic reports ErrChanged, the file keeps the other
// writer's content, and no temporary file is left.
func TestWriteAtomicRefusesAChangedFile(t *testing.T) {
	cases := map[string]func(t *testing.T, path string, info os.FileInfo){
		// Same size and the old mtime put back: only the content tells.
		"same size and mtime": func(t *testing.T, path string, info os.FileInfo) {
			writeFile(t, path, strings.Replace(script, "r=8", "r=9", 1), 0o644)
			if err := os.Chtimes(path, info.ModTime(), info.ModTime()); err != nil {
				t.Fatal(err)
			}
		},
		"longer": func(t *testing.T, path string, info os.FileInfo) {
			writeFile(t, path, script+"# saved by a colleague\n", 0o644)
		},
		"mtime only": func(t *testing.T, path string, info os.FileInfo) {
			later := info.ModTime().Add(time.Second)
			if err := os.Chtimes(path, later, later); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, change := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "train.py")
			writeFile(t, path, script, 0o644)
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			change(t, path, info)
			theirs, _ := os.ReadFile(path)
			err = runner.WriteAtomic(path, []byte(script), []byte("fixed\n"), info)
			if !errors.Is(err, runner.ErrChanged) {
				t.Fatalf("want ErrChanged, got %v", err)
			}
			if now, _ := os.ReadFile(path); !bytes.Equal(now, theirs) {
				t.Errorf("the other writer's content was overwritten")
			}
			if left := tempFiles(t, dir); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
	t.Run("deleted", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "train.py")
		writeFile(t, path, script, 0o644)
		info, _ := os.Stat(path)
		os.Remove(path)
		if err := runner.WriteAtomic(path, []byte(script), []byte("fixed\n"), info); err == nil {
			t.Fatal("a deleted file was written again")
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("the deleted file is back")
		}
		if left := tempFiles(t, dir); len(left) > 0 {
			t.Errorf("temporary files left: %v", left)
		}
	})
}

// A full disk: a 64 KiB tmpfs cannot take a 1 MiB rewrite. Mounting needs
// root (CI runs as root); elsewhere the file-size limit test below covers
// the same path.
func TestWriteAtomicFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root; TestWriteAtomicFileTooLarge covers the failed write")
	}
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=64k"); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v); TestWriteAtomicFileTooLarge covers the failed write", err)
	}
	t.Cleanup(func() { syscall.Unmount(mnt, 0) })
	checkFailedWrite(t, mnt)
}

// checkFailedWrite writes a 1 MiB fix over a small file in dir, expects an
// error, the original intact and no temporary file.
func checkFailedWrite(t *testing.T, dir string) {
	path := filepath.Join(dir, "train.py")
	writeFile(t, path, script, 0o644)
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("# padding\n"), 100000)
	err = runner.WriteAtomic(path, []byte(script), big, info)
	if err == nil {
		t.Fatal("a write that cannot fit succeeded")
	}
	t.Logf("failed write reported as: %v", err)
	if now, _ := os.ReadFile(path); string(now) != script {
		t.Errorf("the original was changed")
	}
	if left := tempFiles(t, dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A write past RLIMIT_FSIZE fails with EFBIG like a full disk does, for any
// user. The limit is per process, so it runs in a child: this test binary
// again, in the helper below.
func TestWriteAtomicFileTooLarge(t *testing.T) {
	if os.Getenv("LORATUNE_FSIZE_CHILD") != "" {
		t.Skip("the child runs the helper only")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFileTooLargeChild$", "-test.v")
	cmd.Env = append(os.Environ(), "LORATUNE_FSIZE_CHILD="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("--- PASS: TestFileTooLargeChild")) {
		t.Fatalf("child failed (%v):\n%s", err, out)
	}
	if left := tempFiles(t, dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestFileTooLargeChild(t *testing.T) {
	dir := os.Getenv("LORATUNE_FSIZE_CHILD")
	if dir == "" {
		t.Skip("run by TestWriteAtomicFileTooLarge")
	}
	signal.Ignore(syscall.SIGXFSZ) // the write returns EFBIG instead of killing us
	lim := syscall.Rlimit{Cur: 64 << 10, Max: 64 << 10}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Fatal(err)
	}
	checkFailedWrite(t, dir)
}

// A folder without write permission: the temporary file cannot be made.
// Root writes anywhere, so as root it runs as nobody.
func TestWriteAtomicReadOnlyFolder(t *testing.T) {
	if asNobody(t) {
		return
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "train.py")
	writeFile(t, path, script, 0o644)
	info, _ := os.Stat(path)
	os.Chmod(dir, 0o555)
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	err := runner.WriteAtomic(path, []byte(script), []byte("fixed\n"), info)
	if err == nil {
		t.Fatal("write into a read-only folder succeeded")
	}
	if want := "cannot write in the folder " + dir + ": permission denied"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if now, _ := os.ReadFile(path); string(now) != script {
		t.Errorf("the original was changed")
	}
	if left := tempFiles(t, dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A hard-linked file is refused, both names keep their text, and the
// error says why.
func TestWriteAtomicRefusesAHardLink(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "train.py")
	writeFile(t, path, script, 0o644)
	other := filepath.Join(dir, "backup.py")
	if err := os.Link(path, other); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	info, _ := os.Stat(path)
	err := runner.WriteAtomic(path, []byte(script), []byte("fixed\n"), info)
	if !errors.Is(err, runner.ErrHardLinked) {
		t.Fatalf("want ErrHardLinked, got %v", err)
	}
	for _, p := range []string{path, other} {
		if now, _ := os.ReadFile(p); string(now) != script {
			t.Errorf("%s changed", p)
		}
	}
	if now, _ := os.Stat(path); !os.SameFile(now, info) {
		t.Error("the name no longer shares the file with its link")
	}
	if left := tempFiles(t, dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// The replacement keeps the owner and group of the file: root (CI,
// migrate) must not take other users' files.
func TestWriteAtomicKeepsOwnerAndGroup(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a file to another user needs root (CI runs this as root)")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "train.py")
	writeFile(t, path, script, 0o640)
	if err := os.Chown(path, 65534, 65533); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(path)
	if err := runner.WriteAtomic(path, []byte(script), []byte("fixed\n"), info); err != nil {
		t.Fatal(err)
	}
	now, _ := os.Stat(path)
	st := now.Sys().(*syscall.Stat_t)
	if st.Uid != 65534 || st.Gid != 65533 || now.Mode().Perm() != 0o640 {
		t.Errorf("after the write: uid %d gid %d mode %v, want 65534 65533 -rw-r-----", st.Uid, st.Gid, now.Mode().Perm())
	}
}
