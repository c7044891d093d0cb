package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/githubapi"
	"github.com/loratune/loratune-fix/report"
	"github.com/loratune/loratune-fix/review"
	"github.com/loratune/loratune-fix/rewrite"
	"github.com/loratune/loratune-fix/runner"
)

func newReviewCmd() *cobra.Command {
	var rf ruleFlags
	var base, diffFile, format, formatAlias, commit string
	var post bool
	var failOnFindings string
	var pr int
	cmd := &cobra.Command{
		Use:   "review (--base REF | --diff FILE) [flags]",
		Short: "Review a pull request's changed lines: suggestions where GitHub takes them, patches for the rest",
		Long: `Runs the rules on the Python, notebook and launch-config (YAML, JSON, shell)
files a change touches and sorts each fix:
a fix whose edited lines all lie on lines the change added or modified becomes
suggestions on those lines (one per contiguous range, marked as belonging
together when a fix has several); any other fix goes into the review's body as
a patch for git apply. Notebooks get the patch as a comment, not a suggestion.

The change is --base REF (the work tree against its merge base with REF, read
with git) or --diff FILE (a unified diff; - reads stdin, paths relative to the
current folder).

--output-format github-review prints the JSON body of GitHub's "create a
review"; rdjsonl feeds reviewdog (reviewdog -f=rdjsonl); sarif is a SARIF 2.1.0
log of the changed files; github prints workflow annotations for them. --post creates the review on GitHub instead, with
GITHUB_TOKEN, GITHUB_REPOSITORY, --pr (or the pull_request event at
GITHUB_EVENT_PATH) and GITHUB_API_URL; it never posts a suggestion twice, and
a later run edits its own summary rather than posting another.

The body's patches apply with git apply before or after the suggestions are
committed; findings on lines the change did not touch are listed once, folded,
as already in the file, and --fail-on-findings counts only the changed lines
(--fail-on-findings=all counts them all).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if (base == "") == (diffFile == "") {
				return errors.New("give exactly one of --base REF and --diff FILE")
			}
			if formatAlias != "" && !cmd.Flags().Changed("output-format") {
				format = formatAlias
			}
			switch format {
			case "github-review", "rdjsonl", "sarif", "github":
			default:
				return fmt.Errorf("--output-format %q: want github-review, rdjsonl, sarif or github", format)
			}
			opts, err := rf.options(true, false)
			if err != nil {
				return err
			}
			ctx := cmdContext()
			out, stderr := &reportWriter{w: cmd.OutOrStdout()}, cmd.ErrOrStderr()

			event, err := readEvent(os.Getenv("GITHUB_EVENT_PATH"))
			if err != nil {
				return err
			}
			if commit == "" && event != nil {
				commit = event.PullRequest.Head.SHA
			}
			root, diff := ".", []byte(nil)
			if base != "" {
				gc, err := review.GitDiff(ctx, ".", base)
				if err != nil {
					return err
				}
				root, diff = gc.Root, gc.Diff
				if commit == "" {
					commit = gc.Head
				} else if commit != gc.Head {
					// Comments take the head's line numbers; a merge commit's may differ.
					printLine(stderr, "warning", fmt.Sprintf("HEAD is %.12s, the review is for %.12s: check out the pull request's head (actions/checkout with ref: ${{ github.event.pull_request.head.sha }})", gc.Head, commit))
				}
			} else if diffFile == "-" {
				if diff, err = io.ReadAll(cmd.InOrStdin()); err != nil {
					return err
				}
			} else if diff, err = os.ReadFile(diffFile); err != nil {
				return err
			}
			files, err := review.ParseDiff(strings.NewReader(string(diff)))
			if err != nil {
				return fmt.Errorf("reading the diff: %w", err)
			}

			var paths []string
			for p, fd := range files {
				if !fd.Binary && runner.Sources(p) {
					paths = append(paths, p)
				}
			}
			sort.Strings(paths)
			full := make([]string, len(paths))
			relOf := map[string]string{}
			for i, p := range paths {
				full[i] = filepath.Join(root, filepath.FromSlash(p))
				relOf[full[i]] = p
			}
			rv := &review.Review{CommitID: commit}
			var annotations []*finding.FileResult
			sarif := report.NewSARIF(rewrite.Infos(opts.Engine.Rules()), toolVersion)
			switch failOnFindings {
			case "", "false", "changed", "true", "all":
			default:
				return fmt.Errorf("--fail-on-findings=%q: want changed (the default of a bare --fail-on-findings) or all", failOnFindings)
			}
			errs := 0
			runner.Run(ctx, opts, full, func(f *finding.FileResult) {
				rel := relOf[f.Path]
				f.Path = rel
				if f.Err != nil {
					printLine(stderr, "error", f.Err)
					errs++
					msg := f.Err.Error()
					var fe *runner.FileError
					if errors.As(f.Err, &fe) {
						msg = fe.Err.Error() // the path is the problem's own
					}
					rv.Problems = append(rv.Problems, review.Problem{Path: rel, Message: msg})
					return
				}
				for _, d := range f.Dropped {
					printLine(stderr, "error", f.Path+": "+d)
				}
				sarif.Add(f)
				annotations = append(annotations, f)
				rv.Files = append(rv.Files, review.Build(f, files[rel], rf.unsafeFixes))
			})

			switch {
			case post:
				if err := postReview(ctx, cmd, rv, pr, event); err != nil {
					return err
				}
			case format == "github-review":
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false)
				if err := enc.Encode(rv.Request()); err != nil {
					return fmt.Errorf("writing the output: %w", err)
				}
			case format == "rdjsonl":
				if err := rv.RDJSONL(out); err != nil {
					return fmt.Errorf("writing the output: %w", err)
				}
			case format == "sarif":
				if err := sarif.Flush(out); err != nil {
					return fmt.Errorf("writing the output: %w", err)
				}
			case format == "github":
				for _, f := range annotations {
					report.GitHub(out, f)
				}
			}
			// Info notes never fail, as in check; findings already in the
			// file fail only with --fail-on-findings=all.
			c := rv.Counts()
			failing := failOnFindings == "all" && c.FailingAll > 0 ||
				(failOnFindings == "changed" || failOnFindings == "true") && c.Failing > 0
			return runExit(out, errs, failing)
		},
	}
	rf.register(cmd, "stdin-filename")
	fs := cmd.Flags()
	fs.StringVar(&base, "base", "", "review the work tree against its merge base with this branch or commit (uses git)")
	fs.StringVar(&diffFile, "diff", "", "review the change in this unified diff file (- for stdin)")
	fs.StringVar(&format, "output-format", "github-review", "github-review (JSON body of a GitHub review), rdjsonl (reviewdog), sarif or github (workflow annotations)")
	fs.StringVar(&formatAlias, "format", "", "the former name of --output-format")
	fs.MarkDeprecated("format", "use --output-format")
	fs.BoolVar(&post, "post", false, "post the review on GitHub (GITHUB_TOKEN, GITHUB_REPOSITORY, GITHUB_API_URL)")
	fs.IntVar(&pr, "pr", 0, "the pull request's number (default: from the event at GITHUB_EVENT_PATH)")
	fs.StringVar(&commit, "commit", "", "the commit the review is on (default: the pull request's head from the event, else HEAD with --base)")
	fs.StringVar(&failOnFindings, "fail-on-findings", "", "exit 1 on errors and warnings on the lines the change added or modified; =all: anywhere in the changed files")
	fs.Lookup("fail-on-findings").NoOptDefVal = "changed"
	return cmd
}

// prEvent is the part of a pull_request event payload the review needs.
type prEvent struct {
	Number      int `json:"number"`
	PullRequest struct {
		Number int `json:"number"`
		Head   struct {
			SHA string `json:"sha"`
		} `json:"head"`
	} `json:"pull_request"`
}

func readEvent(path string) (*prEvent, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("GITHUB_EVENT_PATH: %w", err)
	}
	var ev prEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return nil, fmt.Errorf("GITHUB_EVENT_PATH %s: %w", path, err)
	}
	if ev.PullRequest.Number == 0 {
		return nil, nil // not a pull_request event
	}
	return &ev, nil
}

func postReview(ctx context.Context, cmd *cobra.Command, rv *review.Review, pr int, event *prEvent) error {
	token := os.Getenv("GITHUB_TOKEN")
	if token == "" {
		return errors.New("--post needs GITHUB_TOKEN")
	}
	owner, repo, ok := strings.Cut(os.Getenv("GITHUB_REPOSITORY"), "/")
	if !ok || owner == "" || repo == "" {
		return fmt.Errorf("--post needs GITHUB_REPOSITORY=owner/repo (got %q)", os.Getenv("GITHUB_REPOSITORY"))
	}
	if pr == 0 && event != nil {
		pr = event.PullRequest.Number
	}
	if pr == 0 {
		return errors.New("--post needs the pull request: --pr N, or GITHUB_EVENT_PATH of a pull_request event")
	}
	client, err := githubapi.New(token, os.Getenv("GITHUB_API_URL"), owner, repo, nil)
	if err != nil {
		return err
	}
	client.Log = cmd.ErrOrStderr()
	p := &review.Poster{GitHub: client, PR: pr}
	res, err := p.Post(ctx, rv)
	if err != nil {
		return err
	}
	where := owner + "/" + repo + "#" + strconv.Itoa(pr)
	switch {
	case res.Reviews > 0:
		fmt.Fprintf(cmd.ErrOrStderr(), "posted %d review%s on %s with %d comment%s and %d body item%s\n",
			res.Reviews, plural(res.Reviews), where, res.Comments, plural(res.Comments), res.BodyItems, plural(res.BodyItems))
	case res.Updated || res.Comments > 0:
		fmt.Fprintf(cmd.ErrOrStderr(), "updated the review on %s (%d body item%s) and added %d comment%s; %d comment%s were already there\n",
			where, res.BodyItems, plural(res.BodyItems), res.Comments, plural(res.Comments), res.SkippedComments, plural(res.SkippedComments))
	default:
		fmt.Fprintf(cmd.ErrOrStderr(), "the review on %s is up to date; %d comment%s were already there\n", where, res.SkippedComments, plural(res.SkippedComments))
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
