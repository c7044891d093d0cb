package report

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/fixtures"
	"github.com/loratune/loratune-fix/rewrite"
	"github.com/loratune/loratune-fix/runner"
)

// The official SARIF 2.1.0 schema (OASIS, errata 01), copied from
// ../shared/schemas/sarif-schema-2.1.0.json.
const sarifSchema = "testdata/sarif-schema-2.1.0.json"

func compileSARIFSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(sarifSchema)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("sarif-schema-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func demoFile(t *testing.T, path string) (*finding.FileResult, []finding.RuleInfo) {
	t.Helper()
	eng, err := rewrite.New(rewrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := runner.Process(&runner.Options{Engine: eng}, path, fixtures.Demo())
	if f.Err != nil || len(f.Diags) == 0 {
		t.Fatalf("demo: err %v, %d findings", f.Err, len(f.Diags))
	}
	return f, rewrite.Infos(eng.Rules())
}

func TestSARIFIsValidAgainstTheOfficialSchema(t *testing.T) {
	sch := compileSARIFSchema(t)
	f, rules := demoFile(t, "scripts/train file.py")
	s := NewSARIF(rules, "v1.2.3 (go1.26.8)")
	s.Add(f)
	s.Add(&finding.FileResult{Path: "clean.py"})
	var buf bytes.Buffer
	if err := s.Flush(&buf); err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("SARIF does not validate: %v\n%s", err, buf.String())
	}

	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Version string
					Rules   []struct {
						ID, HelpURI string
						Help        struct{ Text string }
					}
				}
			}
			Results []struct {
				RuleID    string
				RuleIndex int
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine int }
					}
				}
				Fixes []struct {
					ArtifactChanges []struct {
						Replacements []struct {
							DeletedRegion   struct{ ByteOffset, ByteLength int }
							InsertedContent struct{ Text string }
						}
					}
				}
			}
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if run.Tool.Driver.Version != "v1.2.3 (go1.26.8)" {
		t.Errorf("tool.driver.version %q, want the version given", run.Tool.Driver.Version)
	}
	if len(run.Tool.Driver.Rules) != len(rules) || len(run.Results) != len(f.Diags) {
		t.Fatalf("%d rules, %d results; want %d, %d", len(run.Tool.Driver.Rules), len(run.Results), len(rules), len(f.Diags))
	}
	for i, r := range run.Results {
		d := f.Diags[i]
		rule := run.Tool.Driver.Rules[r.RuleIndex]
		if rule.ID != r.RuleID || r.RuleID != d.Code || !strings.HasSuffix(rule.HelpURI, "#"+strings.ToLower(d.Code)) || rule.Help.Text == "" {
			t.Errorf("result %d: rule %+v for %s", i, rule, r.RuleID)
		}
		loc := r.Locations[0].PhysicalLocation
		if loc.ArtifactLocation.URI != "scripts/train%20file.py" || loc.Region.StartLine != d.StartPos.Line {
			t.Errorf("result %d: location %+v, want line %d", i, loc, d.StartPos.Line)
		}
		// The replacements are the engine's edits, byte for byte.
		if d.Fix == nil {
			continue
		}
		reps := r.Fixes[0].ArtifactChanges[0].Replacements
		if len(reps) != len(d.Fix.Edits) {
			t.Fatalf("result %d: %d replacements for %d edits", i, len(reps), len(d.Fix.Edits))
		}
		for k, e := range d.Fix.Edits {
			got := reps[k]
			if got.DeletedRegion.ByteOffset != e.Start || got.DeletedRegion.ByteLength != e.End-e.Start || got.InsertedContent.Text != e.NewText {
				t.Errorf("result %d edit %d: %+v, want %+v", i, k, got, e)
			}
		}
	}
}

func TestTheSchemaCheckRejectsABrokenLog(t *testing.T) {
	sch := compileSARIFSchema(t)
	// A result whose level is not one of SARIF's: the validator must say no,
	// or the test above proves nothing.
	bad := `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"message":{"text":"m"},"level":"fatal"}]}]}`
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(bad))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err == nil {
		t.Fatal("a log with level \"fatal\" validated")
	}
}

func TestGitHubAnnotationsEscapeAndLocate(t *testing.T) {
	f := &finding.FileResult{Path: "a,b:c.py", Diags: []finding.Diag{{Finding: finding.Finding{
		Code: "LTF003", Name: "training-device-map", Severity: finding.SeverityWarning,
		Message: "100% sure\nsecond line", StartPos: finding.Position{Line: 4, Column: 7}, EndPos: finding.Position{Line: 5, Column: 2},
	}}, {Cell: 3, Finding: finding.Finding{
		Code: "LTF009", Name: "visible-nan-logging", Severity: finding.SeverityInfo,
		Message: "m", StartPos: finding.Position{Line: 2, Column: 1},
	}}}}
	var buf bytes.Buffer
	GitHub(&buf, f)
	want := "::warning file=a%2Cb%3Ac.py,line=4,col=7,endLine=5,endColumn=2,title=LTF003::training-device-map: 100%25 sure%0Asecond line\n" +
		"::notice file=a%2Cb%3Ac.py,title=LTF009::visible-nan-logging: cell 3, line 2: m\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}
