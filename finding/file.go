package finding

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/loratune/loratune-fix/version"
)

// Diag is a finding located in a file (and, for notebooks, a cell).
type Diag struct {
	Finding
	// Cell is the 1-based index of the notebook cell among all cells, 0 for
	// a Python file.
	Cell int
}

// FileResult is the outcome for one file: its findings, its text before
// and after the fixes, and what happened to it.
type FileResult struct {
	Path     string
	Diags    []Diag
	Before   []byte
	After    []byte // equal to Before when nothing changed or not fixing
	Changed  bool
	Written  bool
	Skipped  bool // no trigger word: not parsed
	Dropped  []string
	Versions version.Versions
	// Cells are the notebook cells whose source changed (notebooks only).
	Cells []CellChange
	// Err is a problem with this file alone (unreadable, binary, syntax
	// error, too large); the others go on.
	Err error
}

// CellChange is one notebook cell whose source the fix changed.
type CellChange struct {
	Cell          int // 1-based index among all cells
	Before, After string
}

// DisplayPath is path as messages print it: as it is, or Go-quoted when it
// holds a control character (a newline would split a one-line message) or
// is not UTF-8.
func DisplayPath(path string) string {
	if !utf8.ValidString(path) || strings.IndexFunc(path, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		return strconv.Quote(path)
	}
	return path
}
