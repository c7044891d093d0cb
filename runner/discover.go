package runner

import (
	"fmt"
	"hash/fnv"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/loratune/loratune-fix/launch"
)

// skipDirs are never entered: version control, caches, installed packages.
var skipDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, "__pycache__": true, "node_modules": true,
	"site-packages": true, ".venv": true, "venv": true, ".tox": true, ".nox": true,
	".mypy_cache": true, ".ruff_cache": true, ".pytest_cache": true, ".ipynb_checkpoints": true,
}

// Sources reports whether a file name is one loratune-fix reads: Python,
// notebooks, and the YAML, JSON and shell files that may launch training
// (their content decides; see launch.Candidate).
func Sources(name string) bool {
	return strings.HasSuffix(name, ".py") || strings.HasSuffix(name, ".ipynb") || launch.Candidate(name)
}

// WalkOptions choose which files a walk yields.
type WalkOptions struct {
	// NoIgnore walks files that .gitignore and .git/info/exclude exclude.
	NoIgnore bool
	// Exclude are doublestar globs: one without "/" matches a file or
	// folder name at any depth, one with "/" the path relative to the
	// folder argument. A matching folder is not entered.
	Exclude []string
	// Shard keeps a deterministic share of the files (zero: all).
	Shard Shard
}

// Validate reports a malformed glob.
func (o WalkOptions) Validate() error {
	for _, g := range o.Exclude {
		if !doublestar.ValidatePattern(g) {
			return fmt.Errorf("--exclude %q: not a valid glob", g)
		}
	}
	return nil
}

// Shard is the K-th of N shares (0 <= K < N) of a set of paths or
// repositories, chosen by a stable hash so that N machines running the
// same command each take a disjoint share and together cover everything.
type Shard struct{ Index, Count int }

// ParseShard reads "K/N" with 0 <= K < N (JOB_COMPLETION_INDEX counts from 0).
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	k, n, ok := strings.Cut(s, "/")
	ki, err1 := strconv.Atoi(strings.TrimSpace(k))
	ni, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil || ni < 1 || ki < 0 || ki >= ni {
		return Shard{}, fmt.Errorf("--shard %q: want K/N with 0 <= K < N, e.g. 0/4", s)
	}
	return Shard{ki, ni}, nil
}

// Has reports whether key belongs to this shard: FNV-1a of the key, so
// the split is the same on every machine, Go version and run.
func (s Shard) Has(key string) bool {
	if s.Count <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(filepath.ToSlash(key)))
	return h.Sum64()%uint64(s.Count) == uint64(s.Index)
}

// Walk yields the files to process under paths, one at a time, so a walk
// of any size holds only the folders being read. A file argument is
// yielded as it is (even when ignored or excluded: naming it is asking
// for it); a folder is walked recursively for the regular files that
// Sources accepts, in byte order of their paths (the order of `sort`), whatever
// happens after. Symbolic links met inside a folder are not followed:
// no loop is possible, and --write never reaches a file outside the tree
// through a link. A path that cannot be read is yielded with its error.
// Each file is yielded once, however often it is named (a.py ./a.py, a
// file and its folder, a folder and its parent): a second write of the
// same file would find it changed by the first.
func Walk(paths []string, opts WalkOptions) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		args := realArgs(paths)
		for i, p := range paths {
			if args[i].dup {
				continue
			}
			info, err := os.Stat(p)
			if err != nil {
				if !yield(p, &FileError{p, unwrapPathError(err)}) {
					return
				}
				continue
			}
			if !info.IsDir() {
				if opts.Shard.Has(p) && !yield(p, nil) {
					return
				}
				continue
			}
			w := &walker{opts: opts, root: p, yield: yield, slots: make(chan struct{}, listers)}
			if len(paths) > 1 {
				w.realRoot, w.named = args[i].real, args.named()
			}
			var rel []string
			var ign ignoreSet
			if !opts.NoIgnore {
				rel, ign = outerIgnores(p)
			}
			if !w.dir(p, w.list(p), rel, nil, ign) {
				return
			}
		}
	}
}

// arg is a path argument with its real path (absolute, links resolved).
type arg struct {
	real string
	dup  bool // the same real path as an earlier argument
}

type argList []arg

func realArgs(paths []string) argList {
	args := make(argList, len(paths))
	if len(paths) < 2 {
		return args // one argument cannot meet another
	}
	seen := map[string]bool{}
	for i, p := range paths {
		real, err := filepath.Abs(p)
		if err == nil {
			if r, err := filepath.EvalSymlinks(real); err == nil {
				real = r
			}
		}
		args[i] = arg{real: real, dup: seen[real]}
		seen[real] = true
	}
	return args
}

// named is the set of the arguments' real paths: a walk skips them, as
// each is yielded or walked as its own argument.
func (a argList) named() map[string]bool {
	m := make(map[string]bool, len(a))
	for _, x := range a {
		m[x.real] = true
	}
	return m
}

// Discover lists the files Walk yields, and the errors apart.
func Discover(paths []string) ([]string, []error) {
	var files []string
	var errs []error
	for p, err := range Walk(paths, WalkOptions{}) {
		if err != nil {
			errs = append(errs, err)
		} else {
			files = append(files, p)
		}
	}
	return files, errs
}

type walker struct {
	opts WalkOptions
	root string
	// realRoot and named are set when there are several arguments: the
	// walk skips what another argument names (by real path).
	realRoot string
	named    map[string]bool
	yield    func(string, error) bool
	slots    chan struct{} // bounds the folders being listed at once
}

// listers is how many folders are listed at once, and listAhead how many
// subfolders of a folder are listed ahead of the one being walked: the
// listings (system calls that wait on the file system) overlap, while
// paths still come out one at a time, in order.
const listers, listAhead = 8, 16

// listing is a folder's entries, sorted, once done is closed.
type listing struct {
	entries []fs.DirEntry
	openErr error // the folder could not be opened
	readErr error // it could not be read to its end
	done    chan struct{}
}

// list starts listing dir in the background.
func (w *walker) list(dir string) *listing {
	l := &listing{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		w.slots <- struct{}{}
		defer func() { <-w.slots }()
		f, err := os.Open(dir)
		if err != nil {
			l.openErr = err
			return
		}
		l.entries, l.readErr = f.ReadDir(-1)
		f.Close()
		// A folder sorts as "name/", so the paths come out in byte order.
		key := func(e fs.DirEntry) string {
			if e.IsDir() {
				return e.Name() + "/"
			}
			return e.Name()
		}
		sort.Slice(l.entries, func(i, j int) bool { return key(l.entries[i]) < key(l.entries[j]) })
	}()
	return l
}

// dir walks one folder, listed by l. rel is its path from the repository
// root (for ignore patterns), sub its path from the walk's root (for
// --exclude). It returns false when the consumer stopped.
func (w *walker) dir(dir string, l *listing, rel, sub []string, ign ignoreSet) bool {
	<-l.done
	if l.openErr != nil {
		return w.yield(dir, &FileError{dir, unwrapPathError(l.openErr)})
	}
	entries := l.entries
	if l.readErr != nil && !w.yield(dir, &FileError{dir, unwrapPathError(l.readErr)}) {
		return false
	}
	// The entries say what the folder is, without a system call per
	// question: a virtualenv (not entered, unless it is the argument), a
	// repository root, a folder with its own .gitignore.
	for _, e := range entries {
		switch e.Name() {
		case "pyvenv.cfg":
			if len(sub) > 0 {
				return true
			}
		case ".git":
			if !w.opts.NoIgnore && e.IsDir() {
				ign = ign.with(filepath.Join(dir, ".git", "info", "exclude"), rel)
			}
		}
	}
	for _, e := range entries {
		if e.Name() == ".gitignore" && !w.opts.NoIgnore {
			ign = ign.with(filepath.Join(dir, ".gitignore"), rel)
		}
	}
	// First what to yield and what to enter, then the subfolders' listings
	// are started listAhead ahead of the walk through them.
	type child struct {
		path     string
		rel, sub []string
		isDir    bool
		listing  *listing
	}
	var children []child
	var subdirs []int
	for _, e := range entries {
		name, typ := e.Name(), e.Type()
		isDir := typ.IsDir()
		if !isDir && !(typ.IsRegular() && Sources(name)) {
			continue // links, FIFOs, sockets, devices, other files
		}
		c := child{path: filepath.Join(dir, name), isDir: isDir,
			rel: append(rel[:len(rel):len(rel)], name), sub: append(sub[:len(sub):len(sub)], name)}
		if w.excluded(c.sub) || (!w.opts.NoIgnore && ign.ignored(c.rel, isDir)) || isDir && skipDirs[name] {
			continue
		}
		if w.named != nil && w.named[filepath.Join(w.realRoot, filepath.Join(c.sub...))] {
			continue // another argument names it
		}
		if isDir {
			subdirs = append(subdirs, len(children))
		}
		children = append(children, c)
	}
	started, next := 0, 0 // indexes in subdirs: listings started, the next to enter
	listAheadOf := func() {
		for ; started < len(subdirs) && started <= next+listAhead; started++ {
			c := &children[subdirs[started]]
			c.listing = w.list(c.path)
		}
	}
	listAheadOf()
	for i := range children {
		c := &children[i]
		if !c.isDir {
			if w.opts.Shard.Has(c.path) && !w.yield(c.path, nil) {
				return false
			}
			continue
		}
		next++
		listAheadOf()
		if !w.dir(c.path, c.listing, c.rel, c.sub, ign) {
			return false
		}
	}
	return true
}

func (w *walker) excluded(sub []string) bool {
	if len(w.opts.Exclude) == 0 {
		return false
	}
	rel := strings.Join(sub, "/")
	name := sub[len(sub)-1]
	for _, g := range w.opts.Exclude {
		target := rel
		if !strings.Contains(strings.TrimSuffix(g, "/"), "/") {
			target = name
		}
		if ok, _ := doublestar.Match(strings.TrimSuffix(g, "/"), target); ok {
			return true
		}
	}
	return false
}

// outerIgnores finds the repository that holds dir and returns dir's path
// from its root and the patterns in force above dir: .git/info/exclude,
// then the .gitignore files from the root down to dir's parent. Outside
// a repository dir is its own root.
func outerIgnores(dir string) ([]string, ignoreSet) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil
	}
	var chain []string // abs, its parent, ... up to the repository root
	root := ""
	for d := abs; ; {
		chain = append(chain, d)
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			root = d
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	if root == "" || root == abs {
		return nil, nil // dir's own .git and .gitignore are read by the walk
	}
	var ign ignoreSet
	if fi, err := os.Stat(filepath.Join(root, ".git")); err == nil && fi.IsDir() {
		ign = ign.with(filepath.Join(root, ".git", "info", "exclude"), nil)
	}
	var rel []string
	for i := len(chain) - 1; i >= 1; i-- { // root .. dir's parent
		ign = ign.with(filepath.Join(chain[i], ".gitignore"), rel)
		rel = append(rel, filepath.Base(chain[i-1]))
	}
	return rel, ign
}
