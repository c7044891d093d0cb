package review

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/report"
)

// reviewdog's Diagnostic Format (proto/rdf/reviewdog.proto), one JSON
// object per line for -f=rdjsonl. A position without a column makes a
// range linewise, which is what a GitHub suggestion replaces.
type (
	rdDiagnostic struct {
		Message     string         `json:"message"`
		Location    rdLocation     `json:"location"`
		Severity    string         `json:"severity"`
		Source      rdSource       `json:"source"`
		Code        rdCode         `json:"code"`
		Suggestions []rdSuggestion `json:"suggestions,omitempty"`
	}
	rdLocation struct {
		Path  string  `json:"path"`
		Range rdRange `json:"range"`
	}
	rdRange struct {
		Start rdPosition `json:"start"`
		End   rdPosition `json:"end"`
	}
	rdPosition struct {
		Line   int `json:"line"`
		Column int `json:"column,omitempty"`
	}
	rdSource struct {
		Name string `json:"name"`
		URL  string `json:"url"`
	}
	rdCode struct {
		Value string `json:"value"`
		URL   string `json:"url"`
	}
	rdSuggestion struct {
		Range rdRange `json:"range"`
		Text  string  `json:"text"`
	}
)

func lines(from, to int) rdRange { return rdRange{rdPosition{Line: from}, rdPosition{Line: to}} }

// RDJSONL writes the review for reviewdog: a diagnostic with one linewise
// suggestion per change of an inside group (reviewdog posts it as a GitHub
// suggestion on exactly those lines), a diagnostic without suggestion on
// the finding's line for everything else.
func (r *Review) RDJSONL(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	src := rdSource{Name: "loratune-fix", URL: "https://github.com/loratune/loratune-fix"}
	for _, f := range r.Files {
		for _, g := range f.Groups {
			if len(g.Findings) == 0 {
				continue // a later pass: reported with the finding that led to it
			}
			d0 := g.Findings[0]
			base := rdDiagnostic{Severity: rdSeverity(worst(g.Findings)), Source: src, Code: rdCode{d0.Code, report.RuleURL(d0.Code)}}
			if !g.Inside || g.Notebook {
				diag := base
				diag.Message = plainMessage(g.Findings) + " (the fix touches lines outside this change: run `loratune-fix fix`)"
				if g.Inside {
					diag.Message = plainMessage(g.Findings) + " (notebook: run `loratune-fix fix` to apply)"
				}
				diag.Location = rdLocation{g.Path, lines(g.Changes[0].From, g.Changes[0].To)}
				if !g.Inside && d0.Cell == 0 {
					diag.Location.Range = lines(d0.StartPos.Line, d0.StartPos.Line)
				}
				if err := enc.Encode(diag); err != nil {
					return err
				}
				continue
			}
			for i, c := range g.Changes {
				diag := base
				diag.Message = plainMessage(g.Findings)
				if n := len(g.Changes); n > 1 {
					diag.Message += fmt.Sprintf(" (part %d of %d of one fix: apply them together)", i+1, n)
				}
				diag.Location = rdLocation{g.Path, lines(c.From, c.To)}
				diag.Suggestions = []rdSuggestion{{Range: lines(c.From, c.To), Text: suggestionText(c)}}
				if err := enc.Encode(diag); err != nil {
					return err
				}
			}
		}
		for _, n := range f.Notes {
			diag := rdDiagnostic{
				Message: n.Diag.Message, Severity: rdSeverity(n.Diag.Severity), Source: src,
				Code:     rdCode{n.Diag.Code, report.RuleURL(n.Diag.Code)},
				Location: rdLocation{n.Path, lines(n.Line(), n.Line())},
			}
			if n.Diag.Cell > 0 {
				diag.Location.Range = rdRange{} // cell lines are not file lines
			}
			if err := enc.Encode(diag); err != nil {
				return err
			}
		}
	}
	return nil
}

func plainMessage(ds []finding.Diag) string {
	var parts []string
	for _, d := range ds {
		parts = append(parts, fmt.Sprintf("%s %s: %s", d.Code, d.Name, d.Message))
	}
	return strings.Join(parts, "; ")
}

func worst(ds []finding.Diag) finding.Severity {
	sev := finding.SeverityInfo
	for _, d := range ds {
		switch {
		case d.Severity == finding.SeverityError:
			return d.Severity
		case d.Severity == finding.SeverityWarning:
			sev = d.Severity
		}
	}
	return sev
}

func rdSeverity(s finding.Severity) string {
	switch s {
	case finding.SeverityError:
		return "ERROR"
	case finding.SeverityWarning:
		return "WARNING"
	}
	return "INFO"
}
