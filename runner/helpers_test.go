package runner_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loratune/loratune-fix/rewrite"
	"github.com/loratune/loratune-fix/runner"
)

// script is a small training script with fixes to make.
const script = `import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained(
    "meta-llama/Llama-3.1-8B",
    torch_dtype=torch.bfloat16,
    device_map="auto",
)
model = get_peft_model(model, LoraConfig(r=8))
`

func options(t testing.TB, write bool) *runner.Options {
	t.Helper()
	eng, err := rewrite.New(rewrite.Options{ParseTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return &runner.Options{Engine: eng, Fix: true, Write: write, Jobs: 2}
}

func writeFile(t testing.TB, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

// within fails the test if fn has not returned after a bound meant only to
// catch a blocked read (a FIFO open blocks forever).
func within(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s blocked", what)
	}
}

// tempFiles lists loratune temporary files left in dir.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	var left []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".loratune-") {
			left = append(left, path)
		}
		return nil
	})
	return left
}
