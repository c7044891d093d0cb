package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/internal/corpus"
)

// BenchmarkWriteBatch is one batch of 32 replacements of a training script
// in one folder: each temporary file synced on its own, against one
// syncfs for the batch (fsBatch). Each iteration writes the other of two
// texts over every file, so the last look before a rename always holds.
func BenchmarkWriteBatch(b *testing.B) {
	for _, mode := range []struct {
		name    string
		batched bool
	}{{"fsync-each-file", false}, {"syncfs-once", true}} {
		b.Run(mode.name, func(b *testing.B) {
			if mode.batched && !syncfsReportsErrors() {
				b.Skip("syncfs reports no write errors before Linux 5.8: every file is synced on its own")
			}
			old := batchableFS
			batchableFS = func(*os.File) bool { return mode.batched }
			b.Cleanup(func() { batchableFS = old })
			const n = 32
			texts := [2][]byte{corpus.Training(1, 0), corpus.Training(2, 0)}
			dir := b.TempDir()
			paths := make([]string, n)
			for i := range paths {
				paths[i] = filepath.Join(dir, fmt.Sprintf("train%02d.py", i))
				if err := os.WriteFile(paths[i], texts[0], 0o644); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(n * len(texts[1])))
			for i := 0; b.Loop(); i++ {
				from, to := texts[i%2], texts[(i+1)%2]
				ws := make([]write, n)
				files := make([]*finding.FileResult, n)
				dirs := make([]string, n)
				for k, p := range paths {
					info, err := os.Stat(p)
					if err != nil {
						b.Fatal(err)
					}
					files[k] = &finding.FileResult{Path: p, After: to}
					ws[k] = write{k, &replacement{files[k], p, from, info}}
				}
				writeBatch(context.Background(), ws, files, dirs)
				syncDirs(dirs)
				for _, f := range files {
					if !f.Written {
						b.Fatalf("%s not written: %v", f.Path, f.Err)
					}
				}
			}
		})
	}
}
