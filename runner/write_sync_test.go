package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/rewrite"
)

// The replacement is synced before the rename, and its folder after it:
// without the first a power cut can leave an empty file under the old
// name, without the second the old file.
func TestWriteAtomicSyncsFileThenFolder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "train.py")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(path)
	type call struct {
		name    string
		content string // what path held when the sync ran
	}
	var calls []call
	syncFile = func(f *os.File) error {
		cur, _ := os.ReadFile(path)
		calls = append(calls, call{filepath.Base(f.Name()), string(cur)})
		return f.Sync()
	}
	t.Cleanup(func() { syncFile = (*os.File).Sync })
	if err := WriteAtomic(path, []byte("old\n"), []byte("new\n"), info); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 {
		t.Fatalf("%d syncs (%v), want the temporary file's and the folder's", len(calls), calls)
	}
	if tmp := calls[0]; tmp.name == "train.py" || filepath.Ext(tmp.name) == "" || tmp.content != "old\n" {
		t.Errorf("first sync %+v: want the temporary file, before the rename", tmp)
	}
	if d := calls[1]; d.name != filepath.Base(dir) || d.content != "new\n" {
		t.Errorf("second sync %+v: want the folder %s, after the rename", d, filepath.Base(dir))
	}
}

// A worker hands its writes over and goes on: with one worker, the second
// file's write starts while the first file's fsync still waits.
func TestWorkerDoesNotWaitOnAnFsync(t *testing.T) {
	syncEachFile(t)
	paths := trainScripts(t, 2)
	eng, err := rewrite.New(rewrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	wait := firstWaitsForSecond(t, "the second file's write did not start while the first one's fsync waited")
	syncFile = func(f *os.File) error {
		if strings.Contains(f.Name(), ".loratune-") {
			wait()
		}
		return f.Sync()
	}
	t.Cleanup(func() { syncFile = (*os.File).Sync })
	written := 0
	Run(context.Background(), &Options{Engine: eng, Fix: true, Write: true, Jobs: 1}, paths, func(f *finding.FileResult) {
		if f.Err != nil {
			t.Errorf("%s: %v", f.Path, f.Err)
		}
		if f.Written {
			written++
		}
	})
	if written != 2 {
		t.Errorf("%d files written, want 2", written)
	}
}

// A run that syncs each file (a file system fsBatch does not take) syncs
// each folder once for the files of a batch renamed in it, not once a
// file, and always between a file's rename and its report: every
// file reported written has its folder synced after its replacement was.
func TestRunSyncsEachFolderOnceABatch(t *testing.T) {
	syncEachFile(t)
	paths := trainScripts(t, 200)
	eng, err := rewrite.New(rewrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// events: "file PATH" when a replacement is synced (before its
	// rename), "dir DIR" when a folder is.
	var mu sync.Mutex
	var events []string
	syncFile = func(f *os.File) error {
		ev := "dir " + filepath.Clean(f.Name())
		if base := filepath.Base(f.Name()); strings.Contains(base, ".loratune-") {
			ev = "file " + filepath.Join(filepath.Dir(f.Name()), strings.TrimPrefix(base[:strings.Index(base, ".loratune-")], "."))
		}
		mu.Lock()
		events = append(events, ev)
		mu.Unlock()
		return f.Sync()
	}
	t.Cleanup(func() { syncFile = (*os.File).Sync })
	written := 0
	Run(context.Background(), &Options{Engine: eng, Fix: true, Write: true, Jobs: 2}, paths, func(f *finding.FileResult) {
		if !f.Written {
			t.Fatalf("%s: not written (%v)", f.Path, f.Err)
		}
		written++
		mu.Lock()
		defer mu.Unlock()
		synced := false
		for _, ev := range events {
			switch ev {
			case "file " + f.Path:
				synced = false
			case "dir " + filepath.Dir(f.Path):
				synced = true
			}
		}
		if !synced {
			t.Errorf("%s reported written before its folder was synced after its rename", f.Path)
		}
	})
	dirSyncs := 0
	for _, ev := range events {
		if strings.HasPrefix(ev, "dir ") {
			dirSyncs++
		}
	}
	// Some twenty batches, each with files in both folders.
	if written != len(paths) || dirSyncs > len(paths)/4 {
		t.Errorf("%d files written with %d folder syncs; want %d files and at most a quarter as many syncs", written, dirSyncs, len(paths))
	}
}

const trainScript = "import torch\nfrom peft import LoraConfig, get_peft_model\nfrom transformers import AutoModelForCausalLM\n\n" +
	"model = AutoModelForCausalLM.from_pretrained(\"m\", torch_dtype=torch.bfloat16, device_map=\"auto\")\n" +
	"model = get_peft_model(model, LoraConfig(r=8))\n"

// trainScripts writes n copies of trainScript, alternating between two
// folders.
func trainScripts(t *testing.T, n int) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i := range n {
		p := filepath.Join(dir, []string{"a", "b"}[i%2], fmt.Sprintf("train%03d.py", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(trainScript), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// firstWaitsForSecond returns a function whose first call waits until its
// second call comes; failing that within 10 s, the test fails with msg.
func firstWaitsForSecond(t *testing.T, msg string) func() {
	var mu sync.Mutex
	calls := 0
	second := make(chan struct{})
	return func() {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		switch n {
		case 1:
			select {
			case <-second:
			case <-time.After(10 * time.Second):
				t.Error(msg)
			}
		case 2:
			close(second)
		}
	}
}
