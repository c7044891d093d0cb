package review

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
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
// /api/v3 prefix of GitHub Enterprise, behind githubtest's check of every
// request against GitHub's OpenAPI description. It keeps the posted
// reviews and comments, so a second run sees the first one's.
type fakeGitHub struct {
	t  *testing.T
	mu sync.Mutex
	// failures are answered, in order, to the next POSTs of a review.
	failures []func(w http.ResponseWriter)
	// keepFailed stores a review even when a failure answers its POST.
	keepFailed bool
	comments   []string // bodies of review comments on the pull request
	reviews    []string // bodies of reviews, by id - 1
	posts      []postedReview
	single     []postedComment // comments posted on their own
	requests   []string        // "METHOD path"
	// foreign reviews (by id) were posted with another token: not editable.
	foreign map[int]bool
}

type postedComment struct {
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Side      string `json:"side"`
	StartLine int    `json:"start_line"`
	StartSide string `json:"start_side"`
	Body      string `json:"body"`
	CommitID  string `json:"commit_id"`
}

type postedReview struct {
	CommitID string          `json:"commit_id"`
	Event    string          `json:"event"`
	Body     string          `json:"body"`
	Comments []postedComment `json:"comments"`
}

const pageSize = 2 // small pages, so that listing must follow the Link header

var reviewPath = regexp.MustCompile(`^/api/v3/repos/octo/train/pulls/7/reviews/(\d+)$`)

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
	decode := func(v any) {
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			t.Errorf("%s %s: body: %v", r.Method, r.URL.Path, err)
		}
	}
	const prefix = "/api/v3/repos/octo/train/pulls/7/"
	switch m := reviewPath.FindStringSubmatch(r.URL.Path); {
	case r.Method == http.MethodGet && r.URL.Path == prefix+"comments":
		g.page(w, r, g.comments)
	case r.Method == http.MethodGet && r.URL.Path == prefix+"reviews":
		g.page(w, r, g.reviews)
	case r.Method == http.MethodPost && r.URL.Path == prefix+"reviews":
		var pr postedReview
		decode(&pr)
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
		fmt.Fprintf(w, `{"id": %d, "state": "COMMENTED", "body": %q}`, len(g.reviews), pr.Body)
	case r.Method == http.MethodPut && m != nil:
		id, _ := strconv.Atoi(m[1])
		var upd struct {
			Body string `json:"body"`
		}
		decode(&upd)
		if id < 1 || id > len(g.reviews) {
			http.NotFound(w, r)
			return
		}
		if g.foreign[id] {
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"message": "Resource not accessible by integration"}`)
			return
		}
		if !strings.Contains(upd.Body, reviewMark) {
			t.Errorf("updated review %d lacks the mark:\n%s", id, upd.Body)
		}
		g.reviews[id-1] = upd.Body
		fmt.Fprintf(w, `{"id": %d, "state": "COMMENTED", "body": %q}`, id, upd.Body)
	case r.Method == http.MethodPost && r.URL.Path == prefix+"comments":
		var c postedComment
		decode(&c)
		g.checkComment(c)
		if c.CommitID == "" {
			t.Errorf("comment without its commit: %+v", c)
		}
		g.single = append(g.single, c)
		g.comments = append(g.comments, c.Body)
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"id": %d, "body": %q}`, len(g.comments), c.Body)
	default:
		t.Errorf("unexpected request %s %s", r.Method, r.URL)
		http.NotFound(w, r)
	}
}

func (g *fakeGitHub) checkReview(pr postedReview) {
	t := g.t
	if pr.Event != "COMMENT" || pr.CommitID != "abc123" || !strings.Contains(pr.Body, reviewMark) && !strings.Contains(pr.Body, continuedMark) {
		t.Errorf("review: event %q commit %q body %q", pr.Event, pr.CommitID, pr.Body)
	}
	if len(pr.Comments) > MaxCommentsPerReview {
		t.Errorf("review with %d comments, more than %d", len(pr.Comments), MaxCommentsPerReview)
	}
	for _, c := range pr.Comments {
		g.checkComment(c)
	}
}

func (g *fakeGitHub) checkComment(c postedComment) {
	t := g.t
	if c.Path == "" || c.Line <= 0 || c.Side != "RIGHT" || len(Fingerprints(c.Body)) != 1 {
		t.Errorf("bad comment %+v", c)
	}
	if c.StartLine != 0 && (c.StartLine >= c.Line || c.StartSide != "RIGHT") {
		t.Errorf("bad range %d-%d side %q", c.StartLine, c.Line, c.StartSide)
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

// sampleReview has two suggestions (one fix in two places) and, already in
// the file, one fix in the body.
func sampleReview() *Review {
	f := file("train.py", twoPlaceFix(), diag("LTF003", 3, finding.Edit{Start: at("2\n"), End: at("2\n") + 1, NewText: "None"}))
	fd := &FileDiff{Added: []Range{{1, 2}, {5, 5}}}
	return &Review{CommitID: "abc123", Files: []*FileReview{Build(f, fd, false)}}
}

const putReview = "PUT /api/v3/repos/octo/train/pulls/7/reviews/2"

func TestPostCreatesTheReviewAndARerunUpdatesIt(t *testing.T) {
	g := &fakeGitHub{t: t, comments: []string{"a person's comment", "another"}, reviews: []string{"LGTM"}}
	p, _ := newPoster(t, g)
	res, err := p.Post(context.Background(), sampleReview())
	if err != nil {
		t.Fatal(err)
	}
	if res.Reviews != 1 || res.Comments != 2 || res.BodyItems != 1 || len(g.posts) != 1 {
		t.Fatalf("first run: %+v, %d posts", res, len(g.posts))
	}
	first := g.posts[0].Body
	if !strings.Contains(first, "<details>") || !strings.Contains(first, "LTF003") || !strings.Contains(first, "at abc123") {
		t.Errorf("body lacks the outside fix or the commit:\n%s", first)
	}

	// The same push again: nothing to post, nothing to edit.
	res, err = p.Post(context.Background(), sampleReview())
	if err != nil {
		t.Fatal(err)
	}
	if res.Reviews != 0 || res.Updated || res.Comments != 0 || res.SkippedComments != 2 {
		t.Errorf("re-run: %+v, want nothing posted and 2 comments skipped", res)
	}

	// A new push with a new finding on a changed line: the summary is
	// edited in place, the new comment added on its own; no second review.
	rv := sampleReview()
	rv.CommitID = "def456"
	f := file("train.py", twoPlaceFix(), diag("LTF003", 3, finding.Edit{Start: at("2\n"), End: at("2\n") + 1, NewText: "None"}),
		diag("LTF007", 1))
	rv.Files = []*FileReview{Build(f, &FileDiff{Added: []Range{{1, 2}, {5, 5}}}, false)}
	p.GitHub.Sleep = nil
	res, err = p.Post(context.Background(), rv)
	if err != nil {
		t.Fatal(err)
	}
	if res.Reviews != 0 || !res.Updated || res.Comments != 1 || res.SkippedComments != 2 {
		t.Errorf("new push: %+v, want the summary updated and 1 comment added", res)
	}
	if g.count(postReviews) != 1 || g.count(putReview) != 1 || len(g.single) != 1 || !strings.Contains(g.single[0].Body, "LTF007") {
		t.Errorf("%d reviews posted, %d updated, single comments %+v", g.count(postReviews), g.count(putReview), g.single)
	}
	if got := g.reviews[1]; !strings.Contains(got, "found 3 findings in the changed files (at def456): 2 in comments on the changed lines, and 1 already in the file") || !strings.Contains(got, "at def456") || got == first {
		t.Errorf("updated summary:\n%s", got)
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
	if err != nil || res.Reviews != 0 || res.Updated || res.SkippedComments != 65 || g.count("PUT /api/v3/repos/octo/train/pulls/7/reviews/1") != 0 {
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

// A summary review posted with another token cannot be edited: the run
// posts a review of its own instead of failing.
func TestPostWhenTheEarlierReviewIsAnotherTokens(t *testing.T) {
	g := &fakeGitHub{t: t, reviews: []string{"LGTM", reviewMark + "\nposted with a person's token"}, foreign: map[int]bool{2: true}}
	p, _ := newPoster(t, g)
	res, err := p.Post(context.Background(), sampleReview())
	if err != nil {
		t.Fatal(err)
	}
	if g.count(putReview) != 1 || res.Updated || res.Reviews != 1 || res.Comments != 2 || len(g.posts) != 1 {
		t.Errorf("%d PUTs, result %+v, %d reviews: want one refused edit, then a new review", g.count(putReview), res, len(g.posts))
	}
	// The next push edits the new review, its own.
	rv := sampleReview()
	rv.CommitID = "def456"
	res, err = p.Post(context.Background(), rv)
	if err != nil || !res.Updated || res.Reviews != 0 || g.count(putReview) != 1 || g.count("PUT /api/v3/repos/octo/train/pulls/7/reviews/3") != 1 {
		t.Errorf("next push: %+v, %v; want review 3 edited", res, err)
	}
}
