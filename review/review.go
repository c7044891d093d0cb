// Package review turns the engine's fixes into a pull-request review: fixes
// whose every edited line the pull request added or modified become
// suggestions on those lines; the others go into the review's body as
// patches, never dropped. It also posts the review to GitHub.
package review

import (
	"sort"
	"strings"

	"github.com/loratune/loratune-fix/rewrite"
	"github.com/loratune/loratune-fix/runner"
	"github.com/loratune/loratune-fix/udiff"
)

// Review is everything one run found on a pull request's changed files.
type Review struct {
	CommitID string
	Files    []*File
}

// File is the review of one changed file.
type File struct {
	Path     string
	Notebook bool
	Groups   []*Group
	Notes    []Note
}

// Group is a set of changes that must be applied together, with the
// findings whose fixes they carry: a fix that edits two places makes one
// group of two changes.
type Group struct {
	Path     string
	Notebook bool
	Findings []runner.Diag // empty for a change of a later fix pass
	Changes  []Change
	// Inside: every change lies on lines the pull request added or modified,
	// so each can be a suggestion on its own lines.
	Inside bool
	// Patch is the group's changes alone, in git apply form.
	Patch string
}

// Note is a finding without an applied fix (none offered, or an unsafe
// one): a comment on its line when the pull request changed that line, a
// line of the body otherwise.
type Note struct {
	Path   string
	Diag   runner.Diag
	Inside bool
}

// Line is where a note's comment goes (the finding's first line).
func (n Note) Line() int { return n.Diag.Begin.Line }

// Build reviews one processed file: f must come from runner.Process with
// Fix set, so that f.After is what `fix --write` writes. fd says which
// lines the pull request changed (nil: none).
func Build(f *runner.File, fd *FileDiff) *File {
	if fd == nil {
		fd = &FileDiff{}
	}
	out := &File{Path: f.Path, Notebook: strings.HasSuffix(f.Path, ".ipynb")}
	before, after := string(f.Before), string(f.After)
	cs := changes(before, after, fd.Has)
	starts := lineStarts(before)

	// Union-find over changes: a finding joins every change its edits touch.
	parent := make([]int, len(cs))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	owner := map[int][]int{} // finding index -> changes it touches
	for k, d := range f.Diags {
		if d.Fix == nil {
			continue
		}
		for ci, c := range cs {
			lo, hi := byteSpan(starts, c.From, c.To)
			for _, e := range d.Fix.Edits {
				if touches(e, lo, hi) {
					owner[k] = append(owner[k], ci)
					break
				}
			}
		}
		for _, ci := range owner[k][min(1, len(owner[k])):] {
			parent[find(ci)] = find(owner[k][0])
		}
	}
	groups := map[int]*Group{}
	var order []int
	group := func(ci int) *Group {
		root := find(ci)
		g := groups[root]
		if g == nil {
			g = &Group{Path: f.Path, Notebook: out.Notebook}
			groups[root] = g
			order = append(order, root)
		}
		return g
	}
	for ci, c := range cs {
		g := group(ci)
		g.Changes = append(g.Changes, c)
	}
	for k, d := range f.Diags {
		if len(owner[k]) == 0 {
			line := d.Begin.Line
			out.Notes = append(out.Notes, Note{Path: f.Path, Diag: d, Inside: !out.Notebook && fd.Has(line)})
			continue
		}
		g := group(owner[k][0])
		g.Findings = append(g.Findings, d)
	}
	sort.Slice(order, func(i, j int) bool {
		return groups[order[i]].Changes[0].From < groups[order[j]].Changes[0].From
	})
	for _, root := range order {
		g := groups[root]
		g.Inside = true
		for _, c := range g.Changes {
			g.Inside = g.Inside && fd.Covers(c.From, c.To)
		}
		g.Patch = udiff.Unified(f.Path, before, applyChanges(before, g.Changes), udiff.Palette{})
		out.Groups = append(out.Groups, g)
	}
	return out
}

// touches reports whether edit e falls into the byte range [lo, hi) of a
// change; an insertion touches it at either end too.
func touches(e rewrite.Edit, lo, hi int) bool {
	if e.Start == e.End {
		return lo <= e.Start && e.Start <= hi
	}
	return e.Start < hi && lo < e.End
}

// Suggestions counts the changes that become suggestions.
func (r *Review) Suggestions() int {
	n := 0
	for _, f := range r.Files {
		for _, g := range f.Groups {
			if g.Inside {
				n += len(g.Changes)
			}
		}
	}
	return n
}
