package githubtest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The checks refuse what GitHub refuses, and pass what it takes: a test
// that a fake GitHub built on them cannot silently wave through.
func TestCheckAgainstGitHubsDescription(t *testing.T) {
	s := Load(t)
	if s == nil {
		t.Skip("no description: " + howToGetIt)
	}
	cases := []struct {
		method, path, query, body string
		refused                   string // "" when GitHub takes it
	}{
		{"POST", "/repos/octo/train/issues/3/labels", "", `{"labels":["bf16"]}`, ""},
		{"POST", "/repos/octo/train/issues/3/labels", "", `["bf16"]`, "got array, want object"},
		{"POST", "/repos/octo/train/pulls/3/requested_reviewers", "", `{"reviewers":["alice"],"team_reviewers":["ml-platform"]}`, ""},
		{"POST", "/repos/octo/train/pulls/3/requested_reviewers", "", `{"reviewers":"alice"}`, "want array"},
		{"POST", "/repos/octo/train/pulls", "", `{"title":"t","head":"b","base":"main","body":"x","draft":true,"maintainer_can_modify":true}`, ""},
		{"POST", "/repos/octo/train/pulls", "", `{"title":"t","base":"main"}`, "head"},
		{"PATCH", "/repos/octo/train/pulls/3", "", `{"state":"merged"}`, "merged"},
		{"GET", "/repos/octo/train/pulls", "state=all&head=octo:b", "", ""},
		{"GET", "/repos/octo/train/pulls", "state=any", "", "any"},
		{"GET", "/repos/octo/train/pulls", "author=me", "", "not one this operation takes"},
		{"GET", "/repos/octo/train/pulls/x/reviews", "", "", "pull_number"},
		{"POST", "/repos/octo/train/pulls/3/reviews", "", `{"commit_id":"abc","event":"COMMENT","body":"b","comments":[{"path":"a.py","line":2,"side":"RIGHT","body":"c"}]}`, ""},
		{"POST", "/repos/octo/train/pulls/3/reviews", "", `{"event":"COMMENT","comments":[{"path":"a.py","line":"2","side":"RIGHT"}]}`, "body"},
		{"PUT", "/repos/octo/train/pulls/3/reviews/9", "", `{"body":"new"}`, ""},
		{"PUT", "/repos/octo/train/pulls/3/reviews/9", "", `{}`, "body"},
		{"POST", "/repos/octo/train/pulls/3/comments", "", `{"body":"c","commit_id":"abc","path":"a.py","line":2,"side":"RIGHT"}`, ""},
		{"POST", "/repos/octo/train/pulls/3/comments", "", `{"body":"c","commit_id":"abc","path":"a.py","line":2,"side":"MIDDLE"}`, "MIDDLE"},
		{"DELETE", "/repos/octo/train/pulls", "", "", "no such method"},
		{"GET", "/repos/octo/train/nothing/here", "", "", "no such path"},
	}
	for _, c := range cases {
		q := map[string][]string{}
		for _, kv := range strings.Split(c.query, "&") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				q[k] = append(q[k], v)
			}
		}
		err := s.Check(c.method, c.path, q, []byte(c.body))
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%s %s %s: refused: %v", c.method, c.path, c.body, err)
		case c.refused != "" && err == nil:
			t.Errorf("%s %s %s: taken, want refused (%s)", c.method, c.path, c.body, c.refused)
		case c.refused != "" && !strings.Contains(err.Error(), c.refused):
			t.Errorf("%s %s %s: %v, want it to say %q", c.method, c.path, c.body, err, c.refused)
		}
	}
}

// recorder is a test whose failures are kept, not reported.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// A fake GitHub behind Handler fails its test on a request GitHub would
// refuse, answers it with a 422, and never passes it on.
func TestHandlerFailsTheTestOnARefusedRequest(t *testing.T) {
	if Load(t) == nil {
		t.Skip("no description: " + howToGetIt)
	}
	rec := &recorder{TB: t}
	served := 0
	srv := httptest.NewServer(Handler(rec, "/api/v3", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { served++ })))
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/api/v3/repos/octo/train/issues/3/labels", "application/json", strings.NewReader(`["bf16"]`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "issues/add-labels") || resp.StatusCode != http.StatusUnprocessableEntity || served != 0 {
		t.Errorf("errors %q, status %d, served %d", rec.errs, resp.StatusCode, served)
	}
	resp, err = http.Post(srv.URL+"/api/v3/repos/octo/train/issues/3/labels", "application/json", strings.NewReader(`{"labels": ["bf16"]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(rec.errs) != 1 || served != 1 {
		t.Errorf("a request GitHub takes: errors %q, served %d", rec.errs, served)
	}
}
