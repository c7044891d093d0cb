// Package finding holds what the engine reports and what the output formats
// render: findings with their severities and fixes, byte-range edits,
// positions, and the outcome of one file. It imports nothing of the
// project and no cgo, so that report, review, pins and config depend on
// these values, not on the engine that produces them.
package finding

import "fmt"

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

// Position is a 1-based line and a 1-based column counted in characters.
type Position struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Edit replaces Text[Start:End] with NewText. Offsets are bytes.
type Edit struct {
	Start   int    `json:"start_byte"`
	End     int    `json:"end_byte"`
	NewText string `json:"new_text"`
}

// Span is a byte range [Start, End) of a text. A frozen span that is a
// Wall also separates what a fix may edit: a notebook's cell boundary,
// which no fix may reach across.
type Span struct {
	Start, End int
	Wall       bool
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
	// Adds, set by the engine, is the item this fix adds to the claimed
	// list when its edits compose with other such additions (one insertion
	// that brings its own separator): fixes that each add an item to one
	// list, under different keys, are then applied together. Nil
	// otherwise.
	Adds ListItem `json:"-"`
}

// ListItem is an item a fix adds to a list; Key is the keyword or dict key
// it sets (two additions of one key conflict).
type ListItem interface{ Key() string }

// Finding is one diagnostic of one rule. Start and End are byte offsets in
// the source the rule ran on, as an Edit's are; StartPos and EndPos are the
// same places as lines and columns, filled in by the engine.
type Finding struct {
	Code     string   `json:"code"`
	Name     string   `json:"name"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	Start    int      `json:"-"`
	End      int      `json:"-"`
	StartPos Position `json:"-"`
	EndPos   Position `json:"-"`
	Fix      *Fix     `json:"fix"`
	// Outcome is what fix --write (with --unsafe-fixes when the run has
	// it) does with the finding; Reason says why when it is OutcomeNotFixed.
	// Set by the engine's fix loop, which check runs too.
	Outcome Outcome `json:"outcome"`
	Reason  string  `json:"reason,omitempty"`
	// Withheld says why the rule's fix is withheld from this file (a full
	// fine-tune, library code): Fix is then nil, and Reason says it once.
	Withheld string `json:"-"`
}

// Outcome is the fate of a finding under fix --write.
type Outcome string

const (
	OutcomeFixed    Outcome = "fixed"      // fix --write resolves it
	OutcomeUnsafe   Outcome = "unsafe-fix" // only with --unsafe-fixes
	OutcomeNotFixed Outcome = "not-fixed"  // left as it is; Reason says why
)

func (f Finding) String() string {
	mark := ""
	if f.Fix != nil {
		mark = " [*]"
	}
	return fmt.Sprintf("%d:%d: %s %s:%s %s", f.StartPos.Line, f.StartPos.Column, f.Code, f.Name, mark, f.Message)
}

// FrozenRefuses reports whether the fix of fd may not be applied around
// frozen spans: an edit replaces bytes of a frozen span or inserts strictly
// inside one (inserting at a span's edge is fine), or a wall stands between
// two of its edits or between an edit and the finding's start (the fix
// would span two notebook cells, or lie in another cell than its finding).
func FrozenRefuses(fd *Finding, frozen []Span) bool {
	if fd == nil || fd.Fix == nil {
		return false
	}
	for _, s := range frozen {
		before, after := fd.Start <= s.Start, fd.Start >= s.End
		for _, e := range fd.Fix.Edits {
			if e.Start == e.End {
				if s.Start < e.Start && e.Start < s.End {
					return true
				}
			} else if e.Start < s.End && s.Start < e.End {
				return true
			}
			before = before || e.End <= s.Start
			after = after || e.Start >= s.End
		}
		if s.Wall && before && after {
			return true
		}
	}
	return false
}
