package report

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/loratune/loratune-fix/finding"
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

// sampleText is a training load with findings of every kind: fixes that
// replace, one that inserts, and a note without a fix.
const sampleText = "import torch\n" +
	"model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.bfloat16, device_map=\"auto\")\n" +
	"trainer.train()  # café\n"

// sampleFile is a file's result as the runner gives it, with the rules
// that ran (one of them without a finding).
func sampleFile(path string) (*finding.FileResult, []finding.RuleInfo) {
	pos := func(off int) finding.Position {
		line := strings.Count(sampleText[:off], "\n")
		start := strings.LastIndex(sampleText[:off], "\n") + 1
		return finding.Position{Line: line + 1, Column: len([]rune(sampleText[start:off])) + 1}
	}
	diag := func(code string, sev finding.Severity, covered string, fix *finding.Fix) finding.Diag {
		start := strings.Index(sampleText, covered)
		end := start + len(covered)
		return finding.Diag{Finding: finding.Finding{Code: code, Name: "rule-" + code, Severity: sev,
			Message: "message of " + code, Start: start, End: end, StartPos: pos(start), EndPos: pos(end), Fix: fix}}
	}
	replace := func(old, new string) finding.Edit {
		at := strings.Index(sampleText, old)
		return finding.Edit{Start: at, End: at + len(old), NewText: new}
	}
	paren := strings.Index(sampleText, ")\n")
	f := &finding.FileResult{Path: path, Before: []byte(sampleText), After: []byte(sampleText), Diags: []finding.Diag{
		diag("LTF001", finding.SeverityError, "torch.bfloat16", &finding.Fix{Applicability: finding.Safe, Message: "fp32",
			Edits: []finding.Edit{replace("torch.bfloat16", "torch.float32")}}),
		diag("LTF002", finding.SeverityWarning, "from_pretrained", &finding.Fix{Applicability: finding.Unsafe, Message: "eager",
			Edits: []finding.Edit{{Start: paren, End: paren, NewText: `, attn_implementation="eager"`}}}),
		diag("LTF003", finding.SeverityError, `"auto"`, &finding.Fix{Applicability: finding.Safe, Message: "no map",
			Edits: []finding.Edit{replace(`"auto"`, "None")}}),
		diag("LTF009", finding.SeverityInfo, "trainer.train()", nil),
	}}
	var rules []finding.RuleInfo
	for _, code := range []string{"LTF001", "LTF002", "LTF003", "LTF005", "LTF009"} {
		rules = append(rules, finding.RuleInfo{Code: code, Name: "rule-" + code, Summary: "summary of " + code,
			Severity: finding.SeverityError, Profiles: []string{"default"}, Doc: "## What\n\nDoc of " + code + "."})
	}
	return f, rules
}

func TestSARIFIsValidAgainstTheOfficialSchema(t *testing.T) {
	sch := compileSARIFSchema(t)
	f, rules := sampleFile("scripts/train file.py")
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
