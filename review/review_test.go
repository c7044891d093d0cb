package review

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/finding"
)

const script = `a = 1
pad = 0
b = 2
c = 3
model = load()
d = 4
`

// at is the byte offset of the first occurrence of s in script.
func at(s string) int {
	i := strings.Index(script, s)
	if i < 0 {
		panic(s)
	}
	return i
}

func diag(code string, line int, edits ...finding.Edit) finding.Diag {
	d := finding.Diag{Finding: finding.Finding{
		Code: code, Name: "rule-" + code, Severity: finding.SeverityError, Message: "message of " + code,
		StartPos: finding.Position{Line: line, Column: 1}, EndPos: finding.Position{Line: line, Column: 2},
	}}
	if len(edits) > 0 {
		d.Fix = &finding.Fix{Applicability: finding.Safe, Message: "fix of " + code, Edits: edits}
	}
	return d
}

// file builds what runner.Process returns for script with these findings:
// After is the edits applied together, as one fix pass does.
func file(path string, diags ...finding.Diag) *finding.FileResult {
	var all []finding.Edit
	for _, d := range diags {
		if d.Fix != nil {
			all = append(all, d.Fix.Edits...)
		}
	}
	after, err := finding.ApplyEdits([]byte(script), all)
	if err != nil {
		panic(err)
	}
	return &finding.FileResult{Path: path, Before: []byte(script), After: after, Diags: diags, Changed: string(after) != script}
}

// twoPlaceFix deletes line 2 and inserts a line after line 5: one fix, two
// places, like LTF004's pad token.
func twoPlaceFix() finding.Diag {
	return diag("LTF004", 2,
		finding.Edit{Start: at("pad = 0\n"), End: at("pad = 0\n") + len("pad = 0\n")},
		finding.Edit{Start: at("d = 4"), End: at("d = 4"), NewText: "model.pad = 1\n"})
}

func TestAFixInTwoPlacesBecomesTwoSuggestionsThatBelongTogether(t *testing.T) {
	f := file("train.py", twoPlaceFix())
	fd := &FileDiff{Added: []Range{{1, 2}, {5, 5}}}
	rv := &Review{Files: []*FileReview{Build(f, fd, false)}}
	cs := rv.Comments()
	if len(cs) != 2 {
		t.Fatalf("got %d comments, want 2: %+v", len(cs), cs)
	}
	if cs[0].Line != 2 || cs[0].StartLine != 0 || !strings.Contains(cs[0].Body, "````suggestion\n````") && !strings.Contains(cs[0].Body, "```suggestion\n```") {
		t.Errorf("first part: want an empty suggestion (delete) on line 2, got line %d:\n%s", cs[0].Line, cs[0].Body)
	}
	if cs[1].Line != 5 || !strings.Contains(cs[1].Body, "```suggestion\nmodel = load()\nmodel.pad = 1\n```") {
		t.Errorf("second part: want line 5 and the inserted line after it, got line %d:\n%s", cs[1].Line, cs[1].Body)
	}
	if !strings.Contains(cs[0].Body, "Part 1 of 2") || !strings.Contains(cs[0].Body, "line 5") ||
		!strings.Contains(cs[1].Body, "Part 2 of 2") || !strings.Contains(cs[1].Body, "line 2") {
		t.Errorf("the parts do not say they belong together:\n%s\n%s", cs[0].Body, cs[1].Body)
	}
	if cs[0].Fingerprint == cs[1].Fingerprint {
		t.Error("the two parts share a fingerprint")
	}
	if items := rv.BodyItems(); len(items) != 0 {
		t.Errorf("body items %v, want none", items)
	}
}

func TestAFixPartlyOutsideTheDiffGoesWholeIntoTheBody(t *testing.T) {
	f := file("train.py", twoPlaceFix(), diag("LTF003", 4, finding.Edit{Start: at("3\n"), End: at("3\n") + 1, NewText: "None"}))
	fd := &FileDiff{Added: []Range{{2, 2}, {4, 4}}} // line 5 unchanged
	rv := &Review{Files: []*FileReview{Build(f, fd, false)}}
	cs := rv.Comments()
	if len(cs) != 1 || cs[0].Line != 4 || !strings.Contains(cs[0].Body, "```suggestion\nc = None\n```") {
		t.Fatalf("want one suggestion c = None on line 4, got %+v", cs)
	}
	items := rv.BodyItems()
	if len(items) != 1 {
		t.Fatalf("want the two-place fix in the body, got %d items", len(items))
	}
	body := items[0].Text
	for _, want := range []string{"<details>", "LTF004", "-pad = 0\n", "+model.pad = 1\n", "```diff\n--- a/train.py\n+++ b/train.py\n"} {
		if !strings.Contains(body, want) {
			t.Errorf("body item lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "c = None") {
		t.Errorf("body patch carries the suggestion's change too:\n%s", body)
	}
	req := rv.Request()
	if !strings.Contains(req.Body, body) || len(req.Comments) != 1 {
		t.Errorf("request body/comments do not hold the items: %+v", req)
	}
}

func TestAnInsertionTakesTheNeighbourThePullRequestChanged(t *testing.T) {
	// Insert a whole line before line 4: the line above (3) is unchanged,
	// the one below (4) is the pull request's: the suggestion replaces 4.
	f := file("train.py", diag("LTF005", 4, finding.Edit{Start: at("c = 3"), End: at("c = 3"), NewText: "x = 0\n"}))
	rv := &Review{Files: []*FileReview{Build(f, &FileDiff{Added: []Range{{4, 4}}}, false)}}
	cs := rv.Comments()
	if len(cs) != 1 || cs[0].Line != 4 || !strings.Contains(cs[0].Body, "```suggestion\nx = 0\nc = 3\n```") {
		t.Fatalf("want the insertion on line 4 with it, got %+v", cs)
	}
	rv = &Review{Files: []*FileReview{Build(f, &FileDiff{Added: []Range{{3, 3}}}, false)}}
	cs = rv.Comments()
	if len(cs) != 1 || cs[0].Line != 3 || !strings.Contains(cs[0].Body, "```suggestion\nb = 2\nx = 0\n```") {
		t.Fatalf("want the insertion on line 3 with it, got %+v", cs)
	}
}

func TestFixesThatNeedSeveralPassesStillReproduceTheFixedFile(t *testing.T) {
	// Two fixes edit the same bytes: the engine applies one per pass. The
	// review then reads the changes off the final text.
	f := file("train.py", diag("LTF001", 3, finding.Edit{Start: at("b = 2"), End: at("b = 2") + 5, NewText: "b = 20"}))
	second := diag("LTF002", 3, finding.Edit{Start: at("b = 2"), End: at("b = 2") + 5, NewText: "b = 200"})
	f.Diags = append(f.Diags, second)
	f.After = []byte(strings.Replace(script, "b = 2", "b = 20 # 200", 1))
	b := Build(f, &FileDiff{Added: []Range{{1, 6}}}, false)
	if len(b.Groups) != 1 || len(b.Groups[0].Findings) != 2 {
		t.Fatalf("want one group with both findings, got %+v", b.Groups)
	}
	if got := applyChanges(script, b.Groups[0].Changes); got != string(f.After) {
		t.Errorf("changes give\n%s\nwant\n%s", got, f.After)
	}
}

func TestNotebooksGetThePatchNotASuggestion(t *testing.T) {
	f := file("nb.ipynb", diag("LTF003", 4, finding.Edit{Start: at("3\n"), End: at("3\n") + 1, NewText: "None"}))
	f.Diags[0].Cell = 2
	rv := &Review{Files: []*FileReview{Build(f, &FileDiff{Added: []Range{{1, 6}}}, false)}}
	cs := rv.Comments()
	if len(cs) != 1 {
		t.Fatalf("want one comment, got %d", len(cs))
	}
	if strings.Contains(cs[0].Body, "suggestion\n") || !strings.Contains(cs[0].Body, "```diff\n") || !strings.Contains(cs[0].Body, "+c = None") {
		t.Errorf("notebook comment is not a patch:\n%s", cs[0].Body)
	}
}

func TestFindingsWithoutAFixAreCommentsOnChangedLinesAndBodyLinesElsewhere(t *testing.T) {
	f := file("train.py", diag("LTF006", 2), diag("LTF007", 5))
	rv := &Review{Files: []*FileReview{Build(f, &FileDiff{Added: []Range{{2, 2}}}, false)}}
	cs := rv.Comments()
	if len(cs) != 1 || cs[0].Line != 2 || strings.Contains(cs[0].Body, "suggestion") || !strings.Contains(cs[0].Body, "LTF006") {
		t.Errorf("want a plain LTF006 comment on line 2, got %+v", cs)
	}
	items := rv.BodyItems()
	if len(items) != 1 || !strings.Contains(items[0].Text, "LTF007") || !strings.Contains(items[0].Text, "train.py:5:1") {
		t.Errorf("want LTF007 in the body, got %+v", items)
	}
}

func TestUnsafeFixesAreOfferedOnlyWhenApplied(t *testing.T) {
	d := diag("LTF001", 3, finding.Edit{Start: at("b = 2"), End: at("b = 2") + 5, NewText: "b = 20"})
	d.Fix.Applicability = finding.Unsafe
	f := file("train.py", d)
	f.After = f.Before // fix without --unsafe-fixes leaves it
	rv := &Review{Files: []*FileReview{Build(f, &FileDiff{Added: []Range{{3, 3}}}, false)}}
	cs := rv.Comments()
	if len(cs) != 1 || strings.Contains(cs[0].Body, "suggestion") || !strings.Contains(cs[0].Body, "--unsafe-fixes") {
		t.Errorf("want a comment pointing at --unsafe-fixes, got %+v", cs)
	}
}

func TestSuggestionFenceOutgrowsBackticksInTheCode(t *testing.T) {
	if got := fence("x = '```'"); got != "````" {
		t.Errorf("fence %q, want four backticks", got)
	}
	if got := fence("x = 1"); got != "```" {
		t.Errorf("fence %q, want three backticks", got)
	}
}

func TestFingerprintsRoundTripThroughABody(t *testing.T) {
	fp := Fingerprint([]string{"LTF001"}, "train.py", "b = 2\n")
	if fp == Fingerprint([]string{"LTF001"}, "other.py", "b = 2\n") || fp == Fingerprint([]string{"LTF002"}, "train.py", "b = 2\n") {
		t.Error("fingerprint ignores the path or the rule")
	}
	got := Fingerprints("text\n" + mark(fp) + "\nmore")
	if len(got) != 1 || got[0] != fp {
		t.Errorf("Fingerprints = %v, want [%s]", got, fp)
	}
}

func TestAChangeOfTheFinalNewlineIsAPatchNotASuggestion(t *testing.T) {
	before := "a = 1" // no final newline
	d := diag("LTF005", 1, finding.Edit{Start: 5, End: 5, NewText: "\nb = 2\n"})
	f := &finding.FileResult{Path: "x.py", Before: []byte(before), After: []byte("a = 1\nb = 2\n"), Diags: []finding.Diag{d}, Changed: true}
	rv := &Review{Files: []*FileReview{Build(f, &FileDiff{Added: []Range{{1, 1}}}, false)}}
	if cs := rv.Comments(); len(cs) != 0 {
		t.Errorf("a suggestion cannot add the final newline, got %+v", cs)
	}
	if items := rv.BodyItems(); len(items) != 1 || !strings.Contains(items[0].Text, "\\ No newline at end of file") {
		t.Errorf("want the patch in the body, got %+v", items)
	}
	// Keeping the missing newline is fine for a suggestion.
	d = diag("LTF005", 1, finding.Edit{Start: 4, End: 5, NewText: "2"})
	f = &finding.FileResult{Path: "x.py", Before: []byte(before), After: []byte("a = 2"), Diags: []finding.Diag{d}, Changed: true}
	rv = &Review{Files: []*FileReview{Build(f, &FileDiff{Added: []Range{{1, 1}}}, false)}}
	if cs := rv.Comments(); len(cs) != 1 || !strings.Contains(cs[0].Body, "```suggestion\na = 2\n```") {
		t.Errorf("want a suggestion a = 2, got %+v", cs)
	}
}

func TestFilesThatCouldNotBeReadAreNamedInTheBody(t *testing.T) {
	rv := &Review{Problems: []Problem{{Path: "broken.py", Message: "syntax error at 2:1"}}}
	items := rv.BodyItems()
	if len(items) != 1 || !strings.Contains(items[0].Text, "`broken.py` could not be reviewed: syntax error at 2:1") {
		t.Fatalf("items %+v", items)
	}
	if body := rv.Request().Body; !strings.Contains(body, items[0].Text) {
		t.Errorf("body lacks the problem:\n%s", body)
	}
}

// reviewdog filters and fails on the severity: each of ours keeps its
// level, for a note and for a fix, and a fix of findings of several
// severities takes the worst.
func TestRDJSONLSeverities(t *testing.T) {
	with := func(d finding.Diag, sev finding.Severity) finding.Diag { d.Severity = sev; return d }
	fd := &FileDiff{Added: []Range{{1, 6}}}
	edit := finding.Edit{Start: at("3\n"), End: at("3\n") + 1, NewText: "None"}
	for _, tt := range []struct {
		diags []finding.Diag
		want  string
	}{
		{[]finding.Diag{with(diag("LTF001", 1), finding.SeverityError)}, "ERROR"},
		{[]finding.Diag{with(diag("LTF001", 1), finding.SeverityWarning)}, "WARNING"},
		{[]finding.Diag{with(diag("LTF001", 1), finding.SeverityInfo)}, "INFO"},
		{[]finding.Diag{with(diag("LTF003", 4, edit), finding.SeverityWarning)}, "WARNING"},
		{[]finding.Diag{with(diag("LTF003", 4, edit), finding.SeverityInfo)}, "INFO"},
		{[]finding.Diag{with(diag("LTF003", 4, edit), finding.SeverityInfo), with(diag("LTF009", 4), finding.SeverityWarning)}, "WARNING"},
		{[]finding.Diag{with(diag("LTF003", 4, edit), finding.SeverityWarning), with(diag("LTF009", 4), finding.SeverityError)}, "ERROR"},
	} {
		f := file("train.py", tt.diags...)
		// Two findings of one line share its fix: make them one group.
		if len(tt.diags) == 2 {
			f.Diags[1].Fix = f.Diags[0].Fix
		}
		rv := &Review{Files: []*FileReview{Build(f, fd, false)}}
		var b strings.Builder
		if err := rv.RDJSONL(&b); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
			var d struct{ Severity string }
			if err := json.Unmarshal([]byte(line), &d); err != nil {
				t.Fatalf("%v: %s", err, line)
			}
			got = append(got, d.Severity)
		}
		if len(got) != 1 || got[0] != tt.want {
			t.Errorf("%v: severities %v, want [%s]", tt.diags, got, tt.want)
		}
	}
}
