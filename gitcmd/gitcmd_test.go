package gitcmd

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

func needGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
}

func TestOutputRunAndErrors(t *testing.T) {
	needGit(t)
	g := Git{Dir: t.TempDir(), Env: []string{"GIT_CONFIG_GLOBAL=/dev/null"}}
	if _, err := g.Run(t.Context(), "init", "-q", "-b", "main"); err != nil {
		t.Fatal(err)
	}
	out, err := g.Output(t.Context(), "symbolic-ref", "HEAD")
	if err != nil || string(out) != "refs/heads/main\n" {
		t.Fatalf("Output = %q, %v: want git's stdout as it is", out, err)
	}
	if s, err := g.Run(t.Context(), "symbolic-ref", "HEAD"); err != nil || s != "refs/heads/main" {
		t.Errorf("Run = %q, %v: want it trimmed", s, err)
	}
	// A failure is one line naming the command and git's message.
	_, err = g.Run(t.Context(), "rev-parse", "--verify", "no-such-ref")
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "git rev-parse: fatal:") {
		t.Errorf("error %q: want one line, git rev-parse: fatal: ...", err)
	}
}

func TestCancel(t *testing.T) {
	needGit(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	g := Git{Dir: t.TempDir()}
	// A network command stops.
	if _, err := g.Network(ctx, "init", "-q"); !errors.Is(err, ErrInterrupted) {
		t.Errorf("Network on a cancelled context: %v, want ErrInterrupted", err)
	}
	// A local one runs to the end.
	if _, err := g.Run(ctx, "init", "-q"); err != nil {
		t.Errorf("Run on a cancelled context: %v, want it to run", err)
	}
}
