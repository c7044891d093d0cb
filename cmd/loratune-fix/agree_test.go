package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/runner"
)

// fixtureFlags turns a fixture's options (fixtures/golden_test.go reads
// the same words) into command-line flags.
func fixtureFlags(t *testing.T, input string) []string {
	raw, err := os.ReadFile(input + ".options")
	if os.IsNotExist(err) {
		raw, _ = os.ReadFile(filepath.Join(filepath.Dir(input), "options"))
	}
	var flags []string
	for _, word := range strings.Fields(string(raw)) {
		key, val, _ := strings.Cut(word, "=")
		if val == "" {
			flags = append(flags, "--"+key)
		} else {
			flags = append(flags, "--"+key+"="+val)
		}
	}
	return flags
}

var summaryRE = regexp.MustCompile("^Found (\\d+) findings? \\([^)]*\\): (\\d+) fixable with `[^`]*`(?:, (\\d+) more with `[^`]*`)?(?:, (\\d+) not fixed)?\\.$")

// lastLine is the last line of stderr: the summary.
func lastLine(stderr string) string {
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	return lines[len(lines)-1]
}

// check is what fix does, on every fixture: the two print the same
// summary; the fixed output changes exactly when check counts a fixable
// finding; and checking the fixed output finds what check said would
// remain (unsafe and not fixed), no more and no fewer.
func TestCheckAndFixAgreeOnEveryFixture(t *testing.T) {
	var inputs []string
	filepath.WalkDir("../../fixtures", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && runner.Sources(path) && !strings.Contains(path, "/testdata/") {
			inputs = append(inputs, path)
		}
		return nil
	})
	if len(inputs) < 100 {
		t.Fatalf("%d fixtures: the walk went wrong", len(inputs))
	}
	withFindings := 0
	for _, input := range inputs {
		flags := fixtureFlags(t, input)
		src, err := os.ReadFile(input)
		if err != nil {
			t.Fatal(err)
		}
		_, checkErr, code := run(t, "", append(append([]string{"check"}, flags...), input)...)
		if code == exitError {
			continue // a fixture of a file error (syntax, encoding): no summary
		}
		_, fixErr, _ := run(t, "", append(append([]string{"fix"}, flags...), input)...)
		summary := lastLine(checkErr)
		if lastLine(fixErr) != summary {
			t.Errorf("%s: check says\n  %s\nfix says\n  %s", input, summary, lastLine(fixErr))
			continue
		}
		if summary == "No findings: nothing to fix." {
			continue
		}
		m := summaryRE.FindStringSubmatch(summary)
		if m == nil {
			t.Errorf("%s: summary %q not understood", input, summary)
			continue
		}
		withFindings++
		n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
		total, fixable, unsafe, unfixed := n(1), n(2), n(3), n(4)
		if fixable+unsafe+unfixed != total {
			t.Errorf("%s: %q does not add up", input, summary)
		}
		fixed, _, _ := run(t, string(src), append(append([]string{"fix"}, flags...), "-", "--stdin-filename", input)...)
		if changed := fixed != string(src); changed != (fixable > 0) {
			t.Errorf("%s: check counts %d fixable, and fix changes the file: %v", input, fixable, changed)
		}
		js, stderr, _ := run(t, fixed, append(append([]string{"check", "--output-format", "json"}, flags...), "-", "--stdin-filename", input)...)
		var left []json.RawMessage
		if err := json.Unmarshal([]byte(js), &left); err != nil {
			t.Errorf("%s: checking the fixed output: %v\n%s", input, err, stderr)
			continue
		}
		if len(left) != unsafe+unfixed {
			t.Errorf("%s: check said %d would remain after fix --write (%s); the fixed output has %d", input, unsafe+unfixed, summary, len(left))
		}
	}
	if withFindings < 50 {
		t.Errorf("only %d fixtures with findings: the test read the summaries wrong", withFindings)
	}
}
