package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The commands take launch configs as they take Python: check reports
// with path:line:col, fix --write writes, rules names the keys read.
func TestLaunchConfigCommands(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "configs", "sft.yaml")
	os.MkdirAll(filepath.Dir(cfg), 0o755)
	text := "model_name_or_path: m\ndo_train: true\nfinetuning_type: lora\nflash_attn: sdpa\nlogging_nan_inf_filter: false\n"
	if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name": "x"}`), 0o644)

	out, _, code := run(t, "", "check", dir)
	if code != exitFindings || !strings.Contains(out, "sft.yaml:4:1: error: LTF002 eager-attention: [*] flash_attn: sdpa") || strings.Contains(out, "package.json") {
		t.Errorf("check: exit %d\n%s", code, out)
	}
	if _, errOut, code := run(t, "", "fix", "--write", dir); code != exitOK {
		t.Fatalf("fix --write: exit %d\n%s", code, errOut)
	}
	if data, _ := os.ReadFile(cfg); string(data) != strings.Replace(text, "flash_attn: sdpa", "flash_attn: disabled", 1) {
		t.Errorf("written: %q", data)
	}
	out, _, _ = run(t, "", "rules", "LTF002")
	if !strings.Contains(out, "## In launch configs") || !strings.Contains(out, "flash_attn") {
		t.Errorf("rules LTF002 does not name the launch keys:\n%s", out)
	}
}
