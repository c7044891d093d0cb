// Package gitcmd runs the real git command, for review (the diff of a pull
// request) and migrate (clone, branch, commit, push): the user's
// credential helpers and SSH keys work, git never prompts, and its errors
// come back as one line.
package gitcmd

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

// Git runs git in one folder.
type Git struct {
	Dir string   // "": the current folder
	Env []string // added to the environment ("GIT_AUTHOR_NAME=...")
}

// ErrInterrupted marks a command that ctx stopped.
var ErrInterrupted = errors.New("interrupted")

// Run runs a local git command and returns its stdout with surrounding
// white space trimmed. It runs to the end whatever ctx says (its values
// pass, its cancellation does not): a commit or an index is never left
// half-made.
func (g Git) Run(ctx context.Context, args ...string) (string, error) {
	out, err := g.Output(context.WithoutCancel(ctx), args...)
	return strings.TrimSpace(string(out)), err
}

// Network runs a git command that talks to a remote (clone, fetch,
// ls-remote, push): cancelling ctx kills it and its helpers (ssh,
// git-remote-https), which share its process group.
func (g Git) Network(ctx context.Context, args ...string) (string, error) {
	out, err := g.Output(ctx, args...)
	return strings.TrimSpace(string(out)), err
}

// Output runs git and returns its stdout as it is (a diff keeps its last
// newline); cancelling ctx stops it. Settings that shape the output are
// fixed whatever the user's configuration: paths unquoted, diffs with
// a/ and b/ prefixes. Git runs in a process group of its own, so the
// terminal's Ctrl-C reaches loratune-fix alone and loratune-fix decides
// what stops.
func (g Git) Output(ctx context.Context, args ...string) ([]byte, error) {
	full := append([]string{"-c", "core.quotepath=off", "-c", "diff.noprefix=false"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Dir = g.Dir
	// No credential prompt can hang a run; git's own config and
	// credential helpers still apply.
	cmd.Env = append(append(os.Environ(), "GIT_TERMINAL_PROMPT=0"), g.Env...)
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
			return nil, fmt.Errorf("git %s: %w", args[0], ErrInterrupted)
		}
		msg := oneLine(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git %s: %s", args[0], msg)
	}
	return stdout.Bytes(), nil
}

// oneLine joins git's message lines (without its hints) for a one-line
// error.
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
