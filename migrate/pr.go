package migrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/google/go-github/v75/github"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/gitcmd"
	"github.com/loratune/loratune-fix/githubapi"
	"github.com/loratune/loratune-fix/rewrite"
)

// PROptions make migrate end in a pull request per repository (--open-pr).
type PROptions struct {
	// Client returns the GitHub client of owner/repo (nil with DryRun).
	Client func(owner, repo string) (*githubapi.Client, error)
	// DryRun prints each pull request's title and body to Out instead of
	// pushing and calling GitHub.
	DryRun            bool
	Out               io.Writer
	Labels, Reviewers []string
	Draft             bool
	// Profile is the rule set used, for the body's cost lines.
	Profile string
	// Reproduce is the command that makes the same changes locally.
	Reproduce string
}

// PRState says what happened to a repository's pull request.
type PRState string

const (
	PROpened       PRState = "opened"
	PRUpdated      PRState = "updated"   // its branch or body changed
	PRUnchanged    PRState = "unchanged" // branch and body were already right
	PRClosed       PRState = "closed"    // nothing is left to fix
	PRLeftAlone    PRState = "left-alone"
	PRDryRun       PRState = "dry-run" // printed, not sent
	commitTitle            = "loratune-fix: stable bf16 LoRA training settings"
	prMark                 = "<!-- loratune-fix:migrate -->"
	maxTitleChars          = 256
	maxPRBodyChars         = 60000 // under GitHub's 65,536
)

// PR is the report's account of the pull request.
type PR struct {
	Number int     `json:"number,omitempty"`
	URL    string  `json:"url,omitempty"`
	State  PRState `json:"state"`
	// Reason says why a pull request was left alone.
	Reason string `json:"reason,omitempty"`
}

// fileFindings are the findings of one file, for the body.
type fileFindings struct {
	rel      string
	changed  bool
	findings []finding.Finding
}

// ownerRepo takes a repository's owner and name from the last two parts
// of its URL ("https://github.com/octo/train.git", "git@github.com:octo/train").
func ownerRepo(spec string) (string, string, error) {
	dir := cloneDir("", spec)
	parts := strings.Split(strings.ReplaceAll(dir, "\\", "/"), "/")
	if len(parts) < 2 || parts[len(parts)-2] == "" {
		return "", "", fmt.Errorf("cannot tell the GitHub owner/name of %s", spec)
	}
	return parts[len(parts)-2], parts[len(parts)-1], nil
}

// prFacts are what the pull request step learned from git.
type prFacts struct {
	base      string // the default branch's name
	remoteSHA string // the fix branch on origin; "": none
	// merged: the fix branch has no commit over the default branch (a
	// merge that kept the branch), so git fetched none of it.
	merged bool
}

// remoteBranch finds the fix branch on origin and fetches the commits it
// has over the default branch (and no more). A branch merged into the
// default branch has none: git then refuses a shallow fetch ("no commits
// selected for shallow requests"), which says just that.
func (r *repo) remoteBranch(ctx context.Context) error {
	out, err := r.git.Network(ctx, "ls-remote", "--heads", "origin", "refs/heads/"+r.o.Branch)
	if err != nil || out == "" {
		return err
	}
	r.pr.remoteSHA, _, _ = strings.Cut(out, "\t")
	_, err = r.git.Network(ctx, "fetch", "-q", "--no-tags", "--shallow-exclude=refs/heads/"+r.pr.base,
		"origin", "+refs/heads/"+r.o.Branch+":refs/remotes/origin/"+r.o.Branch)
	if err != nil && strings.Contains(err.Error(), "no commits selected for shallow requests") {
		r.pr.merged = true
		// A ref left by an earlier run would be taken for the branch.
		r.git.Run(ctx, "update-ref", "-d", "refs/remotes/origin/"+r.o.Branch)
		return nil
	}
	return err
}

// foreign returns the subjects of the commits on the remote fix branch
// that this tool did not make (someone's own work on it), or nil.
func (r *repo) foreign(ctx context.Context) ([]string, error) {
	out, err := r.git.Run(ctx, "log", "--format=%s", "refs/remotes/origin/"+r.o.Branch, "--not", "refs/remotes/origin/"+r.pr.base)
	if err != nil {
		return nil, err
	}
	var other []string
	for _, s := range strings.Split(out, "\n") {
		if s != "" && s != commitTitle {
			other = append(other, s)
		}
	}
	return other, nil
}

// branchKind is what the fix branch on origin holds.
type branchKind int

const (
	branchNone    branchKind = iota // no fix branch on origin
	branchOurs                      // this tool's commits, with other files than this run's fix
	branchSame                      // this tool's commits, with this run's fix
	branchMerged                    // no commit over the default branch: merged, the branch kept
	branchForeign                   // commits this tool did not make
)

// prKind is the newest pull request from the fix branch.
type prKind int

const (
	prNone   prKind = iota // none
	prOpen                 // open
	prClosed               // closed without merging
	prMerged               // merged
)

// situation is everything decide reads, as plain values.
type situation struct {
	ToFix   bool // the default branch has something to fix
	Branch  branchKind
	PR      prKind
	Current bool // the open pull request's title and body are this run's
}

// plan is what to do about one repository's pull request.
type plan struct {
	State        PRState // "": no pull request to report
	Push         bool    // push the fix branch, leased on what origin holds
	Open         bool    // open a pull request
	Edit         bool    // set its title and body
	Close        bool    // comment, close
	DeleteBranch bool    // delete the fix branch on origin
	// LeftAlone says why nothing is done: leftForeign or leftClosed.
	LeftAlone string
}

const (
	leftForeign = "foreign"
	leftClosed  = "closed"
)

// decide is the pull request's state machine: what a run does, from what
// it found. It calls nothing; pullRequest gathers s and carries the plan out.
func decide(s situation) plan {
	switch {
	case s.Branch == branchForeign:
		// Someone's work on the branch: never pushed over, whatever else.
		return plan{State: PRLeftAlone, LeftAlone: leftForeign}
	case s.PR == prClosed && s.Branch != branchNone:
		// Closed by a person, its branch kept: that is a "no".
		if !s.ToFix {
			return plan{}
		}
		return plan{State: PRLeftAlone, LeftAlone: leftClosed}
	case !s.ToFix && s.PR == prOpen:
		return plan{State: PRClosed, Close: true, DeleteBranch: s.Branch != branchNone}
	case !s.ToFix:
		return plan{} // merged, or never opened: nothing of ours to change
	}
	// Something to fix. A merged pull request, or a closed one whose branch
	// is gone (as our own close leaves it), makes way for a new one.
	p := plan{Push: s.Branch != branchSame}
	if s.PR != prOpen {
		p.Open, p.State = true, PROpened
		return p
	}
	p.Edit = !s.Current
	p.State = PRUnchanged
	if p.Push || p.Edit {
		p.State = PRUpdated
	}
	return p
}

// pullRequest gathers the situation from git and GitHub, decides, and
// pushes the branch and opens, updates or closes the pull request;
// r.res.Status says whether there is anything to fix. Once the branch is
// pushed, the calls to GitHub run to the end whatever ctx says: a pushed
// branch is reported with its pull request.
func (r *repo) pullRequest(ctx context.Context, spec string) error {
	p := r.o.PR
	owner, name, err := ownerRepo(spec)
	if err != nil {
		return err
	}
	s := situation{ToFix: r.res.Status != Clean}
	var other []string
	switch {
	case r.pr.remoteSHA == "":
	case r.pr.merged:
		s.Branch = branchMerged
	default:
		if other, err = r.foreign(ctx); err != nil {
			return err
		}
		s.Branch = branchOurs
		if len(other) > 0 {
			s.Branch = branchForeign
		} else if _, derr := r.git.Run(ctx, "diff", "--quiet", "refs/remotes/origin/"+r.o.Branch, "HEAD"); s.ToFix && derr == nil {
			s.Branch = branchSame
		}
	}
	title, body := r.title(), r.body()
	if p.DryRun {
		switch {
		case s.Branch == branchForeign:
			r.leftAlone(&PR{State: PRLeftAlone, Reason: foreignReason(other)})
		case !s.ToFix && r.pr.remoteSHA != "" && !r.pr.merged:
			fmt.Fprintf(p.Out, "=== %s/%s: nothing left to fix: an open pull request from %s would be closed, its branch deleted\n", owner, name, r.o.Branch)
		case s.ToFix:
			fmt.Fprintf(p.Out, "=== %s/%s: pull request %s -> %s\nTitle: %s\n\n%s\n", owner, name, r.o.Branch, r.pr.base, title, body)
			r.res.PR = &PR{State: PRDryRun}
		}
		return nil
	}
	if !s.ToFix && s.Branch == branchNone {
		return nil // no branch, so no pull request of ours
	}
	gh, err := p.Client(owner, name)
	if err != nil {
		return err
	}
	c := &prCall{gh: gh, owner: owner, repo: name, branch: r.o.Branch}
	old, err := c.find(ctx)
	if err != nil {
		return err
	}
	switch {
	case old == nil:
	case old.GetState() == "open":
		s.PR = prOpen
		s.Current = old.GetTitle() == title && old.GetBody() == body
	case old.MergedAt != nil:
		s.PR = prMerged
	default:
		s.PR = prClosed
	}
	pl := decide(s)
	if old != nil && pl.State != "" && !pl.Open {
		r.res.PR = &PR{Number: old.GetNumber(), URL: old.GetHTMLURL(), State: pl.State}
	}
	switch pl.LeftAlone {
	case leftForeign:
		r.leftAlone(&PR{Reason: foreignReason(other)})
		return nil
	case leftClosed:
		r.leftAlone(&PR{Reason: fmt.Sprintf("pull request #%d was closed without merging: not opened again (delete its branch to allow a new one)", old.GetNumber())})
		return nil
	}
	lease := "--force-with-lease=refs/heads/" + r.o.Branch + ":" + r.pr.remoteSHA
	if pl.Push {
		if _, err := r.git.Network(ctx, "push", "-q", lease, "origin", "HEAD:refs/heads/"+r.o.Branch); err != nil {
			return err
		}
		r.res.Pushed = true
		ctx = context.WithoutCancel(ctx) // a pushed branch gets its pull request
	} else if s.ToFix {
		r.res.Status, r.res.Commit = UpToDate, r.pr.remoteSHA
	}
	switch {
	case pl.Close:
		if err := c.close(ctx, old.GetNumber()); err != nil {
			return err
		}
		if pl.DeleteBranch {
			// Without its branch, a later run that finds something to fix
			// again may open a new pull request.
			_, err := r.git.Network(context.WithoutCancel(ctx), "push", "-q", lease, "origin", "--delete", "refs/heads/"+r.o.Branch)
			return err
		}
	case pl.Open:
		pr, err := c.open(ctx, r.pr.base, title, body, p)
		if pr != nil {
			r.res.PR = &PR{Number: pr.GetNumber(), URL: pr.GetHTMLURL(), State: PROpened}
		}
		return err
	case pl.Edit:
		return c.edit(ctx, old.GetNumber(), title, body)
	}
	return nil
}

// leftAlone reports a repository whose branch and pull request stay as
// they are: nothing was pushed, so the commit is the branch's on origin,
// not the one made here. pr's number and URL come from r.res.PR when a
// pull request was found.
func (r *repo) leftAlone(pr *PR) {
	pr.State = PRLeftAlone
	if r.res.PR != nil {
		pr.Number, pr.URL = r.res.PR.Number, r.res.PR.URL
	}
	r.res.PR = pr
	r.res.Status, r.res.Commit, r.res.Pushed = LeftAlone, r.pr.remoteSHA, false
}

func foreignReason(other []string) string {
	return fmt.Sprintf("the branch has %d commit(s) not made by loratune-fix (%q): not pushed over", len(other), other[0])
}

// prCall makes the pull request calls of one repository, retried by the
// client, with GitHub's final refusal put in one line.
type prCall struct {
	gh                  *githubapi.Client
	owner, repo, branch string
}

// explain names the cause of GitHub's refusal to do what; refused (for
// a 422) says what GitHub may have refused in this call.
func (c *prCall) explain(err error, what, refused string) error {
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("%s: %w", what, gitcmd.ErrInterrupted)
	}
	return githubapi.Explain(err, what, map[int]string{
		http.StatusForbidden:           "the token may not open or change pull requests here: it needs contents: write and pull-requests: write on " + c.owner + "/" + c.repo,
		http.StatusNotFound:            "no repository " + c.owner + "/" + c.repo + " that this token can see (check the URL and GITHUB_API_URL)",
		http.StatusUnprocessableEntity: "GitHub refused to " + what + " (" + refused + ")",
	})
}

// find returns the newest pull request from owner:branch, open or
// closed, or nil.
func (c *prCall) find(ctx context.Context) (*github.PullRequest, error) {
	var prs []*github.PullRequest
	err := c.gh.Retry(ctx, func(ctx context.Context) error {
		var err error
		prs, _, err = c.gh.PullRequests.List(ctx, c.owner, c.repo, &github.PullRequestListOptions{State: "all", Head: c.owner + ":" + c.branch})
		return err
	}, nil)
	if err != nil {
		return nil, c.explain(err, "list the pull requests", "a query it does not take")
	}
	if len(prs) == 0 {
		return nil, nil
	}
	return prs[0], nil
}

// open creates the pull request, then labels it and asks the reviewers.
// Before a retry it looks again: a pull request that GitHub created
// despite an error is not opened twice.
func (c *prCall) open(ctx context.Context, base, title, body string, p *PROptions) (*github.PullRequest, error) {
	var pr *github.PullRequest
	err := c.gh.Retry(ctx, func(ctx context.Context) error {
		var err error
		pr, _, err = c.gh.PullRequests.Create(ctx, c.owner, c.repo, &github.NewPullRequest{
			Title: github.Ptr(title), Body: github.Ptr(body), Head: github.Ptr(c.branch),
			Base: github.Ptr(base), Draft: github.Ptr(p.Draft), MaintainerCanModify: github.Ptr(true),
		})
		return err
	}, func(ctx context.Context) (bool, error) {
		found, err := c.find(ctx)
		pr = found
		return found != nil, err
	})
	if err != nil {
		return nil, c.explain(err, "open the pull request", "one from "+c.branch+" may exist under another owner, or the branch has nothing over the base")
	}
	if len(p.Labels) > 0 {
		err := c.gh.Retry(ctx, func(ctx context.Context) error {
			// {"labels": [...]}, the form GitHub's description asks for
			// (go-github's AddLabelsToIssue sends a bare array).
			u := fmt.Sprintf("repos/%s/%s/issues/%d/labels", c.owner, c.repo, pr.GetNumber())
			req, err := c.gh.NewRequest(http.MethodPost, u, map[string][]string{"labels": p.Labels})
			if err == nil {
				_, err = c.gh.Do(ctx, req, nil)
			}
			return err
		}, nil)
		if err != nil {
			return pr, c.explain(err, fmt.Sprintf("label pull request #%d", pr.GetNumber()), "a label name it does not take")
		}
	}
	users, teams, elsewhere := splitReviewers(p.Reviewers, c.owner)
	if len(users)+len(teams) > 0 {
		err := c.gh.Retry(ctx, func(ctx context.Context) error {
			_, _, err := c.gh.PullRequests.RequestReviewers(ctx, c.owner, c.repo, pr.GetNumber(), github.ReviewersRequest{Reviewers: users, TeamReviewers: teams})
			return err
		}, nil)
		if err != nil {
			return pr, c.explain(err, fmt.Sprintf("request reviewers on pull request #%d", pr.GetNumber()),
				"a reviewer must be a collaborator of the repository, and not its author; a team, given as org/team, one of the repository's organization")
		}
	}
	if len(elsewhere) > 0 {
		// The same slug in this organization would be another team.
		return pr, fmt.Errorf("reviewer team %s is not of %s's organization: not requested on pull request #%d", strings.Join(elsewhere, ", "), c.owner, pr.GetNumber())
	}
	return pr, nil
}

// splitReviewers sorts --pr-reviewer values into users (a login) and
// teams (org/team, sent as the team's slug: GitHub takes teams of the
// repository's organization, owner); elsewhere are teams of another.
func splitReviewers(all []string, owner string) (users, teams, elsewhere []string) {
	for _, r := range all {
		org, team, ok := strings.Cut(r, "/")
		switch {
		case !ok:
			users = append(users, r)
		case strings.EqualFold(org, owner):
			teams = append(teams, team)
		default:
			elsewhere = append(elsewhere, r)
		}
	}
	return users, teams, elsewhere
}

func (c *prCall) edit(ctx context.Context, number int, title, body string) error {
	err := c.gh.Retry(ctx, func(ctx context.Context) error {
		_, _, err := c.gh.PullRequests.Edit(ctx, c.owner, c.repo, number, &github.PullRequest{Title: github.Ptr(title), Body: github.Ptr(body)})
		return err
	}, nil)
	if err != nil {
		return c.explain(err, fmt.Sprintf("update pull request #%d", number), "its new title or body")
	}
	return nil
}

// closeNote is the comment left on a pull request closed by a re-run.
const closeNote = prMark + "\nloratune-fix ran again and found nothing left to fix on the default branch, so this pull request is no longer needed. Closing it."

func (c *prCall) close(ctx context.Context, number int) error {
	err := c.gh.Retry(ctx, func(ctx context.Context) error {
		_, _, err := c.gh.Issues.CreateComment(ctx, c.owner, c.repo, number, &github.IssueComment{Body: github.Ptr(closeNote)})
		return err
	}, nil)
	if err == nil {
		err = c.gh.Retry(ctx, func(ctx context.Context) error {
			_, _, err := c.gh.PullRequests.Edit(ctx, c.owner, c.repo, number, &github.PullRequest{State: github.Ptr("closed")})
			return err
		}, nil)
	}
	if err != nil {
		return c.explain(err, fmt.Sprintf("close pull request #%d", number), "the comment or the closing")
	}
	return nil
}

func (r *repo) title() string {
	t := fmt.Sprintf("%s (%d file(s))", commitTitle, len(r.res.Files))
	if len(t) > maxTitleChars {
		t = t[:maxTitleChars]
	}
	return t
}

// body explains the pull request: the rules applied with their why and
// cost, the changes file by file, the findings left alone and why, how
// to reproduce and how to opt out. A body over GitHub's limit lists the
// findings of as many files as fit, with a note.
func (r *repo) body() string {
	if b := r.bodyWith(len(r.files)); len(b) <= maxPRBodyChars {
		return b
	}
	// The body grows with the files listed: the most that fit, by halves.
	lo, hi := 0, len(r.files)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if len(r.bodyWith(mid)) <= maxPRBodyChars {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return r.bodyWith(lo)
}

func (r *repo) bodyWith(listed int) string {
	p := r.o.PR
	var b strings.Builder
	b.WriteString(prMark + "\n")
	fixed, total := 0, 0
	for _, f := range r.files {
		for _, fd := range f.findings {
			total++
			if f.changed && fd.Outcome != finding.OutcomeNotFixed && (fd.Outcome != finding.OutcomeUnsafe || r.o.UnsafeFixes) {
				fixed++
			}
		}
	}
	fmt.Fprintf(&b, "loratune-fix found %d finding(s) in %d file(s) and fixed %d of them in %d file(s), so that LoRA training in bf16 does not end in NaN.\n\n",
		total, len(r.files), fixed, len(r.res.Files))
	profile := p.Profile
	if profile == "" {
		profile = rewrite.ProfileDefault
	}
	for _, pi := range rewrite.Profiles() {
		if pi.Name == profile {
			fmt.Fprintf(&b, "Profile `%s`: %s.\n\n", pi.Name, pi.Doc)
		}
	}
	var codes []string
	for c := range r.applied {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	if len(codes) > 0 {
		b.WriteString("## Rules applied\n\n")
		for _, c := range codes {
			rule := rewrite.Lookup(c)
			if rule == nil {
				fmt.Fprintf(&b, "- **%s** (%d fix(es))\n", c, r.applied[c])
				continue
			}
			fmt.Fprintf(&b, "- **%s %s** (%d fix(es)): %s.", c, rule.Name, r.applied[c], rule.Summary)
			if cost := costOf(rule.Doc); cost != "" {
				fmt.Fprintf(&b, " Cost: %s", cost)
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	var changes, left strings.Builder
	shown := 0
	for _, f := range r.files {
		if shown >= listed {
			break
		}
		shown++
		for _, fd := range f.findings {
			line := fmt.Sprintf("- `%s` line %d: %s %s: %s", f.rel, fd.StartPos.Line, fd.Code, fd.Name, oneLine(fd.Message))
			switch {
			case f.changed && fd.Outcome == finding.OutcomeFixed, f.changed && fd.Outcome == finding.OutcomeUnsafe && r.o.UnsafeFixes:
				changes.WriteString(line + "\n")
			case fd.Outcome == finding.OutcomeUnsafe:
				left.WriteString(line + " (not fixed: its fix is unsafe; `--unsafe-fixes` applies it)\n")
			case fd.Reason != "":
				left.WriteString(line + " (not fixed: " + oneLine(fd.Reason) + ")\n")
			default:
				left.WriteString(line + " (not fixed: no automatic fix; see `loratune-fix rules " + fd.Code + "`)\n")
			}
		}
	}
	if changes.Len() > 0 {
		fmt.Fprintf(&b, "## Changes, file by file\n\n<details><summary>%d file(s) changed</summary>\n\n%s\n</details>\n\n", len(r.res.Files), changes.String())
	}
	if left.Len() > 0 {
		fmt.Fprintf(&b, "## Not fixed\n\n<details><summary>findings left for a person</summary>\n\n%s\n</details>\n\n", left.String())
	}
	if listed < len(r.files) {
		fmt.Fprintf(&b, "The findings of %d more file(s) do not fit here: the command below lists them all, and the report's `files_changed` names every changed file.\n\n", len(r.files)-listed)
	}
	b.WriteString("## Reproduce locally\n\n    " + p.Reproduce + "\n\n")
	b.WriteString("## Opting out\n\n")
	b.WriteString("Keep a line as it is with a comment on it: `# noqa: LTF001` (or `# loratune-fix: ignore[LTF001]`); skip a file with `# loratune-fix: skip-file`; " +
		"turn a rule off for the repository with `ignore = [\"LTF001\"]` under `[tool.loratune-fix]` in pyproject.toml. " +
		"Then close this pull request: the next run finds nothing to fix and leaves the repository alone.\n")
	return b.String()
}

// costOf is the first paragraph of a rule doc's "## Cost" section, on one line.
func costOf(doc string) string {
	_, after, ok := strings.Cut(doc, "## Cost\n")
	if !ok {
		return ""
	}
	para, _, _ := strings.Cut(strings.TrimLeft(after, "\n"), "\n\n")
	return oneLine(para)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
