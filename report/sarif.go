package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/loratune/loratune-fix/finding"
)

// DocsURL is where docs/rules.md is published; RuleURL adds the anchor.
const DocsURL = "https://github.com/loratune/loratune-fix/blob/main/docs/rules.md"

// RuleURL links a rule's section of docs/rules.md.
func RuleURL(code string) string { return DocsURL + "#" + strings.ToLower(code) }

// The SARIF 2.1.0 subset loratune-fix writes. Field names follow the
// standard; see sarif_test.go for the schema check.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool       sarifTool     `json:"tool"`
		ColumnKind string        `json:"columnKind"`
		Results    []sarifResult `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string       `json:"id"`
		Name                 string       `json:"name"`
		ShortDescription     sarifText    `json:"shortDescription"`
		FullDescription      sarifText    `json:"fullDescription"`
		Help                 sarifHelp    `json:"help"`
		HelpURI              string       `json:"helpUri"`
		DefaultConfiguration sarifConfig  `json:"defaultConfiguration"`
		Properties           sarifRuleTag `json:"properties"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifHelp struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown"`
	}
	sarifConfig struct {
		Level string `json:"level"`
	}
	sarifRuleTag struct {
		Tags []string `json:"tags"`
	}
	sarifResult struct {
		RuleID    string          `json:"ruleId"`
		RuleIndex int             `json:"ruleIndex"`
		Level     string          `json:"level"`
		Message   sarifText       `json:"message"`
		Locations []sarifLocation `json:"locations"`
		Fixes     []sarifFix      `json:"fixes,omitempty"`
		// PartialFingerprints lets code scanning follow an alert across
		// pushes that move its line.
		PartialFingerprints map[string]string `json:"partialFingerprints,omitempty"`
	}
	sarifLocation struct {
		PhysicalLocation sarifPhysical `json:"physicalLocation"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           *sarifRegion  `json:"region,omitempty"`
	}
	sarifArtifact struct {
		URI string `json:"uri"`
	}
	sarifRegion struct {
		StartLine   int  `json:"startLine,omitempty"`
		StartColumn int  `json:"startColumn,omitempty"`
		EndLine     int  `json:"endLine,omitempty"`
		EndColumn   int  `json:"endColumn,omitempty"`
		ByteOffset  *int `json:"byteOffset,omitempty"`
		ByteLength  *int `json:"byteLength,omitempty"`
	}
	sarifFix struct {
		Description     sarifText             `json:"description"`
		ArtifactChanges []sarifArtifactChange `json:"artifactChanges"`
	}
	sarifArtifactChange struct {
		ArtifactLocation sarifArtifact      `json:"artifactLocation"`
		Replacements     []sarifReplacement `json:"replacements"`
	}
	sarifReplacement struct {
		DeletedRegion   sarifRegion `json:"deletedRegion"`
		InsertedContent sarifText   `json:"insertedContent"`
	}
)

// SARIF collects files and writes one SARIF 2.1.0 log: the rules that ran,
// and a result per finding with its location and, for Python files, its
// fix as byte-exact replacements.
type SARIF struct {
	rules   []finding.RuleInfo
	version string
	results []sarifResult
}

// NewSARIF starts a log for the rules that run, by loratune-fix of this
// version (the tool's driver.version: code scanning tells runs apart by it).
func NewSARIF(rules []finding.RuleInfo, version string) *SARIF {
	return &SARIF{rules: rules, version: version}
}

// Add records a file's findings.
func (s *SARIF) Add(f *finding.FileResult) {
	uri := (&url.URL{Path: filepath.ToSlash(f.Path)}).String()
	for _, d := range f.Diags {
		res := sarifResult{
			RuleID: d.Code, RuleIndex: s.index(d.Finding), Level: sarifLevel(d.Severity),
			Message: sarifText{d.Message},
		}
		loc := sarifPhysical{ArtifactLocation: sarifArtifact{uri}}
		if d.Cell > 0 {
			// Positions count within the cell, not the notebook's JSON text.
			res.Message.Text = fmt.Sprintf("cell %d, line %d: %s", d.Cell, d.StartPos.Line, d.Message)
		} else {
			loc.Region = &sarifRegion{StartLine: d.StartPos.Line, StartColumn: d.StartPos.Column, EndLine: d.EndPos.Line, EndColumn: d.EndPos.Column}
			if d.Fix != nil {
				res.Fixes = []sarifFix{sarifFixOf(uri, d.Fix)}
			}
		}
		res.Locations = []sarifLocation{{loc}}
		if d.Cell == 0 && 0 <= d.Start && d.Start <= d.End && d.End <= len(f.Before) {
			sum := sha256.Sum256([]byte(d.Code + "\x00" + f.Path + "\x00" + string(f.Before[d.Start:d.End])))
			res.PartialFingerprints = map[string]string{"loratuneFix/v1": hex.EncodeToString(sum[:16])}
		}
		s.results = append(s.results, res)
	}
}

func sarifFixOf(uri string, fx *finding.Fix) sarifFix {
	ch := sarifArtifactChange{ArtifactLocation: sarifArtifact{uri}}
	for _, e := range fx.Edits {
		off, n := e.Start, e.End-e.Start
		ch.Replacements = append(ch.Replacements, sarifReplacement{
			DeletedRegion:   sarifRegion{ByteOffset: &off, ByteLength: &n},
			InsertedContent: sarifText{e.NewText},
		})
	}
	return sarifFix{Description: sarifText{fx.Message}, ArtifactChanges: []sarifArtifactChange{ch}}
}

func (s *SARIF) index(fd finding.Finding) int {
	for i, r := range s.rules {
		if r.Code == fd.Code {
			return i
		}
	}
	// A finding of a rule outside the list (cannot happen with the
	// engine's own list): add what it says of its rule, so that ruleIndex
	// stays valid.
	s.rules = append(s.rules, finding.RuleInfo{Code: fd.Code, Name: fd.Name, Severity: fd.Severity})
	return len(s.rules) - 1
}

func sarifLevel(sev finding.Severity) string {
	switch sev {
	case finding.SeverityError:
		return "error"
	case finding.SeverityWarning:
		return "warning"
	}
	return "note"
}

// Flush writes the log.
func (s *SARIF) Flush(w io.Writer) error {
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name: "loratune-fix", Version: s.version, InformationURI: "https://github.com/loratune/loratune-fix",
			Rules: []sarifRule{},
		}},
		ColumnKind: "unicodeCodePoints",
		Results:    s.results,
	}
	if run.Results == nil {
		run.Results = []sarifResult{}
	}
	for _, r := range s.rules {
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{
			ID: r.Code, Name: r.Name,
			ShortDescription:     sarifText{r.Summary},
			FullDescription:      sarifText{r.Summary},
			Help:                 sarifHelp{Text: r.Doc, Markdown: r.Doc},
			HelpURI:              RuleURL(r.Code),
			DefaultConfiguration: sarifConfig{sarifLevel(r.Severity)},
			Properties:           sarifRuleTag{Tags: append([]string{"bf16", "lora"}, r.Profiles...)},
		})
	}
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{run},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(log)
}
