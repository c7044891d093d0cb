package migrate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/fixtures"
	"github.com/loratune/loratune-fix/gitcmd"
	"github.com/loratune/loratune-fix/rewrite"
	"github.com/loratune/loratune-fix/runner"
)

// env is a git identity and configuration of the test's own.
func env(t *testing.T) []string {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "gitconfig")
	body := "[user]\n\tname = Test\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"GIT_CONFIG_GLOBAL=" + cfg, "GIT_CONFIG_SYSTEM=/dev/null", "GIT_CONFIG_NOSYSTEM=1"}
}

func git(t *testing.T, e []string, dir string, args ...string) string {
	t.Helper()
	out, err := gitcmd.Git{Dir: dir, Env: e}.Run(context.Background(), args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// newRepo makes a work tree with files committed on main.
func newRepo(t *testing.T, e []string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, e, dir, "init", "-q", "-b", "main")
	git(t, e, dir, "add", ".")
	git(t, e, dir, "commit", "-q", "-m", "initial")
	return dir
}

// newRemote makes a bare repository holding files and returns its file:// URL.
func newRemote(t *testing.T, e []string, files map[string]string) (url, bare string) {
	t.Helper()
	src := newRepo(t, e, files)
	bare = filepath.Join(t.TempDir(), "remote.git")
	git(t, e, "", "clone", "-q", "--bare", src, bare)
	return "file://" + bare, bare
}

func options(t *testing.T, e []string) *Options {
	t.Helper()
	eng, err := rewrite.New(rewrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &Options{Workdir: t.TempDir(), Branch: DefaultBranch, Runner: &runner.Options{Engine: eng, Jobs: 2}, Env: e}
}

var training = map[string]string{
	"train.py":      string(fixtures.Demo()),
	"pkg/util.py":   "def add(a, b):\n    return a + b\n",
	"README.md":     "a project\n",
	"build/gen.py":  string(fixtures.Demo()), // ignored below: never touched
	".gitignore":    "build/\n",
	"notes/todo.py": "import os\n",
}

func TestMigrateURLPushAndRerun(t *testing.T) {
	e := env(t)
	url, bare := newRemote(t, e, training)
	o := options(t, e)
	o.Push = true
	o.Author = "Bot <bot@example.com>"

	res := Run(context.Background(), o, url)
	if res.Status != Changed || res.Error != "" {
		t.Fatalf("first run: %s %s", res.Status, res.Error)
	}
	if strings.Join(res.Files, ",") != "train.py" || !res.Pushed || res.Commit == "" {
		t.Fatalf("first run: files %v pushed %v commit %q", res.Files, res.Pushed, res.Commit)
	}
	if res.Findings["LTF001"] == 0 || res.Phases.Clone <= 0 || res.Phases.Fix <= 0 || res.Phases.Push <= 0 {
		t.Errorf("findings %v, phases %+v", res.Findings, res.Phases)
	}
	// The pushed commit: on the branch, on top of main, by the author,
	// listing the rules applied and the file.
	remoteHead := git(t, e, bare, "rev-parse", "refs/heads/"+DefaultBranch)
	if remoteHead != res.Commit {
		t.Errorf("remote branch at %s, report says %s", remoteHead, res.Commit)
	}
	if parent := git(t, e, bare, "rev-parse", res.Commit+"^"); parent != git(t, e, bare, "rev-parse", "main") {
		t.Errorf("the commit's parent %s is not main", parent)
	}
	msg := git(t, e, bare, "log", "-1", "--format=%an <%ae>%n%B", res.Commit)
	for _, want := range []string{"Bot <bot@example.com>", "LTF001 fp32-master-weights", "LTF003 training-device-map", "- train.py"} {
		if !strings.Contains(msg, want) {
			t.Errorf("commit message lacks %q:\n%s", want, msg)
		}
	}
	changedFiles := git(t, e, bare, "diff", "--name-only", "main", res.Commit)
	if changedFiles != "train.py" {
		t.Errorf("the commit changes %q, want train.py only", changedFiles)
	}

	t.Run("a second run in the same workdir makes no new commit", func(t *testing.T) {
		again := Run(context.Background(), o, url)
		if again.Status != UpToDate || again.Commit != res.Commit {
			t.Errorf("second run: %s %s commit %s, want up-to-date at %s", again.Status, again.Error, again.Commit, res.Commit)
		}
	})
	t.Run("a run from a fresh workdir finds the pushed branch", func(t *testing.T) {
		o2 := *o
		o2.Workdir = t.TempDir()
		again := Run(context.Background(), &o2, url)
		if again.Status != UpToDate || again.Commit != res.Commit {
			t.Errorf("fresh workdir: %s %s commit %s, want up-to-date at %s", again.Status, again.Error, again.Commit, res.Commit)
		}
		if n := git(t, e, bare, "rev-list", "--count", "refs/heads/"+DefaultBranch); n != "2" {
			t.Errorf("remote branch has %s commits, want 2", n)
		}
	})
}

func TestMigrateClean(t *testing.T) {
	e := env(t)
	url, bare := newRemote(t, e, map[string]string{"app.py": "print('hello')\n"})
	o := options(t, e)
	o.Push = true
	res := Run(context.Background(), o, url)
	if res.Status != Clean || res.Branch != "" || res.Commit != "" || res.Error != "" {
		t.Fatalf("clean repo: %+v", res)
	}
	if out, _ := (gitcmd.Git{Dir: bare, Env: e}).Run(context.Background(), "rev-parse", "-q", "--verify", "refs/heads/"+DefaultBranch); out != "" {
		t.Error("a clean repository got a branch on the remote")
	}
	if _, err := (gitcmd.Git{Dir: res.Dir, Env: e}).Run(context.Background(), "rev-parse", "-q", "--verify", "refs/heads/"+DefaultBranch); err == nil {
		t.Error("a clean repository got a local branch")
	}
}

func TestMigrateLocalCheckout(t *testing.T) {
	e := env(t)
	dir := newRepo(t, e, training)
	git(t, e, dir, "switch", "-q", "-c", "dev")
	o := options(t, e)
	res := Run(context.Background(), o, dir)
	if res.Status != Changed || res.Error != "" {
		t.Fatalf("local: %s %s", res.Status, res.Error)
	}
	if cur := git(t, e, dir, "symbolic-ref", "--short", "HEAD"); cur != "dev" {
		t.Errorf("left on %s, want dev (where it was)", cur)
	}
	if st := git(t, e, dir, "status", "--porcelain"); st != "" {
		t.Errorf("work tree left dirty:\n%s", st)
	}
	if base := git(t, e, dir, "rev-parse", res.Commit+"^"); base != git(t, e, dir, "rev-parse", "dev") {
		t.Error("the branch does not start at the checked-out branch")
	}
	again := Run(context.Background(), o, dir)
	if again.Status != UpToDate || again.Commit != res.Commit {
		t.Errorf("second run: %s %s", again.Status, again.Error)
	}
}

// --dry-run alone shows each commit it would make and makes none: no
// branch, no written file, HEAD where it was, and a report line that a
// later --resume does not take for done.
func TestMigrateDryRun(t *testing.T) {
	e := env(t)
	dir := newRepo(t, e, training)
	url, bare := newRemote(t, e, training)
	o := options(t, e)
	var out strings.Builder
	o.DryRun, o.Out, o.Push = true, &out, true
	head := git(t, e, dir, "rev-parse", "HEAD")
	for _, spec := range []string{dir, url} {
		out.Reset()
		res := Run(context.Background(), o, spec)
		if res.Status != WouldChange || res.Error != "" || res.Commit != "" || res.Pushed || res.Done() {
			t.Errorf("%s: %+v", spec, res)
		}
		if len(res.Files) != 1 || res.Files[0] != "train.py" {
			t.Errorf("%s: files %v", spec, res.Files)
		}
		show := out.String()
		if !strings.HasPrefix(show, "=== "+spec+": would commit to "+DefaultBranch+" (dry run: nothing written)\n"+commitTitle) ||
			!strings.Contains(show, "--- a/train.py\n+++ b/train.py\n") {
			t.Errorf("%s: shown:\n%s", spec, show)
		}
	}
	if git(t, e, dir, "rev-parse", "HEAD") != head || git(t, e, dir, "status", "--porcelain") != "" || git(t, e, dir, "branch", "--list", DefaultBranch) != "" {
		t.Error("the dry run changed the checkout")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "train.py")); string(got) != training["train.py"] {
		t.Error("the dry run wrote train.py")
	}
	if refs := git(t, e, bare, "for-each-ref", "refs/heads/"+DefaultBranch); refs != "" {
		t.Errorf("the dry run pushed: %s", refs)
	}
	// Nothing to fix: clean, as in a real run.
	if res := Run(context.Background(), o, newRepo(t, e, map[string]string{"a.py": "print(1)\n"})); res.Status != Clean {
		t.Errorf("clean repository: %s", res.Status)
	}
}

func TestMigrateFailuresDoNotStopOthers(t *testing.T) {
	e := env(t)
	good, goodBare := newRemote(t, e, training)
	dirty := newRepo(t, e, training)
	os.WriteFile(filepath.Join(dirty, "scratch.py"), []byte("x = 1\n"), 0o644)
	broken := newRepo(t, e, map[string]string{
		"train.py": string(fixtures.Demo()),
		// A training file (so the prefilter lets it through) that does not parse.
		"bad.py": "from transformers import AutoModel, Trainer\ntrainer = Trainer()\nmodel = AutoModel.from_pretrained(\n",
	})
	refused, refusedBare := newRemote(t, e, training)
	hook := filepath.Join(refusedBare, "hooks", "pre-receive")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho 'pushes are closed' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	missing := "file://" + filepath.Join(t.TempDir(), "nothing.git")

	o := options(t, e)
	o.Push = true
	repos := []string{missing, dirty, broken, refused, good}
	got := map[string]*Result{}
	RunAll(context.Background(), o, repos, 2, func(r *Result) { got[r.Repo] = r })
	if len(got) != len(repos) {
		t.Fatalf("%d results for %d repositories", len(got), len(repos))
	}
	wantErr := map[string]string{
		missing: "git clone",
		dirty:   "dirty work tree",
		broken:  "bad.py",
		refused: "pushes are closed",
	}
	for repo, frag := range wantErr {
		r := got[repo]
		if r.Status != Failed || !strings.Contains(r.Error, frag) {
			t.Errorf("%s: %s %q, want error naming %q", repo, r.Status, r.Error, frag)
		}
	}
	if r := got[good]; r.Status != Changed || !r.Pushed {
		t.Errorf("good repository: %s %s", r.Status, r.Error)
	}
	if git(t, e, goodBare, "rev-parse", "refs/heads/"+DefaultBranch) == "" {
		t.Error("good repository's branch not pushed")
	}
	// The broken one is untouched: no branch, no change on disk.
	if st := git(t, e, broken, "status", "--porcelain"); st != "" {
		t.Errorf("broken repository changed on disk:\n%s", st)
	}
	if _, err := (gitcmd.Git{Dir: broken, Env: e}).Run(context.Background(), "rev-parse", "-q", "--verify", "refs/heads/"+DefaultBranch); err == nil {
		t.Error("broken repository got a branch")
	}
	// The dirty one keeps its file, unchanged.
	if b, _ := os.ReadFile(filepath.Join(dirty, "train.py")); string(b) != string(fixtures.Demo()) {
		t.Error("dirty repository's train.py was changed")
	}
	if _, err := os.Stat(filepath.Join(o.Workdir, strings.TrimPrefix(missing, "file://"))); err == nil {
		t.Error("a failed clone left its folder behind")
	}
}

func TestMigrateInterrupted(t *testing.T) {
	e := env(t)
	dir := newRepo(t, e, training)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var got []*Result
	RunAll(ctx, options(t, e), []string{dir}, 1, func(r *Result) { got = append(got, r) })
	for _, r := range got {
		if r.Status != Failed || !strings.Contains(r.Error, "interrupted") {
			t.Errorf("after Ctrl-C: %s %s", r.Status, r.Error)
		}
	}
	res := Run(ctx, options(t, e), dir)
	if res.Status != Failed || !strings.Contains(res.Error, "interrupted") {
		t.Errorf("Run after Ctrl-C: %s %q, want an interrupted error", res.Status, res.Error)
	}
	if st := git(t, e, dir, "status", "--porcelain"); st != "" {
		t.Errorf("interrupted run changed the work tree:\n%s", st)
	}
}

func TestReportAndResume(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.jsonl")
	rep, err := CreateReport(path, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*Result{
		{Repo: "a", Status: Changed}, {Repo: "b", Status: Failed, Error: "boom"},
		{Repo: "c", Status: Clean}, {Repo: "d", Status: UpToDate},
	} {
		if err := rep.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	rep.Close()
	// A line cut short by a kill is ignored.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"repo":"e","status":"chan`)
	f.Close()
	done, err := ReadDone(path)
	if err != nil {
		t.Fatal(err)
	}
	for repo, want := range map[string]bool{"a": true, "b": false, "c": true, "d": true, "e": false} {
		if done[repo] != want {
			t.Errorf("done[%s] = %v, want %v", repo, done[repo], want)
		}
	}
	repos, _ := ReadRepos(strings.NewReader("# fleet\n\n /srv/a \nhttps://example.com/x.git\n"))
	if strings.Join(repos, "|") != "/srv/a|https://example.com/x.git" {
		t.Errorf("ReadRepos = %q", repos)
	}
}

func TestCloneDir(t *testing.T) {
	for spec, want := range map[string]string{
		"https://github.com/org/repo.git": "w/github.com/org/repo",
		"git@github.com:org/repo.git":     "w/github.com/org/repo",
		"file:///srv/git/r1.git":          "w/srv/git/r1",
		"file:///srv/../etc/r":            "w/srv/etc/r",
	} {
		if got := cloneDir("w", spec); got != filepath.FromSlash(want) {
			t.Errorf("cloneDir(%s) = %s, want %s", spec, got, want)
		}
	}
	if !IsURL("git@github.com:org/x") || IsURL("./repo") || IsURL("/srv/repo") {
		t.Error("IsURL misreads")
	}
}

// A commit that fails leaves no branch behind (a later run would call an
// empty branch up to date) and the work tree as it was.
func TestMigrateFailedCommitLeavesNoBranch(t *testing.T) {
	e := env(t)
	dir := newRepo(t, e, training)
	// No identity, and git told not to guess one: the commit fails.
	noID := filepath.Join(t.TempDir(), "gitconfig")
	os.WriteFile(noID, []byte("[user]\n\tuseConfigOnly = true\n"), 0o644)
	o := options(t, e)
	o.Env = []string{"GIT_CONFIG_GLOBAL=" + noID, "GIT_CONFIG_NOSYSTEM=1", "EMAIL=", "GIT_AUTHOR_NAME=", "GIT_AUTHOR_EMAIL=", "GIT_COMMITTER_NAME=", "GIT_COMMITTER_EMAIL="}
	res := Run(context.Background(), o, dir)
	if res.Status != Failed || !strings.Contains(res.Error, "git commit") {
		t.Fatalf("without an identity: %s %q, want a git commit error", res.Status, res.Error)
	}
	if _, err := (gitcmd.Git{Dir: dir, Env: e}).Run(context.Background(), "rev-parse", "-q", "--verify", "refs/heads/"+DefaultBranch); err == nil {
		t.Error("the failed commit left its branch")
	}
	if cur := git(t, e, dir, "symbolic-ref", "--short", "HEAD"); cur != "main" {
		t.Errorf("left on %s, want main", cur)
	}
	if st := git(t, e, dir, "status", "--porcelain"); st != "" {
		t.Errorf("work tree left dirty:\n%s", st)
	}
	if again := Run(context.Background(), options(t, e), dir); again.Status != Changed {
		t.Errorf("the next run, with an identity: %s %s, want changed", again.Status, again.Error)
	}
}

// A commit that fails is rolled back, and a roll-back step that fails too
// is named in the report rather than dropped: here git's index is locked
// by someone else, so neither the commit nor the reset can run.
func TestMigrateReportsAFailedRollback(t *testing.T) {
	e := env(t)
	dir := newRepo(t, e, training)
	lock := filepath.Join(dir, ".git", "index.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res := Run(context.Background(), options(t, e), dir)
	if res.Status != Failed || !strings.Contains(res.Error, "rolling back failed: git reset") || !strings.Contains(res.Error, "index.lock") {
		t.Errorf("%s %q: want an error naming the failed reset", res.Status, res.Error)
	}
	os.Remove(lock)
	// The files themselves were put back without git.
	if st := git(t, e, dir, "status", "--porcelain"); st != "" {
		t.Errorf("work tree left changed:\n%s", st)
	}
}

// A local path that does not exist reads as one clear line, not as git's
// failure to start in a missing folder.
func TestMigrateMissingPath(t *testing.T) {
	e := env(t)
	missing := filepath.Join(t.TempDir(), "nope")
	res := Run(context.Background(), options(t, e), missing)
	if want := "no such repository: no such file or directory"; res.Status != Failed || res.Error != want {
		t.Errorf("%s %q, want error %q", res.Status, res.Error, want)
	}
}
