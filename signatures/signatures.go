// Package signatures knows which keyword arguments the libraries' config,
// trainer and helper classes accept, release by release: transformers'
// TrainingArguments and Trainer, TRL's configs and trainers, PEFT's
// LoraConfig and its kin. The engine asks it before it writes a keyword
// into a call (a fix that adds model_init_kwargs= to TrainingArguments
// would raise TypeError the first time the script runs).
//
// The table (table.json, embedded) is read from the libraries' released
// sources by tools/signatures.py: the newest patch of each minor release
// (transformers from 4.30, TRL from 0.7, PEFT from 0.5) and the
// development heads of TRL and PEFT. To make it again:
//
//	python3 tools/signatures.py --git transformers=REPO --git trl=REPO --git peft=REPO
//
// with clones whose tags vX.Y.Z are the releases (a bare mirror will do;
// or `go generate ./signatures` with TRANSFORMERS_GIT, TRL_GIT and
// PEFT_GIT naming them), then `go test ./signatures ./rewrite ./fixtures`
// and read the diff. The table of this commit was read from the tags of
// huggingface/trl (head of 2026-07-24) and huggingface/peft (head of
// 2026-08-21), and of transformers from the fork 8b-is/transformers, which
// carries upstream's v* tags (its own v4.58.0.post* tags are left out:
// not vX.Y.Z).
package signatures

//go:generate python3 ../tools/signatures.py --git transformers=${TRANSFORMERS_GIT} --git trl=${TRL_GIT} --git peft=${PEFT_GIT} -o table.json

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/loratune/loratune-fix/version"
)

//go:embed table.json
var tableJSON []byte

// table is table.json: the releases read, oldest first, and per class
// ("pkg.Name") the runs of releases ([first, last]) in which it is
// defined, takes **kwargs (open), takes each keyword, and builds on a
// class of another library (base: trl.SFTConfig on
// transformers.TrainingArguments, whose keywords it takes at the version
// of transformers installed beside it).
type table struct {
	Releases map[string][]string `json:"releases"`
	Classes  map[string]struct {
		Defined  [][2]string            `json:"defined"`
		Open     [][2]string            `json:"open"`
		Keywords map[string][][2]string `json:"keywords"`
		Base     map[string][][2]string `json:"base"`
	} `json:"classes"`
}

// class is one class of the table, its runs turned into sets of release
// indexes.
type class struct {
	lib      string
	defined  set
	open     set
	keywords map[string]set
	base     map[string]set
}

// set is a set of release indexes of one library.
type set []bool

type index struct {
	releases map[string][]version.Version // per library, oldest first
	labels   map[string][]string
	classes  map[string]*class
}

var load = sync.OnceValues(func() (*index, error) { return parse(tableJSON) })

func parse(raw []byte) (*index, error) {
	var t table
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("signatures: table.json: %w", err)
	}
	ix := &index{releases: map[string][]version.Version{}, labels: t.Releases, classes: map[string]*class{}}
	for lib, labels := range t.Releases {
		for _, l := range labels {
			v, err := version.Parse(l)
			if err != nil {
				return nil, fmt.Errorf("signatures: table.json: %s %w", lib, err)
			}
			ix.releases[lib] = append(ix.releases[lib], v)
		}
	}
	for name, c := range t.Classes {
		lib, _, _ := strings.Cut(name, ".")
		labels := t.Releases[lib]
		runs := func(rs [][2]string) (set, error) {
			s := make(set, len(labels))
			for _, r := range rs {
				from, to := slices.Index(labels, r[0]), slices.Index(labels, r[1])
				if from < 0 || to < from {
					return nil, fmt.Errorf("signatures: table.json: %s: run %v is not of %s's releases", name, r, lib)
				}
				for i := from; i <= to; i++ {
					s[i] = true
				}
			}
			return s, nil
		}
		cl := &class{lib: lib, keywords: map[string]set{}, base: map[string]set{}}
		var err error
		if cl.defined, err = runs(c.Defined); err != nil {
			return nil, err
		}
		if cl.open, err = runs(c.Open); err != nil {
			return nil, err
		}
		for k, rs := range c.Keywords {
			if cl.keywords[k], err = runs(rs); err != nil {
				return nil, err
			}
		}
		for b, rs := range c.Base {
			if cl.base[b], err = runs(rs); err != nil {
				return nil, err
			}
		}
		ix.classes[name] = cl
	}
	return ix, nil
}

// Class is the table's name for a resolved callee: "transformers.TrainingArguments"
// for transformers.training_args.TrainingArguments (a library's modules
// export its classes under the package's name too), "" when the table
// has no such class.
func Class(qual string) string {
	ix, err := load()
	if err != nil {
		return ""
	}
	lib, _, ok := strings.Cut(qual, ".")
	if !ok {
		return ""
	}
	name := lib + "." + qual[strings.LastIndexByte(qual, '.')+1:]
	if _, ok := ix.classes[name]; !ok {
		return ""
	}
	return name
}

// Refuses says why class (a name Class gives) does not take keyword at the
// versions vs, or "" when it does, or when that is not known: the class is
// not in the table, takes **kwargs there, or is not defined in the
// release that vs names (the script could not import it either). The
// release read for a library is the table's of the pinned major.minor
// (the nearest older one where the table has none of it; the oldest for a
// pin older than the table), the newest where nothing is pinned, and every
// release where the pin names no version (a git commit, a vendored copy):
// then only a keyword that no release takes is refused.
func Refuses(class, keyword string, vs version.Versions) string {
	ix, err := load()
	if err != nil {
		return ""
	}
	cl := ix.classes[class]
	if cl == nil {
		return ""
	}
	at := ix.pick(cl.lib, pinOf(vs, cl.lib))
	for _, i := range at {
		if ix.accepts(cl, keyword, i, vs) {
			return ""
		}
	}
	why := fmt.Sprintf("%s takes no keyword %s in %s", class, keyword, ix.describe(cl.lib, at, pinOf(vs, cl.lib)))
	for _, name := range slices.Sorted(maps.Keys(cl.base)) {
		if b := ix.classes[name]; b != nil && slices.ContainsFunc(at, func(i int) bool { return cl.base[name][i] }) {
			why += fmt.Sprintf(", nor does %s in %s", name, ix.describe(b.lib, ix.pick(b.lib, pinOf(vs, b.lib)), pinOf(vs, b.lib)))
		}
	}
	return why
}

// accepts reports whether cl takes keyword in release i of its library,
// or may: open, or not defined there.
func (ix *index) accepts(cl *class, keyword string, i int, vs version.Versions) bool {
	if !cl.defined[i] || cl.open[i] || cl.keywords[keyword] != nil && cl.keywords[keyword][i] {
		return true
	}
	for name, in := range cl.base {
		b := ix.classes[name]
		if !in[i] || b == nil {
			continue
		}
		for _, j := range ix.pick(b.lib, pinOf(vs, b.lib)) {
			if ix.accepts(b, keyword, j, vs) {
				return true
			}
		}
	}
	return false
}

// pick is the releases of lib to read for the pin v (see Refuses).
func (ix *index) pick(lib string, v version.Version) []int {
	rs := ix.releases[lib]
	switch {
	case len(rs) == 0:
		return nil
	case v.Unreadable():
		all := make([]int, len(rs))
		for i := range all {
			all[i] = i
		}
		return all
	case !v.Known:
		return []int{len(rs) - 1}
	}
	best := 0
	for i, r := range rs {
		if r.Major < v.Major || r.Major == v.Major && r.Minor <= v.Minor {
			best = i
		}
	}
	return []int{best}
}

func (ix *index) describe(lib string, at []int, v version.Version) string {
	switch {
	case v.Unreadable():
		return fmt.Sprintf("any %s release from %s to %s (%s)", lib, ix.labels[lib][0], ix.labels[lib][len(ix.labels[lib])-1], v.Describe(lib))
	case !v.Known:
		return fmt.Sprintf("%s %s, the newest release read (no version pinned)", lib, ix.labels[lib][at[0]])
	}
	read := ix.labels[lib][at[0]]
	if r := ix.releases[lib][at[0]]; r.Major == v.Major && r.Minor == v.Minor {
		return v.Describe(lib)
	}
	return fmt.Sprintf("%s (read as %s)", v.Describe(lib), read)
}

func pinOf(vs version.Versions, lib string) version.Version {
	switch lib {
	case "transformers":
		return vs.Transformers
	case "trl":
		return vs.TRL
	case "peft":
		return vs.Peft
	}
	return version.Version{}
}

// Classes lists the table's classes, sorted.
func Classes() []string {
	ix, err := load()
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(ix.classes))
	for name := range ix.classes {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// Err is the error reading the embedded table, if any (a test fails on it).
func Err() error {
	_, err := load()
	return err
}
