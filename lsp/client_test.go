package lsp

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/loratune/loratune-fix/pins"
	"github.com/loratune/loratune-fix/rewrite"
	"github.com/loratune/loratune-fix/runner"
)

// testOptions run the default profile with the pins beside each file, as
// the command does without a pyproject.
func testOptions(t testing.TB) Options {
	eng, err := rewrite.New(rewrite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	finder := pins.NewFinder()
	o := &runner.Options{Engine: eng, Versions: finder.For, LineLength: finder.LineLength}
	return Options{For: func(string) (*runner.Options, error) { return o, nil }, Version: "test"}
}

// client drives a server in this process over a pipe, as an editor does
// over stdio.
type client struct {
	t      testing.TB
	conn   jsonrpc2.Conn
	served chan error

	mu    sync.Mutex
	diags map[string]PublishDiagnosticsParams // the latest per URI
	seen  chan struct{}                       // closed and replaced on each publish
	logs  []string
}

func newClient(t testing.TB, opts Options) *client {
	t.Helper()
	a, b := net.Pipe()
	c := &client{t: t, served: make(chan error, 1), diags: map[string]PublishDiagnosticsParams{}, seen: make(chan struct{})}
	go func() { c.served <- Serve(context.Background(), b, opts) }()
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(a), jsonrpc2.WithCodec(codec{}))
	c.conn.Go(context.Background(), c.handle)
	var res json.RawMessage
	c.call("initialize", map[string]any{"processId": nil, "capabilities": map[string]any{
		"workspace": map[string]any{"workspaceEdit": map[string]any{"documentChanges": true}}}}, &res)
	if !strings.Contains(string(res), `"notebookDocumentSync"`) {
		t.Fatalf("initialize: %s", res)
	}
	c.notify("initialized", map[string]any{})
	t.Cleanup(c.exit)
	return c
}

func (c *client) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	switch req.Method() {
	case "textDocument/publishDiagnostics":
		var p PublishDiagnosticsParams
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			return nil, err
		}
		c.mu.Lock()
		c.diags[p.URI] = p
		close(c.seen)
		c.seen = make(chan struct{})
		c.mu.Unlock()
	case "window/logMessage", "window/showMessage":
		var p LogMessageParams
		json.Unmarshal(req.Params(), &p)
		c.mu.Lock()
		c.logs = append(c.logs, p.Message)
		c.mu.Unlock()
	}
	return nil, nil
}

func (c *client) exit() {
	c.call("shutdown", nil, nil)
	c.notify("exit", nil)
	select {
	case err := <-c.served:
		if err != nil {
			c.t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		c.t.Errorf("the server did not exit")
	}
	c.conn.Close()
}

func (c *client) call(method string, params, result any) {
	c.t.Helper()
	if err := c.try(method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *client) try(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err := c.conn.Call(ctx, method, params, result)
	return err
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// wait returns the diagnostics of uri once they are of version (or
// later).
func (c *client) wait(uri string, version int32) []Diagnostic {
	c.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		c.mu.Lock()
		p, ok := c.diags[uri]
		seen := c.seen
		c.mu.Unlock()
		if ok && p.Version != nil && *p.Version >= version {
			return p.Diagnostics
		}
		select {
		case <-seen:
		case <-deadline:
			c.t.Fatalf("no diagnostics of version %d for %s", version, uri)
		}
	}
}

func (c *client) open(uri, lang string, text string) {
	c.t.Helper()
	c.notify("textDocument/didOpen", DidOpenTextDocumentParams{TextDocument: TextDocumentItem{URI: uri, LanguageID: lang, Version: 1, Text: text}})
}

func (c *client) changeAll(uri string, version int32, text string) {
	c.t.Helper()
	c.notify("textDocument/didChange", DidChangeTextDocumentParams{TextDocument: VersionedTextDocumentIdentifier{URI: uri, Version: version},
		ContentChanges: []TextDocumentContentChangeEvent{{Text: text}}})
}

func (c *client) actions(uri string, r Range, only ...string) []CodeAction {
	c.t.Helper()
	var out []CodeAction
	c.call("textDocument/codeAction", CodeActionParams{TextDocument: TextDocumentIdentifier{URI: uri}, Range: r, Context: CodeActionContext{Only: only}}, &out)
	return out
}

// apply applies a workspace edit's edits of uri to text, as an editor
// does: every range is of the text before the edit.
func apply(t testing.TB, text string, we *WorkspaceEdit, uri string) string {
	t.Helper()
	var edits []TextEdit
	for _, dc := range we.DocumentChanges {
		if dc.TextDocument.URI == uri {
			edits = append(edits, dc.Edits...)
		}
	}
	edits = append(edits, we.Changes[uri]...)
	l := newLines([]byte(text))
	type span struct {
		start, end int
		text       string
		order      int
	}
	var spans []span
	for i, e := range edits {
		s, err1 := l.offset(e.Range.Start)
		en, err2 := l.offset(e.Range.End)
		if err1 != nil || err2 != nil {
			t.Fatalf("bad edit range %+v", e.Range)
		}
		spans = append(spans, span{s, en, e.NewText, i})
	}
	// From the end; inserts at one place in reverse, so that the first
	// given comes first.
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start > spans[j].start
		}
		return spans[i].order > spans[j].order
	})
	out := text
	for _, s := range spans {
		out = out[:s.start] + s.text + out[s.end:]
	}
	return out
}

func codes(ds []Diagnostic) string {
	var cs []string
	for _, d := range ds {
		cs = append(cs, d.Code)
	}
	sort.Strings(cs)
	return strings.Join(cs, ",")
}

func find(t testing.TB, ds []Diagnostic, code string) Diagnostic {
	t.Helper()
	for _, d := range ds {
		if d.Code == code {
			return d
		}
	}
	t.Fatalf("no %s among %s", code, codes(ds))
	return Diagnostic{}
}

func demo(t testing.TB) string {
	data, err := os.ReadFile("../cmd/loratune-fix/demo/train.py")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func fileURI(path string) string { return "file://" + filepath.ToSlash(path) }

// forget drops what was published for uris, so that wait sees the next.
func (c *client) forget(uris ...string) {
	c.mu.Lock()
	for _, u := range uris {
		delete(c.diags, u)
	}
	c.mu.Unlock()
}
