//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Ctrl-C during a migration: exit 130, the report holds whole lines, and
// every repository is either committed or untouched, its work tree clean.
func TestMigrateInterruptCLI(t *testing.T) {
	env := bulkGitEnv(t)
	root := t.TempDir()
	repos := bulkRepos(t, env, root, 40, map[string]string{"train.py": string(demoScript)})
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

// interruptTwice sends SIGINT twice, a few milliseconds apart, as
// `timeout -s INT` or an impatient user can.
func interruptTwice(t *testing.T, p *os.Process) {
	t.Helper()
	if err := p.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Millisecond)
	p.Signal(syscall.SIGINT)
}

// leftTempFiles lists the temporary files of atomic writes under dir.
func leftTempFiles(dir string) []string {
	var left []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".loratune-") {
			left = append(left, p)
		}
		return nil
	})
	return left
}

// Two Ctrl-C during `fix --write` over many files: exit 130, no temporary
// file left, every file changed on disk has its "fixed" line (and no
// other), and a summary counts the files done and not started.
func TestFixWriteDoubleInterruptCLI(t *testing.T) {
	root := t.TempDir()
	const n = 600
	for i := 0; i < n; i++ {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("t%04d.py", i)), demoScript, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := bulkCommand(root, nil, "fix", "--write", "-j", "2", ".")
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var stderr []string
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		stderr = append(stderr, sc.Text())
		if len(stderr) == 1 {
			interruptTwice(t, cmd.Process)
		}
	}
	err = cmd.Wait()
	all := strings.Join(stderr, "\n")
	if st := bulkExitStatus(err); st != exitInterrupted {
		t.Fatalf("exit %d after Ctrl-C twice, want %d\n%s", st, exitInterrupted, all)
	}
	if left := leftTempFiles(root); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	reported := map[string]bool{}
	for _, l := range stderr {
		if name, ok := strings.CutPrefix(l, "fixed "); ok {
			reported[filepath.Base(name)] = true
		}
	}
	changed := 0
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("t%04d.py", i)
		b, _ := os.ReadFile(filepath.Join(root, name))
		isChanged := !bytes.Equal(b, demoScript)
		if isChanged {
			changed++
		}
		if isChanged != reported[name] {
			t.Errorf("%s: changed on disk %v, reported %v", name, isChanged, reported[name])
		}
	}
	if changed == 0 || changed == n {
		t.Fatalf("%d of %d files changed: the interrupt came too early or too late to test", changed, n)
	}
	summary := regexp.MustCompile(`interrupted: (\d+) of (\d+) file\(s\) done \((\d+) written, each listed above\), (\d+) not started`).FindStringSubmatch(all)
	if summary == nil {
		t.Fatalf("no summary of the interrupted run:\n%s", all)
	}
	if summary[2] != fmt.Sprint(n) || summary[3] != fmt.Sprint(changed) {
		t.Errorf("summary %q: want %d files in all and %d written", summary[0], n, changed)
	}
}

// Two Ctrl-C during `migrate --repo-jobs 4` over many small repositories:
// exit 130, and each repository is back on its branch with a clean tree
// and no temporary file; the fix branch exists exactly where the report
// has a "changed" line with the branch's commit.
func TestMigrateDoubleInterruptCLI(t *testing.T) {
	env := bulkGitEnv(t)
	root := t.TempDir()
	repos := bulkRepos(t, env, root, 60, map[string]string{"train.py": string(demoScript), "util.py": "x = 1\n"})
	list := filepath.Join(root, "repos.txt")
	os.WriteFile(list, []byte(strings.Join(repos, "\n")+"\n"), 0o644)
	report := filepath.Join(root, "report.jsonl")
	cmd := bulkCommand(root, env, "migrate", "--repos", list, "--report", report, "--repo-jobs", "4", "--jobs", "1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile(report)
		if bytes.Count(b, []byte("\n")) >= 3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	interruptTwice(t, cmd.Process)
	err := cmd.Wait()
	if st := bulkExitStatus(err); st != exitInterrupted {
		t.Fatalf("exit %d after Ctrl-C twice, want %d\n%s", st, exitInterrupted, stderr.String())
	}
	b, _ := os.ReadFile(report)
	type line struct{ Repo, Status, Commit string }
	reported := map[string]line{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r line
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("report line not whole: %q", l)
		}
		if _, twice := reported[r.Repo]; twice {
			t.Errorf("%s reported twice", r.Repo)
		}
		reported[r.Repo] = r
	}
	if len(reported) == len(repos) {
		t.Fatalf("all %d repositories reported: the interrupt came too late to test", len(repos))
	}
	for _, dir := range repos {
		if left := leftTempFiles(dir); len(left) > 0 {
			t.Errorf("temporary files left: %v", left)
		}
		if st := bulkGit(t, env, dir, "status", "--porcelain"); st != "" {
			t.Errorf("%s left dirty:\n%s", dir, st)
		}
		if cur := bulkGit(t, env, dir, "symbolic-ref", "--short", "HEAD"); cur != "main" {
			t.Errorf("%s left on %s, want main", dir, cur)
		}
		tip := exec.Command("git", "rev-parse", "-q", "--verify", "refs/heads/loratune-fix/bf16-stability")
		tip.Dir, tip.Env = dir, append(os.Environ(), env...)
		out, err := tip.Output()
		r := reported[dir]
		if hasBranch := err == nil; hasBranch != (r.Status == "changed") {
			t.Errorf("%s: branch %v but reported %q", dir, hasBranch, r.Status)
		} else if hasBranch && strings.TrimSpace(string(out)) != r.Commit {
			t.Errorf("%s: branch at %s, reported commit %q", dir, out, r.Commit)
		}
	}
	want := fmt.Sprintf("%d of %d repositories reported (above), %d not started", len(reported), len(repos), len(repos)-len(reported))
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("want %q in stderr:\n%s", want, stderr.String())
	}
}
