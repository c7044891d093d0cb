package migrate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// gitRunner runs the real git command in one repository.
type gitRunner struct {
	dir string
	env []string
}

// run runs git and returns its trimmed stdout; the error carries git's
// stderr. Only commands given ctx (the network ones: clone, fetch,
// ls-remote, push) are killed on Ctrl-C; local ones run to the end, so no
// commit or index is left half-made. Every git runs in a process group of
// its own, so the terminal's Ctrl-C reaches loratune-fix alone.
func (g gitRunner) run(ctx context.Context, args ...string) (string, error) {
	var cmd *exec.Cmd
	if ctx != nil {
		cmd = exec.CommandContext(ctx, "git", args...)
	} else {
		cmd = exec.Command("git", args...)
	}
	cmd.Dir = g.dir
	// No credential prompt can hang a bulk run; git's own config and
	// credential helpers still apply.
	cmd.Env = append(append(os.Environ(), "GIT_TERMINAL_PROMPT=0"), g.env...)
	detach(cmd)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx != nil && ctx.Err() != nil {
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
