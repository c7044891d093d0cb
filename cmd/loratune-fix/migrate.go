package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/loratune/loratune-fix/githubapi"
	"github.com/loratune/loratune-fix/migrate"
)

func newMigrateCmd() *cobra.Command {
	var rf ruleFlags
	var o migrate.Options
	var reposFile, reportFile, resume string
	var repoJobs int
	var openPR bool
	var pr migrate.PROptions
	cmd := &cobra.Command{
		Use:   "migrate [flags] [REPO...]",
		Short: "Fix many git repositories: one branch and one commit each, a report line each",
		Long: `For each repository (a local checkout, or a git URL cloned shallow into
--workdir): create or reuse --branch from the default branch, apply the fixes,
commit them with a message naming the rules and files, and with --push push
the branch. Status per repository: changed (a new commit), up-to-date (the
branch already has every fix), clean (nothing to fix: no branch), left-alone
(--open-pr: nothing pushed, pr.reason says why), or error (with the reason;
the others go on). A local checkout must be clean and is
left on the branch it was on.

--open-pr (URLs only) makes the branch afresh from the default branch on
every run, pushes it and opens one pull request per repository, or updates,
closes (nothing left to fix) or leaves alone (someone's commits on the
branch, or closed by a person: status left-alone, nothing pushed) the one
an earlier run opened; it never opens a second, and a pull request merged
with its branch kept leaves the repository clean. The body explains the rules, their cost, the changes and the
findings not fixed. GITHUB_TOKEN (and GITHUB_API_URL) as for review --post;
--dry-run prints each pull request instead.

--dry-run alone writes, commits and pushes nothing: each repository that would
change (status would-change) is printed as its commit message and diff.

--report FILE writes one JSON line per repository as each one finishes;
--resume REPORT skips the repositories that report shows done; --shard K/N
takes a stable share of the repositories. Exit 0 when no repository failed,
2 when one did, 130 when interrupted.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			stderr := cmd.ErrOrStderr()
			repos := append([]string{}, args...)
			if reposFile != "" {
				f, err := os.Open(reposFile)
				if err != nil {
					return err
				}
				more, err := migrate.ReadRepos(f)
				f.Close()
				if err != nil {
					return fmt.Errorf("--repos: %w", err)
				}
				repos = append(repos, more...)
			}
			if len(repos) == 0 {
				return errors.New("no repositories: give paths or URLs, or --repos FILE")
			}
			opts, err := rf.options(true, true)
			if err != nil {
				return err
			}
			walk, err := rf.bulk.walkOptions()
			if err != nil {
				return err
			}
			o.Runner, o.Walk, o.UnsafeFixes = opts, walk, rf.unsafeFixes
			o.DryRun, o.Out = pr.DryRun, cmd.OutOrStdout()
			if openPR {
				if err := pullRequestOptions(&pr, &rf, cmd); err != nil {
					return err
				}
				o.PR = &pr
			}
			var done map[string]bool
			if resume != "" {
				if done, err = migrate.ReadDone(resume); err != nil {
					return fmt.Errorf("--resume: %w", err)
				}
			}
			var todo []string
			otherShards, doneBefore := 0, 0
			for _, r := range repos {
				switch {
				case !walk.Shard.Has(r):
					otherShards++
				case done[r]:
					doneBefore++
				default:
					todo = append(todo, r)
				}
			}
			if otherShards+doneBefore > 0 {
				var why []string
				if otherShards > 0 {
					why = append(why, fmt.Sprintf("%d in other shards", otherShards))
				}
				if doneBefore > 0 {
					why = append(why, fmt.Sprintf("%d done in %s", doneBefore, resume))
				}
				fmt.Fprintf(stderr, "%d of %d repositories to do (%s).\n", len(todo), len(repos), strings.Join(why, ", "))
			}
			var rep *migrate.Report
			if reportFile != "" {
				if rep, err = migrate.CreateReport(reportFile, reportFile == resume); err != nil {
					return fmt.Errorf("--report: %w", err)
				}
			}
			// The first error writing the report is said once and makes
			// the run exit 2; the repositories go on.
			var reportErr error
			// The first Ctrl-C starts no new repository, the second stops
			// those in flight at their next safe point.
			o.Stop = cmdContext().Done()
			ctx := abortContext()
			prog := newProgress(stderr, rf.bulk.quiet, "repos", func() int64 { return int64(len(todo)) })
			var results []*migrate.Result
			failed := 0
			migrate.RunAll(ctx, &o, todo, repoJobs, func(r *migrate.Result) {
				results = append(results, r)
				if r.Status == migrate.Failed {
					failed++
				}
				if rep != nil && reportErr == nil {
					if reportErr = rep.Add(r); reportErr != nil {
						prog.clear()
						printLine(stderr, "error", "--report:", reportErr)
					}
				}
				n := 0
				for _, c := range r.Findings {
					n += c
				}
				prog.step(n)
			})
			prog.finish()
			if rep != nil {
				if err := rep.Close(); err != nil && reportErr == nil {
					reportErr = err
					printLine(stderr, "error", "--report:", err)
				}
			}
			migrate.Summary(stderr, results)
			if interrupted() {
				fmt.Fprintf(stderr, "loratune-fix: interrupted: %d of %d repositories reported (above), %d not started.\n", len(results), len(todo), len(todo)-len(results))
			}
			switch {
			case interrupted():
				return exitCode(exitInterrupted)
			case failed > 0 || reportErr != nil:
				return exitCode(exitError)
			}
			return nil
		},
	}
	rf.register(cmd, "stdin-filename")
	rf.bulk.register(cmd)
	fs := cmd.Flags()
	fs.StringVar(&reposFile, "repos", "", "file of repositories: one local path or git URL a line (# comments)")
	fs.StringVar(&o.Workdir, "workdir", "loratune-fix-repos", "folder for the clones of URLs (reused by later runs)")
	fs.StringVar(&o.Branch, "branch", migrate.DefaultBranch, "branch for the fixes, created from the default branch or reused")
	fs.StringVar(&o.Author, "author", "", `commit author "Name <email>" (default: git's user.name and user.email)`)
	fs.BoolVar(&o.Push, "push", false, "push the branch to origin")
	fs.StringVar(&reportFile, "report", "", "write one JSON line per repository to FILE as each finishes")
	fs.StringVar(&resume, "resume", "", "skip the repositories this report shows done (clean, up-to-date, changed, left-alone)")
	fs.IntVar(&repoJobs, "repo-jobs", runtime.NumCPU(), "repositories processed at once")
	fs.BoolVar(&openPR, "open-pr", false, "push the branch and open or update a pull request per repository (GITHUB_TOKEN, GITHUB_API_URL); close it when nothing is left to fix")
	fs.BoolVar(&pr.DryRun, "dry-run", false, "write, commit and push nothing: print each commit (message and diff), or with --open-pr each pull request's title and body; call GitHub for nothing")
	fs.StringSliceVar(&pr.Labels, "pr-label", nil, "labels for a new pull request (repeatable or comma-separated)")
	fs.StringSliceVar(&pr.Reviewers, "pr-reviewer", nil, "users (login) and teams (org/team) asked to review a new pull request (repeatable or comma-separated)")
	fs.BoolVar(&pr.Draft, "draft", false, "open the pull requests as drafts")
	return cmd
}

// pullRequestOptions completes --open-pr's options: the GitHub client
// (GITHUB_TOKEN and GITHUB_API_URL, as review --post), the profile and the
// command that makes the same changes in a checkout.
func pullRequestOptions(pr *migrate.PROptions, rf *ruleFlags, cmd *cobra.Command) error {
	pr.Out, pr.Profile = cmd.OutOrStdout(), rf.profile
	repro := []string{"loratune-fix", "fix", "--write"}
	add := func(flag string, vals ...string) {
		if len(vals) > 0 && vals[0] != "" {
			repro = append(repro, flag, shellQuote(strings.Join(vals, ",")))
		}
	}
	add("--profile", rf.profile)
	add("--select", rf.selectRules...)
	add("--extend-select", rf.extendSelect...)
	add("--ignore", rf.ignoreRules...)
	add("--target", rf.target)
	for _, x := range rf.bulk.exclude {
		add("--exclude", x)
	}
	if rf.bulk.noIgnore {
		repro = append(repro, "--no-ignore")
	}
	if rf.unsafeFixes {
		repro = append(repro, "--unsafe-fixes")
	}
	pr.Reproduce = strings.Join(append(repro, "."), " ")
	for _, r := range pr.Reviewers {
		if org, team, ok := strings.Cut(r, "/"); r == "" || ok && (org == "" || team == "" || strings.Contains(team, "/")) {
			return fmt.Errorf("--pr-reviewer %q: want a user's login or a team as org/team", r)
		}
	}
	if pr.DryRun {
		return nil
	}
	token := os.Getenv("GITHUB_TOKEN")
	if token == "" {
		return errors.New("--open-pr needs GITHUB_TOKEN (or --dry-run)")
	}
	api := os.Getenv("GITHUB_API_URL")
	if _, err := githubapi.New(token, api, "", "", nil); err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	pr.Client = func(owner, repo string) (*githubapi.Client, error) {
		c, err := githubapi.New(token, api, owner, repo, nil)
		if err == nil {
			c.Log = stderr
		}
		return c, err
	}
	return nil
}

// shellQuote quotes s for a POSIX shell when it holds more than plain
// word characters (a glob, a space).
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,=/:+-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
