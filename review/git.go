package review

import (
	"context"
	"fmt"

	"github.com/loratune/loratune-fix/gitcmd"
)

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
	root, err := gitcmd.Git{Dir: dir}.Run(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	gc := &GitChange{Root: root}
	git := gitcmd.Git{Dir: root}
	gc.MergeBase, err = git.Run(ctx, "merge-base", base, "HEAD")
	if err != nil {
		return nil, fmt.Errorf("no merge base of %s and HEAD (a shallow clone? fetch with fetch-depth: 0): %w", base, err)
	}
	if gc.Head, err = git.Run(ctx, "rev-parse", "HEAD"); err != nil {
		return nil, err
	}
	gc.Diff, err = git.Output(ctx, "diff", "--no-color", "--no-ext-diff", "--no-textconv", "-M",
		"--src-prefix=a/", "--dst-prefix=b/", "-U0", gc.MergeBase, "--")
	if err != nil {
		return nil, err
	}
	return gc, nil
}
