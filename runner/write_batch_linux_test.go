package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/rewrite"
)

// syncEachFile makes the run sync each temporary file on its own, as on a
// file system fsBatch does not take.
func syncEachFile(t *testing.T) {
	old := batchableFS
	batchableFS = func(*os.File) bool { return false }
	t.Cleanup(func() { batchableFS = old })
}

// syncFileSystems makes the run batch every file system, whatever the
// test machine's kernel and file system are.
func syncFileSystems(t *testing.T) {
	oldKernel, oldFS := syncfsReportsErrors, batchableFS
	syncfsReportsErrors = func() bool { return true }
	batchableFS = func(*os.File) bool { return true }
	t.Cleanup(func() { syncfsReportsErrors, batchableFS = oldKernel, oldFS })
}

// staging returns, for each target in paths' folders that still holds
// trainScript, the text of its temporary replacement.
func staging(t *testing.T, paths []string) map[string]string {
	staged := map[string]string{}
	dirs := map[string]bool{}
	for _, p := range paths {
		dirs[filepath.Dir(p)] = true
	}
	for dir := range dirs {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			base, _, ok := strings.Cut(e.Name(), ".loratune-")
			if !ok {
				continue
			}
			// The replacement first: another writer may rename it over
			// its target meanwhile, and the target then no longer holds
			// the script.
			text, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				continue
			}
			target := filepath.Join(dir, strings.TrimPrefix(base, "."))
			if cur, _ := os.ReadFile(target); string(cur) == trainScript {
				staged[target] = string(text)
			}
		}
	}
	return staged
}

// On a file system it takes, a run syncs the file system once a batch,
// after the batch's replacements are written and before any is renamed,
// and syncs no replacement on its own; each folder is still synced after
// its renames, before a file in it is reported written.
func TestRunSyncsTheFileSystemOnceABatch(t *testing.T) {
	syncFileSystems(t)
	paths := trainScripts(t, 200)
	eng, err := rewrite.New(rewrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	// events: "fs" then the targets staged when the file system was
	// synced; "dir DIR" when a folder was.
	type event struct {
		dir    string
		staged map[string]string
	}
	var events []event
	fileSyncs := 0
	oldFS := syncFS
	syncFS = func(f *os.File) error {
		mu.Lock()
		events = append(events, event{staged: staging(t, paths)})
		mu.Unlock()
		return oldFS(f)
	}
	syncFile = func(f *os.File) error {
		mu.Lock()
		if strings.Contains(f.Name(), ".loratune-") {
			fileSyncs++
		} else {
			events = append(events, event{dir: filepath.Clean(f.Name())})
		}
		mu.Unlock()
		return f.Sync()
	}
	t.Cleanup(func() { syncFS, syncFile = oldFS, (*os.File).Sync })
	written := 0
	Run(context.Background(), &Options{Engine: eng, Fix: true, Write: true, Jobs: 2}, paths, func(f *finding.FileResult) {
		if !f.Written {
			t.Fatalf("%s: not written (%v)", f.Path, f.Err)
		}
		written++
		now, _ := os.ReadFile(f.Path)
		mu.Lock()
		defer mu.Unlock()
		synced, dirSynced := false, false
		for _, ev := range events {
			if text, ok := ev.staged[f.Path]; ok {
				synced = text == string(now)
				dirSynced = false
			} else if ev.dir == filepath.Dir(f.Path) {
				dirSynced = true
			}
		}
		if !synced || !dirSynced {
			t.Errorf("%s reported written; its replacement synced before the rename: %v, its folder synced after: %v", f.Path, synced, dirSynced)
		}
	})
	fsSyncs := 0
	for _, ev := range events {
		if ev.staged != nil {
			fsSyncs++
		}
	}
	if written != len(paths) || fileSyncs != 0 || fsSyncs > len(paths)/4 {
		t.Errorf("%d files written with %d file syncs and %d file system syncs; want %d, none and at most a quarter as many", written, fileSyncs, fsSyncs, len(paths))
	}
}

// A failed file system sync writes none of the batch's files: each is
// reported with the error, keeps its text, and no temporary file is left.
func TestRunSyncfsErrorLeavesTheFilesAsTheyWere(t *testing.T) {
	syncFileSystems(t)
	paths := trainScripts(t, 10)
	eng, err := rewrite.New(rewrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	oldFS := syncFS
	syncFS = func(*os.File) error { return unix.EIO }
	t.Cleanup(func() { syncFS = oldFS })
	n := 0
	Run(context.Background(), &Options{Engine: eng, Fix: true, Write: true, Jobs: 2}, paths, func(f *finding.FileResult) {
		n++
		if f.Written || f.Err == nil || !strings.Contains(f.Err.Error(), "syncing the file system: input/output error") {
			t.Errorf("%s: written %v, error %v; want the sync's error", f.Path, f.Written, f.Err)
		}
	})
	if n != len(paths) {
		t.Errorf("%d files reported, want %d", n, len(paths))
	}
	for _, p := range paths {
		if b, _ := os.ReadFile(p); string(b) != trainScript {
			t.Errorf("%s changed:\n%s", p, b)
		}
	}
	if left := staging(t, paths); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A worker does not wait on a batch's file system sync: with one worker,
// the second batch's sync starts while the first one's waits.
func TestWorkerDoesNotWaitOnASyncfs(t *testing.T) {
	syncFileSystems(t)
	paths := trainScripts(t, 2)
	eng, err := rewrite.New(rewrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	wait := firstWaitsForSecond(t, "the second batch's sync did not start while the first one's waited")
	oldFS := syncFS
	syncFS = func(f *os.File) error {
		wait()
		return oldFS(f)
	}
	t.Cleanup(func() { syncFS = oldFS })
	written := 0
	Run(context.Background(), &Options{Engine: eng, Fix: true, Write: true, Jobs: 1}, paths, func(f *finding.FileResult) {
		if f.Written {
			written++
		}
	})
	if written != 2 {
		t.Errorf("%d files written, want 2", written)
	}
}

func TestKernelAtLeast(t *testing.T) {
	for release, want := range map[string]bool{
		"6.1.0-18-amd64":   true,
		"6.18.44-fc-v1045": true,
		"5.8.0":            true,
		"5.10-rc1":         true,
		"5.7.19":           false,
		"4.19.0-25-amd64":  false,
		"5":                false,
		"":                 false,
	} {
		if got := kernelAtLeast(release, 5, 8); got != want {
			t.Errorf("kernelAtLeast(%q, 5, 8) = %v, want %v", release, got, want)
		}
	}
}
