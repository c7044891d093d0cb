package lsp

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/rewrite"
	"github.com/loratune/loratune-fix/runner"
)

// doc is one open document: a text document, or a notebook whose cells
// are text documents of their own. Its fields are guarded by server.mu,
// but inc, which only its worker touches.
type doc struct {
	uri, path string
	version   int32
	text      []byte   // a text document's text
	nb        *nbState // a notebook's cells; nil for a text document

	gen    int           // counts changes; an analysis is of one gen
	cur    *analysis     // the analysis of gen, nil while it is under way
	good   *analysis     // the last analysis without a file error
	ready  chan struct{} // closed when cur is set
	kick   chan struct{} // wakes the worker
	closed chan struct{}
	cancel context.CancelFunc // stops the analysis under way
	// publishing orders the worker's last publish before the close's
	// empty one: a closed document's findings do not come back.
	publishing sync.Mutex

	inc rewrite.Incremental // the kept parse, for the worker only
}

// open starts a document's worker and its first analysis.
func (s *server) open(d *doc) {
	d.ready = make(chan struct{})
	d.kick = make(chan struct{}, 1)
	d.closed = make(chan struct{})
	d.kick <- struct{}{}
	s.mu.Lock()
	if old := s.docs[d.uri]; old != nil {
		s.closeLocked(d.uri) // opened twice: the second text wins
	}
	s.docs[d.uri] = d
	if d.nb != nil {
		for _, c := range d.nb.cells {
			s.cells[c.uri] = d
		}
	}
	s.mu.Unlock()
	go s.work(d)
}

// change applies edit to the open document of uri and starts its
// analysis again, stopping the one under way.
func (s *server) change(uri string, edit func(*doc) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[uri]
	if d == nil {
		return fmt.Errorf("change of a document not open: %s", uri)
	}
	if err := edit(d); err != nil {
		return err
	}
	s.restartLocked(d)
	return nil
}

func (s *server) restartLocked(d *doc) {
	d.gen++
	if d.cur != nil {
		d.cur = nil
		d.ready = make(chan struct{})
	}
	if d.cancel != nil {
		d.cancel()
	}
	select {
	case d.kick <- struct{}{}:
	default: // already due
	}
}

func (s *server) reanalyseAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.docs {
		s.restartLocked(d)
	}
}

func (s *server) close(uri string) {
	s.mu.Lock()
	d := s.docs[uri]
	var targets []string
	if d != nil {
		targets = d.targets() // the cells as they are now
	}
	s.closeLocked(uri)
	s.mu.Unlock()
	if d != nil {
		// An editor keeps a closed file's diagnostics unless told.
		d.publishing.Lock()
		for _, t := range targets {
			s.conn.Notify(s.ctx, "textDocument/publishDiagnostics", PublishDiagnosticsParams{URI: t, Diagnostics: []Diagnostic{}})
		}
		d.publishing.Unlock()
	}
}

func (s *server) closeLocked(uri string) {
	d := s.docs[uri]
	if d == nil {
		return
	}
	delete(s.docs, uri)
	for c, nb := range s.cells {
		if nb == d {
			delete(s.cells, c)
		}
	}
	if d.cancel != nil {
		d.cancel()
	}
	close(d.closed)
}

// targets are the URIs a document's diagnostics go to: itself, or its
// cells. Called with s.mu held or by the worker on its own snapshot.
func (d *doc) targets() []string {
	if d.nb == nil {
		return []string{d.uri}
	}
	var out []string
	for _, c := range d.nb.cells {
		out = append(out, c.uri)
	}
	return out
}

// snapshot is what one analysis reads: a copy of the document's state.
type snapshot struct {
	gen     int
	version int32
	path    string
	text    []byte   // a text document's
	cells   []nbCell // a notebook's
}

// work analyses the document each time it changes, the newest text only:
// a change stops the analysis under way (the engine looks at its context
// between two rules) and starts it again on the new text.
func (s *server) work(d *doc) {
	defer d.inc.Close()
	for {
		select {
		case <-d.kick:
		case <-d.closed:
			return
		}
		s.mu.Lock()
		snap := snapshot{gen: d.gen, version: d.version, path: d.path, text: d.text}
		if d.nb != nil {
			snap.cells = append([]nbCell(nil), d.nb.cells...)
		}
		ctx, cancel := context.WithCancel(s.ctx)
		d.cancel = cancel
		good := d.good
		s.mu.Unlock()

		a := s.analyse(ctx, d, &snap, good)
		cancel()

		s.mu.Lock()
		if a == nil || d.gen != snap.gen || isClosed(d.closed) {
			s.mu.Unlock()
			continue // stopped, or a newer text is due (the kick is pending)
		}
		d.cur = a
		if a.err == nil {
			d.good = a
		}
		close(d.ready)
		s.mu.Unlock()
		d.publishing.Lock()
		if !isClosed(d.closed) {
			s.publish(a)
		}
		d.publishing.Unlock()
	}
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// analyse runs the engine over a snapshot: nil when ctx stopped it. A
// panic in the engine is this document's error, not the session's end.
func (s *server) analyse(ctx context.Context, d *doc, snap *snapshot, good *analysis) (a *analysis) {
	defer func() {
		if r := recover(); r != nil {
			buf := make([]byte, 4096)
			buf = buf[:runtime.Stack(buf, false)]
			s.log(1, fmt.Sprintf("loratune-fix: internal error on %s: %v\n%s", snap.path, r, buf))
			d.inc.Close() // the kept parse may be what broke
			a = &analysis{gen: snap.gen, version: snap.version, err: fmt.Errorf("internal error: %v", r)}
			for _, t := range snapshotTargets(d.uri, snap) {
				a.add(t)
			}
		}
	}()
	base, err := s.opts.For(snap.path)
	if err != nil {
		s.tell("loratune-fix: " + err.Error())
		a := &analysis{gen: snap.gen, version: snap.version, err: err}
		for _, t := range snapshotTargets(d.uri, snap) {
			a.add(t)
		}
		return a
	}
	opts := engineOptions(base, &d.inc)
	var f *finding.FileResult
	if snap.cells != nil {
		f = runNotebook(ctx, opts, snap)
	} else {
		f = runner.ProcessContext(ctx, opts, snap.path, snap.text)
	}
	if ctx.Err() != nil {
		return nil
	}
	if f.Err != nil && !errors.As(f.Err, new(*rewrite.SyntaxError)) {
		// A syntax error mid-typing is the editor's to show; anything
		// else (a parse past --parse-timeout, a binary file) goes to the log.
		s.log(2, "loratune-fix: "+f.Err.Error())
	}
	return build(d.uri, snap, f, good)
}

// snapshotTargets are a snapshot's documents, with no findings.
func snapshotTargets(uri string, snap *snapshot) []*target {
	if snap.cells == nil {
		return []*target{newTarget(uri, snap.version, snap.text)}
	}
	var out []*target
	for _, c := range snap.cells {
		out = append(out, newTarget(c.uri, c.version, c.text))
	}
	return out
}

// publish sends an analysis's diagnostics, one notification per document
// (a notebook: per cell).
func (s *server) publish(a *analysis) {
	for _, uri := range a.order {
		t := a.files[uri]
		v := t.version
		diags := make([]Diagnostic, 0, len(t.items))
		for _, it := range t.items {
			diags = append(diags, it.diag)
		}
		s.conn.Notify(s.ctx, "textDocument/publishDiagnostics", PublishDiagnosticsParams{URI: uri, Version: &v, Diagnostics: diags})
	}
}
