package report

import (
	"encoding/json"
	"io"

	"github.com/loratune/loratune-fix/finding"
)

// FileLine is the JSON Lines form of one file (check/fix
// --output-format jsonl): one object per file walked, written as soon as
// the file is done, so a run of any size streams and an interrupted one
// keeps what it did.
type FileLine struct {
	Path     string    `json:"path"`
	Findings []Finding `json:"findings"`
	// Skipped: none of the rules' trigger words; not parsed.
	Skipped bool   `json:"skipped,omitempty"`
	Changed bool   `json:"changed,omitempty"` // fix: the fixes change the file
	Written bool   `json:"written,omitempty"` // fix --write: written to disk
	Error   string `json:"error,omitempty"`
}

// JSONLine writes f as one line of JSON.
func JSONLine(w io.Writer, f *finding.FileResult) error {
	line := FileLine{Path: f.Path, Findings: Flatten(f), Skipped: f.Skipped, Changed: f.Changed, Written: f.Written}
	if f.Err != nil {
		line.Error = f.Err.Error()
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(line)
}
