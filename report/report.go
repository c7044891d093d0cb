// Package report renders findings for people and for other tools. The JSON
// form is a stable interface, documented in docs/json-output.md.
package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/loratune/loratune-fix/rewrite"
	"github.com/loratune/loratune-fix/runner"
)

// Finding is the JSON form of one finding.
type Finding struct {
	Path      string           `json:"path"`
	Cell      int              `json:"cell,omitempty"`
	Code      string           `json:"code"`
	Name      string           `json:"name"`
	Severity  rewrite.Severity `json:"severity"`
	Message   string           `json:"message"`
	Line      int              `json:"line"`
	Column    int              `json:"column"`
	EndLine   int              `json:"end_line"`
	EndColumn int              `json:"end_column"`
	Fix       *rewrite.Fix     `json:"fix"`
}

// Flatten turns a file's diagnostics into JSON findings.
func Flatten(f *runner.File) []Finding {
	out := make([]Finding, 0, len(f.Diags))
	for _, d := range f.Diags {
		out = append(out, Finding{
			Path: f.Path, Cell: d.Cell, Code: d.Code, Name: d.Name, Severity: d.Severity, Message: d.Message,
			Line: d.Begin.Line, Column: d.Begin.Column, EndLine: d.Finish.Line, EndColumn: d.Finish.Column, Fix: d.Fix,
		})
	}
	return out
}

// Location is "path:line:col" or "path:cell N:line:col" for notebooks.
func Location(path string, d runner.Diag) string {
	path = runner.DisplayPath(path)
	if d.Cell > 0 {
		return fmt.Sprintf("%s:cell %d:%d:%d", path, d.Cell, d.Begin.Line, d.Begin.Column)
	}
	return fmt.Sprintf("%s:%d:%d", path, d.Begin.Line, d.Begin.Column)
}

// Text writes one line per finding:
// path:line:col: LTF001 fp32-master-weights: [*] message
// where [*] marks a finding with a fix, and "[*] (unsafe fix, applied
// with --unsafe-fixes)" one whose fix is applied only on request.
func Text(w io.Writer, f *runner.File) {
	for _, d := range f.Diags {
		mark := ""
		if d.Fix != nil {
			mark = "[*] "
			if d.Fix.Applicability == rewrite.Unsafe {
				mark = "[*] (unsafe fix, applied with --unsafe-fixes) "
			}
		}
		fmt.Fprintf(w, "%s: %s %s: %s%s\n", Location(f.Path, d), d.Code, d.Name, mark, d.Message)
	}
}

// JSONArray collects findings and writes them as one JSON array.
type JSONArray struct {
	all []Finding
}

// Add collects a file's findings.
func (j *JSONArray) Add(f *runner.File) { j.all = append(j.all, Flatten(f)...) }

// Flush writes the array (an empty one when nothing was found).
func (j *JSONArray) Flush(w io.Writer) error {
	if j.all == nil {
		j.all = []Finding{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(j.all)
}
