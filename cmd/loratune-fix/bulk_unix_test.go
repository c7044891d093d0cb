//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loratune/loratune-fix/fixtures"
)

// Ctrl-C during a migration: exit 130, the report holds whole lines, and
// every repository is either committed or untouched, its work tree clean.
func TestMigrateInterruptCLI(t *testing.T) {
	env := bulkGitEnv(t)
	root := t.TempDir()
	var repos []string
	for i := 0; i < 40; i++ {
		dir := filepath.Join(root, fmt.Sprintf("r%03d", i))
		os.MkdirAll(dir, 0o755)
		bulkWriteFiles(t, dir, map[string]string{"train.py": string(fixtures.Demo)})
		bulkGit(t, env, dir, "init", "-q")
		bulkGit(t, env, dir, "add", ".")
		bulkGit(t, env, dir, "commit", "-q", "-m", "init")
		repos = append(repos, dir)
	}
	list := filepath.Join(root, "repos.txt")
	os.WriteFile(list, []byte(strings.Join(repos, "\n")+"\n"), 0o644)
	report := filepath.Join(root, "report.jsonl")
	cmd := bulkCommand(root, env, "migrate", "--repos", list, "--report", report, "--repo-jobs", "1", "--jobs", "1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile(report)
		if bytes.Count(b, []byte("\n")) >= 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if st := bulkExitStatus(err); st != exitInterrupted {
		t.Fatalf("exit %d after Ctrl-C, want %d\n%s", st, exitInterrupted, stderr.String())
	}
	b, _ := os.ReadFile(report)
	reported := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r struct{ Repo, Status, Commit string }
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("report line not whole: %q", line)
		}
		reported[r.Repo] = r.Status
	}
	if len(reported) == 0 || len(reported) == len(repos) {
		t.Fatalf("%d of %d repositories reported: the interrupt came too late or too early to test", len(reported), len(repos))
	}
	for _, dir := range repos {
		if st := bulkGit(t, env, dir, "status", "--porcelain"); st != "" {
			t.Errorf("%s left dirty:\n%s", dir, st)
		}
		branch := exec.Command("git", "rev-parse", "-q", "--verify", "refs/heads/loratune-fix/bf16-stability")
		branch.Dir, branch.Env = dir, append(os.Environ(), env...)
		hasBranch := branch.Run() == nil
		if hasBranch != (reported[dir] == "changed") {
			t.Errorf("%s: branch %v but reported %q", dir, hasBranch, reported[dir])
		}
	}
	if !strings.Contains(stderr.String(), "repositories:") {
		t.Errorf("no summary on stderr:\n%s", stderr.String())
	}
}
