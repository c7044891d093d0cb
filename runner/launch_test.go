package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/runner"
)

// A walk picks launch configs up by their content: a LLaMA-Factory YAML is
// fixed and written; a workflow YAML, a package.json and a data set far
// over the config size are skipped without a word; a launcher is fixed
// with what its script tells.
func TestWalkLaunchConfigs(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "configs", "sft.yaml"), "model_name_or_path: m\ndo_train: true\nfinetuning_type: lora\nflash_attn: sdpa # was auto\nlogging_nan_inf_filter: false\n", 0o644)
	writeFile(t, filepath.Join(dir, ".github", "workflows", "ci.yml"), "on: [push]\njobs: {}\n", 0o644)
	writeFile(t, filepath.Join(dir, "package.json"), `{"name": "x", "enabled": true}`, 0o644)
	writeFile(t, filepath.Join(dir, "data", "train.json"), `[{"text": "`+strings.Repeat("model_name_or_path zero_optimization ", 60000)+`"}]`, 0o644)
	writeFile(t, filepath.Join(dir, "train.py"), script, 0o644)
	writeFile(t, filepath.Join(dir, "scripts", "run.sh"), "#!/bin/bash\npython train.py --torch_dtype bfloat16 --bf16 True --output_dir out\n", 0o755)
	opts := options(t, true)
	got := map[string]*finding.FileResult{}
	runner.RunSeq(context.Background(), opts, runner.Walk([]string{dir}, runner.WalkOptions{}), func(f *finding.FileResult) {
		rel, _ := filepath.Rel(dir, f.Path)
		got[filepath.ToSlash(rel)] = f
	})
	for _, name := range []string{"configs/sft.yaml", "package.json", "data/train.json", "train.py", "scripts/run.sh"} {
		if got[name] == nil {
			t.Errorf("%s was not walked", name)
		} else if got[name].Err != nil {
			t.Errorf("%s: %v", name, got[name].Err)
		}
	}
	if f := got["configs/sft.yaml"]; f == nil || !f.Written || len(f.Diags) != 1 || f.Diags[0].Code != "LTF002" {
		t.Errorf("sft.yaml: %+v", f)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "configs", "sft.yaml")); !strings.Contains(string(data), "flash_attn: disabled # was auto\n") {
		t.Errorf("sft.yaml written as %q", data)
	}
	for _, name := range []string{"package.json", "data/train.json"} {
		if f := got[name]; f == nil || !f.Skipped || len(f.Diags) > 0 {
			t.Errorf("%s should be skipped: %+v", name, f)
		}
	}
	// The launcher reads train.py (one folder up): an adapter run whose
	// dtype is a literal in the script, so --torch_dtype is not what the
	// load reads and no edit is made.
	// Besides it, at most the note that the attention fix is the script's.
	f := got["scripts/run.sh"]
	if f == nil {
		t.Fatal("run.sh was not walked")
	}
	var dtype []finding.Diag
	for _, d := range f.Diags {
		if d.Code == "LTF001" {
			dtype = append(dtype, d)
		} else if d.Code != "LTF002" || d.Severity != finding.SeverityInfo {
			t.Errorf("run.sh: unexpected %+v", d)
		}
	}
	if f.Changed || len(dtype) != 1 || !strings.Contains(dtype[0].Message, "train.py does not take") {
		t.Errorf("run.sh: %+v", f)
	}
}
