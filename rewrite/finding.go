package rewrite

import (
	"fmt"
	"sort"
)

// Severity orders findings: an error breaks training, a warning may, an info
// is advice.
type Severity string

const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
)

// Applicability says whether a fix is applied by default. An unsafe fix is
// one a careful expert would look at first; it is applied only on request.
type Applicability string

const (
	Safe   Applicability = "safe"
	Unsafe Applicability = "unsafe"
)

// Edit replaces Text[Start:End] with NewText. Offsets are bytes.
type Edit struct {
	Start   int    `json:"start_byte"`
	End     int    `json:"end_byte"`
	NewText string `json:"new_text"`
}

// Fix is a set of edits that must be applied together.
type Fix struct {
	Applicability Applicability `json:"applicability"`
	Message       string        `json:"message"`
	Edits         []Edit        `json:"edits"`
	// Claim names a place that two fixes must not change in the same pass
	// even when their edits do not overlap, such as the argument list that
	// both add a keyword to (each would add its own comma).
	Claim string `json:"-"`
	// add, when set, is the item this fix adds to the claimed list: fixes
	// that each add an item to one list are applied together, rendered
	// as one addition (see listAdd).
	add *listAdd
}

// Finding is one diagnostic of one rule. Start and End are byte offsets in
// the source the rule ran on; the positions are filled in by the engine.
type Finding struct {
	Code     string   `json:"code"`
	Name     string   `json:"name"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	Start    int      `json:"-"`
	End      int      `json:"-"`
	Begin    Position `json:"-"`
	Finish   Position `json:"-"`
	Fix      *Fix     `json:"fix"`
}

func (f Finding) String() string {
	mark := ""
	if f.Fix != nil {
		mark = " [*]"
	}
	return fmt.Sprintf("%d:%d: %s %s:%s %s", f.Begin.Line, f.Begin.Column, f.Code, f.Name, mark, f.Message)
}

func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Start != fs[j].Start {
			return fs[i].Start < fs[j].Start
		}
		return fs[i].Code < fs[j].Code
	})
}
