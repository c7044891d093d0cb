package rewrite

import (
	"fmt"

	"github.com/loratune/loratune-fix/finding"
)

// FixChoice chooses, pass after pass of a fix loop, the fixes applied
// together: the engine's rules over Python and launch's over YAML, JSON
// and shell hold to the same protections through it.
type FixChoice struct {
	unsafe bool
	// Skip holds the FixKeys of dropped fixes (an internal error): why,
	// for the finding's outcome.
	Skip map[string]string
	// Dropped are the lines that name them (Result.Dropped).
	Dropped []string
	// reported are the fixes the findings of the input report: a later
	// pass applies only these, so that every edit belongs to a reported
	// finding.
	reported map[string]bool
}

// NewFixChoice starts a fix loop's choice; unsafe applies fixes marked
// unsafe too.
func NewFixChoice(unsafe bool) *FixChoice {
	return &FixChoice{unsafe: unsafe, Skip: map[string]string{}, reported: map[string]bool{}}
}

// Choose returns the fixes of findings (those of pass number pass) to
// apply together; deferred says that some fix waits for a later pass
// (it conflicts with one chosen) or was dropped. A fix whose own edits
// overlap is dropped here (no order of applying them is right, and JSON
// promises they never do): its finding keeps no fix. refuses, when not
// nil, holds back a fix that may not apply (a notebook's frozen span).
func (c *FixChoice) Choose(pass int, findings []Finding, refuses func(*Finding) bool) (chosen []*Finding, deferred bool) {
	for i := range findings {
		if fd := &findings[i]; fd.Fix != nil && finding.Overlapping(fd.Fix.Edits) {
			c.Drop(fd, "its fix has overlapping edits; not applied", "its fix has overlapping edits, so it is dropped")
			fd.Fix = nil
			deferred = true
		}
	}
	for i := range findings {
		fd := &findings[i]
		if fd.Fix == nil || len(fd.Fix.Edits) == 0 || c.Skip[fixKey(fd)] != "" {
			continue
		}
		if fd.Fix.Applicability == Unsafe && !c.unsafe || refuses != nil && refuses(fd) {
			continue
		}
		if pass == 0 {
			c.reported[fixKey(fd)] = true
		} else if !c.reported[fixKey(fd)] {
			continue // a finding the input did not have: the next run reports it
		}
		free := true
		for _, o := range chosen {
			if finding.Conflicts(o.Fix, fd.Fix) {
				free, deferred = false, true
				break
			}
		}
		if free {
			chosen = append(chosen, fd)
		}
	}
	return chosen, deferred
}

// DropUnparsable drops fd's fix, whose output would not parse (or not as
// the same kind of file).
func (c *FixChoice) DropUnparsable(fd *Finding) {
	c.Drop(fd, "its fix would not parse; not applied", "its fix would not parse, so it is dropped")
}

// Drop drops fd's fix for good, an internal error: line says so in
// Dropped (once), why in the finding's outcome.
func (c *FixChoice) Drop(fd *Finding, line, why string) {
	const internal = " (internal error, please report)"
	if c.Skip[fixKey(fd)] == "" {
		c.Dropped = append(c.Dropped, fmt.Sprintf("%s %s: %s%s", fd.Code, fd.Name, line, internal))
	}
	c.Skip[fixKey(fd)] = why + internal
}
