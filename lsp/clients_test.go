package lsp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The real-client tests drive the built command: `loratune-fix server`
// over stdio, as an editor starts it.

var buildDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

var binary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "loratune-fix-lsp")
	if err != nil {
		return "", err
	}
	buildDir = dir
	bin := filepath.Join(dir, "loratune-fix")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/loratune-fix").CombinedOutput(); err != nil {
		return "", &buildError{err, string(out)}
	}
	return bin, nil
})

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

// need skips a test whose tool is missing, except in CI (CI set), where
// .ci/run installs it and a missing one is a failure.
func need(t *testing.T, what string, ok bool) {
	t.Helper()
	if ok {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is missing (.ci/run installs it)", what)
	}
	t.Skipf("%s is missing; .ci/run installs it", what)
}

// workdir is a folder with the three documents the clients open, and
// their configuration.
func workdir(t *testing.T) string {
	dir := t.TempDir()
	for from, to := range map[string]string{
		"../cmd/loratune-fix/demo/train.py":                   "train.py",
		"../fixtures/notebooks/llama_finetune.ipynb":          "llama_finetune.ipynb",
		"../fixtures/launch/llamafactory/lora_pure_bf16.yaml": "lora_sft.yaml",
	} {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, to), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The configuration the command reads for these files: a pyproject
	// that ignores LTF006, a pin beside them.
	for name, text := range map[string]string{
		"pyproject.toml":   "[tool.loratune-fix]\nignore = [\"LTF006\"]\n",
		"requirements.txt": "transformers==4.46.0\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A client on npm's vscode-languageserver-protocol and vscode-jsonrpc
// (the packages VS Code's client is built on): a .py, an .ipynb as a
// notebook document and a YAML config; diagnostics arrive and code
// actions applied remove their findings (testdata/nodeclient/client.cjs).
func TestNodeClient(t *testing.T) {
	node, err := exec.LookPath("node")
	need(t, "node", err == nil)
	_, err = os.Stat("testdata/nodeclient/node_modules/vscode-languageserver-protocol/package.json")
	need(t, "lsp/testdata/nodeclient/node_modules (npm ci --prefix lsp/testdata/nodeclient)", err == nil)
	bin, err := binary()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "testdata/nodeclient/client.cjs", bin, workdir(t))
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("node client: %v", err)
	}
	for _, want := range []string{"after the fix of LTF002", "notebook: cell 5", "yaml: LTF001,LTF002,LTF009; after fix all: none"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("node client output lacks %q", want)
		}
	}
}

// Neovim's built-in client, headless: it opens the script, reads the
// diagnostics and applies LTF002's code action (testdata/nvim/check.lua).
func TestNeovimClient(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	need(t, "nvim (Debian package neovim)", err == nil)
	bin, err := binary()
	if err != nil {
		t.Fatal(err)
	}
	dir := workdir(t)
	script, _ := filepath.Abs("testdata/nvim/check.lua")
	result := filepath.Join(dir, "result.txt")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", "luafile "+script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LTF_BIN="+bin, "LTF_FILE="+filepath.Join(dir, "train.py"), "LTF_OUT="+result)
	out, err := cmd.CombinedOutput()
	got, _ := os.ReadFile(result)
	t.Logf("nvim: %s", got)
	if err != nil || !strings.HasPrefix(string(got), "ok: ") {
		t.Fatalf("nvim: %v\n%s\n%s", err, out, got)
	}
}
