package runner

import (
	"context"
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
	dir := t.TempDir()
	src := "import torch\nfrom peft import LoraConfig, get_peft_model\nfrom transformers import AutoModelForCausalLM\n\n" +
		"model = AutoModelForCausalLM.from_pretrained(\"m\", torch_dtype=torch.bfloat16, device_map=\"auto\")\n" +
		"model = get_peft_model(model, LoraConfig(r=8))\n"
	paths := []string{filepath.Join(dir, "a.py"), filepath.Join(dir, "b.py")}
	for _, p := range paths {
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	eng, err := rewrite.New(rewrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	tmpSyncs := 0
	second := make(chan struct{})
	syncFile = func(f *os.File) error {
		if !strings.Contains(f.Name(), ".loratune-") {
			return f.Sync()
		}
		mu.Lock()
		tmpSyncs++
		n := tmpSyncs
		mu.Unlock()
		if n == 2 {
			close(second)
		} else {
			select {
			case <-second:
			case <-time.After(10 * time.Second):
				t.Error("the second file's write did not start while the first one's fsync waited")
			}
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
