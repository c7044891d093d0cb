// Package lsp is `loratune-fix server`: a language server over stdio that
// runs the engine on the documents an editor has open, as the command
// runs it on files (runner.Process: Python, notebooks, launch configs),
// and answers with diagnostics, code actions (a finding's fix, fix all
// safe, suppress on the line) and hovers (the rule's why and cost).
//
// The wire is go.lsp.dev/jsonrpc2 (Content-Length framing, $/cancelRequest
// by request id); the protocol types are this package's own (protocol.go).
package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/loratune/loratune-fix/rewrite"
	"github.com/loratune/loratune-fix/runner"
)

// Options configure a server.
type Options struct {
	// For gives the runner options of one file as the command would run
	// it: the engine of its pyproject's [tool.loratune-fix] (profile,
	// select, ignore, per-file ignores), the pins beside it, its line
	// length.
	For func(path string) (*runner.Options, error)
	// Reset forgets what For has read, after a save (a pyproject or a
	// requirements file may have changed). Nil: nothing to forget.
	Reset func()
	// Version is the server's version, told to the client.
	Version string
}

// ErrExitWithoutShutdown is Serve's error when the client sent exit
// before shutdown (the protocol's exit code 1).
var ErrExitWithoutShutdown = errors.New("exit without shutdown")

// Serve answers one client over rwc until it exits or the stream ends.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) error {
	s := &server{opts: opts, docs: map[string]*doc{}, cells: map[string]*doc{}, exited: make(chan struct{})}
	s.ctx, s.stop = context.WithCancel(ctx)
	defer s.stop()
	s.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(rwc), jsonrpc2.WithCodec(codec{}), jsonrpc2.WithPreempter(s))
	s.conn.Go(s.ctx, s.handle)
	select {
	case <-s.conn.Done():
	case <-s.exited:
		s.stop()
		// Close waits for the read loop, which a stream that ignores
		// Close (a terminal's stdin) never ends: the process is exiting.
		done := make(chan struct{})
		go func() { s.conn.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
		}
	}
	s.closeAll()
	s.mu.Lock()
	clean := s.shutdown
	s.mu.Unlock()
	select {
	case <-s.exited:
		if !clean {
			return ErrExitWithoutShutdown
		}
		return nil
	default:
	}
	return s.conn.Err()
}

type server struct {
	opts Options
	conn jsonrpc2.Conn
	ctx  context.Context // cancelled on exit: stops every analysis
	stop context.CancelFunc
	// inflight cancels the requests under way by id. (jsonrpc2's own
	// CancelHandler wraps the pooled request context in a
	// context.WithCancel whose watcher goroutine may read the context
	// after it is recycled: a panic seen in this package's tests.)
	inflightMu sync.Mutex
	inflight   map[jsonrpc2.ID]context.CancelFunc
	exited     chan struct{}
	exitOnce   sync.Once

	mu              sync.Mutex
	initialized     bool
	shutdown        bool
	documentChanges bool            // the client takes versioned edits
	docs            map[string]*doc // open documents by URI: text documents and notebooks
	cells           map[string]*doc // a notebook cell's URI: its notebook
	told            map[string]bool // configuration errors already shown
}

// codec is encoding/json for params and results, without HTML escaping
// (jsonrpc2's contract for a codec).
type codec struct{}

func (codec) Marshal(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok {
		if raw == nil {
			return []byte("null"), nil
		}
		return raw, nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func (codec) Unmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

// Preempt answers $/cancelRequest on the read loop, ahead of the request
// it cancels: the request's context is cancelled, and a request waiting
// for an analysis answers RequestCancelled.
func (s *server) Preempt(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if req.Method() != "$/cancelRequest" {
		return nil, jsonrpc2.ErrNotHandled
	}
	var p CancelParams
	if json.Unmarshal(json.RawMessage(req.Params()), &p) == nil {
		var n int64
		var str string
		switch {
		case json.Unmarshal(p.ID, &n) == nil:
			s.cancelRequest(jsonrpc2.NewNumberID(n))
		case json.Unmarshal(p.ID, &str) == nil:
			s.cancelRequest(jsonrpc2.NewStringID(str))
		}
	}
	return struct{}{}, nil
}

func (s *server) cancelRequest(id jsonrpc2.ID) {
	s.inflightMu.Lock()
	cancel := s.inflight[id]
	s.inflightMu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// track gives a request its own context, cancelled by $/cancelRequest, and
// its release.
func (s *server) track(id jsonrpc2.ID) (context.Context, func()) {
	ctx, cancel := context.WithCancel(s.ctx)
	s.inflightMu.Lock()
	if s.inflight == nil {
		s.inflight = map[jsonrpc2.ID]context.CancelFunc{}
	}
	s.inflight[id] = cancel
	s.inflightMu.Unlock()
	return ctx, func() {
		s.inflightMu.Lock()
		delete(s.inflight, id)
		s.inflightMu.Unlock()
		cancel()
	}
}

func rpcError(code int, format string, a ...any) error {
	return jsonrpc2.NewError(jsonrpc2.Code(code), fmt.Sprintf(format, a...))
}

// handle dispatches one message. Notifications run in order on the read
// loop and never fail the connection: a bad one is logged. Requests that
// read an analysis release the loop (Async) and wait for it.
func (s *server) handle(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
	defer func() {
		// A bug in one message must not end the session: the call gets an
		// internal error, a notification a log line.
		if r := recover(); r != nil {
			buf := make([]byte, 4096)
			buf = buf[:runtime.Stack(buf, false)]
			s.log(1, fmt.Sprintf("loratune-fix: internal error in %s: %v\n%s", req.Method(), r, buf))
			result, err = nil, nil
			if req.IsCall() {
				err = rpcError(int(jsonrpc2.InternalError), "internal error in %s: %v", req.Method(), r)
			}
		}
	}()
	method := req.Method()
	s.mu.Lock()
	initialized, shutdown := s.initialized, s.shutdown
	s.mu.Unlock()
	if !req.IsCall() {
		if method == "exit" {
			s.exitOnce.Do(func() { close(s.exited) })
			return nil, nil
		}
		if !initialized || shutdown {
			return nil, nil // dropped, as the protocol says
		}
		if err := s.notify(method, json.RawMessage(req.Params())); err != nil {
			s.log(2, fmt.Sprintf("loratune-fix: %s: %v", method, err))
		}
		return nil, nil
	}
	switch {
	case method == "initialize":
		return s.initialize(json.RawMessage(req.Params()))
	case !initialized:
		return nil, rpcError(codeServerNotInit, "%s before initialize", method)
	case method == "shutdown":
		s.mu.Lock()
		s.shutdown = true
		s.mu.Unlock()
		return nil, nil
	case shutdown:
		return nil, rpcError(codeInvalidRequest, "%s after shutdown", method)
	}
	params := append(json.RawMessage(nil), req.Params()...) // the request's bytes die with the loop's next read
	rctx, done := s.track(req.ID())
	defer done()
	switch method {
	case "textDocument/codeAction":
		var p CodeActionParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, jsonrpc2.ErrInvalidParams
		}
		d, a, err := s.current(ctx, rctx, p.TextDocument.URI)
		if err != nil {
			return nil, err
		}
		return s.codeActions(d, a, &p), nil
	case "textDocument/hover":
		var p TextDocumentPositionParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, jsonrpc2.ErrInvalidParams
		}
		_, a, err := s.current(ctx, rctx, p.TextDocument.URI)
		if err != nil {
			return nil, err
		}
		return hover(a, p.TextDocument.URI, p.Position), nil
	}
	return nil, fmt.Errorf("%q: %w", method, jsonrpc2.ErrMethodNotFound)
}

func (s *server) initialize(params json.RawMessage) (any, error) {
	var p InitializeParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, jsonrpc2.ErrInvalidParams
	}
	var caps clientCapabilities
	if len(p.Capabilities) > 0 {
		json.Unmarshal(p.Capabilities, &caps) // what is not understood is not used
	}
	s.mu.Lock()
	s.initialized = true
	s.documentChanges = caps.Workspace.WorkspaceEdit.DocumentChanges
	s.mu.Unlock()
	return map[string]any{
		"capabilities": map[string]any{
			"positionEncoding": "utf-16",
			"textDocumentSync": map[string]any{
				"openClose": true,
				"change":    2, // incremental
				"save":      map[string]any{"includeText": false},
			},
			"notebookDocumentSync": map[string]any{
				"notebookSelector": []any{map[string]any{
					"notebook": "*",
					"cells":    []any{map[string]any{"language": "python"}},
				}},
				"save": true,
			},
			"codeActionProvider": map[string]any{
				"codeActionKinds": []string{KindQuickFix, KindFixAll},
			},
			"hoverProvider": true,
		},
		"serverInfo": map[string]any{"name": "loratune-fix", "version": s.opts.Version},
	}, nil
}

// notify handles one notification.
func (s *server) notify(method string, params json.RawMessage) error {
	switch method {
	case "textDocument/didOpen":
		var p DidOpenTextDocumentParams
		if err := json.Unmarshal(params, &p); err != nil {
			return err
		}
		path, err := pathOf(p.TextDocument.URI)
		if err != nil {
			return err
		}
		s.open(&doc{uri: p.TextDocument.URI, path: path, version: p.TextDocument.Version, text: []byte(p.TextDocument.Text)})
	case "textDocument/didChange":
		var p DidChangeTextDocumentParams
		if err := json.Unmarshal(params, &p); err != nil {
			return err
		}
		return s.change(p.TextDocument.URI, func(d *doc) error {
			text, err := applyChanges(d.text, p.ContentChanges)
			if err != nil {
				return err
			}
			d.text, d.version = text, p.TextDocument.Version
			return nil
		})
	case "textDocument/didSave", "notebookDocument/didSave":
		if s.opts.Reset != nil {
			s.opts.Reset()
		}
		s.reanalyseAll()
	case "textDocument/didClose":
		var p DidCloseTextDocumentParams
		if err := json.Unmarshal(params, &p); err != nil {
			return err
		}
		s.close(p.TextDocument.URI)
	case "notebookDocument/didOpen":
		var p DidOpenNotebookDocumentParams
		if err := json.Unmarshal(params, &p); err != nil {
			return err
		}
		return s.openNotebook(&p)
	case "notebookDocument/didChange":
		var p DidChangeNotebookDocumentParams
		if err := json.Unmarshal(params, &p); err != nil {
			return err
		}
		return s.change(p.NotebookDocument.URI, func(d *doc) error { return s.changeNotebook(d, &p) })
	case "notebookDocument/didClose":
		var p DidCloseNotebookDocumentParams
		if err := json.Unmarshal(params, &p); err != nil {
			return err
		}
		s.close(p.NotebookDocument.URI)
	case "workspace/didChangeWatchedFiles", "workspace/didChangeConfiguration":
		if s.opts.Reset != nil {
			s.opts.Reset()
		}
		s.reanalyseAll()
	}
	return nil
}

// pathOf is the file path of a document URI. An untitled buffer has no
// folder: it is read as a Python file in the current one, without pins.
func pathOf(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", err
	}
	if u.Scheme == "file" {
		p := u.Path
		if runtime.GOOS == "windows" && len(p) > 2 && p[0] == '/' && p[2] == ':' {
			p = p[1:] // file:///C:/x is C:\x
		}
		return filepath.FromSlash(p), nil
	}
	name := filepath.Base(u.Path)
	if name == "." || name == "/" || name == "" {
		name = "untitled.py"
	}
	return name, nil
}

// log sends a window/logMessage (1 error, 2 warning, 3 info, 4 log).
func (s *server) log(kind int, msg string) {
	s.conn.Notify(s.ctx, "window/logMessage", LogMessageParams{Type: kind, Message: msg})
}

// tell shows a message once per text (a configuration error).
func (s *server) tell(msg string) {
	s.mu.Lock()
	if s.told == nil {
		s.told = map[string]bool{}
	}
	seen := s.told[msg]
	s.told[msg] = true
	s.mu.Unlock()
	if !seen {
		s.conn.Notify(s.ctx, "window/showMessage", LogMessageParams{Type: 1, Message: msg})
	}
}

// current is the analysis of the document's text as it is now, waiting
// for it when one is under way. A document that is not open is an error
// (RequestFailed); a cancelled request answers RequestCancelled.
// reqCtx is the connection's request context (for Async); ctx is the
// request's own, which $/cancelRequest cancels.
func (s *server) current(reqCtx, ctx context.Context, uri string) (*doc, *analysis, error) {
	s.mu.Lock()
	d := s.lookup(uri)
	if d == nil {
		s.mu.Unlock()
		return nil, nil, rpcError(codeRequestFailed, "document not open: %s", uri)
	}
	ready, a := d.ready, d.cur
	s.mu.Unlock()
	if a != nil {
		return d, a, nil
	}
	jsonrpc2.Async(reqCtx) // let changes and cancellations in while this waits
	for {
		select {
		case <-ready:
		case <-d.closed:
			return nil, nil, rpcError(codeRequestFailed, "document closed: %s", uri)
		case <-ctx.Done():
			return nil, nil, rpcError(codeRequestCancelled, "request cancelled")
		}
		s.mu.Lock()
		ready, a = d.ready, d.cur
		s.mu.Unlock()
		if a != nil {
			return d, a, nil
		}
	}
}

// lookup is the open document of uri: a text document, a notebook, or
// the notebook of a cell. Called with s.mu held.
func (s *server) lookup(uri string) *doc {
	if d := s.docs[uri]; d != nil {
		return d
	}
	return s.cells[uri]
}

func (s *server) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for uri := range s.docs {
		s.closeLocked(uri)
	}
}

// isNotebookPath says whether runner reads path as a notebook.
func isNotebookPath(path string) bool { return strings.HasSuffix(path, ".ipynb") }

// engineOptions is the per-document copy of the runner options: fixes
// computed, never written, the document's kept parse reused.
func engineOptions(base *runner.Options, inc *rewrite.Incremental) *runner.Options {
	o := *base
	o.Fix, o.Write, o.Incremental = true, false, inc
	if fullParse {
		o.Incremental = nil
	}
	return &o
}

// fullParse parses every text from scratch: the peer of the incremental
// parse in BenchmarkDidChangeToDiagnosticsFullParse.
var fullParse = false
