// Package review turns the engine's fixes into a pull-request review: fixes
// whose every edited line the pull request added or modified become
// suggestions on those lines; the others go into the review's body as
// patches, never dropped. It also posts the review to GitHub.
package review

import (
	"sort"
	"strings"

	"github.com/loratune/loratune-fix/finding"
)

// Review is everything one run found on a pull request's changed files.
type Review struct {
	CommitID string
	Files    []*FileReview
	// Problems are changed files that could not be reviewed (a syntax
	// error, a binary file): the body says so rather than staying silent.
	Problems []Problem
}

// Problem is a changed file the engine could not read.
type Problem struct {
	Path, Message string
}

// FileReview is the review of one changed file.
type FileReview struct {
	Path     string
	Notebook bool
	Groups   []*Group
	Notes    []Note
	before   string // the file as the pull request has it
}

// Group is a set of changes that must be applied together, with the
// findings whose fixes they carry: a fix that edits two places makes one
// group of two changes.
type Group struct {
	Path     string
	Notebook bool
	Findings []finding.Diag // empty for a change of a later fix pass
	Changes  []Change
	// Inside: every change lies on lines the pull request added or modified,
	// so each can be a suggestion on its own lines.
	Inside bool
	// New: a finding of the group is on a line the pull request added or
	// modified (for a later pass, a change is); otherwise the findings were
	// already in the file.
	New bool
	// Patch is the group's changes alone, in git apply form, with context
	// lines that no other group changes: it applies with or without the
	// other groups' suggestions and patches applied, except that with
	// AfterSuggestions its context includes a suggestion's text (a change
	// right above a suggested line): it applies once that is committed.
	Patch            string
	AfterSuggestions bool
}

// Note is a finding without an applied fix (none offered, or an unsafe
// one): a comment on its line when the pull request changed that line, a
// line of the body otherwise.
type Note struct {
	Path   string
	Diag   finding.Diag
	Inside bool
	New    bool   // on a line the pull request added or modified (see Group.New)
	Text   string // the source the finding covers, for its fingerprint
}

// Line is where a note's comment goes (the finding's first line).
func (n Note) Line() int { return n.Diag.StartPos.Line }

// Build reviews one processed file: f must come from runner.Process with
// Fix set, so that f.After is what `fix --write` writes; unsafeFixes says
// whether it applied unsafe fixes too. fd says which lines the pull request
// changed (nil: none).
//
// Each fix's edits are widened to whole lines, and edits that share a line
// are merged: the changes a suggestion can carry. When these changes do not
// reproduce f.After (a fix waited for a later pass, or a notebook, whose
// edits are in its cells' sources), the changes come from a line diff of
// f.Before and f.After instead, so applying them always gives what `fix
// --write` gives.
func Build(f *finding.FileResult, fd *FileDiff, unsafeFixes bool) *FileReview {
	if fd == nil {
		fd = &FileDiff{}
	}
	before, after := string(f.Before), string(f.After)
	out := &FileReview{Path: f.Path, Notebook: strings.HasSuffix(f.Path, ".ipynb"), before: before}
	applied := func(d finding.Diag) bool {
		return d.Fix != nil && len(d.Fix.Edits) > 0 && (d.Fix.Applicability != finding.Unsafe || unsafeFixes)
	}
	var cs []Change
	var owner map[int][]int // finding index -> changes it touches
	if !out.Notebook {
		cs, owner = editChanges(before, f.Diags, applied, fd.Has)
	}
	if out.Notebook || applyChanges(before, cs) != after {
		cs = changes(before, after, fd.Has)
		owner = diffOwners(before, cs, f.Diags, applied, out.Notebook)
	}

	// Union-find over changes: a finding joins every change it touches.
	parent := make([]int, len(cs))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for _, cis := range owner {
		for _, ci := range cis[min(1, len(cis)):] {
			parent[find(ci)] = find(cis[0])
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
			line := d.StartPos.Line
			text := ""
			if d.Cell == 0 && 0 <= d.Start && d.Start <= d.End && d.End <= len(before) {
				text = before[d.Start:d.End]
			}
			inside := !out.Notebook && fd.Has(line)
			out.Notes = append(out.Notes, Note{Path: f.Path, Diag: d, Inside: inside, New: inside || onChangedLines(d, fd), Text: text})
			continue
		}
		g := group(owner[k][0])
		g.Findings = append(g.Findings, d)
	}
	var gs []*Group
	for _, root := range order {
		gs = append(gs, groups[root])
	}
	inside := func(g *Group) bool {
		for _, c := range g.Changes {
			if !fd.Covers(c.From, c.To) || !g.Notebook && !c.suggestable() {
				return false
			}
		}
		return true
	}
	for _, g := range gs {
		g.Inside = inside(g)
	}
	gs = separate(gs, strings.Count(before, "\n")+1, inside)
	sort.Slice(gs, func(i, j int) bool { return gs[i].Changes[0].From < gs[j].Changes[0].From })
	for _, g := range gs {
		for _, d := range g.Findings {
			g.New = g.New || onChangedLines(d, fd)
		}
		if len(g.Findings) == 0 {
			for _, c := range g.Changes {
				g.New = g.New || fd.Touches(c.From, c.To)
			}
		}
		others, suggested := otherChanges(gs, func(o *Group) bool { return o != g })
		g.Patch, g.AfterSuggestions = patch(f.Path, before, g.Changes, others, suggested)
		out.Groups = append(out.Groups, g)
	}
	return out
}

// onChangedLines reports whether a finding's lines include one the pull
// request added or modified. A notebook's findings count lines in cells,
// not in the file the diff shows: they count as changed.
func onChangedLines(d finding.Diag, fd *FileDiff) bool {
	return d.Cell > 0 || fd.Touches(d.StartPos.Line, max(d.StartPos.Line, d.EndPos.Line))
}

// suggestion reports whether g's changes become suggestions (rather than
// a patch, in a notebook's comment or in the body).
func (g *Group) suggestion() bool { return g.Inside && !g.Notebook }

// otherChanges returns the changes of the groups that keep: those given
// as patches, and those given as suggestions.
func otherChanges(gs []*Group, keep func(*Group) bool) (patches, suggested []Change) {
	for _, o := range gs {
		switch {
		case !keep(o):
		case o.suggestion():
			suggested = append(suggested, o.Changes...)
		default:
			patches = append(patches, o.Changes...)
		}
	}
	return patches, suggested
}

// separate merges two groups given as patches when a change of one
// starts on the line right after a change of the other: the first patch's
// hunk would have no trailing context, which git apply takes only at the
// end of a file.
func separate(gs []*Group, nlines int, inside func(*Group) bool) []*Group {
	for merged := true; merged; {
		merged = false
	pairs:
		for i, g := range gs {
			if g.suggestion() {
				continue
			}
			for _, c := range g.Changes {
				for j, h := range gs {
					if j == i || h.suggestion() || c.To >= nlines {
						continue
					}
					for _, d := range h.Changes {
						if d.From == c.To+1 {
							g.Findings = append(g.Findings, h.Findings...)
							g.Changes = append(g.Changes, h.Changes...)
							sort.Slice(g.Changes, func(a, b int) bool { return g.Changes[a].From < g.Changes[b].From })
							g.Inside = inside(g)
							gs = append(gs[:j], gs[j+1:]...)
							merged = true
							break pairs
						}
					}
				}
			}
		}
	}
	return gs
}

// editChanges widens the applied fixes' edits to whole lines and merges
// edits that share a line. An insertion of whole lines at a line's start
// takes the line above along, or the line below when only that one is in
// the pull request (prefer).
func editChanges(before string, diags []finding.Diag, applied func(finding.Diag) bool, prefer func(int) bool) ([]Change, map[int][]int) {
	starts := lineStarts(before)
	nlines := len(starts) - 1
	lineOf := func(off int) int { // 1-based line holding byte off
		return sort.Search(nlines, func(i int) bool { return starts[i+1] > off || i+1 == nlines }) + 1
	}
	type piece struct {
		from, to int // lines
		edit     finding.Edit
		finding  int
	}
	var pieces []piece
	for k, d := range diags {
		if !applied(d) {
			continue
		}
		for _, e := range d.Fix.Edits {
			from := lineOf(e.Start)
			to := from
			if e.End > e.Start {
				to = lineOf(e.End - 1)
			}
			if e.Start == e.End && e.Start == starts[from-1] && strings.HasSuffix(e.NewText, "\n") && from > 1 {
				// Whole lines inserted before line from: between two lines.
				if prefer(from-1) || !prefer(from) {
					from, to = from-1, from-1
				}
			}
			pieces = append(pieces, piece{from, to, e, k})
		}
	}
	sort.SliceStable(pieces, func(i, j int) bool { return pieces[i].from < pieces[j].from })
	owner := map[int][]int{}
	var cs []Change
	for i := 0; i < len(pieces); {
		from, to := pieces[i].from, pieces[i].to
		j := i + 1
		for j < len(pieces) && pieces[j].from <= to {
			to = max(to, pieces[j].to)
			j++
		}
		lo, hi := byteSpan(starts, from, to)
		var edits []finding.Edit
		for _, p := range pieces[i:j] {
			edits = append(edits, finding.Edit{Start: p.edit.Start - lo, End: p.edit.End - lo, NewText: p.edit.NewText})
			if cis := owner[p.finding]; len(cis) == 0 || cis[len(cis)-1] != len(cs) {
				owner[p.finding] = append(cis, len(cs))
			}
		}
		neu, err := finding.ApplyEdits([]byte(before[lo:hi]), edits)
		if err != nil {
			return nil, nil // overlapping fixes: the engine needed several passes
		}
		cs = append(cs, Change{From: from, To: to, Old: before[lo:hi], New: string(neu)})
		i = j
	}
	return cs, owner
}

// diffOwners attributes the changes of a line diff to the findings whose
// edits fall into them. In a notebook the edits are offsets into cells, not
// the file: every applied fix then owns every change, one group.
func diffOwners(before string, cs []Change, diags []finding.Diag, applied func(finding.Diag) bool, notebook bool) map[int][]int {
	starts := lineStarts(before)
	owner := map[int][]int{}
	for k, d := range diags {
		if !applied(d) {
			continue
		}
		for ci, c := range cs {
			lo, hi := byteSpan(starts, c.From, c.To)
			for _, e := range d.Fix.Edits {
				if notebook || touches(e, lo, hi) {
					owner[k] = append(owner[k], ci)
					break
				}
			}
		}
	}
	return owner
}

// suggestable reports whether a suggestion can carry c: GitHub replaces
// the lines' text and keeps how the last one ends, so a change that adds or
// removes the file's final newline needs a patch.
func (c Change) suggestable() bool {
	oldNL, newNL := strings.HasSuffix(c.Old, "\n"), strings.HasSuffix(c.New, "\n")
	return oldNL == newNL || oldNL && c.New == ""
}

// touches reports whether edit e falls into the byte range [lo, hi) of a
// change; an insertion touches it at either end too.
func touches(e finding.Edit, lo, hi int) bool {
	if e.Start == e.End {
		return lo <= e.Start && e.Start <= hi
	}
	return e.Start < hi && lo < e.End
}
