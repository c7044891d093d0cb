package runner

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadSource(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, 4095, 4096, 70000} {
		want := bytes.Repeat([]byte("x = 1\n"), size/6+1)[:size]
		path := filepath.Join(dir, "f.py")
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		got, info, err := readSource(path, 1<<20, nil)
		if err != nil || !bytes.Equal(got, want) || info.Size() != int64(size) {
			t.Errorf("%d bytes: read %d bytes, err %v", size, len(got), err)
		}
	}
	if _, _, err := readSource(filepath.Join(dir, "f.py"), 100, nil); err == nil || !strings.Contains(err.Error(), "over --max-file-size") {
		t.Errorf("a file over the limit: err %v", err)
	}
	if _, _, err := readSource(dir, 100, nil); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a folder: err %v", err)
	}
	if _, _, err := readSource(filepath.Join(dir, "missing.py"), 100, nil); err == nil || !os.IsNotExist(err) {
		t.Errorf("a missing file: err %v", err)
	}
}
