package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/rewrite"
)

// reviewdogPath finds reviewdog on PATH or where go install puts it. In CI
// (.ci/run installs it) a missing reviewdog fails the test.
func reviewdogPath(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("reviewdog"); err == nil {
		return p
	}
	gopath, _ := exec.Command("go", "env", "GOPATH").Output()
	p := filepath.Join(strings.TrimSpace(string(gopath)), "bin", "reviewdog")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatal("reviewdog is not installed; .ci/run installs it with go install github.com/reviewdog/reviewdog/cmd/reviewdog@v0.21.0")
	}
	t.Skip("reviewdog not installed (go install github.com/reviewdog/reviewdog/cmd/reviewdog@v0.21.0)")
	return ""
}

type rdDiag struct {
	Message  string
	Severity string
	Code     struct{ Value string }
	Location struct {
		Path  string
		Range struct{ Start, End struct{ Line int } }
	}
	Suggestions []struct {
		Range struct{ Start, End struct{ Line int } }
		Text  string
	}
}

func readRDJSONL(t *testing.T, text string) []rdDiag {
	t.Helper()
	var out []rdDiag
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var d rdDiag
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatalf("not rdjsonl: %v: %s", err, sc.Text())
		}
		out = append(out, d)
	}
	return out
}

func TestReviewdogShowsTheSuggestionsOnTheChangedLines(t *testing.T) {
	rd := reviewdogPath(t)
	dir := prRepo(t)
	rdjsonl, stderr, err := runCLI(t, dir, "review", "--base", "main", "--output-format", "rdjsonl")
	if err != nil {
		t.Fatalf("review: %v\n%s", err, stderr)
	}
	ours := readRDJSONL(t, rdjsonl)
	var withSuggestion int
	for _, d := range ours {
		if len(d.Suggestions) > 0 {
			withSuggestion++
		}
	}
	if withSuggestion < 2 || withSuggestion == len(ours) {
		t.Fatalf("want suggestions and findings outside the change; got %d of %d with suggestions", withSuggestion, len(ours))
	}

	cmd := exec.Command(rd, "-f=rdjsonl", "-reporter=local", "-filter-mode=added", "-diff=git diff main", "-fail-level=none")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(rdjsonl)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("reviewdog: %v\n%s", err, out)
	}
	shown := readRDJSONL(t, string(out))
	changed := changedLines()
	suggested := 0
	for _, d := range shown {
		for l := d.Location.Range.Start.Line; l <= d.Location.Range.End.Line; l++ {
			if !changed[l] {
				t.Errorf("reviewdog shows line %d, which the change did not touch: %s", l, d.Message)
			}
		}
		for _, s := range d.Suggestions {
			if s.Range.Start.Line != d.Location.Range.Start.Line || s.Range.End.Line != d.Location.Range.End.Line || s.Text == "" {
				t.Errorf("suggestion %+v does not cover its comment's lines %+v", s, d.Location.Range)
			}
			suggested++
		}
	}
	// Every suggestion survives reviewdog's filter: none sits off the diff.
	if suggested != withSuggestion {
		t.Errorf("reviewdog shows %d suggestions, we made %d:\n%s", suggested, withSuggestion, out)
	}
}

// reviewdog reads each diagnostic's severity: a rule's error is an ERROR
// (reviewdog -fail-level=error fails on it), a warning a WARNING, an info
// an INFO.
func TestReviewdogSeesTheRulesSeverities(t *testing.T) {
	rd := reviewdogPath(t)
	dir := prRepo(t)
	rdjsonl, stderr, err := runCLI(t, dir, "review", "--base", "main", "--output-format", "rdjsonl")
	if err != nil {
		t.Fatalf("review: %v\n%s", err, stderr)
	}
	levels := map[finding.Severity]string{finding.SeverityError: "ERROR", finding.SeverityWarning: "WARNING", finding.SeverityInfo: "INFO"}
	nErrors := 0
	for _, d := range readRDJSONL(t, rdjsonl) {
		r := rewrite.Lookup(d.Code.Value)
		if r == nil {
			t.Fatalf("no rule %q", d.Code.Value)
		}
		// A fix shared by findings takes their worst severity; its message
		// joins theirs ("LTF002 ...; LTF001 ...").
		if want := levels[r.Severity]; d.Severity != want && !strings.Contains(d.Message, "; LTF") {
			t.Errorf("%s: severity %s, want %s", d.Code.Value, d.Severity, want)
		}
		if d.Severity == "ERROR" {
			nErrors++
		}
	}
	if nErrors == 0 {
		t.Fatal("the pull request has no error finding to test with")
	}
	for level, wantFail := range map[string]bool{"error": true, "none": false} {
		cmd := exec.Command(rd, "-f=rdjsonl", "-reporter=local", "-filter-mode=nofilter", "-diff=git diff main", "-fail-level="+level)
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(rdjsonl)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		failed := errors.As(err, &exit) && exit.ExitCode() == 1
		if err != nil && !failed {
			t.Fatalf("reviewdog: %v\n%s", err, out)
		}
		if failed != wantFail {
			t.Errorf("reviewdog -fail-level=%s: failed %v, want %v\n%s", level, failed, wantFail, out)
		}
	}
}
