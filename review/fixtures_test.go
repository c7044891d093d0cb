package review

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/rewrite"
	"github.com/loratune/loratune-fix/runner"
)

// applySuggestions applies the review's comments as GitHub commits
// suggestions: each block replaces lines start_line..line of the file.
func applySuggestions(t *testing.T, text string, cs []PendingComment) string {
	t.Helper()
	var rs []Change
	for _, c := range cs {
		from := c.Line
		if c.StartLine > 0 {
			from = c.StartLine
		}
		i := strings.Index(c.Body, "suggestion\n")
		if i < 0 {
			t.Fatalf("no suggestion in %s", c.Body)
		}
		f := i
		for f > 0 && c.Body[f-1] == '`' {
			f--
		}
		fence := c.Body[f:i]
		rest := c.Body[i+len("suggestion\n"):]
		block := rest[:strings.Index(rest, fence+"\n")]
		// GitHub keeps how the last replaced line ended: with a newline,
		// or with the end of a file that has none.
		if _, hi := byteSpan(lineStarts(text), c.Line, c.Line); !strings.HasSuffix(text[:hi], "\n") {
			block = strings.TrimSuffix(block, "\n")
		}
		rs = append(rs, Change{From: from, To: c.Line, New: block})
	}
	return applyChanges(text, rs)
}

// Over every golden fixture: with the whole file in the pull request every
// fix is a suggestion, and the suggestions applied the GitHub way give
// exactly `fix`'s output; with no line in it every fix is a body patch, and
// the patches' changes give the same.
func TestOnEveryFixtureSuggestionsOrPatchesReproduceTheFix(t *testing.T) {
	inputs, _ := filepath.Glob("../fixtures/*/*.py")
	if len(inputs) < 10 {
		t.Fatalf("only %d fixtures", len(inputs))
	}
	eng, err := rewrite.New(rewrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opts := &runner.Options{Engine: eng, Fix: true}
	tried := 0
	for _, in := range inputs {
		data, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		f := runner.Process(opts, "case.py", data)
		if f.Err != nil || !f.Changed {
			continue
		}
		tried++
		n := strings.Count(string(data), "\n") + 1
		all := Build(f, &FileDiff{Added: []Range{{1, n}}}, false)
		rv := &Review{Files: []*FileReview{all}}
		if items := rv.BodyItems(); len(items) != 0 && len(all.Notes) == 0 {
			t.Errorf("%s: whole file in the diff, yet %d body items", in, len(items))
		}
		var cs []PendingComment
		for _, c := range rv.Comments() {
			if strings.Contains(c.Body, "suggestion\n") {
				cs = append(cs, c)
			}
		}
		if got := applySuggestions(t, string(data), cs); got != string(f.After) {
			t.Errorf("%s: suggestions give\n%s\nfix gives\n%s", in, got, f.After)
		}

		none := Build(f, nil, false)
		var changes []Change
		for _, g := range none.Groups {
			if g.Inside {
				t.Errorf("%s: a group inside an empty diff", in)
			}
			changes = append(changes, g.Changes...)
		}
		if got := applyChanges(string(data), changes); got != string(f.After) {
			t.Errorf("%s: body patches give\n%s\nfix gives\n%s", in, got, f.After)
		}
	}
	if tried < 10 {
		t.Errorf("only %d fixtures had fixes", tried)
	}
}
