package review

import (
	"context"
	"errors"
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
	// Reviews created; Updated: the summary of an earlier run's review
	// was edited to this run's.
	Reviews int
	Updated bool
	// Comments created, and those an earlier run had posted.
	Comments, SkippedComments int
	// BodyItems in the summary as posted or updated.
	BodyItems int
}

// continuedMark is in the body of the second and later reviews of a run
// with more than MaxCommentsPerReview comments: they are not the summary.
const continuedMark = "<!-- loratune-fix:review-continued -->"

// Post brings the pull request's review up to date. The first run creates
// it: the summary body and the comments, in reviews of at most
// MaxCommentsPerReview comments (nothing when there are no findings). A
// later run, on a new push, edits that review's summary in place (found by
// its hidden mark) and adds the comments no earlier run posted as review
// comments of their own, so a pull request keeps one summary.
func (p *Poster) Post(ctx context.Context, r *Review) (*Posted, error) {
	prior, err := p.prior(ctx)
	if err != nil {
		return nil, p.explain(err)
	}
	res := &Posted{}
	var comments []PendingComment
	for _, c := range r.Comments() {
		if prior.seen[c.Fingerprint] {
			res.SkippedComments++
			continue
		}
		comments = append(comments, c)
	}
	items := r.BodyItems()
	body, n := fitBody(r, items)
	if prior.summary != nil {
		res.BodyItems = n
		if prior.summary.GetBody() != body {
			err := p.update(ctx, prior.summary.GetID(), body)
			if notOurs(err) {
				// Posted with another token (a person's, then the
				// workflow's): this one may not edit it, so it posts its own.
				if p.GitHub.Log != nil {
					fmt.Fprintf(p.GitHub.Log, "loratune-fix: warning: cannot edit the earlier review %d (%v): posting a new one\n", prior.summary.GetID(), err)
				}
				prior.summary = nil
			} else if err != nil {
				return res, p.explain(err)
			} else {
				res.Updated = true
			}
		}
	}
	if prior.summary != nil {
		for _, c := range comments {
			if err := p.comment(ctx, r.CommitID, c); err != nil {
				return res, err
			}
			res.Comments++
		}
		return res, nil
	}
	if len(comments) == 0 && len(items) == 0 {
		return res, nil
	}
	res.BodyItems = n
	batches := (len(comments) + MaxCommentsPerReview - 1) / MaxCommentsPerReview
	for b := 0; b < max(1, batches); b++ {
		batch := comments[min(b*MaxCommentsPerReview, len(comments)):min((b+1)*MaxCommentsPerReview, len(comments))]
		text := body
		if b > 0 {
			text = fmt.Sprintf("%s\n**loratune-fix**, continued (%d of %d).\n", continuedMark, b+1, batches)
		}
		n, err := p.create(ctx, r.CommitID, text, batch)
		if err != nil {
			return res, err
		}
		res.Reviews++
		res.Comments += n
	}
	return res, nil
}

// fitBody builds the body from as many items as fit GitHub's limit.
func fitBody(r *Review, items []BodyItem) (string, int) {
	for n := len(items); ; n-- {
		body := Body(r, items[:n])
		if len(body) <= maxBodyChars || n == 0 {
			return body, n
		}
	}
}

// update replaces the body of the review id; its error is GitHub's, not
// yet explained.
func (p *Poster) update(ctx context.Context, id int64, body string) error {
	return p.GitHub.Retry(ctx, func(ctx context.Context) error {
		_, _, err := p.GitHub.PullRequests.UpdateReview(ctx, p.GitHub.Owner, p.GitHub.Repo, p.PR, id, body)
		return err
	}, nil)
}

// notOurs reports whether GitHub refused to edit a review as another
// user's (403, or 404 for a review this token cannot see as its own).
func notOurs(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil &&
		(er.Response.StatusCode == http.StatusForbidden || er.Response.StatusCode == http.StatusNotFound)
}

// comment posts one review comment, retrying on server errors and rate
// limits; one that GitHub created despite an error is not posted twice.
func (p *Poster) comment(ctx context.Context, commit string, c PendingComment) error {
	err := p.GitHub.Retry(ctx, func(ctx context.Context) error {
		pc := &github.PullRequestComment{
			Path: github.Ptr(c.Path), Body: github.Ptr(c.Body), CommitID: github.Ptr(commit),
			Line: github.Ptr(c.Line), Side: github.Ptr(c.Side),
		}
		if c.StartLine > 0 {
			pc.StartLine, pc.StartSide = github.Ptr(c.StartLine), github.Ptr(c.StartSide)
		}
		_, _, err := p.GitHub.PullRequests.CreateComment(ctx, p.GitHub.Owner, p.GitHub.Repo, p.PR, pc)
		return err
	}, func(ctx context.Context) (bool, error) {
		prior, err := p.prior(ctx)
		if err != nil {
			return false, err
		}
		return prior.seen[c.Fingerprint], nil
	})
	if err != nil {
		return p.explain(err)
	}
	return nil
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
		prior, err := p.prior(ctx)
		if err != nil {
			return false, err
		}
		kept := batch[:0:0]
		for _, c := range batch {
			if !prior.seen[c.Fingerprint] {
				kept = append(kept, c)
			}
		}
		if len(kept) < len(batch) || len(batch) == 0 && prior.bodies[body] {
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

// explain names the cause of GitHub's refusal to post.
func (p *Poster) explain(err error) error {
	c := p.GitHub
	return githubapi.Explain(err, fmt.Sprintf("posting the review to %s/%s#%d", c.Owner, c.Repo, p.PR), map[int]string{
		http.StatusForbidden:           "the token may not write reviews: give the workflow `permissions: pull-requests: write` (pull requests from forks get a read-only token)",
		http.StatusNotFound:            fmt.Sprintf("no pull request %d in %s/%s that this token can see (check GITHUB_REPOSITORY, --pr and GITHUB_API_URL)", p.PR, c.Owner, c.Repo),
		http.StatusUnprocessableEntity: "GitHub rejected the review: a comment on a line outside the pull request's diff, or a commit_id that is not the pull request's head (check out the head commit, not the merge commit)",
	})
}

// priorRun is what earlier runs left on the pull request.
type priorRun struct {
	seen    map[string]bool           // fingerprints of the review comments
	summary *github.PullRequestReview // the newest review with our summary, or nil
	bodies  map[string]bool           // the bodies of all reviews
}

// prior collects the fingerprints of the review comments an earlier run
// left on the pull request, and finds its summary review. Its errors are
// GitHub's, not yet explained.
func (p *Poster) prior(ctx context.Context) (*priorRun, error) {
	out := &priorRun{seen: map[string]bool{}, bodies: map[string]bool{}}
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
				out.seen[fp] = true
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
			// GitHub lists reviews oldest first: the newest summary is the
			// one to edit (an older one may be another token's).
			b := r.GetBody()
			out.bodies[b] = true
			if strings.Contains(b, reviewMark) && !strings.Contains(b, continuedMark) && !strings.Contains(b, "**loratune-fix**, continued") {
				out.summary = r
			}
		}
		if resp.NextPage == 0 {
			break
		}
		lo.Page = resp.NextPage
	}
	return out, nil
}
