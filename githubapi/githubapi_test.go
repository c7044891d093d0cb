package githubapi

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// client serves answers in turn, and records the sleeps instead of waiting.
func client(t *testing.T, answers ...func(http.ResponseWriter)) (*Client, *int, *[]time.Duration) {
	t.Helper()
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		answers[min(calls, len(answers)-1)](w)
		calls++
	}))
	t.Cleanup(srv.Close)
	c, err := New("token", srv.URL+"/api/v3", "octo", "train", srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	var slept []time.Duration
	c.Sleep = func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }
	return c, &calls, &slept
}

func status(code int, header ...string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		io.WriteString(w, `{"message": "m"}`)
	}
}

func getRepo(c *Client) func(context.Context) error {
	return func(ctx context.Context) error {
		_, _, err := c.Repositories.Get(ctx, c.Owner, c.Repo)
		return err
	}
}

func TestRetryBacksOffOnServerErrorsThenSucceeds(t *testing.T) {
	c, calls, slept := client(t, status(502), status(503, "Retry-After", "7"), status(200))
	if err := c.Retry(t.Context(), getRepo(c), nil); err != nil {
		t.Fatal(err)
	}
	if *calls != 3 || len(*slept) != 2 || (*slept)[0] != time.Second || (*slept)[1] != 7*time.Second {
		t.Errorf("%d calls, slept %v; want 3 calls after 1s and Retry-After's 7s", *calls, *slept)
	}
}

func TestRetryStopsOnARefusalAndAtMaxAttempts(t *testing.T) {
	c, calls, _ := client(t, status(404))
	if err := c.Retry(t.Context(), getRepo(c), nil); err == nil || *calls != 1 {
		t.Errorf("404: err %v after %d calls, want an error at once", err, *calls)
	}
	c, calls, _ = client(t, status(500))
	c.MaxAttempts = 3
	if err := c.Retry(t.Context(), getRepo(c), nil); err == nil || *calls != 3 {
		t.Errorf("500s: err %v after %d calls, want an error after 3", err, *calls)
	}
}

func TestRetryAsksWhetherTheCallTookEffect(t *testing.T) {
	c, calls, _ := client(t, status(502))
	asked := 0
	err := c.Retry(t.Context(), getRepo(c), func(context.Context) (bool, error) { asked++; return true, nil })
	if err != nil || *calls != 1 || asked != 1 {
		t.Errorf("err %v, %d calls, asked %d: a call that took effect is not made again", err, *calls, asked)
	}
}

func TestExplainNamesTheCause(t *testing.T) {
	for code, want := range map[int]string{
		401: "GITHUB_TOKEN is missing, expired or wrong (401 Unauthorized: m)",
		403: "a cause of ours (403 Forbidden: m)",
		418: "GitHub answered with an error (418",
	} {
		c, _, _ := client(t, status(code))
		err := Explain(c.Retry(t.Context(), getRepo(c), nil), "reading octo/train", map[int]string{403: "a cause of ours"})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%d: %v, want %q", code, err, want)
		}
	}
	if _, err := New("", "not a url", "o", "r", nil); err == nil {
		t.Error("New accepted GITHUB_API_URL=not a url")
	}
}
