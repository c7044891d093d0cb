package review

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// bodyPatches returns the diff blocks of a review body, and which of them
// say they apply only after the suggestions are committed.
func bodyPatches(body string) (out []string, after []bool) {
	for {
		i := strings.Index(body, "diff\n--- a/")
		if i < 0 {
			return out, after
		}
		after = append(after, strings.Contains(body[:i], "after committing the suggestions"))
		f := i
		for f > 0 && body[f-1] == '`' {
			f--
		}
		fence := body[f:i]
		rest := body[i+len("diff\n"):]
		end := strings.Index(rest, "\n"+fence+"\n")
		out = append(out, rest[:end+1])
		body = rest[end:]
	}
}

// gitApply applies patches in order to text as path with the real git
// apply (outside any repository, as a user's `git apply` in a checkout).
func gitApply(t *testing.T, path, text string, patches []string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, filepath.FromSlash(path))
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"apply"}
	for i, p := range patches {
		name := filepath.Join(dir, fmt.Sprintf("%d.patch", i))
		if err := os.WriteFile(name, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, name)
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("git apply: %v\n%s", err, out)
	}
	got, err := os.ReadFile(file)
	return string(got), err
}

// gitCase is a text, patches to apply to it in order, and the text they
// must give ("": any).
type gitCase struct {
	name, text string
	patches    []string
	want       string
}

// gitApplyAll runs the cases through one git apply, each case a file of
// its own (a git process per case takes seconds over the fixtures); when
// that fails, case by case, to name the ones that fail.
func gitApplyAll(t *testing.T, cases []gitCase) {
	t.Helper()
	dir := t.TempDir()
	args := []string{"apply"}
	for i, c := range cases {
		name := fmt.Sprintf("c%d.py", i)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		for k, p := range c.patches {
			pf := filepath.Join(dir, fmt.Sprintf("c%d.%d.patch", i, k))
			p = strings.ReplaceAll(p, "--- a/case.py\n+++ b/case.py\n", "--- a/"+name+"\n+++ b/"+name+"\n")
			if err := os.WriteFile(pf, []byte(p), 0o644); err != nil {
				t.Fatal(err)
			}
			args = append(args, pf)
		}
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if _, err := cmd.CombinedOutput(); err != nil {
		for _, c := range cases {
			if _, err := gitApply(t, "case.py", c.text, c.patches); err != nil {
				t.Errorf("%s: %v\npatches:\n%s", c.name, err, strings.Join(c.patches, "\n"))
			}
		}
		return
	}
	for i, c := range cases {
		got, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("c%d.py", i)))
		if err != nil {
			t.Fatal(err)
		}
		if c.want != "" && string(got) != c.want {
			t.Errorf("%s: the patches give\n%s\nfix gives\n%s", c.name, got, c.want)
		}
	}
}

// Over the golden fixtures and sets of changed lines: the body's
// patches, applied with git after the suggestions were committed the
// GitHub way, give exactly `fix`'s output; applied without them (in the
// other order too) they apply as well. So a reviewer can take suggestions
// and patches in any mix.
func TestBodyPatchesApplyWithGitBeforeAndAfterTheSuggestions(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	inputs, _ := filepath.Glob("../fixtures/*/*.py")
	eng, err := rewrite.New(rewrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opts := &runner.Options{Engine: eng, Fix: true}
	tried, withBoth, afterOnly := 0, 0, 0
	var runs []gitCase
	for k, in := range inputs {
		if testing.Short() && k%4 != 0 {
			continue
		}
		data, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		f := runner.Process(opts, "case.py", data)
		if f.Err != nil || !f.Changed {
			continue
		}
		n := strings.Count(string(data), "\n") + 1
		rng := rand.New(rand.NewPCG(uint64(k), 7))
		// Two sets of changed lines a fixture: one of three shapes in turn,
		// and a random one.
		for _, variant := range []int{k % 3, 3} {
			fd := &FileDiff{}
			for line := 1; line <= n; line++ {
				var in bool
				switch variant {
				case 0:
					in = line%2 == 1
				case 1:
					in = line%3 == 0
				case 2:
					in = line <= n/2
				default:
					in = rng.IntN(3) == 0
				}
				if in {
					fd.Added = append(fd.Added, Range{line, line})
				}
			}
			rv := &Review{CommitID: "abc123", Files: []*FileReview{Build(f, fd, false)}}
			var suggestions []PendingComment
			for _, c := range rv.Comments() {
				if strings.Contains(c.Body, "suggestion\n") {
					suggestions = append(suggestions, c)
				}
			}
			patches, after := bodyPatches(rv.Request().Body)
			if len(patches) == 0 {
				continue
			}
			tried++
			if len(suggestions) > 0 {
				withBoth++
			}
			name := fmt.Sprintf("%s (variant %d)", in, variant)
			var anyway []string // those that apply without the suggestions
			for i, p := range patches {
				if !after[i] {
					anyway = append(anyway, p)
				} else {
					afterOnly++
				}
			}
			slices.Reverse(anyway)
			runs = append(runs, gitCase{name + ": after the suggestions", applySuggestions(t, string(data), suggestions), patches, string(f.After)},
				gitCase{name + ": without the suggestions, last patch first", string(data), anyway, ""})
		}
	}
	gitApplyAll(t, runs)
	if tried < 20 || withBoth < 10 || afterOnly > tried/4 {
		t.Errorf("%d cases with patches, %d of them with suggestions too, %d patches that need the suggestions first", tried, withBoth, afterOnly)
	}
}
