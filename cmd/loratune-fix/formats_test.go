package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCheckWritesSARIFAndAnnotationsForEveryFinding(t *testing.T) {
	_, path := writeDemo(t)
	js, _, code := run(t, "", "check", "--output-format", "json", path)
	var findings []struct {
		Code string
		Line int
	}
	if err := json.Unmarshal([]byte(js), &findings); err != nil || code != 1 || len(findings) == 0 {
		t.Fatalf("check json: exit %d, %v", code, err)
	}

	out, stderr, code := run(t, "", "check", "--output-format", "sarif", path)
	if code != 1 {
		t.Errorf("sarif: exit %d, want 1 (findings)\n%s", code, stderr)
	}
	var log struct {
		Version string
		Runs    []struct {
			Tool    struct{ Driver struct{ Version string } }
			Results []struct {
				RuleID    string
				Locations []struct {
					PhysicalLocation struct {
						Region struct{ StartLine int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil || log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("not a SARIF 2.1.0 log: %v\n%s", err, out)
	}
	if v := log.Runs[0].Tool.Driver.Version; v != toolVersion || !strings.Contains(v, "go1.") {
		t.Errorf("tool.driver.version %q, want %q (--version's)", v, toolVersion)
	}
	results := log.Runs[0].Results
	if len(results) != len(findings) {
		t.Fatalf("%d SARIF results for %d findings", len(results), len(findings))
	}
	for i, r := range results {
		if r.RuleID != findings[i].Code || r.Locations[0].PhysicalLocation.Region.StartLine != findings[i].Line {
			t.Errorf("result %d: %s line %d, want %s line %d", i, r.RuleID, r.Locations[0].PhysicalLocation.Region.StartLine, findings[i].Code, findings[i].Line)
		}
	}

	out, _, code = run(t, "", "check", "--output-format", "github", path)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 1 || len(lines) != len(findings) {
		t.Fatalf("github: exit %d, %d lines for %d findings", code, len(lines), len(findings))
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, "::") || !strings.Contains(l, ",title="+findings[i].Code+"::") {
			t.Errorf("annotation %d: %q", i, l)
		}
	}

	if _, stderr, code := run(t, "", "check", "--output-format", "xml", path); code != 2 || !strings.Contains(stderr, "sarif") {
		t.Errorf("unknown format: exit %d, %q", code, stderr)
	}
}
