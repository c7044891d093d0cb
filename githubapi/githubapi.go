// Package githubapi is loratune-fix's GitHub REST client: a go-github
// client for one repository with a retry policy (server errors, the
// secondary and primary rate limits) and errors that name their cause.
// `review --post` posts reviews with it; what is posted is review's
// business, not this package's.
package githubapi

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

// Client calls GitHub for one repository.
type Client struct {
	*github.Client
	Owner, Repo string
	// Sleep waits between attempts (nil: a timer); tests make it instant.
	Sleep func(ctx context.Context, d time.Duration) error
	// MaxAttempts per call (0: 5).
	MaxAttempts int
	// Log gets a line per retry (nil: nothing).
	Log io.Writer
}

// New returns a client for owner/repo with token against apiURL (GitHub
// Enterprise sets GITHUB_API_URL; "" is the public API); hc nil is
// http.DefaultClient.
func New(token, apiURL, owner, repo string, hc *http.Client) (*Client, error) {
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
	return &Client{Client: c, Owner: owner, Repo: repo}, nil
}

// Retry runs call until it succeeds, fails in a way not worth retrying,
// or has used its attempts; it returns call's last error as it is (see
// Explain). call gets a context on which go-github does not refuse to
// call before a rate limit's reset: Retry waits itself, with its own
// clock. Before each retry, settled (when not nil) says whether the call
// took effect after all (a POST that GitHub carried out although it
// answered with an error): then Retry returns nil.
func (c *Client) Retry(ctx context.Context, call func(context.Context) error, settled func(context.Context) (bool, error)) error {
	attempts := c.MaxAttempts
	if attempts <= 0 {
		attempts = 5
	}
	bypass := context.WithValue(ctx, github.BypassRateLimitCheck, true)
	for attempt := 1; ; attempt++ {
		err := call(bypass)
		if err == nil {
			return nil
		}
		wait, ok := retryable(err, attempt)
		if !ok || attempt >= attempts {
			return err
		}
		if c.Log != nil {
			fmt.Fprintf(c.Log, "loratune-fix: warning: %v; retrying in %s (attempt %d of %d)\n", shortError(err), wait, attempt+1, attempts)
		}
		if err := c.sleep(ctx, wait); err != nil {
			return err
		}
		if settled != nil {
			done, err := settled(ctx)
			if err != nil || done {
				return err
			}
		}
	}
}

func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
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
func retryable(err error, attempt int) (time.Duration, bool) {
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

// Explain turns GitHub's refusal err of doing what (such as "posting the
// review to octo/train#7") into an error that names the cause: the rate
// limits, a refused token, or the cause causes gives for the status code
// (the caller knows what a 403 or a 422 means for its call).
func Explain(err error, what string, causes map[int]string) error {
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
		return fmt.Errorf("%s: %w", what, err)
	}
	detail := er.Message
	for _, e := range er.Errors {
		if e.Message != "" {
			detail += "; " + e.Message
		} else if e.Code != "" {
			detail += fmt.Sprintf("; %s %s", e.Field, e.Code)
		}
	}
	status := er.Response.StatusCode
	cause, ok := causes[status]
	switch {
	case ok:
	case status == http.StatusUnauthorized:
		cause = "the token was refused: GITHUB_TOKEN is missing, expired or wrong"
	default:
		cause = "GitHub answered with an error"
	}
	return fmt.Errorf("%s (%d %s: %s)", cause, status, http.StatusText(status), detail)
}
