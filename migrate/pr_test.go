package migrate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/fixtures"
	"github.com/loratune/loratune-fix/githubapi"
	"github.com/loratune/loratune-fix/githubapi/githubtest"
)

// fakePR is a pull request the fake GitHub holds.
type fakePR struct {
	Number    int      `json:"number"`
	HTMLURL   string   `json:"html_url"`
	State     string   `json:"state"`
	Title     string   `json:"title"`
	Body      string   `json:"body"`
	Head      string   `json:"-"` // owner:branch
	Base      string   `json:"-"`
	Draft     bool     `json:"draft"`
	MergedAt  *string  `json:"merged_at"`
	Labels    []string `json:"-"`
	Reviewers []string `json:"-"`
	Teams     []string `json:"-"` // team reviewers' slugs
	Comments  []string `json:"-"`
}

// The collaborators of the fake's repositories: a request for anyone else
// is refused, as GitHub refuses it.
var (
	fakeUsers = map[string]bool{"alice": true}
	fakeTeams = map[string]bool{"ml-platform": true}
)

// fakePulls is the part of GitHub's REST API that --open-pr uses, under
// GitHub Enterprise's /api/v3 prefix, with its pull requests kept between
// runs.
type fakePulls struct {
	t        *testing.T
	mu       sync.Mutex
	prs      map[string][]*fakePR // by "owner/repo"
	requests []string
	// fail, when set, may answer a request in place of the fake.
	fail func(w http.ResponseWriter, r *http.Request) bool
}

var pullsPath = regexp.MustCompile(`^/api/v3/repos/([^/]+)/([^/]+)/(pulls|issues)(?:/(\d+))?(/[a-z_]+)?$`)

func (g *fakePulls) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.requests = append(g.requests, r.Method+" "+r.URL.Path)
	if got := r.Header.Get("Authorization"); got != "Bearer test-token" {
		g.t.Errorf("%s %s: Authorization %q", r.Method, r.URL.Path, got)
	}
	if g.fail != nil && g.fail(w, r) {
		return
	}
	m := pullsPath.FindStringSubmatch(r.URL.Path)
	if m == nil {
		g.t.Errorf("unexpected request %s %s", r.Method, r.URL)
		http.NotFound(w, r)
		return
	}
	key, kind, num, sub := m[1]+"/"+m[2], m[3], m[4], m[5]
	var raw any
	if r.Body != nil && r.Method != http.MethodGet {
		json.NewDecoder(r.Body).Decode(&raw)
	}
	in, _ := raw.(map[string]any)
	str := func(k string) string { s, _ := in[k].(string); return s }
	var pr *fakePR
	if num != "" {
		n, _ := strconv.Atoi(num)
		for _, p := range g.prs[key] {
			if p.Number == n {
				pr = p
			}
		}
		if pr == nil {
			http.NotFound(w, r)
			return
		}
	}
	switch {
	case kind == "pulls" && num == "" && r.Method == http.MethodGet:
		out := []*fakePR{}
		q := r.URL.Query()
		for i := len(g.prs[key]) - 1; i >= 0; i-- { // newest first, as GitHub lists them
			p := g.prs[key][i]
			if (p.State == q.Get("state") || q.Get("state") == "all") && p.Head == q.Get("head") {
				out = append(out, p)
			}
		}
		json.NewEncoder(w).Encode(out)
	case kind == "pulls" && num == "" && r.Method == http.MethodPost:
		head := m[1] + ":" + str("head")
		for _, p := range g.prs[key] {
			if p.State == "open" && p.Head == head {
				w.WriteHeader(http.StatusUnprocessableEntity)
				fmt.Fprintf(w, `{"message":"Validation Failed","errors":[{"message":"A pull request already exists for %s."}]}`, head)
				return
			}
		}
		n := len(g.prs[key]) + 1
		d, _ := in["draft"].(bool)
		p := &fakePR{Number: n, HTMLURL: fmt.Sprintf("https://github.example/%s/pull/%d", key, n), State: "open",
			Title: str("title"), Body: str("body"), Head: head, Base: str("base"), Draft: d}
		if g.prs == nil {
			g.prs = map[string][]*fakePR{}
		}
		g.prs[key] = append(g.prs[key], p)
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(p)
	case kind == "pulls" && sub == "" && r.Method == http.MethodPatch:
		if s, ok := in["title"].(string); ok {
			pr.Title = s
		}
		if s, ok := in["body"].(string); ok {
			pr.Body = s
		}
		if s, ok := in["state"].(string); ok {
			pr.State = s
		}
		json.NewEncoder(w).Encode(pr)
	case kind == "pulls" && sub == "/requested_reviewers" && r.Method == http.MethodPost:
		users, _ := in["reviewers"].([]any)
		teams, _ := in["team_reviewers"].([]any)
		for _, v := range users {
			if !fakeUsers[v.(string)] {
				w.WriteHeader(http.StatusUnprocessableEntity)
				fmt.Fprintf(w, `{"message":"Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the %s repository."}`, key)
				return
			}
			pr.Reviewers = append(pr.Reviewers, v.(string))
		}
		for _, v := range teams {
			if !fakeTeams[v.(string)] {
				w.WriteHeader(http.StatusUnprocessableEntity)
				fmt.Fprint(w, `{"message":"Could not resolve to a node with the global id"}`)
				return
			}
			pr.Teams = append(pr.Teams, v.(string))
		}
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(pr)
	case kind == "issues" && sub == "/labels" && r.Method == http.MethodPost:
		for _, v := range in["labels"].([]any) {
			pr.Labels = append(pr.Labels, v.(string))
		}
		fmt.Fprint(w, "[]")
	case kind == "issues" && sub == "/comments" && r.Method == http.MethodPost:
		pr.Comments = append(pr.Comments, str("body"))
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"id": 1}`)
	default:
		g.t.Errorf("unexpected request %s %s", r.Method, r.URL)
		http.NotFound(w, r)
	}
}

// fleet is a few bare repositories under one owner, a fake GitHub, and
// the options of a --open-pr run against them.
type fleet struct {
	t    *testing.T
	env  []string
	root string
	gh   *fakePulls
	o    *Options
}

func newFleet(t *testing.T) *fleet {
	e := env(t)
	f := &fleet{t: t, env: e, root: t.TempDir(), gh: &fakePulls{t: t}}
	srv := httptest.NewServer(githubtest.Handler(t, "/api/v3", f.gh))
	t.Cleanup(srv.Close)
	f.o = options(t, e)
	f.o.PR = &PROptions{
		Client: func(owner, repo string) (*githubapi.Client, error) {
			c, err := githubapi.New("test-token", srv.URL+"/api/v3", owner, repo, srv.Client())
			if err == nil {
				c.Sleep = func(context.Context, time.Duration) error { return nil }
				c.MaxAttempts = 2
			}
			return c, err
		},
		Labels: []string{"bf16"}, Reviewers: []string{"octo/ml-platform", "alice"}, Draft: true,
		Reproduce: "loratune-fix fix --write .",
	}
	return f
}

// repo makes octo/NAME holding files and returns its URL.
func (f *fleet) repo(name string, files map[string]string) string {
	src := newRepo(f.t, f.env, files)
	bare := filepath.Join(f.root, "octo", name+".git")
	git(f.t, f.env, "", "clone", "-q", "--bare", src, bare)
	return "file://" + bare
}

func (f *fleet) bare(name string) string { return filepath.Join(f.root, "octo", name+".git") }

// commitTo commits files to branch of octo/NAME, as someone else.
func (f *fleet) commitTo(name, branch, msg string, files map[string]string) {
	dir := f.t.TempDir()
	git(f.t, f.env, "", "clone", "-q", "-b", branch, f.bare(name), dir)
	for p, body := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644); err != nil {
			f.t.Fatal(err)
		}
	}
	git(f.t, f.env, dir, "add", ".")
	git(f.t, f.env, dir, "-c", "user.name=Maintainer", "commit", "-q", "-m", msg)
	git(f.t, f.env, dir, "push", "-q", "origin", branch)
}

func (f *fleet) run(repos ...string) map[string]*Result {
	f.t.Helper()
	out := map[string]*Result{}
	RunAll(context.Background(), f.o, repos, 2, func(r *Result) { out[r.Repo] = r })
	return out
}

func (f *fleet) prs(name string) []*fakePR {
	f.gh.mu.Lock()
	defer f.gh.mu.Unlock()
	return f.gh.prs["octo/"+name]
}

func prState(r *Result) PRState {
	if r.PR == nil {
		return ""
	}
	return r.PR.State
}

func TestOpenPRTwiceOverBareRepositories(t *testing.T) {
	f := newFleet(t)
	a := f.repo("trainer", training)
	b := f.repo("tidy", map[string]string{"ok.py": "print('fine')\n"})
	res := f.run(a, b)
	ra := res[a]
	if ra.Status != Changed || !ra.Pushed || prState(ra) != PROpened || ra.PR.Number != 1 || ra.PR.URL != "https://github.example/octo/trainer/pull/1" {
		t.Fatalf("first run: %+v %+v", ra, ra.PR)
	}
	if rb := res[b]; rb.Status != Clean || rb.PR != nil || len(f.prs("tidy")) != 0 {
		t.Fatalf("clean repository: %+v", rb)
	}
	line, _ := json.Marshal(ra)
	if want := `"pr":{"number":1,"url":"https://github.example/octo/trainer/pull/1","state":"opened"}`; !strings.Contains(string(line), want) {
		t.Errorf("report line %s lacks %s", line, want)
	}
	pr := f.prs("trainer")[0]
	if pr.Head != "octo:"+DefaultBranch || pr.Base != "main" || !pr.Draft ||
		strings.Join(pr.Labels, ",") != "bf16" || strings.Join(pr.Reviewers, ",") != "alice" || strings.Join(pr.Teams, ",") != "ml-platform" {
		t.Errorf("pull request: %+v", pr)
	}
	for _, want := range []string{"## Rules applied", "LTF001 fp32-master-weights", "Cost: ", "`train.py` line ",
		"Profile `default`:", "## Reproduce locally\n\n    loratune-fix fix --write .", "# noqa: LTF001"} {
		if !strings.Contains(pr.Body, want) {
			t.Errorf("body lacks %q:\n%s", want, pr.Body)
		}
	}
	if got := git(t, f.env, f.bare("trainer"), "log", "-1", "--format=%s", DefaultBranch); got != commitTitle {
		t.Errorf("pushed commit %q", got)
	}
	tip := git(t, f.env, f.bare("trainer"), "rev-parse", DefaultBranch)

	f.gh.requests = nil
	res = f.run(a, b)
	ra = res[a]
	if ra.Status != UpToDate || ra.Pushed || prState(ra) != PRUnchanged || ra.PR.Number != 1 || ra.Commit != tip {
		t.Fatalf("second run: %+v %+v", ra, ra.PR)
	}
	if res[b].Status != Clean || res[b].PR != nil {
		t.Errorf("second run, clean repository: %+v", res[b])
	}
	if strings.Join(f.gh.requests, ",") != "GET /api/v3/repos/octo/trainer/pulls" {
		t.Errorf("second run asked GitHub %v", f.gh.requests)
	}
	if len(f.prs("trainer")) != 1 || git(t, f.env, f.bare("trainer"), "rev-parse", DefaultBranch) != tip {
		t.Errorf("second run changed the branch or opened another pull request")
	}
}

func TestOpenPRUpdatesAndCloses(t *testing.T) {
	f := newFleet(t)
	a := f.repo("trainer", training)
	f.run(a)
	// The default branch gets another script to fix: the branch and body follow.
	f.commitTo("trainer", "main", "another script", map[string]string{"sft.py": string(fixtures.Demo())})
	r := f.run(a)[a]
	if r.Status != Changed || !r.Pushed || prState(r) != PRUpdated || r.PR.Number != 1 {
		t.Fatalf("update: %+v %+v", r, r.PR)
	}
	prs := f.prs("trainer")
	if len(prs) != 1 || !strings.Contains(prs[0].Body, "`sft.py` line ") || !strings.Contains(prs[0].Title, "(2 file(s))") {
		t.Fatalf("updated pull request: %d, %q\n%s", len(prs), prs[0].Title, prs[0].Body)
	}
	// The maintainers fix the default branch themselves: the pull request closes.
	fixed := map[string]string{}
	for _, p := range []string{"train.py", "sft.py"} {
		fixed[p] = string(mustRead(t, f.bare("trainer"), DefaultBranch, p, f.env))
	}
	f.commitTo("trainer", "main", "fixed by hand", fixed)
	var out bytes.Buffer
	f.o.PR.DryRun, f.o.PR.Out = true, &out
	r = f.run(a)[a]
	if r.Status != Clean || r.PR != nil || prs[0].State != "open" || !strings.Contains(out.String(), "=== octo/trainer: nothing left to fix: an open pull request") {
		t.Fatalf("dry run of the close: %+v, %q", r, out.String())
	}
	f.o.PR.DryRun = false
	r = f.run(a)[a]
	if r.Status != Clean || prState(r) != PRClosed || r.PR.Number != 1 {
		t.Fatalf("close: %+v %+v", r, r.PR)
	}
	if prs[0].State != "closed" || len(prs[0].Comments) != 1 || !strings.Contains(prs[0].Comments[0], "nothing left to fix") {
		t.Errorf("closed pull request: %+v", prs[0])
	}
	if got := git(t, f.env, f.bare("trainer"), "branch", "--list", DefaultBranch); got != "" {
		t.Errorf("the branch of the closed pull request is still there")
	}
	// Closed stays closed and no new one opens.
	if r = f.run(a)[a]; r.Status != Clean || r.PR != nil || len(f.prs("trainer")) != 1 {
		t.Errorf("after closing: %+v %+v", r, r.PR)
	}
}

func mustRead(t *testing.T, bare, branch, path string, e []string) []byte {
	t.Helper()
	return []byte(git(t, e, bare, "show", branch+":"+path) + "\n")
}

func TestOpenPRLeavesForeignCommitsAlone(t *testing.T) {
	f := newFleet(t)
	a := f.repo("trainer", training)
	f.run(a)
	f.commitTo("trainer", DefaultBranch, "tune the learning rate", map[string]string{"lr.txt": "2e-4\n"})
	f.commitTo("trainer", "main", "another script", map[string]string{"sft.py": string(fixtures.Demo())})
	tip := git(t, f.env, f.bare("trainer"), "rev-parse", DefaultBranch)
	body := f.prs("trainer")[0].Body
	r := f.run(a)[a]
	if prState(r) != PRLeftAlone || r.Pushed || !strings.Contains(r.PR.Reason, "tune the learning rate") || r.Status == Failed {
		t.Fatalf("foreign commits: %+v %+v", r, r.PR)
	}
	if git(t, f.env, f.bare("trainer"), "rev-parse", DefaultBranch) != tip || f.prs("trainer")[0].Body != body {
		t.Errorf("the branch or the pull request was changed")
	}
}

func TestOpenPRDryRun(t *testing.T) {
	f := newFleet(t)
	var out bytes.Buffer
	f.o.PR.DryRun, f.o.PR.Out, f.o.PR.Client = true, &out, nil
	a := f.repo("trainer", training)
	r := f.run(a)[a]
	if r.Status != Changed || r.Pushed || prState(r) != PRDryRun {
		t.Fatalf("dry run: %+v %+v", r, r.PR)
	}
	if !strings.HasPrefix(out.String(), "=== octo/trainer: pull request "+DefaultBranch+" -> main\nTitle: "+commitTitle) ||
		!strings.Contains(out.String(), "## Rules applied") {
		t.Errorf("dry-run output:\n%s", out.String())
	}
	if got := git(t, f.env, f.bare("trainer"), "branch", "--list", DefaultBranch); got != "" {
		t.Errorf("dry run pushed %q", got)
	}
}

func TestOpenPRFaultsGiveOneLineEach(t *testing.T) {
	cases := []struct {
		name string
		fail func(w http.ResponseWriter, r *http.Request) bool
		want string
	}{
		{"secondary rate limit", func(w http.ResponseWriter, r *http.Request) bool {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"message":"You have exceeded a secondary rate limit.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`)
			return true
		}, "secondary rate limit held after retries"},
		{"server error", func(w http.ResponseWriter, r *http.Request) bool {
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprint(w, `{"message":"Server Error"}`)
			return true
		}, "GitHub answered with an error (502 Bad Gateway"},
		{"token without permission", func(w http.ResponseWriter, r *http.Request) bool {
			if r.Method != http.MethodPost {
				return false
			}
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"message":"Resource not accessible by personal access token"}`)
			return true
		}, "the token may not open or change pull requests here"},
		{"422 on create", func(w http.ResponseWriter, r *http.Request) bool {
			if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/pulls") {
				return false
			}
			w.WriteHeader(http.StatusUnprocessableEntity)
			fmt.Fprint(w, `{"message":"Validation Failed","errors":[{"message":"A pull request already exists for someone:loratune-fix/bf16-stability."}]}`)
			return true
		}, "GitHub refused to open the pull request"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFleet(t)
			a := f.repo("trainer", training)
			ok := f.repo("other", training)
			f.gh.fail = func(w http.ResponseWriter, r *http.Request) bool {
				return strings.Contains(r.URL.Path, "/octo/trainer/") && c.fail(w, r)
			}
			res := f.run(a, ok)
			r := res[a]
			if r.Status != Failed || !strings.Contains(r.Error, c.want) || strings.Contains(r.Error, "\n") {
				t.Errorf("error line %q, want %q", r.Error, c.want)
			}
			if r2 := res[ok]; prState(r2) != PROpened {
				t.Errorf("the other repository: %+v %+v", r2, r2.PR)
			}
		})
	}
}

func TestOwnerRepo(t *testing.T) {
	for spec, want := range map[string]string{
		"https://github.com/octo/train.git": "octo/train",
		"git@github.com:octo/train":         "octo/train",
		"file:///srv/git/octo/train.git":    "octo/train",
	} {
		o, n, err := ownerRepo(spec)
		if err != nil || o+"/"+n != want {
			t.Errorf("%s: %s/%s %v", spec, o, n, err)
		}
	}
}

func TestOpenPRClosedByAPersonStaysClosed(t *testing.T) {
	f := newFleet(t)
	a := f.repo("trainer", training)
	f.run(a)
	f.gh.mu.Lock()
	f.gh.prs["octo/trainer"][0].State = "closed"
	f.gh.mu.Unlock()
	f.commitTo("trainer", "main", "another script", map[string]string{"sft.py": string(fixtures.Demo())})
	tip := git(t, f.env, f.bare("trainer"), "rev-parse", DefaultBranch)
	r := f.run(a)[a]
	if prState(r) != PRLeftAlone || r.Pushed || !strings.Contains(r.PR.Reason, "closed without merging") {
		t.Fatalf("closed by a person: %+v %+v", r, r.PR)
	}
	if len(f.prs("trainer")) != 1 || git(t, f.env, f.bare("trainer"), "rev-parse", DefaultBranch) != tip {
		t.Errorf("a new pull request or a push after a person closed one")
	}
}

// A body over GitHub's limit lists fewer files, says so, and keeps its
// reproduce and opt-out sections.
func TestPRBodyWithinGitHubsLimit(t *testing.T) {
	r := &repo{o: &Options{PR: &PROptions{Reproduce: "loratune-fix fix --write ."}}, res: &Result{}, applied: map[string]int{"LTF001": 3000}}
	long := strings.Repeat("a message that is long enough to fill the body ", 4)
	for i := 0; i < 3000; i++ {
		rel := fmt.Sprintf("jobs/job%04d/train.py", i)
		r.res.Files = append(r.res.Files, rel)
		r.files = append(r.files, fileFindings{rel: rel, changed: true, findings: []finding.Finding{
			{Code: "LTF001", Name: "fp32-master-weights", Message: long, Outcome: finding.OutcomeFixed},
			{Code: "LTF002", Name: "eager-attention", Message: long, Outcome: finding.OutcomeNotFixed, Reason: "a reason"},
		}})
	}
	body := r.body()
	if len(body) > maxPRBodyChars || len(body) < maxPRBodyChars-2000 {
		t.Errorf("body of %d characters, want just under %d", len(body), maxPRBodyChars)
	}
	for _, want := range []string{"do not fit here", "## Reproduce locally", "## Opting out", "`jobs/job0000/train.py` line", "(not fixed: a reason)"} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q", want)
		}
	}
	if strings.Contains(body, "job2999") {
		t.Errorf("the last file is listed although the body was cut")
	}
	if len(r.title()) > maxTitleChars {
		t.Errorf("title of %d characters", len(r.title()))
	}
}

func TestDryRunIsNotDone(t *testing.T) {
	if (&Result{Status: Changed, PR: &PR{State: PRDryRun}}).Done() || !(&Result{Status: Changed, PR: &PR{State: PROpened}}).Done() {
		t.Error("a dry run's line counts as done, or an opened one does not")
	}
}

// Ctrl-C before the push stops the repository with nothing pushed; once
// the branch is pushed, its pull request is still made and reported.
func TestOpenPRInterrupted(t *testing.T) {
	for _, c := range []struct {
		at     string // the request during which the run is cancelled
		pushed bool
	}{{"GET", false}, {"POST", true}} {
		f := newFleet(t)
		a := f.repo("trainer", training)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		f.gh.fail = func(w http.ResponseWriter, r *http.Request) bool {
			if r.Method == c.at {
				cancel()
			}
			return false
		}
		var res *Result
		RunAll(ctx, f.o, []string{a}, 1, func(r *Result) { res = r })
		onRemote := git(t, f.env, f.bare("trainer"), "branch", "--list", DefaultBranch) != ""
		if c.pushed {
			if !res.Pushed || !onRemote || prState(res) != PROpened || res.Status == Failed {
				t.Errorf("cancelled after the push: %+v %+v", res, res.PR)
			}
		} else if res.Pushed || onRemote || res.Status != Failed || !strings.Contains(res.Error, "interrupted") || len(f.prs("trainer")) != 0 {
			t.Errorf("cancelled before the push: %+v (on the remote: %v)", res, onRemote)
		}
	}
}

// GitHub refusing to update an existing pull request (422) is one line,
// and the pull request is still reported.
func TestOpenPR422OnUpdate(t *testing.T) {
	f := newFleet(t)
	a := f.repo("trainer", training)
	f.run(a)
	f.commitTo("trainer", "main", "another script", map[string]string{"sft.py": string(fixtures.Demo())})
	f.gh.fail = func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodPatch {
			return false
		}
		w.WriteHeader(http.StatusUnprocessableEntity)
		fmt.Fprint(w, `{"message":"Validation Failed","errors":[{"resource":"PullRequest","code":"custom","message":"body is too long"}]}`)
		return true
	}
	r := f.run(a)[a]
	want := "GitHub refused to update pull request #1 (its new title or body) (422 Unprocessable Entity: Validation Failed; body is too long)"
	if r.Status != Failed || r.Error != want || r.PR == nil || r.PR.Number != 1 || !r.Pushed {
		t.Errorf("422 on update: %+v %+v\nwant error %q", r, r.PR, want)
	}
}

// merge merges pull request number of octo/NAME the default way: a merge
// commit on main, the branch kept.
func (f *fleet) merge(name string, number int) {
	f.t.Helper()
	dir := f.t.TempDir()
	git(f.t, f.env, "", "clone", "-q", f.bare(name), dir)
	git(f.t, f.env, dir, "-c", "user.name=Maintainer", "merge", "-q", "--no-ff", "-m", fmt.Sprintf("Merge pull request #%d", number), "origin/"+DefaultBranch)
	git(f.t, f.env, dir, "push", "-q", "origin", "main")
	f.gh.mu.Lock()
	defer f.gh.mu.Unlock()
	for _, p := range f.gh.prs["octo/"+name] {
		if p.Number == number {
			at := "2026-12-01T10:00:00Z"
			p.State, p.MergedAt = "closed", &at
		}
	}
}

// After a merge with a merge commit and the branch kept, the next run finds
// the repository clean (a shallow fetch of the merged branch selects no
// commit, which git reports as an error), and a later finding opens a new
// pull request over the kept branch.
func TestOpenPRAfterAMergeWithTheBranchKept(t *testing.T) {
	f := newFleet(t)
	a := f.repo("trainer", training)
	f.run(a)
	f.merge("trainer", 1)
	kept := git(t, f.env, f.bare("trainer"), "rev-parse", DefaultBranch)
	for run := 1; run <= 2; run++ {
		r := f.run(a)[a]
		if r.Status != Clean || r.Error != "" || r.PR != nil || r.Pushed {
			t.Fatalf("run %d after the merge: %+v %+v", run, r, r.PR)
		}
	}
	if got := git(t, f.env, f.bare("trainer"), "rev-parse", DefaultBranch); got != kept {
		t.Errorf("the kept branch moved to %s", got)
	}
	f.commitTo("trainer", "main", "another script", map[string]string{"sft.py": string(fixtures.Demo())})
	r := f.run(a)[a]
	if r.Status != Changed || !r.Pushed || prState(r) != PROpened || r.PR.Number != 2 || r.Error != "" {
		t.Fatalf("a new finding after the merge: %+v %+v", r, r.PR)
	}
	if prs := f.prs("trainer"); len(prs) != 2 || prs[1].State != "open" || !strings.Contains(prs[1].Body, "`sft.py` line ") || strings.Contains(prs[1].Body, "`train.py` line ") {
		t.Errorf("the new pull request: %+v", prs[len(prs)-1])
	}
}

// A left-alone repository's line names its pull request and the branch's
// commit on origin, and does not say changed: nothing was pushed.
func TestOpenPRLeftAloneLine(t *testing.T) {
	f := newFleet(t)
	a := f.repo("trainer", training)
	f.run(a)
	f.commitTo("trainer", DefaultBranch, "tune the learning rate", map[string]string{"lr.txt": "2e-4\n"})
	f.commitTo("trainer", "main", "another script", map[string]string{"sft.py": string(fixtures.Demo())})
	tip := git(t, f.env, f.bare("trainer"), "rev-parse", DefaultBranch)
	r := f.run(a)[a]
	line, _ := json.Marshal(r)
	want := `"pr":{"number":1,"url":"https://github.example/octo/trainer/pull/1","state":"left-alone","reason":`
	if r.Status != LeftAlone || r.Commit != tip || r.Pushed || !strings.Contains(string(line), want) {
		t.Errorf("left-alone line %s\nwant status left-alone, commit %s, and %s", line, tip, want)
	}
	if !r.Done() {
		t.Errorf("a left-alone repository is not done for --resume")
	}
}

// A team given as org/team is asked as a team; one of another
// organization is not asked (the same slug here would be another team).
func TestOpenPRTeamReviewers(t *testing.T) {
	f := newFleet(t)
	f.o.PR.Reviewers = []string{"alice", "octo/ml-platform", "acme/ml-platform"}
	a := f.repo("trainer", training)
	r := f.run(a)[a]
	pr := f.prs("trainer")[0]
	if strings.Join(pr.Teams, ",") != "ml-platform" || strings.Join(pr.Reviewers, ",") != "alice" {
		t.Errorf("reviewers %v, teams %v", pr.Reviewers, pr.Teams)
	}
	if r.Status != Failed || !strings.Contains(r.Error, "reviewer team acme/ml-platform is not of octo's organization") || prState(r) != PROpened {
		t.Errorf("%+v %+v", r, r.PR)
	}
}

// decide covers every situation a run can find; each row is one
// transition.
func TestDecide(t *testing.T) {
	type row struct {
		s    situation
		want plan
	}
	open := plan{State: PROpened, Open: true, Push: true}
	rows := []row{
		// Nothing to fix.
		{situation{}, plan{}}, // clean, never opened
		{situation{Branch: branchOurs, PR: prOpen}, plan{State: PRClosed, Close: true, DeleteBranch: true}},
		{situation{Branch: branchOurs, PR: prOpen, Current: true}, plan{State: PRClosed, Close: true, DeleteBranch: true}},
		{situation{PR: prOpen}, plan{State: PRClosed, Close: true}}, // its branch already gone
		{situation{Branch: branchMerged, PR: prMerged}, plan{}},     // merged, branch kept: clean
		{situation{PR: prMerged}, plan{}},                           // merged, branch deleted
		{situation{Branch: branchOurs, PR: prClosed}, plan{}},       // a person's "no", nothing left anyway
		{situation{Branch: branchOurs}, plan{}},                     // a branch without pull request
		{situation{Branch: branchForeign, PR: prOpen}, plan{State: PRLeftAlone, LeftAlone: leftForeign}},
		// Something to fix.
		{situation{ToFix: true}, open},
		{situation{ToFix: true, Branch: branchOurs}, open},                              // an orphan branch of ours is replaced
		{situation{ToFix: true, Branch: branchSame}, plan{State: PROpened, Open: true}}, // pushed before, not opened
		{situation{ToFix: true, PR: prMerged}, open},                                    // merged, branch deleted
		{situation{ToFix: true, Branch: branchMerged, PR: prMerged}, open},              // merged, branch kept
		{situation{ToFix: true, PR: prClosed}, open},                                    // closed by our run, branch deleted
		{situation{ToFix: true, Branch: branchOurs, PR: prClosed}, plan{State: PRLeftAlone, LeftAlone: leftClosed}},
		{situation{ToFix: true, Branch: branchSame, PR: prClosed}, plan{State: PRLeftAlone, LeftAlone: leftClosed}},
		{situation{ToFix: true, Branch: branchMerged, PR: prClosed}, plan{State: PRLeftAlone, LeftAlone: leftClosed}},
		{situation{ToFix: true, Branch: branchForeign}, plan{State: PRLeftAlone, LeftAlone: leftForeign}},
		{situation{ToFix: true, Branch: branchForeign, PR: prOpen, Current: true}, plan{State: PRLeftAlone, LeftAlone: leftForeign}},
		{situation{ToFix: true, Branch: branchSame, PR: prOpen, Current: true}, plan{State: PRUnchanged}},
		{situation{ToFix: true, Branch: branchSame, PR: prOpen}, plan{State: PRUpdated, Edit: true}},
		{situation{ToFix: true, Branch: branchOurs, PR: prOpen, Current: true}, plan{State: PRUpdated, Push: true}}, // pushed, body unchanged
		{situation{ToFix: true, Branch: branchOurs, PR: prOpen}, plan{State: PRUpdated, Push: true, Edit: true}},
		{situation{ToFix: true, Branch: branchMerged, PR: prOpen}, plan{State: PRUpdated, Push: true, Edit: true}},
		{situation{ToFix: true, PR: prOpen, Current: true}, plan{State: PRUpdated, Push: true}}, // its branch gone: pushed again
	}
	for _, r := range rows {
		if got := decide(r.s); got != r.want {
			t.Errorf("decide(%+v) = %+v, want %+v", r.s, got, r.want)
		}
	}
	// Every combination is decided, and no plan both opens and closes,
	// pushes without something to fix, or leaves alone yet acts.
	for _, toFix := range []bool{false, true} {
		for b := branchNone; b <= branchForeign; b++ {
			for p := prNone; p <= prMerged; p++ {
				for _, cur := range []bool{false, true} {
					s := situation{toFix, b, p, cur}
					pl := decide(s)
					acts := pl.Push || pl.Open || pl.Edit || pl.Close || pl.DeleteBranch
					if pl.Open && pl.Close || pl.Push && !toFix || pl.LeftAlone != "" && acts || pl.State == "" && acts ||
						b == branchForeign && pl.State != PRLeftAlone || pl.Open && p == prOpen {
						t.Errorf("decide(%+v) = %+v", s, pl)
					}
				}
			}
		}
	}
}
