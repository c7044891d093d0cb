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
	if len(entries) != 2 || !strings.Contains(string(hooks), "language: golang") {
		t.Fatalf("want two golang hooks, got %v", entries)
	}
	// Notebooks are files the tool fixes: each hook must be given them.
	if n := strings.Count(string(hooks), "types_or: [python, jupyter]\n"); n != 2 || strings.Contains(string(hooks), "types:") {
		t.Errorf("want both hooks on python and jupyter files (types_or), got %d:\n%s", n, hooks)
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
