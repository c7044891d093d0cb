//go:build unix

package runner

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loratune/loratune-fix/finding"
)

func TestWalkSymlinksAndSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	writeTree(t, dir, map[string]string{"pkg/a.py": ""})
	writeTree(t, outside, map[string]string{"victim.py": ""})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(dir, filepath.Join(dir, "pkg", "loop")))                             // a loop
	must(os.Symlink(filepath.Join(outside, "victim.py"), filepath.Join(dir, "link.py"))) // a file outside
	must(os.Symlink(outside, filepath.Join(dir, "outside")))                             // a folder outside
	must(syscall.Mkfifo(filepath.Join(dir, "pipe.py"), 0o644))                           // would block a read
	done := make(chan []string)
	go func() { done <- relAll(t, dir, walkAll(t, []string{dir}, WalkOptions{})) }()
	select {
	case got := <-done:
		if strings.Join(got, " ") != "pkg/a.py" {
			t.Errorf("walk yielded %q, want only pkg/a.py", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("walk did not finish: a symlink loop or a FIFO blocked it")
	}
}

// A FIFO named on the command line is refused, not opened: opening it
// would block until a writer came.
func TestProcessPathRefusesFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe.py")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan *finding.FileResult)
	go func() { done <- ProcessPath(&Options{}, fifo) }()
	select {
	case f := <-done:
		if f.Err == nil || !strings.Contains(f.Err.Error(), "not a regular file") {
			t.Errorf("FIFO: err %v, want \"not a regular file\"", f.Err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ProcessPath blocked on a FIFO")
	}
}
