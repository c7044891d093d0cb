package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/githubapi/githubtest"
	"github.com/loratune/loratune-fix/runner"
	"gopkg.in/yaml.v3"
)

// The integrations call the command with flags; a renamed flag must break
// this test, not a user's workflow.
func TestActionAndPreCommitUseFlagsTheCommandsHave(t *testing.T) {
	action, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, input := range []string{"profile:", "select:", "ignore:", "fail-on-findings:"} {
		if !strings.Contains(string(action), "\n  "+input) {
			t.Errorf("action.yml has no input %s", input)
		}
	}
	// The release download comes first, and the build from source only
	// where it found no release.
	var meta struct {
		Runs struct {
			Steps []struct {
				ID, If, Run, Uses string
			}
		}
	}
	if err := yaml.Unmarshal(action, &meta); err != nil {
		t.Fatal(err)
	}
	steps := meta.Runs.Steps
	if len(steps) < 3 || steps[0].ID != "release" || !strings.Contains(steps[0].Run, "packaging/action-download.sh") {
		t.Fatalf("action.yml's first step must run packaging/action-download.sh, got %+v", steps)
	}
	if _, err := os.Stat("../../packaging/action-download.sh"); err != nil {
		t.Fatal(err)
	}
	for _, st := range steps[1:3] {
		if st.If != "steps.release.outputs.path == ''" {
			t.Errorf("step %q (%s) runs whether or not a release was downloaded", st.ID, st.Uses)
		}
	}
	review := newReviewCmd()
	var used []string
	for _, line := range strings.Split(string(action), "\n") {
		if strings.Contains(line, "args") {
			used = append(used, regexp.MustCompile(`--[a-z][a-z-]+`).FindAllString(line, -1)...)
		}
	}
	if len(used) < 5 {
		t.Fatalf("found only %v in action.yml's review call", used)
	}
	for _, f := range used {
		if review.Flags().Lookup(strings.TrimPrefix(f, "--")) == nil {
			t.Errorf("action.yml passes %s, which review does not have", f)
		}
	}

	hooks, err := os.ReadFile("../../.pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	entries := regexp.MustCompile(`entry: loratune-fix (.+)`).FindAllStringSubmatch(string(hooks), -1)
	if len(entries) != 4 {
		t.Fatalf("want four hooks (fix and check, golang and python), got %v", entries)
	}
	for _, e := range entries {
		args := strings.Fields(e[1])
		cmd, rest, err := newRoot().Find(args)
		if err != nil || cmd.Name() != args[0] {
			t.Errorf("hook entry %q: %v", e[1], err)
			continue
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Errorf("hook entry %q: %v", e[1], err)
		}
	}
}

// TestReviewPostReadsTheActionsEnvironment runs review --post the way the
// action does: the pull request and its head come from GITHUB_EVENT_PATH,
// the server from GITHUB_API_URL.
func TestReviewPostReadsTheActionsEnvironment(t *testing.T) {
	dir := prRepo(t)
	var posted struct {
		CommitID string `json:"commit_id"`
		Comments []struct {
			Line int `json:"line"`
		} `json:"comments"`
	}
	posts := 0
	srv := httptest.NewServer(githubtest.Handler(t, "", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == "GET" && (r.URL.Path == "/repos/octo/train/pulls/42/comments" || r.URL.Path == "/repos/octo/train/pulls/42/reviews"):
			io.WriteString(w, "[]")
		case r.Method == "POST" && r.URL.Path == "/repos/octo/train/pulls/42/reviews":
			posts++
			if err := json.NewDecoder(r.Body).Decode(&posted); err != nil {
				t.Error(err)
			}
			io.WriteString(w, `{"id": 1}`)
		default:
			t.Errorf("unexpected %s %s", r.Method, r.URL.Path)
			w.WriteHeader(http.StatusNotFound)
		}
	})))
	defer srv.Close()
	event := filepath.Join(t.TempDir(), "event.json")
	os.WriteFile(event, []byte(`{"number": 42, "pull_request": {"number": 42, "head": {"sha": "feedbeef"}}}`), 0o644)
	t.Setenv("GITHUB_TOKEN", "t0ken")
	t.Setenv("GITHUB_REPOSITORY", "octo/train")
	t.Setenv("GITHUB_EVENT_PATH", event)
	t.Setenv("GITHUB_API_URL", srv.URL)
	_, stderr, err := runCLI(t, dir, "review", "--base", "main", "--post")
	if err != nil {
		t.Fatalf("review --post: %v\n%s", err, stderr)
	}
	if posts != 1 || posted.CommitID != "feedbeef" || len(posted.Comments) == 0 {
		t.Errorf("%d posts, commit %q, %d comments; want 1, feedbeef, some", posts, posted.CommitID, len(posted.Comments))
	}
	if !strings.Contains(stderr, fmt.Sprintf("octo/train#42 with %d comment", len(posted.Comments))) {
		t.Errorf("stderr: %s", stderr)
	}

	t.Setenv("GITHUB_TOKEN", "")
	if _, _, err := runCLI(t, dir, "review", "--base", "main", "--post"); err == nil || !strings.Contains(err.Error(), "GITHUB_TOKEN") {
		t.Errorf("without a token: %v", err)
	}
}

// TestHooksAndWorkflowTakeWhatTheWalkReads: the pre-commit hooks, the
// example workflow's paths and the help text select the files a folder walk
// reads (runner.Sources), launch configs included (REPROS 21: a hook on
// python and jupyter only skipped a YAML recipe that fix rewrites).
func TestHooksAndWorkflowTakeWhatTheWalkReads(t *testing.T) {
	names := []string{"train.py", "nb.ipynb", "configs/lora_sft.yaml", "ax.yml", "ds_z3.json", "run.sh", "launch.bash",
		"README.md", "stubs.pyi", "requirements.txt", "pyproject.toml", "setup.cfg", "Dockerfile", "run", "a.yaml.bak"}
	var hooks []struct {
		ID, Entry, Language, Files string
		Types                      []string
		TypesOr                    []string `yaml:"types_or"`
	}
	data, err := os.ReadFile("../../.pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &hooks); err != nil {
		t.Fatal(err)
	}
	languages := map[string]int{}
	for _, h := range hooks {
		languages[h.Language]++
		if len(h.TypesOr) > 0 || len(h.Types) != 1 || h.Types[0] != "file" {
			t.Errorf("hook %s: types %v types_or %v, want types: [file] and the files pattern", h.ID, h.Types, h.TypesOr)
		}
		re, err := regexp.Compile(h.Files) // pre-commit: Python's re.search, the same for this pattern
		if err != nil {
			t.Fatalf("hook %s: %v", h.ID, err)
		}
		for _, n := range names {
			if re.MatchString(n) != runner.Sources(n) {
				t.Errorf("hook %s on %s: %v, the walk: %v", h.ID, n, re.MatchString(n), runner.Sources(n))
			}
		}
	}
	if languages["golang"] != 2 || languages["python"] != 2 {
		t.Errorf("want two golang hooks and two python hooks (the wheel), got %v", languages)
	}

	var workflow struct {
		On struct {
			PullRequest struct {
				Paths []string
			} `yaml:"pull_request"`
		}
	}
	if data, err = os.ReadFile("../../examples/github-review.yml"); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &workflow); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		matched := false
		for _, p := range workflow.On.PullRequest.Paths {
			// '**.py': any path ending so (GitHub's ** crosses folders).
			ext, ok := strings.CutPrefix(p, "**")
			if !ok || strings.ContainsAny(ext, "*?[/") {
				t.Fatalf("paths pattern %q: want **.EXT", p)
			}
			matched = matched || strings.HasSuffix(n, ext)
		}
		if matched != runner.Sources(n) {
			t.Errorf("example workflow paths on %s: %v, the walk: %v", n, matched, runner.Sources(n))
		}
	}

	help := newFixCmd().Long + newCheckCmd().Long
	for _, n := range names {
		if ext := filepath.Ext(n); runner.Sources(n) && !strings.Contains(help, "*"+ext+" ") && !strings.Contains(help, "*"+ext+",") {
			t.Errorf("fix and check --help do not name *%s, which the walk reads", ext)
		}
	}
}
