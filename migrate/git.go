package migrate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// gitRunner runs the real git command in one repository.
type gitRunner struct {
	dir string
	env []string
}

// run runs a local git command and returns its trimmed stdout; the error
// carries git's stderr. It runs to the end whatever ctx says (its values
// pass, its cancellation does not): a commit or an index is never left
// half-made.
func (g gitRunner) run(ctx context.Context, args ...string) (string, error) {
	return g.exec(context.WithoutCancel(ctx), args)
}

// network runs a git command that talks to a remote (clone, fetch,
// ls-remote, push): cancelling ctx kills it and its helpers (ssh,
// git-remote-https), which share its process group.
func (g gitRunner) network(ctx context.Context, args ...string) (string, error) {
	return g.exec(ctx, args)
}

// exec runs git in a process group of its own, so the terminal's Ctrl-C
// reaches loratune-fix alone and loratune-fix decides what stops.
func (g gitRunner) exec(ctx context.Context, args []string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = g.dir
	// No credential prompt can hang a bulk run; git's own config and
	// credential helpers still apply.
	cmd.Env = append(append(os.Environ(), "GIT_TERMINAL_PROMPT=0"), g.env...)
	detach(cmd)
	if ctx.Done() != nil {
		// A helper that outlives a killed git keeps its output pipe open:
		// stop waiting for it after a while.
		cmd.WaitDelay = 5 * time.Second
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("git %s: %w", args[0], ErrInterrupted)
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", args[0], oneLine(msg))
	}
	return strings.TrimSpace(stdout.String()), nil
}

// ErrInterrupted marks a repository cut short by Ctrl-C.
var ErrInterrupted = errors.New("interrupted")

// oneLine joins git's message lines (without its hints) for a report.
func oneLine(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "hint:") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "; ")
}
