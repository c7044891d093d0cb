package review

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v75/github"

	"github.com/loratune/loratune-fix/githubapi"
)

// MaxCommentsPerReview keeps each review small enough for GitHub to take
// in one call and for people to read.
const MaxCommentsPerReview = 30

// maxBodyChars stays under GitHub's 65,536-character limit on a body.
const maxBodyChars = 60000

// Poster posts a review on one pull request.
type Poster struct {
	GitHub *githubapi.Client
	PR     int
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
		return nil, p.explain(err)
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
	err := p.GitHub.Retry(ctx, func(ctx context.Context) error {
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
		_, _, err := p.GitHub.PullRequests.CreateReview(ctx, p.GitHub.Owner, p.GitHub.Repo, p.PR, req)
		return err
	}, func(ctx context.Context) (bool, error) {
		seen, err := p.posted(ctx)
		if err != nil {
			return false, err
		}
		kept := batch[:0:0]
		for _, c := range batch {
			if !seen[c.Fingerprint] {
				kept = append(kept, c)
			}
		}
		if len(kept) < len(batch) || len(batch) == 0 && seen[bodyKey(body)] {
			return true, nil // created after all, despite the error
		}
		batch = kept
		return false, nil
	})
	if err != nil {
		return 0, p.explain(err)
	}
	return len(batch), nil
}

// bodyKey is the fingerprint of a body's first item, which tells whether a
// body-only review was created.
func bodyKey(body string) string {
	if fps := Fingerprints(body); len(fps) > 0 {
		return fps[0]
	}
	return "\x00none"
}

// explain names the cause of GitHub's refusal to post.
func (p *Poster) explain(err error) error {
	c := p.GitHub
	return githubapi.Explain(err, fmt.Sprintf("posting the review to %s/%s#%d", c.Owner, c.Repo, p.PR), map[int]string{
		http.StatusForbidden:           "the token may not write reviews: give the workflow `permissions: pull-requests: write` (pull requests from forks get a read-only token)",
		http.StatusNotFound:            fmt.Sprintf("no pull request %d in %s/%s that this token can see (check GITHUB_REPOSITORY, --pr and GITHUB_API_URL)", p.PR, c.Owner, c.Repo),
		http.StatusUnprocessableEntity: "GitHub rejected the review: a comment on a line outside the pull request's diff, or a commit_id that is not the pull request's head (check out the head commit, not the merge commit)",
	})
}

// posted collects the fingerprints of the review comments and review bodies
// an earlier run left on the pull request. Its errors are GitHub's, not
// yet explained.
func (p *Poster) posted(ctx context.Context) (map[string]bool, error) {
	seen := map[string]bool{}
	opts := &github.PullRequestListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		var cs []*github.PullRequestComment
		var resp *github.Response
		err := p.GitHub.Retry(ctx, func(ctx context.Context) error {
			var err error
			cs, resp, err = p.GitHub.PullRequests.ListComments(ctx, p.GitHub.Owner, p.GitHub.Repo, p.PR, opts)
			return err
		}, nil)
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
		err := p.GitHub.Retry(ctx, func(ctx context.Context) error {
			var err error
			rs, resp, err = p.GitHub.PullRequests.ListReviews(ctx, p.GitHub.Owner, p.GitHub.Repo, p.PR, lo)
			return err
		}, nil)
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
