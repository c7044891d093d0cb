package rewrite

import (
	"sync"
	"testing"
	"time"
)

// Many bounded parses from several goroutines all succeed: a pooled parser
// is never left cancelled by an earlier bounded parse. (With ParseCtx and a
// context, about one parse in a few hundred poisoned its parser.)
func TestBoundedParsesReuseParsers(t *testing.T) {
	src := []byte("import torch\nmodel = f(torch_dtype=torch.bfloat16)\n")
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				tree, err := parse(src, 10*time.Second)
				if err != nil {
					errs <- err
					return
				}
				tree.Close()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("bounded parse failed: %v", err)
	}
}
