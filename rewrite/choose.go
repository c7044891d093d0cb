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
	// Skip holds the identities of findings whose fix is dropped (an
	// internal error, a guard's refusal): why, for the finding's outcome.
	// An identity is the finding's code, message and place among the
	// findings of the same code and message (identities): two twin loads
	// in two functions are two findings, and refusing one fix leaves the
	// other.
	Skip map[string]string
	// ids: the identities of the findings of the pass being chosen.
	ids map[*Finding]string
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
	c.ids = identities(findings)
	for i := range findings {
		if fd := &findings[i]; fd.Fix != nil && finding.Overlapping(fd.Fix.Edits) {
			c.Drop(fd, "its fix has overlapping edits; not applied", "its fix has overlapping edits, so it is dropped")
			fd.Fix = nil
			deferred = true
		}
	}
	for i := range findings {
		fd := &findings[i]
		if fd.Fix == nil || len(fd.Fix.Edits) == 0 || c.Skip[c.ID(fd)] != "" {
			continue
		}
		if fd.Fix.Applicability == Unsafe && !c.unsafe || refuses != nil && refuses(fd) {
			continue
		}
		if pass == 0 {
			c.reported[c.ID(fd)] = true
		} else if !c.reported[c.ID(fd)] {
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
	if c.Skip[c.ID(fd)] == "" {
		c.Dropped = append(c.Dropped, fmt.Sprintf("%s %s: %s%s", fd.Code, fd.Name, line, internal))
	}
	c.Skip[c.ID(fd)] = why + internal
}

// ID is the identity of fd, one of the findings last given to Choose.
func (c *FixChoice) ID(fd *Finding) string {
	if id, ok := c.ids[fd]; ok {
		return id
	}
	return fixKey(fd) + "\x000"
}

// identities names each finding by its code, message and place among the
// findings of the same code and message, in the order given (by offset):
// a name that holds from one fix pass to the next, where offsets move.
func identities(findings []Finding) map[*Finding]string {
	ids := make(map[*Finding]string, len(findings))
	seen := map[string]int{}
	for i := range findings {
		k := fixKey(&findings[i])
		ids[&findings[i]] = fmt.Sprintf("%s\x00%d", k, seen[k])
		seen[k]++
	}
	return ids
}
