// Package migrate runs the engine over many git repositories: for each
// one it clones (or uses a local checkout), creates or reuses a branch,
// applies the fixes, commits them with a message naming the rules and the
// files, and can push the branch. It drives the real git command, so
// users' credentials and configuration apply. One repository's failure
// never stops the others: it is reported with its reason.
package migrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/gitcmd"
	"github.com/loratune/loratune-fix/rewrite"
	"github.com/loratune/loratune-fix/runner"
	"github.com/loratune/loratune-fix/udiff"
)

// DefaultBranch is the branch the fixes go to.
const DefaultBranch = "loratune-fix/bf16-stability"

// Status says what happened to a repository.
type Status string

const (
	Clean       Status = "clean"        // nothing to fix: no branch, no commit
	UpToDate    Status = "up-to-date"   // the branch already holds every fix
	Changed     Status = "changed"      // a new commit on the branch
	WouldChange Status = "would-change" // --dry-run: fixes to commit, shown, not written
	// LeftAlone: --open-pr left the branch and its pull request as they
	// were (pr.reason says why); nothing was pushed.
	LeftAlone Status = "left-alone"
	Failed    Status = "error" // see Result.Error; the others went on
)

// Options configure a migration.
type Options struct {
	// Workdir receives the clones of repositories given as URLs.
	Workdir string
	// Branch is created from the default branch, or reused.
	Branch string
	// Author ("Name <email>") of the commits; empty: git's configuration.
	Author string
	// Push pushes the branch to origin.
	Push bool
	// Runner holds the engine (and Jobs, the workers per repository).
	Runner *runner.Options
	// UnsafeFixes: the engine applies unsafe fixes too (for the commit
	// message's list of the rules applied).
	UnsafeFixes bool
	// Walk chooses the files in each repository (its Shard is ignored:
	// shards split repositories here).
	Walk runner.WalkOptions
	// Env is added to git's environment (tests set an identity).
	Env []string
	// Stop, once closed, starts no new repository while those in flight
	// finish (the first Ctrl-C); cancelling RunAll's context stops those
	// too (the second). Nil: only the context stops a run.
	Stop <-chan struct{}
	// PR, when set, ends each repository in a pull request (URLs only):
	// the branch is rebuilt from the default branch on every run.
	PR *PROptions
	// DryRun (without PR) writes, commits and pushes nothing: each
	// repository that would change is shown on Out, as its commit message
	// and the diff of its files.
	DryRun bool
	Out    io.Writer
}

// Phases are the seconds spent in each step of one repository.
type Phases struct {
	Clone  float64 `json:"clone"`  // clone or fetch, and the branch checkout
	Fix    float64 `json:"fix"`    // walk, parse, rules, writes
	Commit float64 `json:"commit"` // add and commit
	Push   float64 `json:"push"`
}

// Result is one line of the report.
type Result struct {
	Repo     string         `json:"repo"`
	Status   Status         `json:"status"`
	Branch   string         `json:"branch,omitempty"`
	Commit   string         `json:"commit,omitempty"`
	Pushed   bool           `json:"pushed,omitempty"`
	Files    []string       `json:"files_changed"`
	Findings map[string]int `json:"findings_by_code"`
	Seconds  float64        `json:"seconds"`
	Phases   Phases         `json:"phases"`
	Error    string         `json:"error,omitempty"`
	// PR is the pull request (--open-pr).
	PR *PR `json:"pr,omitempty"`
	// Dir is the work tree used: the local path or the clone.
	Dir string `json:"dir,omitempty"`
}

// Done reports whether a later run (--resume) may skip the repository: a
// dry run's commit or pull request was not made, so it is not done.
func (r *Result) Done() bool {
	return r.Status != Failed && r.Status != WouldChange && r.Status != "" && (r.PR == nil || r.PR.State != PRDryRun)
}

// IsURL tells a git URL ("https://...", "file://...", "git@host:org/x")
// from a local path.
func IsURL(spec string) bool {
	return strings.Contains(spec, "://") || scpLike.MatchString(spec)
}

var scpLike = regexp.MustCompile(`^[A-Za-z0-9._-]+@[A-Za-z0-9._-]+:`)

// cloneDir is where a URL is cloned under workdir: its host and path, so
// two repositories of the same name do not meet.
func cloneDir(workdir, spec string) string {
	s := spec
	if u, err := url.Parse(spec); err == nil && u.Scheme != "" {
		s = u.Host + "/" + u.Path
	} else if m := scpLike.FindString(spec); m != "" {
		_, host, _ := strings.Cut(strings.TrimSuffix(m, ":"), "@") // git@host:org/x
		s = host + "/" + spec[len(m):]
	}
	s = strings.TrimSuffix(strings.TrimSuffix(s, "/"), ".git")
	var parts []string
	for _, p := range strings.Split(s, "/") {
		if p != "" && p != "." && p != ".." {
			parts = append(parts, p)
		}
	}
	return filepath.Join(append([]string{workdir}, parts...)...)
}

// repo is the state of one repository being migrated.
type repo struct {
	o       *Options
	res     *Result
	git     gitcmd.Git
	restore string         // local checkouts: the branch to return to
	existed bool           // the branch was there before this run
	applied map[string]int // fixes by rule code in the changed files
	files   []fileFindings // the files with findings, for a pull request's body
	pr      prFacts
}

// Run migrates one repository. Cancelling ctx stops it at the next safe
// point: network commands are killed, an analysis stops, nothing is
// written; once files are written, their commit (or its roll-back) and
// the return to the original branch run to the end. A repository cut
// short is reported as an error whose reason says so.
func Run(ctx context.Context, o *Options, spec string) *Result {
	start := time.Now()
	if o.Branch == "" {
		copied := *o
		copied.Branch = DefaultBranch
		o = &copied
	}
	res := &Result{Repo: spec, Branch: o.Branch, Files: []string{}, Findings: map[string]int{}}
	r := &repo{o: o, res: res, applied: map[string]int{}}
	if err := r.run(ctx, spec); err != nil {
		res.Status, res.Error = Failed, err.Error()
	}
	if r.restore != "" {
		// Leave a local checkout on the branch it was on.
		if _, err := r.git.Run(ctx, "switch", "-q", r.restore); err != nil {
			res.Status = Failed
			res.Error = joinErrors(res.Error, fmt.Sprintf("not put back on %s: %v", r.restore, err))
		}
	}
	if res.Status == Clean {
		res.Branch = ""
	}
	res.Seconds = time.Since(start).Seconds()
	return res
}

func (r *repo) run(ctx context.Context, spec string) error {
	t := time.Now()
	err := r.checkout(ctx, spec)
	r.res.Phases.Clone = time.Since(t).Seconds()
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return gitcmd.ErrInterrupted
	}

	t = time.Now()
	changed, err := r.fix(ctx)
	r.res.Phases.Fix = time.Since(t).Seconds()
	if err != nil {
		return err
	}

	t = time.Now()
	switch {
	case len(changed) > 0 && r.o.DryRun && r.o.PR == nil:
		r.res.Status = WouldChange
		r.show(changed)
		return nil
	case len(changed) > 0:
		err = r.commit(ctx, changed)
		r.res.Status = Changed
	case r.existed:
		r.res.Status = UpToDate
	default:
		r.res.Status = Clean
	}
	r.res.Phases.Commit = time.Since(t).Seconds()
	if err != nil {
		return err
	}
	if r.res.Status != Clean {
		if r.res.Commit, err = r.git.Run(ctx, "rev-parse", "HEAD"); err != nil {
			return err
		}
	}
	if r.o.PR != nil {
		t = time.Now()
		err = r.pullRequest(ctx, spec)
		r.res.Phases.Push = time.Since(t).Seconds()
		return err
	}
	if r.res.Status == Clean {
		return nil
	}
	if r.o.Push {
		t = time.Now()
		_, err = r.git.Network(ctx, "push", "-q", "-u", "origin", "refs/heads/"+r.o.Branch+":refs/heads/"+r.o.Branch)
		r.res.Phases.Push = time.Since(t).Seconds()
		if err != nil {
			return err
		}
		r.res.Pushed = true
	}
	return nil
}

// checkout gets the work tree ready: cloned or fetched, clean, and on the
// branch when it exists (locally or on origin), else on the default
// branch's tip where the branch will start.
func (r *repo) checkout(ctx context.Context, spec string) error {
	r.git = gitcmd.Git{Env: r.o.Env}
	if !IsURL(spec) {
		if r.o.PR != nil {
			return errors.New("--open-pr needs the repository's URL, not a local checkout")
		}
		return r.checkoutLocal(ctx, spec)
	}
	if r.o.Workdir == "" {
		return errors.New("a URL needs --workdir to clone into")
	}
	dir := cloneDir(r.o.Workdir, spec)
	r.res.Dir = dir
	r.git.Dir = dir
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		origin, err := r.git.Run(ctx, "remote", "get-url", "origin")
		if err != nil || origin != spec {
			return fmt.Errorf("%s holds a clone of %q, not of this repository", dir, origin)
		}
		if err := r.clean(ctx); err != nil {
			return err
		}
		if _, err := r.git.Network(ctx, "fetch", "-q", "--depth", "1", "--no-tags", "origin"); err != nil {
			return err
		}
	} else {
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return err
		}
		// Shallow: one commit is all a fix needs. (git ignores --depth for
		// a plain local path, which file:// avoids.)
		if _, err := (gitcmd.Git{Env: r.o.Env}).Network(ctx, "clone", "-q", "--depth", "1", "--no-tags", "--", spec, dir); err != nil {
			os.RemoveAll(dir) // no half-made clone for the next run to trip on
			return err
		}
	}
	head, err := r.git.Run(ctx, "symbolic-ref", "--short", "refs/remotes/origin/HEAD")
	if err != nil {
		return fmt.Errorf("cannot tell origin's default branch: %w", err)
	}
	if r.o.PR != nil {
		// The branch is made afresh from the default branch: a re-run sees
		// what is left to fix there, and its branch replaces the old one.
		r.pr.base = strings.TrimPrefix(head, "origin/")
		if _, err := r.git.Run(ctx, "switch", "-q", "--detach", head); err != nil {
			return err
		}
		if _, err := r.git.Run(ctx, "rev-parse", "-q", "--verify", "refs/heads/"+r.o.Branch); err == nil {
			if _, err := r.git.Run(ctx, "branch", "-q", "-D", r.o.Branch); err != nil {
				return err
			}
		}
		return r.remoteBranch(ctx)
	}
	if ok, err := r.switchExisting(ctx); ok || err != nil {
		return err
	}
	remote, err := r.git.Network(ctx, "ls-remote", "--heads", "origin", "refs/heads/"+r.o.Branch)
	if err != nil {
		return err
	}
	if remote != "" {
		ref := "refs/remotes/origin/" + r.o.Branch
		if _, err := r.git.Network(ctx, "fetch", "-q", "--depth", "1", "--no-tags", "origin", "+refs/heads/"+r.o.Branch+":"+ref); err != nil {
			return err
		}
		if _, err := r.git.Run(ctx, "switch", "-q", "--no-track", "-c", r.o.Branch, "origin/"+r.o.Branch); err != nil {
			return err
		}
		r.existed = true
		return nil
	}
	_, err = r.git.Run(ctx, "switch", "-q", "--detach", head)
	return err
}

// checkoutLocal uses a checkout in place: its current branch is the base,
// and it is put back on that branch afterwards.
func (r *repo) checkoutLocal(ctx context.Context, dir string) error {
	r.res.Dir = dir
	r.git.Dir = dir
	if fi, err := os.Stat(dir); err != nil {
		return fmt.Errorf("no such repository: %w", unwrapPathError(err))
	} else if !fi.IsDir() {
		return errors.New("not a folder: give the top folder of a git checkout, or a URL")
	}
	top, err := r.git.Run(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		return fmt.Errorf("not a git repository: %w", err)
	}
	if abs, _ := filepath.Abs(dir); filepath.Clean(abs) != filepath.Clean(top) {
		if real, err := filepath.EvalSymlinks(abs); err != nil || real != top {
			return fmt.Errorf("%s is inside the repository %s: give its top folder", dir, top)
		}
	}
	if err := r.clean(ctx); err != nil {
		return err
	}
	cur, err := r.git.Run(ctx, "symbolic-ref", "-q", "--short", "HEAD")
	if err != nil {
		return errors.New("HEAD is detached: check out the default branch first")
	}
	if cur == r.o.Branch {
		return fmt.Errorf("the checkout is on %s itself: check out the default branch first", r.o.Branch)
	}
	if _, err := r.git.Run(ctx, "rev-parse", "-q", "--verify", "HEAD"); err != nil {
		return errors.New("the repository has no commit yet")
	}
	r.restore = cur
	_, err = r.switchExisting(ctx)
	return err
}

// switchExisting switches to the branch when it exists locally.
func (r *repo) switchExisting(ctx context.Context) (bool, error) {
	if _, err := r.git.Run(ctx, "rev-parse", "-q", "--verify", "refs/heads/"+r.o.Branch); err != nil {
		return false, nil
	}
	r.existed = true
	_, err := r.git.Run(ctx, "switch", "-q", r.o.Branch)
	return true, err
}

// clean refuses a work tree with changes or untracked files: the fixes
// must be the commit's only content, and nothing of the user's is touched.
func (r *repo) clean(ctx context.Context) error {
	out, err := r.git.Run(ctx, "status", "--porcelain")
	if err != nil {
		return err
	}
	if out != "" {
		n := len(strings.Split(out, "\n"))
		return fmt.Errorf("dirty work tree (%d changed or untracked path(s)): commit or stash them first", n)
	}
	return nil
}

// pending is one fixed file, not yet written.
type pending struct {
	rel           string
	before, after []byte
}

// fix runs the engine over the work tree. Nothing is written unless every
// file went through: a file that cannot be read or parsed makes the
// repository an error with nothing changed.
func (r *repo) fix(ctx context.Context) ([]pending, error) {
	opts := *r.o.Runner
	opts.Fix, opts.Write = true, false
	walk := r.o.Walk
	walk.Shard = runner.Shard{}
	var changed []pending
	var errs []string
	runner.RunSeq(ctx, &opts, runner.Walk([]string{r.res.Dir}, walk), func(f *finding.FileResult) {
		rel, _ := filepath.Rel(r.res.Dir, f.Path)
		rel = filepath.ToSlash(rel)
		if f.Err != nil {
			errs = append(errs, strings.TrimPrefix(f.Err.Error(), r.res.Dir+string(filepath.Separator)))
			return
		}
		ff := fileFindings{rel: rel, changed: f.Changed}
		for _, d := range f.Diags {
			r.res.Findings[d.Code]++
			ff.findings = append(ff.findings, d.Finding)
		}
		if len(ff.findings) > 0 {
			r.files = append(r.files, ff)
		}
		for _, d := range f.Dropped {
			errs = append(errs, rel+": "+d)
		}
		if f.Changed {
			changed = append(changed, pending{rel, f.Before, f.After})
			for _, d := range f.Diags {
				if d.Fix != nil && (d.Fix.Applicability != finding.Unsafe || r.o.UnsafeFixes) {
					r.applied[d.Code]++
				}
			}
		}
	})
	if ctx.Err() != nil {
		return nil, gitcmd.ErrInterrupted
	}
	if len(errs) > 0 {
		more := ""
		if len(errs) > 3 {
			more = fmt.Sprintf(" (and %d more)", len(errs)-3)
			errs = errs[:3]
		}
		return nil, fmt.Errorf("%s%s; nothing changed", strings.Join(errs, "; "), more)
	}
	if r.o.DryRun && r.o.PR == nil {
		for _, p := range changed {
			r.res.Files = append(r.res.Files, p.rel)
		}
		return changed, nil
	}
	for i, p := range changed {
		path := filepath.Join(r.res.Dir, filepath.FromSlash(p.rel))
		info, err := os.Stat(path)
		if err == nil {
			err = runner.WriteAtomic(path, p.before, p.after, info)
		}
		if err != nil {
			var rel []string
			for _, done := range changed[:i] {
				rel = append(rel, done.rel)
			}
			if len(rel) > 0 {
				if _, rerr := r.git.Run(ctx, append([]string{"checkout", "-q", "--"}, rel...)...); rerr != nil {
					return nil, fmt.Errorf("%s: %w; rolling back the files written before it failed: %v", p.rel, err, rerr)
				}
			}
			return nil, fmt.Errorf("%s: %w; nothing changed", p.rel, err)
		}
		r.res.Files = append(r.res.Files, p.rel)
	}
	return changed, nil
}

// commit puts the written files on the branch in one commit. On failure
// the work tree and index are put back as they were, and a step of that
// roll-back that fails is named in the error.
func (r *repo) commit(ctx context.Context, changed []pending) error {
	had := r.existed
	undo := func(err error) error {
		var failed []string
		note := func(e error) {
			if e != nil {
				failed = append(failed, e.Error())
			}
		}
		_, e := r.git.Run(ctx, "reset", "-q")
		note(e)
		for _, p := range changed { // the files as they were, without git
			path := filepath.Join(r.res.Dir, filepath.FromSlash(p.rel))
			info, e := os.Stat(path)
			if e == nil {
				e = runner.WriteAtomic(path, p.after, p.before, info)
			}
			if e != nil {
				note(fmt.Errorf("%s: %w", p.rel, e))
			}
		}
		if !had && r.existed {
			// No branch without its commit: a later run would call it
			// up to date. HEAD leaves it where it started (the commit is
			// the same); a local checkout is then put back on its branch.
			_, e = r.git.Run(ctx, "switch", "-q", "--detach")
			note(e)
			_, e = r.git.Run(ctx, "branch", "-q", "-D", r.o.Branch)
			note(e)
			r.existed = false
		}
		if len(failed) > 0 {
			return fmt.Errorf("%w; rolling back failed: %s", err, strings.Join(failed, "; "))
		}
		return err
	}
	if !had {
		if _, err := r.git.Run(ctx, "switch", "-q", "-c", r.o.Branch); err != nil {
			return undo(err)
		}
		r.existed = true
	}
	if _, err := r.git.Run(ctx, append([]string{"add", "--"}, r.res.Files...)...); err != nil {
		return undo(err)
	}
	args := []string{"commit", "-q", "--no-verify", "-m", r.message()}
	if r.o.Author != "" {
		args = append(args, "--author", r.o.Author)
	}
	g := r.git
	if r.o.Author != "" {
		if email, _ := g.Run(ctx, "config", "user.email"); email == "" {
			// No identity configured: the author commits too.
			name, mail, _ := strings.Cut(r.o.Author, "<")
			g.Env = append(append([]string{}, g.Env...), "GIT_COMMITTER_NAME="+strings.TrimSpace(name),
				"GIT_COMMITTER_EMAIL="+strings.TrimSuffix(strings.TrimSpace(mail), ">"))
		}
	}
	if _, err := g.Run(ctx, args...); err != nil {
		return undo(err)
	}
	return nil
}

// show prints what a dry run would commit: the commit message, then the
// diff of each file (paths relative to the repository).
func (r *repo) show(changed []pending) {
	if r.o.Out == nil {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "=== %s: would commit to %s (dry run: nothing written)\n%s\n", r.res.Repo, r.o.Branch, r.message())
	for _, p := range changed {
		b.WriteString(udiff.Unified(p.rel, string(p.before), string(p.after), udiff.Palette{}))
	}
	io.WriteString(r.o.Out, b.String())
}

// message lists the rules whose fixes were applied and the files.
func (r *repo) message() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n", commitTitle)
	var codes []string
	for c := range r.applied {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	b.WriteString("Rules applied:\n")
	for _, c := range codes {
		name := c
		if rule := rewrite.Lookup(c); rule != nil {
			name = c + " " + rule.Name
		}
		fmt.Fprintf(&b, "- %s (%d fix(es))\n", name, r.applied[c])
	}
	b.WriteString("\nFiles:\n")
	for _, f := range r.res.Files {
		fmt.Fprintf(&b, "- %s\n", f)
	}
	b.WriteString("\n`loratune-fix rules CODE` explains each rule and what its fix costs.\n")
	return b.String()
}

// RunAll migrates repos with jobs of them at a time and calls done (from
// one goroutine at a time) as each finishes. After o.Stop is closed or ctx
// cancelled no new repository starts; cancelling ctx also stops the
// repositories in flight at their next safe point (see Run), and each of
// them still gets its done call.
func RunAll(ctx context.Context, o *Options, repos []string, jobs int, done func(*Result)) {
	if jobs < 1 {
		jobs = 1
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan string)
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for spec := range next {
				o := *o
				res := Run(ctx, &o, spec)
				mu.Lock()
				done(res)
				mu.Unlock()
			}
		}()
	}
feed:
	for _, spec := range repos {
		select {
		case <-o.Stop:
			break feed
		case <-ctx.Done():
			break feed
		default:
		}
		select {
		case next <- spec:
		case <-o.Stop:
			break feed
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
}

// joinErrors joins two report messages, either of which may be empty.
func joinErrors(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
