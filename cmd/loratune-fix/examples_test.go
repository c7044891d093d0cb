package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The examples under examples/ call `loratune-fix migrate` with flags that
// exist: a renamed flag breaks this test, not a user's fleet run.
func TestExamplesUseRealFlags(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*/*")
	if len(files) < 2 {
		t.Fatalf("examples: %v, want the GitHub Actions and Kubernetes ones", files)
	}
	flags := newMigrateCmd().Flags()
	flagRE := regexp.MustCompile(`(^|\s)--([a-z][a-z-]*)`)
	commandRE := regexp.MustCompile(`(?m)^\s*(exec\s+)?loratune-fix migrate`)
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		// The command runs from "loratune-fix migrate" over the lines
		// that end in a backslash.
		text := string(data)
		loc := commandRE.FindStringIndex(text)
		if loc == nil {
			t.Errorf("%s: no loratune-fix migrate command", file)
			continue
		}
		var cmd []string
		for _, line := range strings.Split(text[loc[0]:], "\n") {
			cmd = append(cmd, line)
			if !strings.HasSuffix(strings.TrimSpace(line), `\`) {
				break
			}
		}
		seen := 0
		for _, m := range flagRE.FindAllStringSubmatch(strings.Join(cmd, " "), -1) {
			seen++
			if flags.Lookup(m[2]) == nil {
				t.Errorf("%s: loratune-fix migrate has no flag --%s", file, m[2])
			}
		}
		if seen < 3 {
			t.Errorf("%s: the migrate command has %d flags; the test read it wrong", file, seen)
		}
		if !strings.Contains(strings.Join(cmd, " "), "--shard") {
			t.Errorf("%s: the example does not shard", file)
		}
	}
}
