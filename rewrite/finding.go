package rewrite

import (
	"sort"

	"github.com/loratune/loratune-fix/finding"
)

// The value types live in package finding (no cgo), so that the output
// formats depend on them and not on the engine; these names keep the rules'
// code.
type (
	Severity      = finding.Severity
	Applicability = finding.Applicability
	Position      = finding.Position
	Edit          = finding.Edit
	Span          = finding.Span
	Fix           = finding.Fix
	Finding       = finding.Finding
)

const (
	SeverityError   = finding.SeverityError
	SeverityWarning = finding.SeverityWarning
	SeverityInfo    = finding.SeverityInfo
	Safe            = finding.Safe
	Unsafe          = finding.Unsafe
)

func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Start != fs[j].Start {
			return fs[i].Start < fs[j].Start
		}
		return fs[i].Code < fs[j].Code
	})
}
