package review

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/githubapi"
	"github.com/loratune/loratune-fix/githubapi/githubtest"
)

// fakeGitHub is the part of GitHub's REST API that Poster uses, under the
// /api/v3 prefix of GitHub Enterprise. It checks every request and keeps
// the posted reviews, so a second run sees the first one's comments.
type fakeGitHub struct {
	t  *testing.T
	mu sync.Mutex
	// failures are answered, in order, to the next POSTs of a review.
	failures []func(w http.ResponseWriter)
	// keepFailed stores a review even when a failure answers its POST.
	keepFailed bool
	comments   []string // bodies of review comments on the pull request
	reviews    []string // bodies of reviews
	posts      []postedReview
	requests   []string // "METHOD path"
}

type postedReview struct {
	CommitID string `json:"commit_id"`
	Event    string `json:"event"`
	Body     string `json:"body"`
	Comments []struct {
		Path      string `json:"path"`
		Line      int    `json:"line"`
		Side      string `json:"side"`
		StartLine int    `json:"start_line"`
		StartSide string `json:"start_side"`
		Body      string `json:"body"`
	} `json:"comments"`
}

const pageSize = 2 // small pages, so that listing must follow the Link header

func (g *fakeGitHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.t
	g.requests = append(g.requests, r.Method+" "+r.URL.Path)
	if got := r.Header.Get("Authorization"); got != "Bearer test-token" {
		t.Errorf("%s %s: Authorization %q", r.Method, r.URL.Path, got)
	}
	if got := r.Header.Get("Accept"); !strings.Contains(got, "application/vnd.github") {
		t.Errorf("%s %s: Accept %q", r.Method, r.URL.Path, got)
	}
	if got := r.Header.Get("User-Agent"); got != "loratune-fix" {
		t.Errorf("%s %s: User-Agent %q", r.Method, r.URL.Path, got)
	}
	if got := r.Header.Get("X-GitHub-Api-Version"); got == "" {
		t.Errorf("%s %s: no X-GitHub-Api-Version", r.Method, r.URL.Path)
	}
	const prefix = "/api/v3/repos/octo/train/pulls/7/"
	switch {
	case r.Method == http.MethodGet && r.URL.Path == prefix+"comments":
		g.page(w, r, g.comments)
	case r.Method == http.MethodGet && r.URL.Path == prefix+"reviews":
		g.page(w, r, g.reviews)
	case r.Method == http.MethodPost && r.URL.Path == prefix+"reviews":
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("POST review: Content-Type %q", ct)
		}
		var pr postedReview
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&pr); err != nil {
			t.Errorf("POST review: body is not a review: %v", err)
		}
		g.checkReview(pr)
		failed := len(g.failures) > 0
		if !failed || g.keepFailed {
			g.posts = append(g.posts, pr)
			g.reviews = append(g.reviews, pr.Body)
			for _, c := range pr.Comments {
				g.comments = append(g.comments, c.Body)
			}
		}
		if failed {
			fail := g.failures[0]
			g.failures = g.failures[1:]
			fail(w)
			return
		}
		fmt.Fprintf(w, `{"id": %d, "state": "COMMENTED"}`, len(g.posts))
	default:
		t.Errorf("unexpected request %s %s", r.Method, r.URL)
		http.NotFound(w, r)
	}
}

func (g *fakeGitHub) checkReview(pr postedReview) {
	t := g.t
	if pr.Event != "COMMENT" || pr.CommitID != "abc123" || !strings.Contains(pr.Body, reviewMark) {
		t.Errorf("review: event %q commit %q body %q", pr.Event, pr.CommitID, pr.Body)
	}
	if len(pr.Comments) > MaxCommentsPerReview {
		t.Errorf("review with %d comments, more than %d", len(pr.Comments), MaxCommentsPerReview)
	}
	for _, c := range pr.Comments {
		if c.Path == "" || c.Line <= 0 || c.Side != "RIGHT" || len(Fingerprints(c.Body)) != 1 {
			t.Errorf("bad comment %+v", c)
		}
		if c.StartLine != 0 && (c.StartLine >= c.Line || c.StartSide != "RIGHT") {
			t.Errorf("bad range %d-%d side %q", c.StartLine, c.Line, c.StartSide)
		}
	}
}

// page answers a list request a page at a time, with GitHub's Link header.
func (g *fakeGitHub) page(w http.ResponseWriter, r *http.Request, bodies []string) {
	if r.URL.Query().Get("per_page") != "100" {
		g.t.Errorf("%s: per_page %q, want 100", r.URL.Path, r.URL.Query().Get("per_page"))
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	page = max(page, 1)
	lo, hi := min((page-1)*pageSize, len(bodies)), min(page*pageSize, len(bodies))
	if hi < len(bodies) {
		w.Header().Set("Link", fmt.Sprintf(`<http://%s%s?page=%d&per_page=100>; rel="next"`, r.Host, r.URL.Path, page+1))
	}
	var items []map[string]any
	for i, b := range bodies[lo:hi] {
		items = append(items, map[string]any{"id": lo + i + 1, "body": b})
	}
	if items == nil {
		items = []map[string]any{}
	}
	json.NewEncoder(w).Encode(items)
}

func (g *fakeGitHub) count(req string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, r := range g.requests {
		if r == req {
			n++
		}
	}
	return n
}

const postReviews = "POST /api/v3/repos/octo/train/pulls/7/reviews"

// newPoster serves g and returns a Poster whose sleeps are recorded, not
// waited.
func newPoster(t *testing.T, g *fakeGitHub) (*Poster, *[]time.Duration) {
	t.Helper()
	srv := httptest.NewServer(githubtest.Handler(t, "/api/v3", g))
	t.Cleanup(srv.Close)
	client, err := githubapi.New("test-token", srv.URL+"/api/v3", "octo", "train", srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	var slept []time.Duration
	client.Sleep = func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }
	p := &Poster{GitHub: client, PR: 7}
	return p, &slept
}

// sampleReview has two suggestions (one fix in two places) and one fix in
// the body.
func sampleReview() *Review {
	f := file("train.py", twoPlaceFix(), diag("LTF003", 4, finding.Edit{Start: at("3\n"), End: at("3\n") + 1, NewText: "None"}))
	fd := &FileDiff{Added: []Range{{1, 2}, {5, 5}}}
	return &Review{CommitID: "abc123", Files: []*FileReview{Build(f, fd, false)}}
}

func TestPostCreatesTheReviewAndARerunPostsNothingNew(t *testing.T) {
	g := &fakeGitHub{t: t, comments: []string{"a person's comment", "another"}, reviews: []string{"LGTM"}}
	p, _ := newPoster(t, g)
	rv := sampleReview()
	res, err := p.Post(context.Background(), rv)
	if err != nil {
		t.Fatal(err)
	}
	if res.Reviews != 1 || res.Comments != 2 || res.BodyItems != 1 || len(g.posts) != 1 {
		t.Fatalf("first run: %+v, %d posts", res, len(g.posts))
	}
	if !strings.Contains(g.posts[0].Body, "<details>") || !strings.Contains(g.posts[0].Body, "LTF003") {
		t.Errorf("body lacks the outside fix:\n%s", g.posts[0].Body)
	}

	res, err = p.Post(context.Background(), sampleReview())
	if err != nil {
		t.Fatal(err)
	}
	if res.Reviews != 0 || res.SkippedComments != 2 || res.SkippedItems != 1 {
		t.Errorf("re-run: %+v, want nothing posted, 2 comments and 1 item skipped", res)
	}
	if n := g.count(postReviews); n != 1 {
		t.Errorf("%d reviews posted over two runs, want 1", n)
	}
}

func TestPostRetriesA502AndDoesNotDuplicate(t *testing.T) {
	g := &fakeGitHub{t: t}
	g.failures = []func(http.ResponseWriter){func(w http.ResponseWriter) {
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, `{"message": "Server Error"}`)
	}}
	p, slept := newPoster(t, g)
	res, err := p.Post(context.Background(), sampleReview())
	if err != nil {
		t.Fatal(err)
	}
	if g.count(postReviews) != 2 || len(g.posts) != 1 || res.Comments != 2 {
		t.Errorf("%d POSTs, %d reviews kept, result %+v; want 2, 1, 2 comments", g.count(postReviews), len(g.posts), res)
	}
	if len(*slept) != 1 || (*slept)[0] != time.Second {
		t.Errorf("slept %v, want one 1s backoff", *slept)
	}
}

func TestPostHonoursRetryAfterOnASecondaryRateLimit(t *testing.T) {
	g := &fakeGitHub{t: t}
	g.failures = []func(http.ResponseWriter){func(w http.ResponseWriter) {
		w.Header().Set("Retry-After", "7")
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, `{"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
			"documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`)
	}}
	p, slept := newPoster(t, g)
	if _, err := p.Post(context.Background(), sampleReview()); err != nil {
		t.Fatal(err)
	}
	if len(*slept) != 1 || (*slept)[0] != 7*time.Second {
		t.Errorf("slept %v, want 7s from Retry-After", *slept)
	}
	if len(g.posts) != 1 {
		t.Errorf("%d reviews, want 1", len(g.posts))
	}
}

func TestPostExplainsAnUnprocessableReviewWithoutRetrying(t *testing.T) {
	g := &fakeGitHub{t: t}
	g.failures = []func(http.ResponseWriter){func(w http.ResponseWriter) {
		w.WriteHeader(http.StatusUnprocessableEntity)
		io.WriteString(w, `{"message": "Unprocessable Entity", "errors": ["Line could not be resolved"]}`)
	}}
	p, slept := newPoster(t, g)
	_, err := p.Post(context.Background(), sampleReview())
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"422", "outside the pull request's diff", "Line could not be resolved"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if g.count(postReviews) != 1 || len(*slept) != 0 {
		t.Errorf("%d POSTs, slept %v: a 422 is not retried", g.count(postReviews), *slept)
	}
}

func TestPostNamesTheCauseOfAuthErrors(t *testing.T) {
	for status, want := range map[int]string{
		http.StatusUnauthorized: "GITHUB_TOKEN is missing, expired or wrong",
		http.StatusForbidden:    "pull-requests: write",
		http.StatusNotFound:     "no pull request 7 in octo/train",
	} {
		g := &fakeGitHub{t: t}
		g.failures = []func(http.ResponseWriter){func(w http.ResponseWriter) {
			w.WriteHeader(status)
			io.WriteString(w, `{"message": "nope"}`)
		}}
		p, _ := newPoster(t, g)
		_, err := p.Post(context.Background(), sampleReview())
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), strconv.Itoa(status)) {
			t.Errorf("%d: error %v, want it to say %q", status, err, want)
		}
	}
}

func TestPostSplitsManyCommentsIntoReviewsOfThirty(t *testing.T) {
	rv := &Review{CommitID: "abc123"}
	f := &FileReview{Path: "many.py"}
	for i := 1; i <= 65; i++ {
		f.Groups = append(f.Groups, &Group{Path: "many.py", Inside: true,
			Findings: []finding.Diag{diag("LTF001", i)},
			Changes:  []Change{{From: i, To: i, Old: fmt.Sprintf("x%d = 1\n", i), New: fmt.Sprintf("x%d = 2\n", i)}}})
	}
	rv.Files = []*FileReview{f}
	g := &fakeGitHub{t: t}
	p, _ := newPoster(t, g)
	res, err := p.Post(context.Background(), rv)
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for _, pr := range g.posts {
		sizes = append(sizes, len(pr.Comments))
	}
	if fmt.Sprint(sizes) != "[30 30 5]" || res.Comments != 65 || res.Reviews != 3 {
		t.Errorf("review sizes %v, result %+v; want [30 30 5]", sizes, res)
	}
	// The lists are paged (2 per page): a re-run must read every page.
	res, err = p.Post(context.Background(), rv)
	if err != nil || res.Reviews != 0 || res.SkippedComments != 65 {
		t.Errorf("re-run: %+v, %v", res, err)
	}
}

func TestPostDoesNotRepostAReviewCreatedDespiteA502(t *testing.T) {
	g := &fakeGitHub{t: t}
	// GitHub creates the review, then the proxy in front answers 502.
	g.failures = []func(http.ResponseWriter){func(w http.ResponseWriter) {
		w.WriteHeader(http.StatusBadGateway)
	}}
	g.keepFailed = true
	p, _ := newPoster(t, g)
	res, err := p.Post(context.Background(), sampleReview())
	if err != nil {
		t.Fatal(err)
	}
	if g.count(postReviews) != 1 || len(g.posts) != 1 || res.Comments != 2 {
		t.Errorf("%d POSTs, %d reviews, %+v: want the one created review, no second POST", g.count(postReviews), len(g.posts), res)
	}
}
