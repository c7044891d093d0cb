package pins

import (
	"fmt"
	"path/filepath"
	"testing"
)

// benchRepo is a repository five folders deep with pins at three levels.
func benchRepo(b *testing.B) string {
	top := b.TempDir()
	write(b, filepath.Join(top, ".git", "HEAD"), "")
	write(b, filepath.Join(top, "pyproject.toml"), "[project]\nname = \"x\"\ndependencies = [\"torch>=2.1\", \"peft>=0.12\"]\n")
	write(b, filepath.Join(top, "a", "requirements.txt"), "transformers==5.17.0\n")
	deep := filepath.Join(top, "a", "b", "c", "d", "e")
	write(b, filepath.Join(deep, "requirements-dev.txt"), "pytest\n")
	return deep
}

// A bulk run asks for many scripts of the same folders: the cached finder
// reads each folder once.
func BenchmarkFinderCached(b *testing.B) {
	deep := benchRepo(b)
	f := NewFinder()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if vs := f.For(filepath.Join(deep, fmt.Sprintf("train_%d.py", i%100))); !vs.Transformers.Known {
			b.Fatal("no pin")
		}
	}
}

func BenchmarkFinderUncached(b *testing.B) {
	deep := benchRepo(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if vs := NewFinder().For(filepath.Join(deep, fmt.Sprintf("train_%d.py", i%100))); !vs.Transformers.Known {
			b.Fatal("no pin")
		}
	}
}
