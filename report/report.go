// Package report renders findings for people and for other tools. The JSON
// form is a stable interface, documented in docs/json-output.md.
package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/loratune/loratune-fix/finding"
)

// Finding is the JSON form of one finding.
type Finding struct {
	Path      string           `json:"path"`
	Cell      int              `json:"cell,omitempty"`
	Code      string           `json:"code"`
	Name      string           `json:"name"`
	Severity  finding.Severity `json:"severity"`
	Message   string           `json:"message"`
	Line      int              `json:"line"`
	Column    int              `json:"column"`
	EndLine   int              `json:"end_line"`
	EndColumn int              `json:"end_column"`
	Fix       *finding.Fix     `json:"fix"`
	Outcome   finding.Outcome  `json:"outcome"`
	Reason    string           `json:"reason,omitempty"`
}

// Flatten turns a file's diagnostics into JSON findings.
func Flatten(f *finding.FileResult) []Finding {
	out := make([]Finding, 0, len(f.Diags))
	for _, d := range f.Diags {
		out = append(out, Finding{
			Path: f.Path, Cell: d.Cell, Code: d.Code, Name: d.Name, Severity: d.Severity, Message: d.Message,
			Line: d.StartPos.Line, Column: d.StartPos.Column, EndLine: d.EndPos.Line, EndColumn: d.EndPos.Column, Fix: d.Fix,
			Outcome: d.Outcome, Reason: d.Reason,
		})
	}
	return out
}

// Location is "path:line:col" or "path:cell N:line:col" for notebooks.
func Location(path string, d finding.Diag) string {
	path = finding.DisplayPath(path)
	if d.Cell > 0 {
		return fmt.Sprintf("%s:cell %d:%d:%d", path, d.Cell, d.StartPos.Line, d.StartPos.Column)
	}
	return fmt.Sprintf("%s:%d:%d", path, d.StartPos.Line, d.StartPos.Column)
}

// Text writes one line per finding, its severity where compilers put it:
// path:line:col: error: LTF001 fp32-master-weights: [*] message
// where [*] marks a finding that fix --write resolves, "[*] (unsafe fix,
// applied with --unsafe-fixes)" one resolved only on request, and "(not
// fixed: reason)" one whose fix is not applied.
func Text(w io.Writer, f *finding.FileResult) {
	for _, d := range f.Diags {
		fmt.Fprintf(w, "%s: %s: %s %s: %s%s\n", Location(f.Path, d), d.Severity, d.Code, d.Name, mark(d.Finding), d.Message)
	}
}

func mark(fd finding.Finding) string {
	switch {
	case fd.Outcome == finding.OutcomeFixed:
		return "[*] "
	case fd.Outcome == finding.OutcomeUnsafe:
		return "[*] (unsafe fix, applied with --unsafe-fixes) "
	case (fd.Fix != nil || fd.Withheld != "") && fd.Reason != "":
		return "(not fixed: " + fd.Reason + ") "
	}
	return ""
}

// JSONArray collects findings and writes them as one JSON array.
type JSONArray struct {
	all []Finding
}

// Add collects a file's findings.
func (j *JSONArray) Add(f *finding.FileResult) { j.all = append(j.all, Flatten(f)...) }

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

// Concise writes one short line per finding, as ruff's concise format:
// path:line:col: LTF001 [*] message
func Concise(w io.Writer, f *finding.FileResult) {
	for _, d := range f.Diags {
		fmt.Fprintf(w, "%s: %s %s%s\n", Location(f.Path, d), d.Code, mark(d.Finding), d.Message)
	}
}
