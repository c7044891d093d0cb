//go:build linux

package syntree

import (
	"context"
	"runtime"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/python"
)

// TestBlockCache: tree-sitter allocates through the per-thread cache (a
// released tree's blocks are kept for the next parse on the thread), the
// cache holds at most its cap however much is released, and parses with
// the cache give the trees they gave without it (TestWalkMatchesCursor and
// the fixtures' goldens cover the trees).
func TestBlockCache(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(python.GetLanguage())
	parse := func(text string) {
		tree, err := p.ParseCtx(context.Background(), nil, []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		tree.Close()
	}
	small := "model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.float16)\n"
	parse(small)
	if got := threadCacheBytes(); got == 0 {
		t.Fatal("a released tree left nothing in the thread's cache: tree-sitter does not allocate through it")
	}
	parse(strings.Repeat(small, 5000)) // about 2.5 MB of nodes released at once
	if got := threadCacheBytes(); got > 1<<20 {
		t.Fatalf("thread cache holds %d bytes, over its cap of 1 MB", got)
	}
}
