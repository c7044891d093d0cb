package rewrite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/semantic"
)

const trainingScript = `import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained(
    "meta-llama/Llama-3.1-8B",
    torch_dtype=torch.bfloat16,
    device_map="auto",
)
model = get_peft_model(model, LoraConfig(r=8))
`

func mustEngine(t *testing.T, opts Options) *Engine {
	t.Helper()
	e, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func codes(fs []Finding) string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Code)
	}
	return strings.Join(out, ",")
}

func TestSyntaxErrorIsReportedWithItsPosition(t *testing.T) {
	e := mustEngine(t, Options{})
	_, err := e.Fix([]byte("import torch\nmodel = AutoModelForCausalLM.from_pretrained(\n"), Versions{})
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("want a SyntaxError, got %v", err)
	}
	if se.Pos.Line < 2 {
		t.Errorf("syntax error placed at line %d, want 2 or later", se.Pos.Line)
	}
}

func TestBinaryAndNonUTF8InputAreRefused(t *testing.T) {
	e := mustEngine(t, Options{})
	if _, err := e.Check([]byte("x = 1\x00from_pretrained"), Versions{}); !errors.Is(err, ErrBinary) {
		t.Errorf("NUL byte: got %v, want ErrBinary", err)
	}
	if _, err := e.Check([]byte("x = '\xff\xfe' # from_pretrained"), Versions{}); !errors.Is(err, ErrNotUTF8) {
		t.Errorf("invalid UTF-8: got %v, want ErrNotUTF8", err)
	}
}

func TestAFixThatBreaksTheParseIsDroppedAndTheOthersApplied(t *testing.T) {
	text := []byte("a = 1\nb = 2\n")
	good := &Finding{Code: "T1", Fix: &Fix{Edits: []Edit{{Start: 4, End: 5, NewText: "10"}}}}
	bad := &Finding{Code: "T2", Fix: &Fix{Edits: []Edit{{Start: 10, End: 11, NewText: "(("}}}}
	out, _, dropped, tree := applyVerified[*parsed](pyFront{ctx: context.Background()}, text, nil, []*Finding{good, bad})
	if tree != nil {
		tree.Close()
	}
	if string(out) != "a = 10\nb = 2\n" {
		t.Errorf("output %q, want the good fix alone", out)
	}
	if len(dropped) != 1 || dropped[0].Code != "T2" {
		t.Errorf("dropped %v, want T2", dropped)
	}
}

func TestConflictingEditsWaitForTheNextPass(t *testing.T) {
	a := &Fix{Edits: []Edit{{Start: 5, End: 10}}}
	cases := []struct {
		name string
		b    *Fix
		want bool
	}{
		{"overlapping replacement", &Fix{Edits: []Edit{{Start: 8, End: 12}}}, true},
		{"adjacent replacement", &Fix{Edits: []Edit{{Start: 10, End: 12}}}, false},
		{"insertion inside", &Fix{Edits: []Edit{{Start: 7, End: 7}}}, true},
		{"insertion at the start", &Fix{Edits: []Edit{{Start: 5, End: 5}}}, false},
	}
	for _, c := range cases {
		if got := finding.Conflicts(a, c.b); got != c.want {
			t.Errorf("%s: conflicts = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestSuppressionComments(t *testing.T) {
	e := mustEngine(t, Options{Select: []string{"LTF001", "LTF003"}})
	text := strings.Replace(trainingScript, `device_map="auto",`, `device_map="auto",  # noqa: LTF003`, 1)
	res, err := e.Check([]byte(text), Versions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := codes(res.Findings); got != "LTF001" {
		t.Errorf("with noqa on the device_map line: findings %s, want LTF001", got)
	}
	text = strings.Replace(trainingScript, `torch_dtype=torch.bfloat16,`, `torch_dtype=torch.bfloat16,  # loratune-fix: ignore[fp32-master-weights]`, 1)
	res, _ = e.Check([]byte(text), Versions{})
	if got := codes(res.Findings); got != "LTF003" {
		t.Errorf("with ignore[name]: findings %s, want LTF003", got)
	}
	res, _ = e.Check([]byte("# loratune-fix: skip-file\n"+trainingScript), Versions{})
	if len(res.Findings) != 0 {
		t.Errorf("skip-file: findings %s, want none", codes(res.Findings))
	}
	// The load's two keywords on one line: both findings start there.
	const twoLines, oneLine = "torch_dtype=torch.bfloat16,\n    device_map=\"auto\",", `torch_dtype=torch.bfloat16, device_map="auto",`
	cases := []struct {
		name, old, new, want string
	}{
		// ruff's reading: a bare noqa silences every rule on its line, and
		// only there (the load's other line keeps its finding).
		{"bare noqa", `device_map="auto",`, `device_map="auto",  # noqa`, "LTF001"},
		{"bare NOQA", `device_map="auto",`, `device_map="auto",  # NOQA`, "LTF001"},
		{"lower-case code", `torch_dtype=torch.bfloat16,`, `torch_dtype=torch.bfloat16,  # NOQA: ltf001`, "LTF003"},
		{"no space after the colon", `torch_dtype=torch.bfloat16,`, `torch_dtype=torch.bfloat16,  #noqa:LTF001`, "LTF003"},
		{"per line, not per file", `torch_dtype=torch.bfloat16,`, `torch_dtype=torch.bfloat16,  # noqa: LTF001, LTF003`, "LTF003"},
		{"bare loratune-fix ignore", `torch_dtype=torch.bfloat16,`, `torch_dtype=torch.bfloat16,  # loratune-fix: ignore`, "LTF003"},
		{"ignore and noqa in one comment", twoLines, oneLine + `  # loratune-fix: ignore[LTF001]  # noqa: LTF003`, ""},
		{"noqa then ignore", twoLines, oneLine + `  # noqa: LTF001 # loratune-fix: ignore[training-device-map]`, ""},
		{"ignore names another code", twoLines, oneLine + `  # loratune-fix: ignore[LTF005]`, "LTF001,LTF003"},
		{"noqa in a string", `device_map="auto",`, `device_map="auto", revision="main  #noqa: LTF003",`, "LTF001,LTF003"},
		{"noqa in a string, then a comment", `device_map="auto",`, `device_map="auto", revision="#noqa",  # see notes`, "LTF001,LTF003"},
		{"skip-file in a string", `import torch`, `import torch; NOTE = "# loratune-fix: skip-file"`, "LTF001,LTF003"},
		{"another linter's noqa code", `device_map="auto",`, `device_map="auto",  # noqa: E501`, "LTF001,LTF003"},
	}
	for _, c := range cases {
		text := strings.Replace(trainingScript, c.old, c.new, 1)
		if text == trainingScript {
			t.Fatalf("%s: %q is not in the script", c.name, c.old)
		}
		res, err := e.Check([]byte(text), Versions{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := codes(res.Findings); got != c.want {
			t.Errorf("%s: findings %s, want %s", c.name, got, c.want)
		}
	}
}

func TestSelectIgnoreAndProfiles(t *testing.T) {
	cases := []struct {
		name  string
		sel   Selection
		want  string
		notes int
	}{
		{"default profile", Selection{}, "LTF001,LTF002,LTF003,LTF004,LTF005,LTF006,LTF008,LTF009,LTF010,LTF011,LTF012,LTF101,LTF102,LTF103,LTF104,LTF105,LTF106", 0},
		{"lean profile", Selection{Profile: "lean"}, "LTF003,LTF004,LTF005,LTF006,LTF007,LTF008,LTF009,LTF010,LTF011,LTF012,LTF101,LTF102,LTF103,LTF104,LTF105,LTF106", 0},
		{"lean minus a name", Selection{Profile: "lean", Ignore: []string{"visible-nan-logging"}}, "LTF003,LTF004,LTF005,LTF006,LTF007,LTF008,LTF010,LTF011,LTF012,LTF101,LTF102,LTF103,LTF104,LTF105,LTF106", 0},
		// select narrows the profile: a prefix never brings back what the
		// profile leaves out (lean's reason to be is no fp32, no eager).
		{"lean with a prefix", Selection{Profile: "lean", Select: []string{"LTF00", "LTF101"}}, "LTF003,LTF004,LTF005,LTF006,LTF007,LTF008,LTF009,LTF101", 0},
		{"lean with ALL", Selection{Profile: "lean", Select: []string{"ALL"}}, "LTF003,LTF004,LTF005,LTF006,LTF007,LTF008,LTF009,LTF010,LTF011,LTF012,LTF101,LTF102,LTF103,LTF104,LTF105,LTF106", 0},
		{"default with a prefix", Selection{Select: []string{"ltf00"}}, "LTF001,LTF002,LTF003,LTF004,LTF005,LTF006,LTF008,LTF009", 0},
		// Named exactly, it runs, with a note.
		{"select by name and code", Selection{Select: []string{"eager-attention", "LTF007"}}, "LTF002,LTF007", 1},
		{"lean extended by a code", Selection{Profile: "lean", Select: []string{"LTF003"}, ExtendSelect: []string{"ltf001"}}, "LTF001,LTF003", 1},
		{"extend-select adds to the profile", Selection{ExtendSelect: []string{"sdpa-backend-fence"}}, "LTF001,LTF002,LTF003,LTF004,LTF005,LTF006,LTF007,LTF008,LTF009,LTF010,LTF011,LTF012,LTF101,LTF102,LTF103,LTF104,LTF105,LTF106", 1},
		{"extend-select prefix stays in the profile", Selection{Select: []string{"LTF003"}, ExtendSelect: []string{"LTF00"}}, "LTF001,LTF002,LTF003,LTF004,LTF005,LTF006,LTF008,LTF009", 0},
		{"ignore wins over select", Selection{Select: []string{"LTF007"}, Ignore: []string{"ALL"}}, "", 0},
	}
	for _, c := range cases {
		rs, notes, err := c.sel.Resolve()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []string
		for _, r := range rs {
			got = append(got, r.Code)
		}
		if strings.Join(got, ",") != c.want {
			t.Errorf("%s: rules %s, want %s", c.name, strings.Join(got, ","), c.want)
		}
		if len(notes) != c.notes {
			t.Errorf("%s: notes %q, want %d", c.name, notes, c.notes)
		}
	}
	_, notes, _ := Selection{Profile: "lean", ExtendSelect: []string{"LTF002"}}.Resolve()
	if want := "LTF002 eager-attention is not in the lean profile; it runs because extend-select names it"; len(notes) != 1 || notes[0] != want {
		t.Errorf("note %q, want %q", notes, want)
	}
	for _, bad := range []Selection{{Select: []string{"LTF999"}}, {ExtendSelect: []string{"device_map"}}, {Ignore: []string{"X"}}, {Profile: "fast"}} {
		if _, _, err := bad.Resolve(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestEveryRuleIsDocumentedAndHasTriggers(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range All() {
		if seen[r.Code] || seen[r.Name] {
			t.Errorf("%s %s: duplicate code or name", r.Code, r.Name)
		}
		seen[r.Code], seen[r.Name] = true, true
		if len(r.Triggers) == 0 {
			t.Errorf("%s has no trigger words: the prefilter would skip every file", r.Code)
		}
		for _, section := range []string{"## What it does", "## Why", "## When it stays away", "## Cost"} {
			if !strings.Contains(r.Doc, section) {
				t.Errorf("%s: doc lacks %q", r.Code, section)
			}
		}
	}
}

func TestColumnsCountCharacters(t *testing.T) {
	src := semantic.NewSource([]byte("é = 1\nx = 'ü' + y\n"))
	if p := src.Position(len("é = 1\nx = 'ü' + ")); p.Line != 2 || p.Column != 11 {
		t.Errorf("position %+v, want line 2 column 11", p)
	}
}

func TestAFileWithoutTrainingGetsNoEdits(t *testing.T) {
	e := mustEngine(t, Options{Select: []string{"ALL"}})
	text := "import torch\nfrom transformers import AutoModelForCausalLM\n\nmodel = AutoModelForCausalLM.from_pretrained(\"meta-llama/Llama-3.1-8B\", torch_dtype=torch.bfloat16, device_map=\"auto\")\nmodel = torch.compile(model)\n"
	res, err := e.Fix([]byte(text), Versions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed {
		t.Errorf("an inference script was edited:\n%s", res.Output)
	}
}

func TestPrefilterAsksForATrainingWord(t *testing.T) {
	e := mustEngine(t, Options{})
	if e.MayMatch([]byte("import re\npattern = re.compile('x')\n")) {
		t.Error("a file with re.compile and nothing of training passes the prefilter")
	}
	if !e.MayMatch([]byte(trainingScript)) {
		t.Error("a training script is filtered out")
	}
	if e.MayMatch([]byte("model = AutoModel.from_pretrained('x')\n")) {
		t.Error("an inference load without any training word passes the prefilter")
	}
}

func TestIndentUnitComesFromBlocksNotFromStrings(t *testing.T) {
	text := "\"\"\"Usage:\n  python train.py\n\"\"\"\nimport torch\n\n\ndef main():\n    if True:\n        pass\n"
	tree, err := parse([]byte(text), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	src := semantic.NewSource([]byte(text))
	src.Root = goTree(tree).Root()
	if u := src.IndentUnit(); u != "    " {
		t.Errorf("indent unit %q, want four spaces (the docstring's two-space lines do not count)", u)
	}
}

// Check runs fix's passes: each finding says what fix --write does with it.
func TestCheckGivesEachFindingItsOutcome(t *testing.T) {
	e := mustEngine(t, Options{Select: []string{"LTF001", "LTF003"}})
	res, err := e.Check([]byte(trainingScript), Versions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed || string(res.Output) != trainingScript {
		t.Error("Check changed the text")
	}
	for _, f := range res.Findings {
		if f.Outcome != finding.OutcomeFixed || f.Reason != "" {
			t.Errorf("%s: outcome %q %q, want fixed", f.Code, f.Outcome, f.Reason)
		}
	}
	// A frozen span (a notebook's magic line) over the dtype keeps LTF001.
	at := strings.Index(trainingScript, "torch_dtype")
	res, err = e.FixFrozen(context.Background(), []byte(trainingScript), Versions{}, []Span{{Start: at, End: at + len("torch_dtype=torch.bfloat16")}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range res.Findings {
		got[f.Code] = string(f.Outcome) + ": " + f.Reason
	}
	if got["LTF001"] != "not-fixed: its fix would touch an IPython magic line or span two cells" || got["LTF003"] != "fixed: " {
		t.Errorf("outcomes %q", got)
	}
	// Unsafe fixes are fixed only with UnsafeFixes.
	text, err := os.ReadFile("../fixtures/realworld/state_dict_override.py")
	if err != nil {
		t.Fatal(err)
	}
	for _, unsafe := range []bool{false, true} {
		e := mustEngine(t, Options{Select: []string{"LTF004"}, UnsafeFixes: unsafe})
		res, err := e.Check(text, Versions{})
		if err != nil {
			t.Fatal(err)
		}
		want := finding.OutcomeUnsafe
		if unsafe {
			want = finding.OutcomeFixed
		}
		if len(res.Findings) != 1 || res.Findings[0].Outcome != want {
			t.Errorf("unsafe fixes %v: findings %v, want one %s", unsafe, res.Findings, want)
		}
	}
}

// A finding's identity is its code, message and place among its twins:
// refusing the fix of one of two twin findings (the same rule and message
// on two loads in two functions) leaves the other's fix chosen, and the
// refusal's reason goes to the finding refused.
func TestRefusingOneTwinLeavesTheOther(t *testing.T) {
	twin := func(at int) Finding {
		return Finding{Code: "LTF005", Message: "set model.config.use_cache = False", Start: at, End: at + 5,
			Fix: &Fix{Applicability: Safe, Edits: []Edit{{Start: at + 5, End: at + 5, NewText: "x"}}}}
	}
	findings := []Finding{twin(10), twin(100)}
	c := NewFixChoice(false)
	c.Choose(0, findings, nil)
	c.Skip[c.ID(&findings[1])] = "binding guard: line 9; not applied"
	again := []Finding{twin(10), twin(100)}
	chosen, _ := c.Choose(1, again, nil)
	if len(chosen) != 1 || chosen[0].Start != 10 {
		t.Fatalf("chosen %v, want the first twin alone", chosen)
	}
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := []Finding{twin(10), twin(100)}
	e.setOutcomes(out, []Finding{twin(100)}, true, c.Skip, nil)
	if out[0].Outcome != "fixed" || out[1].Reason != "binding guard: line 9; not applied" {
		t.Errorf("outcomes %q/%q, %q/%q: want the first fixed and the second refused with its own reason",
			out[0].Outcome, out[0].Reason, out[1].Outcome, out[1].Reason)
	}
}

// A warning whose message quotes another line keeps its identity when a
// fix above that line moves it: it is still there, not fixed.
func TestQuotedLineMovesWithoutFixingTheFinding(t *testing.T) {
	warn := func(line int) Finding {
		return Finding{Code: "LTF003", Severity: SeverityWarning, Start: 300, End: 310,
			Message: fmt.Sprintf("device_map comes from device_map = {} (line %d), decided at run time", line)}
	}
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := []Finding{warn(9)}
	e.setOutcomes(out, []Finding{warn(10)}, true, nil, nil)
	if out[0].Outcome != "not-fixed" {
		t.Errorf("outcome %q: want not-fixed (the line it quotes moved, the finding stayed)", out[0].Outcome)
	}
}
