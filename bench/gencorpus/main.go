// Command gencorpus writes the benchmark corpus: a deterministic tree of
// training scripts among ordinary Python modules.
//
//	go run ./bench/gencorpus -out /tmp/corpus -files 500 -training-every 1
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/loratune/loratune-fix/internal/corpus"
)

func main() {
	out := flag.String("out", "", "folder to write (created)")
	files := flag.Int("files", 500, "number of files")
	every := flag.Int("training-every", 1, "one training script in every N files (0: none)")
	size := flag.Int("size", 8000, "bytes of each ordinary module")
	seed := flag.Uint64("seed", 1, "seed: the same seed gives the same tree")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gencorpus: -out is required")
		os.Exit(2)
	}
	if _, err := corpus.Tree(*out, *seed, *files, *every, *size); err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
}
