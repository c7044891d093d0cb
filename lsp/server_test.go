package lsp

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/loratune/loratune-fix/rewrite"
	"github.com/loratune/loratune-fix/runner"
)

// The demo script: diagnostics on open, change and save, each with its
// code, severity, rule link and fix mark; positions follow an edit.
func TestDiagnosticsOnOpenChangeSave(t *testing.T) {
	c := newClient(t, testOptions(t))
	uri := fileURI(filepath.Join(t.TempDir(), "train.py"))
	text := demo(t)
	c.open(uri, "python", text)
	ds := c.wait(uri, 1)
	if got := codes(ds); got != "LTF001,LTF002,LTF003,LTF004,LTF005,LTF006,LTF008,LTF009" {
		t.Fatalf("codes %s", got)
	}
	d := find(t, ds, "LTF002")
	if d.Severity != 1 || d.Source != "loratune-fix" || d.CodeDescription == nil ||
		d.CodeDescription.Href != "https://github.com/loratune/loratune-fix/blob/main/docs/rules.md#ltf002" {
		t.Errorf("LTF002: %+v", d)
	}
	if d.Data == nil || d.Data.Fix != "safe" || d.Data.Outcome != "fixed" || !strings.Contains(d.Message, "(safe fix: ") {
		t.Errorf("LTF002's fix mark: %+v %+v", d.Message, d.Data)
	}
	// A line added on top moves every finding one line down.
	c.changeAll(uri, 2, "# a comment\n"+text)
	ds2 := c.wait(uri, 2)
	if d2 := find(t, ds2, "LTF002"); d2.Range.Start.Line != d.Range.Start.Line+1 {
		t.Errorf("after a line on top: LTF002 at %+v, was %+v", d2.Range, d.Range)
	}
	c.notify("textDocument/didSave", DidSaveTextDocumentParams{TextDocument: TextDocumentIdentifier{URI: uri}})
	c.wait(uri, 2)
	c.notify("textDocument/didClose", DidCloseTextDocumentParams{TextDocument: TextDocumentIdentifier{URI: uri}})
}

// A finding's fix, suppress on the line and fix all safe, applied as an
// editor applies them: the finding is gone, and fix all gives what fix
// --write writes.
func TestCodeActions(t *testing.T) {
	c := newClient(t, testOptions(t))
	path := filepath.Join(t.TempDir(), "train.py")
	uri := fileURI(path)
	text := demo(t)
	c.open(uri, "python", text)
	ds := c.wait(uri, 1)
	d := find(t, ds, "LTF002")

	acts := c.actions(uri, d.Range)
	var fix, noqa, all *CodeAction
	for i, a := range acts {
		switch {
		case a.Kind == KindQuickFix && strings.Contains(a.Title, "suppress LTF002"):
			noqa = &acts[i]
		case a.Kind == KindQuickFix && len(a.Diagnostics) == 1 && a.Diagnostics[0].Code == "LTF002":
			fix = &acts[i]
		case a.Kind == KindFixAll:
			all = &acts[i]
		}
	}
	if fix == nil || noqa == nil || all == nil {
		t.Fatalf("actions: %+v", acts)
	}
	if !fix.IsPreferred || fix.Edit.DocumentChanges[0].TextDocument.Version != 1 {
		t.Errorf("the fix: %+v", fix)
	}

	fixed := apply(t, text, fix.Edit, uri)
	if !strings.Contains(fixed, `attn_implementation="eager"`) {
		t.Fatalf("the fix did not add eager attention:\n%s", fixed)
	}
	c.changeAll(uri, 2, fixed)
	if got := codes(c.wait(uri, 2)); strings.Contains(got, "LTF002") {
		t.Errorf("after the fix: %s", got)
	}

	silenced := apply(t, text, noqa.Edit, uri)
	if !strings.Contains(silenced, "# noqa: LTF002\n") {
		t.Fatalf("no noqa comment:\n%s", silenced)
	}
	c.changeAll(uri, 3, silenced)
	if got := codes(c.wait(uri, 3)); strings.Contains(got, "LTF002") || !strings.Contains(got, "LTF001") {
		t.Errorf("after the noqa: %s", got)
	}

	c.changeAll(uri, 4, text)
	c.wait(uri, 4)
	only := c.actions(uri, Range{}, "source.fixAll")
	if len(only) != 1 || only[0].Kind != KindFixAll {
		t.Fatalf("only source.fixAll: %+v", only)
	}
	want := runner.Process(&runner.Options{Engine: mustEngine(t), Fix: true}, path, []byte(text))
	if got := apply(t, text, only[0].Edit, uri); got != string(want.After) {
		t.Errorf("fix all differs from fix --write")
	}
}

// Hover on a finding gives the rule's why and cost, and its link.
func TestHover(t *testing.T) {
	c := newClient(t, testOptions(t))
	uri := fileURI(filepath.Join(t.TempDir(), "train.py"))
	c.open(uri, "python", demo(t))
	d := find(t, c.wait(uri, 1), "LTF002")
	var h Hover
	c.call("textDocument/hover", TextDocumentPositionParams{TextDocument: TextDocumentIdentifier{URI: uri}, Position: d.Range.Start}, &h)
	for _, want := range []string{"LTF002 eager-attention", "**Why.**", "cuDNN", "**Cost.**", "docs/rules.md#ltf002"} {
		if !strings.Contains(h.Contents.Value, want) {
			t.Errorf("hover lacks %q:\n%s", want, h.Contents.Value)
		}
	}
	var none json.RawMessage
	c.call("textDocument/hover", TextDocumentPositionParams{TextDocument: TextDocumentIdentifier{URI: uri}, Position: Position{Line: 0}}, &none)
	if string(none) != "null" {
		t.Errorf("hover off the findings: %s", none)
	}
}

// Mid-typing, a script that does not parse keeps the findings of its last
// good text that the change left alone, moved to where they are now, with
// no fix offered; the next good text gets fresh ones.
func TestSyntaxErrorKeepsLastGoodFindings(t *testing.T) {
	c := newClient(t, testOptions(t))
	uri := fileURI(filepath.Join(t.TempDir(), "train.py"))
	text := demo(t)
	c.open(uri, "python", text)
	good := c.wait(uri, 1)
	broken := strings.Replace(text, "    args = parser.parse_args()\n", "    args = parser.parse_args(\n\n", 1)
	c.changeAll(uri, 2, broken)
	ds := c.wait(uri, 2)
	if codes(ds) != codes(good) {
		t.Fatalf("broken text: %s, last good: %s", codes(ds), codes(good))
	}
	if d, g := find(t, ds, "LTF002"), find(t, good, "LTF002"); d.Range.Start.Line != g.Range.Start.Line+1 {
		t.Errorf("LTF002 at line %d, was %d, one line added above", d.Range.Start.Line, g.Range.Start.Line)
	}
	for _, a := range c.actions(uri, find(t, ds, "LTF002").Range) {
		if !strings.Contains(a.Title, "suppress") {
			t.Errorf("a fix offered on a text that does not parse: %s", a.Title)
		}
	}
	c.changeAll(uri, 3, text)
	if codes(c.wait(uri, 3)) != codes(good) {
		t.Errorf("fixed text: findings differ")
	}
}

// A request for a document that is not open, or no longer, is an error
// response; the server goes on.
func TestClosedDocumentIsAnError(t *testing.T) {
	c := newClient(t, testOptions(t))
	uri := fileURI(filepath.Join(t.TempDir(), "train.py"))
	for _, method := range []string{"textDocument/hover", "textDocument/codeAction"} {
		err := c.try(method, CodeActionParams{TextDocument: TextDocumentIdentifier{URI: uri}}, nil)
		var re *jsonrpc2.Error
		if !errors.As(err, &re) || re.Code != codeRequestFailed {
			t.Errorf("%s of a document never opened: %v", method, err)
		}
	}
	c.open(uri, "python", demo(t))
	c.wait(uri, 1)
	c.notify("textDocument/didClose", DidCloseTextDocumentParams{TextDocument: TextDocumentIdentifier{URI: uri}})
	err := c.try("textDocument/hover", TextDocumentPositionParams{TextDocument: TextDocumentIdentifier{URI: uri}}, nil)
	var re *jsonrpc2.Error
	if !errors.As(err, &re) || re.Code != codeRequestFailed {
		t.Errorf("hover of a closed document: %v", err)
	}
	// Still serving.
	c.open(uri, "python", demo(t))
	c.wait(uri, 1)
}

// A LLaMA-Factory config, told by its content: its findings and fixes.
func TestLaunchConfig(t *testing.T) {
	c := newClient(t, testOptions(t))
	data, err := os.ReadFile("../fixtures/launch/llamafactory/lora_pure_bf16.yaml")
	if err != nil {
		t.Fatal(err)
	}
	uri := fileURI(filepath.Join(t.TempDir(), "lora_sft.yaml"))
	c.open(uri, "yaml", string(data))
	ds := c.wait(uri, 1)
	if got := codes(ds); got != "LTF001,LTF002,LTF009" {
		t.Fatalf("codes %s", got)
	}
	d := find(t, ds, "LTF002")
	var fixed, silenced string
	for _, a := range c.actions(uri, d.Range, "quickfix") {
		switch {
		case len(a.Diagnostics) != 1 || a.Diagnostics[0].Code != "LTF002":
		case strings.Contains(a.Title, "suppress"):
			silenced = apply(t, string(data), a.Edit, uri)
		default:
			fixed = apply(t, string(data), a.Edit, uri)
		}
	}
	if !strings.Contains(fixed, "flash_attn: disabled") {
		t.Errorf("the fix gave:\n%s", fixed)
	}
	// A YAML comment silences it as in a script.
	if !strings.Contains(silenced, "flash_attn: auto  # noqa: LTF002\n") {
		t.Fatalf("suppress gave:\n%s", silenced)
	}
	c.changeAll(uri, 2, silenced)
	if got := codes(c.wait(uri, 2)); got != "LTF001,LTF009" {
		t.Errorf("after the noqa: %s", got)
	}
}

func mustEngine(t testing.TB) *rewrite.Engine {
	t.Helper()
	o, err := testOptions(t).For("")
	if err != nil {
		t.Fatal(err)
	}
	return o.Engine
}

// A configuration that cannot be read (a typo in pyproject.toml) is shown
// once, and the document gets no findings rather than wrong ones.
func TestConfigurationErrorIsShown(t *testing.T) {
	opts := testOptions(t)
	opts.For = func(string) (*runner.Options, error) {
		return nil, errors.New(`pyproject.toml: [tool.loratune-fix]: unknown key "selct"`)
	}
	c := newClient(t, opts)
	uri := fileURI(filepath.Join(t.TempDir(), "train.py"))
	c.open(uri, "python", demo(t))
	if ds := c.wait(uri, 1); len(ds) != 0 {
		t.Errorf("findings without a configuration: %s", codes(ds))
	}
	c.mu.Lock()
	logs := strings.Join(c.logs, "\n")
	c.mu.Unlock()
	if !strings.Contains(logs, `unknown key "selct"`) {
		t.Errorf("the error was not shown: %q", logs)
	}
}

// A panic while analysing one text is logged and that text gets no
// findings; the session goes on, and the next text is analysed.
func TestPanicInAnalysisIsNotTheEnd(t *testing.T) {
	opts := testOptions(t)
	base := opts.For
	first := true
	opts.For = func(path string) (*runner.Options, error) {
		if first {
			first = false
			panic("a bug")
		}
		return base(path)
	}
	c := newClient(t, opts)
	uri := fileURI(filepath.Join(t.TempDir(), "train.py"))
	text := demo(t)
	c.open(uri, "python", text)
	if ds := c.wait(uri, 1); len(ds) != 0 {
		t.Errorf("findings from a panicked analysis: %s", codes(ds))
	}
	c.changeAll(uri, 2, text+"\n")
	if ds := c.wait(uri, 2); len(ds) == 0 {
		t.Errorf("no findings after the panic")
	}
	c.mu.Lock()
	logs := strings.Join(c.logs, "\n")
	c.mu.Unlock()
	if !strings.Contains(logs, "internal error on") || !strings.Contains(logs, "a bug") {
		t.Errorf("the panic was not logged: %q", logs)
	}
}
