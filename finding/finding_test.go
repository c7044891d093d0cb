package finding

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

func TestFrozenRefuses(t *testing.T) {
	frozen := []Span{{Start: 10, End: 20}}
	tests := []struct {
		e    Edit
		want bool
	}{
		{Edit{Start: 10, End: 10, NewText: "x"}, false}, // insertion at the start
		{Edit{Start: 20, End: 20, NewText: "x"}, false}, // insertion at the end
		{Edit{Start: 15, End: 15, NewText: "x"}, true},
		{Edit{Start: 5, End: 11}, true},
		{Edit{Start: 19, End: 25}, true},
		{Edit{Start: 0, End: 10}, false},
		{Edit{Start: 20, End: 30}, false},
	}
	for _, tt := range tests {
		if got := FrozenRefuses(&Finding{Start: tt.e.Start, Fix: &Fix{Edits: []Edit{tt.e}}}, frozen); got != tt.want {
			t.Errorf("%+v: %v, want %v", tt.e, got, tt.want)
		}
	}
	if FrozenRefuses(nil, frozen) || FrozenRefuses(&Finding{}, frozen) {
		t.Error("no fix touches nothing")
	}
	// A fix with edits on both sides of a wall spans two cells; around a
	// span that is no wall (a masked magic line) it is fine.
	wall := []Span{{Start: 10, End: 20, Wall: true}}
	across := &Finding{Start: 5, Fix: &Fix{Edits: []Edit{{Start: 5, End: 8}, {Start: 20, End: 20, NewText: "x"}}}}
	if FrozenRefuses(across, frozen) {
		t.Error("edits around a frozen span that is no wall are refused")
	}
	if !FrozenRefuses(across, wall) {
		t.Error("a fix with edits on both sides of a wall is applied")
	}
	// A fix whose edits lie past a wall from its finding: another cell.
	elsewhere := &Finding{Start: 2, Fix: &Fix{Edits: []Edit{{Start: 25, End: 25, NewText: "x"}}}}
	if !FrozenRefuses(elsewhere, wall) {
		t.Error("a fix on the other side of a wall from its finding is applied")
	}
	if FrozenRefuses(&Finding{Start: 0, Fix: &Fix{Edits: []Edit{{Start: 0, End: 2}, {Start: 10, End: 10, NewText: "x"}}}}, wall) {
		t.Error("edits all on one side of a wall (one at its edge) are refused")
	}
}

func TestOverlapping(t *testing.T) {
	ins := func(at int) Edit { return Edit{Start: at, End: at, NewText: "x"} }
	for _, c := range []struct {
		edits []Edit
		want  bool
	}{
		{[]Edit{{Start: 0, End: 5}, {Start: 5, End: 8}}, false},
		{[]Edit{{Start: 0, End: 5}, {Start: 4, End: 8}}, true},
		{[]Edit{{Start: 0, End: 5}, ins(0), ins(5)}, false}, // at the edges
		{[]Edit{{Start: 0, End: 5}, ins(3)}, true},          // strictly inside
		{[]Edit{ins(3), ins(3)}, false},
		{[]Edit{{Start: 5, End: 2}}, true},
		// One fix's lines at one place at two indentations: InOrder
		// would reorder them.
		{[]Edit{{Start: 3, End: 3, NewText: "    a = 1\n"}, {Start: 3, End: 3, NewText: "        b = 2\n"}}, true},
		{[]Edit{{Start: 3, End: 3, NewText: "    a = 1\n"}, {Start: 3, End: 3, NewText: "    b = 2\n"}}, false},
	} {
		if got := Overlapping(c.edits); got != c.want {
			t.Errorf("%v: %v, want %v", c.edits, got, c.want)
		}
	}
}

func TestInsertionsAtOnePlace(t *testing.T) {
	insert := func(at int, text string) *Fix {
		return &Fix{Edits: []Edit{{Start: at, End: at, NewText: text}}}
	}
	cases := []struct {
		name     string
		a, b     *Fix
		conflict bool
	}{
		{"two blocks for the same place, at one indentation, keep rule order",
			insert(10, "    a = 1\n"), insert(10, "    b = 2\n"), false},
		{"a branch's line and a block for after the branch go together, the deeper first",
			insert(10, "    # block\n    a = 1\n"), insert(10, "        model.x = False\n"), false},
		{"the same after a line break: the second waits",
			insert(10, "\n    a = 1"), insert(10, "\n        b = 2"), true},
		{"a line and text within a line: the second waits",
			insert(10, "    a = 1\n"), insert(10, ", b=2"), true},
		{"tabs against spaces: no deeper one, the second waits",
			insert(10, "\ta = 1\n"), insert(10, "        b = 2\n"), true},
		{"the same text twice: the second finds the first",
			insert(10, "import torch\n"), insert(10, "import torch\n"), true},
		{"different places", insert(10, "    a = 1\n"), insert(20, "        b = 2\n"), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Conflicts(c.a, c.b); got != c.conflict {
				t.Errorf("Conflicts = %v, want %v", got, c.conflict)
			}
			if got := Conflicts(c.b, c.a); got != c.conflict {
				t.Errorf("Conflicts (swapped) = %v, want %v", got, c.conflict)
			}
		})
	}
}

func TestInOrderPutsDeeperLinesFirst(t *testing.T) {
	ins := func(at int, text string) Edit { return Edit{Start: at, End: at, NewText: text} }
	texts := func(es []Edit) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.NewText)
		}
		return out
	}
	for _, c := range []struct {
		name  string
		edits []Edit
		want  []string
	}{
		{"whole lines at one offset: deepest first, equals in the order given",
			[]Edit{ins(4, "a\n"), ins(4, "    b\n"), ins(4, "        c\n"), ins(4, "    d\n")},
			[]string{"        c\n", "    b\n", "    d\n", "a\n"}},
		{"text within a line among them: all in the order given",
			[]Edit{ins(4, "a\n"), ins(4, "# "), ins(4, "    b\n")},
			[]string{"a\n", "# ", "    b\n"}},
		{"different offsets and a replacement: by offset, insertion first",
			[]Edit{{Start: 4, End: 6, NewText: "r"}, ins(9, "    x\n"), ins(4, "y\n"), ins(4, "    z\n")},
			[]string{"    z\n", "y\n", "r", "    x\n"}},
	} {
		if got := texts(InOrder(c.edits)); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// InOrder's order is the one sort.SliceStable gave with the rule's
// comparisons (by start; an insertion before a replacement; whole lines
// at one offset deepest first), on many mixed lists of edits.
func TestInOrderEqualsSliceStable(t *testing.T) {
	reference := func(edits []Edit) []Edit {
		es := append([]Edit(nil), edits...)
		sort.SliceStable(es, func(i, j int) bool {
			if es[i].Start != es[j].Start {
				return es[i].Start < es[j].Start
			}
			return es[i].Start == es[i].End && es[j].Start != es[j].End
		})
		for i := 0; i < len(es); {
			j := i + 1
			for j < len(es) && es[j].Start == es[i].Start && es[j].End == es[j].Start {
				j++
			}
			if run := es[i:j]; len(run) > 1 && run[0].End == run[0].Start && allWholeLines(run) {
				sort.SliceStable(run, func(a, b int) bool {
					return len(indentOf(run[a].NewText)) > len(indentOf(run[b].NewText))
				})
			}
			i = j
		}
		return es
	}
	texts := []string{"a\n", "    b\n", "        c\n", "  d\n", "# ", "x", "\n    y\n", ""}
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 2000 {
		var edits []Edit
		for k := range 1 + n%9 {
			at := r.IntN(4)
			// Each text marked with its place in the list (before its
			// line break, so that whole lines stay whole), so that an
			// order that is not the stable one shows.
			text, mark := texts[r.IntN(len(texts))], strconv.Itoa(k)
			if body, ok := strings.CutSuffix(text, "\n"); ok {
				text = body + mark + "\n"
			} else {
				text += mark
			}
			e := Edit{Start: at, End: at, NewText: text}
			if r.IntN(3) == 0 {
				e.End = at + 1 + r.IntN(2)
			}
			edits = append(edits, e)
		}
		if got, want := InOrder(edits), reference(edits); !slices.Equal(got, want) {
			t.Fatalf("%v: %v, sort.SliceStable %v", edits, got, want)
		}
	}
}
