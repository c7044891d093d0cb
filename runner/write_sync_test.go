package runner

import (
	"os"
	"path/filepath"
	"testing"
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
