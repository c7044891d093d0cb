package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"strconv"
	"testing"
	"time"

	"github.com/loratune/loratune-fix/runner"
)

// rawPeer writes and reads LSP frames by hand: requests with ids of the
// test's choosing.
type rawPeer struct {
	t  *testing.T
	w  io.Writer
	tp *textproto.Reader
	r  *bufio.Reader
}

func (p *rawPeer) send(msg string) {
	p.t.Helper()
	if _, err := fmt.Fprintf(p.w, "Content-Length: %d\r\n\r\n%s", len(msg), msg); err != nil {
		p.t.Fatal(err)
	}
}

func (p *rawPeer) read() map[string]any {
	p.t.Helper()
	h, err := p.tp.ReadMIMEHeader()
	if err != nil {
		p.t.Fatal(err)
	}
	n, _ := strconv.Atoi(h.Get("Content-Length"))
	body := make([]byte, n)
	if _, err := io.ReadFull(p.r, body); err != nil {
		p.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		p.t.Fatal(err)
	}
	return m
}

// response reads until the response to id.
func (p *rawPeer) response(id any) map[string]any {
	p.t.Helper()
	for {
		m := p.read()
		if m["method"] == nil && fmt.Sprint(m["id"]) == fmt.Sprint(id) {
			return m
		}
	}
}

// A code action waits for the analysis of the text as it is now; a
// $/cancelRequest ends the wait with RequestCancelled, and the server
// goes on serving.
func TestCancelRequest(t *testing.T) {
	hold := make(chan struct{})
	opts := testOptions(t)
	base := opts.For
	calls := 0
	opts.For = func(path string) (*runner.Options, error) {
		calls++
		if calls == 1 {
			<-hold // the first analysis takes as long as the test wants
		}
		return base(path)
	}
	a, b := net.Pipe()
	served := make(chan error, 1)
	go func() { served <- Serve(context.Background(), b, opts) }()
	r := bufio.NewReader(a)
	p := &rawPeer{t: t, w: a, r: r, tp: textproto.NewReader(r)}
	go func() {
		p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`)
	}()
	p.response(1)
	uri := "file:///tmp/cancel/train.py"
	open, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": DidOpenTextDocumentParams{
		TextDocument: TextDocumentItem{URI: uri, LanguageID: "python", Version: 1, Text: demo(t)}}})
	go func() {
		p.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
		p.send(string(open))
		p.send(`{"jsonrpc":"2.0","id":"wait-for-me","method":"textDocument/codeAction","params":{"textDocument":{"uri":"` + uri + `"},"range":{"start":{"line":0,"character":0},"end":{"line":99,"character":0}},"context":{"diagnostics":[]}}}`)
		time.Sleep(50 * time.Millisecond) // the request is waiting
		p.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"wait-for-me"}}`)
	}()
	m := p.response("wait-for-me")
	e, _ := m["error"].(map[string]any)
	if e == nil || e["code"] != float64(codeRequestCancelled) {
		t.Fatalf("the cancelled request answered %v", m)
	}
	close(hold)
	// The analysis finishes; a request now gets actions.
	go p.send(`{"jsonrpc":"2.0","id":2,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"` + uri + `"},"range":{"start":{"line":0,"character":0},"end":{"line":99,"character":0}},"context":{"diagnostics":[]}}}`)
	m = p.response(2)
	if acts, _ := m["result"].([]any); len(acts) == 0 {
		t.Fatalf("after the cancel: %v", m)
	}
	go func() {
		p.send(`{"jsonrpc":"2.0","id":3,"method":"shutdown"}`)
		p.send(`{"jsonrpc":"2.0","method":"exit"}`)
	}()
	p.response(3)
	go io.Copy(io.Discard, a)
	if err := <-served; err != nil {
		t.Fatal(err)
	}
}
