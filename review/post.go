package review

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v75/github"
)

// MaxCommentsPerReview keeps each review small enough for GitHub to take
// in one call and for people to read.
const MaxCommentsPerReview = 30

// maxBodyChars stays under GitHub's 65,536-character limit on a body.
const maxBodyChars = 60000

// NewClient returns a GitHub client for token against apiURL (GitHub
// Enterprise sets GITHUB_API_URL; "" is the public API).
func NewClient(token, apiURL string, hc *http.Client) (*github.Client, error) {
	c := github.NewClient(hc)
	if token != "" {
		c = c.WithAuthToken(token)
	}
	c.UserAgent = "loratune-fix"
	if apiURL != "" {
		u, err := url.Parse(strings.TrimSuffix(apiURL, "/") + "/")
		if err != nil || u.Scheme == "" || u.Host == "" {
			return nil, fmt.Errorf("GITHUB_API_URL %q is not a URL", apiURL)
		}
		c.BaseURL = u
	}
	return c, nil
}

// Poster posts a review on one pull request.
type Poster struct {
	Client      *github.Client
	Owner, Repo string
	PR          int
	// Sleep waits between attempts (nil: a timer); tests make it instant.
	Sleep func(ctx context.Context, d time.Duration) error
	// MaxAttempts per call (0: 5).
	MaxAttempts int
	// Log gets a line per retry (nil: nothing).
	Log io.Writer
}

// Posted says what a Post did.
type Posted struct {
	Reviews, Comments, BodyItems int
	// SkippedComments and SkippedItems were posted by an earlier run.
	SkippedComments, SkippedItems int
}

// Post creates the review's comments and body items that no earlier run
// posted, in reviews of at most MaxCommentsPerReview comments. With
// nothing new it posts nothing.
func (p *Poster) Post(ctx context.Context, r *Review) (*Posted, error) {
	seen, err := p.posted(ctx)
	if err != nil {
		return nil, err
	}
	res := &Posted{}
	var comments []PendingComment
	for _, c := range r.Comments() {
		if seen[c.Fingerprint] {
			res.SkippedComments++
			continue
		}
		comments = append(comments, c)
	}
	var items []BodyItem
	for _, it := range r.BodyItems() {
		if seen[it.Fingerprint] {
			res.SkippedItems++
			continue
		}
		items = append(items, it)
	}
	if len(comments) == 0 && len(items) == 0 {
		return res, nil
	}
	batches := (len(comments) + MaxCommentsPerReview - 1) / MaxCommentsPerReview
	for b := 0; b < max(1, batches); b++ {
		batch := comments[min(b*MaxCommentsPerReview, len(comments)):min((b+1)*MaxCommentsPerReview, len(comments))]
		var body string
		if b == 0 {
			body, res.BodyItems = fitBody(r, len(comments), items)
		} else {
			body = fmt.Sprintf("%s\n**loratune-fix**, continued (%d of %d).\n", reviewMark, b+1, batches)
		}
		n, err := p.create(ctx, r.CommitID, body, batch)
		if err != nil {
			return res, err
		}
		res.Reviews++
		res.Comments += n
	}
	return res, nil
}

// fitBody builds the body from as many items as fit GitHub's limit.
func fitBody(r *Review, comments int, items []BodyItem) (string, int) {
	for n := len(items); ; n-- {
		body := Body(r, comments, items[:n])
		if n < len(items) {
			body += fmt.Sprintf("\n… and %d more that do not fit here: run `loratune-fix fix` on the changed files.\n", len(items)-n)
		}
		if len(body) <= maxBodyChars || n == 0 {
			return body, n
		}
	}
}

// create posts one review, retrying on server errors and rate limits. Before
// each retry it looks again at what is posted: a review that GitHub created
// although the response was an error is not posted twice.
func (p *Poster) create(ctx context.Context, commit, body string, batch []PendingComment) (int, error) {
	attempts := p.MaxAttempts
	if attempts <= 0 {
		attempts = 5
	}
	for attempt := 1; ; attempt++ {
		req := &github.PullRequestReviewRequest{Event: github.Ptr("COMMENT"), Body: github.Ptr(body)}
		if commit != "" {
			req.CommitID = github.Ptr(commit)
		}
		for _, c := range batch {
			dc := &github.DraftReviewComment{
				Path: github.Ptr(c.Path), Body: github.Ptr(c.Body),
				Line: github.Ptr(c.Line), Side: github.Ptr(c.Side),
			}
			if c.StartLine > 0 {
				dc.StartLine, dc.StartSide = github.Ptr(c.StartLine), github.Ptr(c.StartSide)
			}
			req.Comments = append(req.Comments, dc)
		}
		_, _, err := p.Client.PullRequests.CreateReview(bypass(ctx), p.Owner, p.Repo, p.PR, req)
		if err == nil {
			return len(batch), nil
		}
		wait, retry := p.retryable(err, attempt)
		if !retry || attempt >= attempts {
			return 0, p.explain(err)
		}
		if p.Log != nil {
			fmt.Fprintf(p.Log, "loratune-fix: warning: %v; retrying in %s (attempt %d of %d)\n", shortError(err), wait, attempt+1, attempts)
		}
		if err := p.sleep(ctx, wait); err != nil {
			return 0, err
		}
		seen, err := p.posted(ctx)
		if err != nil {
			return 0, err
		}
		kept := batch[:0:0]
		for _, c := range batch {
			if !seen[c.Fingerprint] {
				kept = append(kept, c)
			}
		}
		if len(kept) < len(batch) || len(batch) == 0 && seen[bodyKey(body)] {
			return len(batch), nil // created after all, despite the error
		}
		batch = kept
	}
}

// bodyKey is the fingerprint of a body's first item, which tells whether a
// body-only review was created.
func bodyKey(body string) string {
	if fps := Fingerprints(body); len(fps) > 0 {
		return fps[0]
	}
	return "\x00none"
}

// bypass turns off go-github's own refusal to call before a rate limit's
// reset: Poster waits itself, with its own (injectable) clock.
func bypass(ctx context.Context) context.Context {
	return context.WithValue(ctx, github.BypassRateLimitCheck, true)
}

func (p *Poster) sleep(ctx context.Context, d time.Duration) error {
	if p.Sleep != nil {
		return p.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// retryable says whether err is worth another attempt and after how long:
// server errors with exponential backoff, secondary rate limits after their
// Retry-After, the primary limit until its reset when that is near.
func (p *Poster) retryable(err error, attempt int) (time.Duration, bool) {
	backoff := time.Duration(1<<min(attempt-1, 6)) * time.Second
	var abuse *github.AbuseRateLimitError
	if errors.As(err, &abuse) {
		if abuse.RetryAfter != nil {
			return *abuse.RetryAfter, true
		}
		return max(backoff, time.Minute), true
	}
	var rate *github.RateLimitError
	if errors.As(err, &rate) {
		wait := time.Until(rate.Rate.Reset.Time)
		return max(wait, time.Second), wait < 15*time.Minute
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode >= 500 {
		if ra := er.Response.Header.Get("Retry-After"); ra != "" {
			if d, perr := time.ParseDuration(ra + "s"); perr == nil {
				return d, true
			}
		}
		return backoff, true
	}
	return 0, false
}

func shortError(err error) string {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return fmt.Sprintf("%s %s: %d %s", er.Response.Request.Method, er.Response.Request.URL.Path, er.Response.StatusCode, er.Message)
	}
	return err.Error()
}

// explain turns GitHub's refusals into errors that name the cause.
func (p *Poster) explain(err error) error {
	var abuse *github.AbuseRateLimitError
	var rate *github.RateLimitError
	switch {
	case errors.As(err, &abuse):
		return fmt.Errorf("GitHub's secondary rate limit held after retries; run again later: %w", err)
	case errors.As(err, &rate):
		return fmt.Errorf("GitHub's rate limit is used up until %s: %w", rate.Rate.Reset.Time.Format(time.RFC3339), err)
	}
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil {
		return fmt.Errorf("posting the review to %s/%s#%d: %w", p.Owner, p.Repo, p.PR, err)
	}
	detail := er.Message
	for _, e := range er.Errors {
		if e.Message != "" {
			detail += "; " + e.Message
		} else if e.Code != "" {
			detail += fmt.Sprintf("; %s %s", e.Field, e.Code)
		}
	}
	var cause string
	switch er.Response.StatusCode {
	case http.StatusUnauthorized:
		cause = "the token was refused: GITHUB_TOKEN is missing, expired or wrong"
	case http.StatusForbidden:
		cause = "the token may not write reviews: give the workflow `permissions: pull-requests: write` (pull requests from forks get a read-only token)"
	case http.StatusNotFound:
		cause = fmt.Sprintf("no pull request %d in %s/%s that this token can see (check GITHUB_REPOSITORY, --pr and GITHUB_API_URL)", p.PR, p.Owner, p.Repo)
	case http.StatusUnprocessableEntity:
		cause = "GitHub rejected the review: a comment on a line outside the pull request's diff, or a commit_id that is not the pull request's head (check out the head commit, not the merge commit)"
	default:
		cause = "GitHub answered with an error"
	}
	return fmt.Errorf("%s (%d %s: %s)", cause, er.Response.StatusCode, http.StatusText(er.Response.StatusCode), detail)
}

// posted collects the fingerprints of the review comments and review bodies
// an earlier run left on the pull request.
func (p *Poster) posted(ctx context.Context) (map[string]bool, error) {
	seen := map[string]bool{}
	opts := &github.PullRequestListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		var cs []*github.PullRequestComment
		var resp *github.Response
		err := p.retry(ctx, func() error {
			var err error
			cs, resp, err = p.Client.PullRequests.ListComments(bypass(ctx), p.Owner, p.Repo, p.PR, opts)
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			for _, fp := range Fingerprints(c.GetBody()) {
				seen[fp] = true
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	lo := &github.ListOptions{PerPage: 100}
	for {
		var rs []*github.PullRequestReview
		var resp *github.Response
		err := p.retry(ctx, func() error {
			var err error
			rs, resp, err = p.Client.PullRequests.ListReviews(bypass(ctx), p.Owner, p.Repo, p.PR, lo)
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			if strings.Contains(r.GetBody(), reviewMark) {
				for _, fp := range Fingerprints(r.GetBody()) {
					seen[fp] = true
				}
			}
		}
		if resp.NextPage == 0 {
			break
		}
		lo.Page = resp.NextPage
	}
	return seen, nil
}

// retry runs a read-only call with the same retry policy as create.
func (p *Poster) retry(ctx context.Context, call func() error) error {
	attempts := p.MaxAttempts
	if attempts <= 0 {
		attempts = 5
	}
	for attempt := 1; ; attempt++ {
		err := call()
		if err == nil {
			return nil
		}
		wait, ok := p.retryable(err, attempt)
		if !ok || attempt >= attempts {
			return p.explain(err)
		}
		if p.Log != nil {
			fmt.Fprintf(p.Log, "loratune-fix: warning: %v; retrying in %s (attempt %d of %d)\n", shortError(err), wait, attempt+1, attempts)
		}
		if err := p.sleep(ctx, wait); err != nil {
			return err
		}
	}
}
