package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestMain lets the tests run this binary as the command itself.
func TestMain(m *testing.M) {
	if os.Getenv("LORATUNE_FIX_AS_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

// command runs loratune-fix with args in dir.
func bulkCommand(dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "LORATUNE_FIX_AS_MAIN=1"), env...)
	return cmd
}

func bulkExitStatus(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

func bulkWriteFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// bulkRepos makes n repositories under root (r000, r001, ...), each
// holding files in one commit, and returns their folders.
func bulkRepos(t *testing.T, env []string, root string, n int, files map[string]string) []string {
	t.Helper()
	var repos []string
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("r%03d", i))
		bulkWriteFiles(t, dir, files)
		bulkGit(t, env, dir, "init", "-q")
		bulkGit(t, env, dir, "add", ".")
		bulkGit(t, env, dir, "commit", "-q", "-m", "init")
		repos = append(repos, dir)
	}
	return repos
}

func bulkGitEnv(t *testing.T) []string {
	cfg := filepath.Join(t.TempDir(), "gitconfig")
	os.WriteFile(cfg, []byte("[user]\n\tname = T\n\temail = t@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644)
	return []string{"GIT_CONFIG_GLOBAL=" + cfg, "GIT_CONFIG_NOSYSTEM=1"}
}

func bulkGit(t *testing.T, env []string, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// The multi-gitter / turbolift recipe: `fix --write .` exits 0 whether or
// not it changed anything, and leaves a tree with nothing to do byte for
// byte as it was.
func TestFixWriteRecipe(t *testing.T) {
	dir := t.TempDir()
	bulkWriteFiles(t, dir, map[string]string{"train.py": string(demoScript), "lib/util.py": "x = 1\n"})
	out, err := bulkCommand(dir, nil, "fix", "--write", ".").CombinedOutput()
	if bulkExitStatus(err) != 0 {
		t.Fatalf("first fix --write: exit %d\n%s", bulkExitStatus(err), out)
	}
	fixed, _ := os.ReadFile(filepath.Join(dir, "train.py"))
	if bytes.Equal(fixed, demoScript) {
		t.Fatal("train.py was not fixed")
	}
	info1, _ := os.Stat(filepath.Join(dir, "train.py"))
	out, err = bulkCommand(dir, nil, "fix", "--write", ".").CombinedOutput()
	if bulkExitStatus(err) != 0 {
		t.Fatalf("second fix --write: exit %d\n%s", bulkExitStatus(err), out)
	}
	again, _ := os.ReadFile(filepath.Join(dir, "train.py"))
	info2, _ := os.Stat(filepath.Join(dir, "train.py"))
	if !bytes.Equal(again, fixed) || !info1.ModTime().Equal(info2.ModTime()) {
		t.Error("a second fix --write touched the fixed file")
	}
}

func TestCheckJSONLAndShards(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"train.py": string(demoScript)}
	for i := 0; i < 30; i++ {
		files[filepath.Join("pkg", string(rune('a'+i%26))+strings.Repeat("x", i/26), "m.py")] = "import os\n"
	}
	bulkWriteFiles(t, dir, files)
	lines := func(args ...string) []map[string]any {
		out, err := bulkCommand(dir, nil, append([]string{"check", "--output-format", "jsonl"}, args...)...).Output()
		if st := bulkExitStatus(err); st != 0 && st != 1 {
			t.Fatalf("check %v: exit %d", args, st)
		}
		var got []map[string]any
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatalf("not a JSON line: %q", sc.Text())
			}
			got = append(got, m)
		}
		return got
	}
	all := lines(".")
	if len(all) != len(files) {
		t.Fatalf("%d JSON lines for %d files", len(all), len(files))
	}
	var paths []string
	for _, m := range all {
		paths = append(paths, m["path"].(string))
		if m["path"] == "train.py" && len(m["findings"].([]any)) == 0 {
			t.Error("train.py has no findings")
		}
		if m["path"] != "train.py" && m["skipped"] != true {
			t.Errorf("%s was parsed; the prefilter should skip it", m["path"])
		}
	}
	if !sort.StringsAreSorted(paths) {
		t.Errorf("paths out of order: %v", paths)
	}
	// Three shards: disjoint, together everything, none empty.
	seen := map[string]int{}
	for _, k := range []string{"0/3", "1/3", "2/3"} {
		part := lines("--shard", k, ".")
		if len(part) == 0 {
			t.Errorf("shard %s is empty", k)
		}
		for _, m := range part {
			seen[m["path"].(string)]++
		}
	}
	for _, p := range paths {
		if seen[p] != 1 {
			t.Errorf("%s is in %d shards", p, seen[p])
		}
	}
}

// --resume names a report that a first run creates; the line about the
// repositories left out names only the reasons that apply.
func TestMigrateResumeFirstRunAndSkipLine(t *testing.T) {
	env := bulkGitEnv(t)
	root := t.TempDir()
	repos := bulkRepos(t, env, root, 6, map[string]string{"util.py": "x = 1\n"})
	report := filepath.Join(root, "report.jsonl")
	migrate := func(args ...string) string {
		t.Helper()
		out, err := bulkCommand(root, env, append(append([]string{"migrate", "--quiet"}, args...), repos...)...).CombinedOutput()
		if st := bulkExitStatus(err); st != 0 {
			t.Fatalf("migrate %v: exit %d\n%s", args, st, out)
		}
		return string(out)
	}
	first := migrate("--resume", report, "--report", report)
	if strings.Contains(first, "to do") {
		t.Errorf("first run: a line about skipped repositories:\n%s", first)
	}
	if b, _ := os.ReadFile(report); strings.Count(string(b), "\n") != len(repos) {
		t.Errorf("report after the first run:\n%s", b)
	}
	again := migrate("--resume", report, "--report", report)
	if want := "0 of 6 repositories to do (6 done in " + report + ")."; !strings.Contains(again, want) {
		t.Errorf("second run: want %q in\n%s", want, again)
	}
	sharded := migrate("--shard", "0/2")
	if !strings.Contains(sharded, "in other shards)") || strings.Contains(sharded, "done in") {
		t.Errorf("--shard alone: want only the other shards named:\n%s", sharded)
	}
}

// The same file named twice is processed once: no "changed on disk"
// from its second copy.
func TestFixWriteSameFileTwice(t *testing.T) {
	dir, path := writeDemo(t)
	_, stderr, code := run(t, "", "fix", "--write", path, dir+"/./train.py")
	if code != 0 || stderr != "fixed "+path+"\nFixed 8 of 8 findings in 1 file.\n" {
		t.Errorf("exit %d, stderr %q: want 0, one line fixing the file, the summary", code, stderr)
	}
}

// A report that cannot be written is one line and exit 2; the
// repositories are still migrated.
func TestMigrateReportWriteErrorIsExit2(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	env := bulkGitEnv(t)
	root := t.TempDir()
	repos := bulkRepos(t, env, root, 3, map[string]string{"util.py": "x = 1\n"})
	out, err := bulkCommand(root, env, append([]string{"migrate", "--quiet", "--report", "/dev/full"}, repos...)...).CombinedOutput()
	if st := bulkExitStatus(err); st != exitError || strings.Count(string(out), "--report:") != 1 || !strings.Contains(string(out), "no space left on device") {
		t.Errorf("exit %d, want 2 and one line naming the error:\n%s", st, out)
	}
	if !strings.Contains(string(out), "clean") {
		t.Errorf("the repositories were not migrated:\n%s", out)
	}
}
