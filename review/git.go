package review

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// git runs git in dir with settings that keep its output machine-readable
// whatever the user's configuration.
func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	full := append([]string{"-c", "core.quotepath=off", "-c", "diff.noprefix=false"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// GitChange is a pull request's change as git sees it from a work tree.
type GitChange struct {
	Root      string // the work tree's top folder; diff paths are relative to it
	MergeBase string
	Head      string // HEAD's commit
	Diff      []byte // the work tree against the merge base
}

// GitDiff diffs the work tree in dir against its merge base with base (a
// branch, tag or commit): the lines a pull request from HEAD into base
// changes, including edits not committed yet.
func GitDiff(ctx context.Context, dir, base string) (*GitChange, error) {
	root, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	gc := &GitChange{Root: strings.TrimSpace(string(root))}
	mb, err := git(ctx, gc.Root, "merge-base", base, "HEAD")
	if err != nil {
		return nil, fmt.Errorf("no merge base of %s and HEAD (a shallow clone? fetch with fetch-depth: 0): %w", base, err)
	}
	gc.MergeBase = strings.TrimSpace(string(mb))
	head, err := git(ctx, gc.Root, "rev-parse", "HEAD")
	if err != nil {
		return nil, err
	}
	gc.Head = strings.TrimSpace(string(head))
	gc.Diff, err = git(ctx, gc.Root, "diff", "--no-color", "--no-ext-diff", "--no-textconv", "-M",
		"--src-prefix=a/", "--dst-prefix=b/", "-U0", gc.MergeBase, "--")
	if err != nil {
		return nil, err
	}
	return gc, nil
}
