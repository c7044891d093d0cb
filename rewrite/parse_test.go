package rewrite

import (
	"testing"
	"time"
)

// Many parses in a row with a time bound all succeed: a pooled parser is
// never left cancelled by an earlier bounded parse.
func TestBoundedParsesReuseParsers(t *testing.T) {
	src := []byte("import torch\nmodel = f(torch_dtype=torch.bfloat16)\n")
	for i := 0; i < 2000; i++ {
		tree, err := parse(src, 10*time.Second)
		if err != nil {
			t.Fatalf("parse %d: %v", i, err)
		}
		tree.Close()
	}
}
