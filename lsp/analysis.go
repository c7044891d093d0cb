package lsp

import (
	"regexp"
	"strings"
	"sync"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/report"
	"github.com/loratune/loratune-fix/rewrite"
)

// analysis is the outcome of one run over a document: per target document
// (the text document, or each notebook cell) its findings as diagnostics,
// and the fix-all edit.
type analysis struct {
	gen     int
	version int32
	// err is the file's error (a syntax error mid-typing): the findings
	// are then the last good analysis's, moved to where they lie now,
	// without fixes.
	err   error
	files map[string]*target
	order []string // the targets in document order
}

type target struct {
	uri     string
	version int32
	text    []byte
	lines   *lines
	items   []item
	fixAll  *TextEdit // the safe fixes of the document, nil when none
}

// item is one finding in a target: offsets in target.text.
type item struct {
	fd   finding.Finding
	diag Diagnostic
}

func newTarget(uri string, version int32, text []byte) *target {
	return &target{uri: uri, version: version, text: text, lines: newLines(text)}
}

func (a *analysis) add(t *target) {
	if a.files == nil {
		a.files = map[string]*target{}
	}
	a.files[t.uri] = t
	a.order = append(a.order, t.uri)
}

// build turns the runner's result into an analysis. A text document with
// a file error keeps good's findings that the change did not touch.
func build(uri string, snap *snapshot, f *finding.FileResult, good *analysis) *analysis {
	a := &analysis{gen: snap.gen, version: snap.version, err: f.Err}
	if snap.cells != nil {
		buildNotebook(a, snap, f)
		return a
	}
	t := newTarget(uri, snap.version, snap.text)
	a.add(t)
	if f.Err != nil {
		if good == nil || good.files[uri] == nil {
			return a
		}
		old := good.files[uri]
		ch := changeOf(old.text, snap.text)
		for _, it := range old.items {
			start, ok1 := ch.shift(it.fd.Start)
			end, ok2 := ch.shift(it.fd.End)
			if !ok1 || !ok2 {
				continue // the change is inside it: it may be gone
			}
			fd := it.fd
			fd.Start, fd.End, fd.Fix = start, end, nil
			t.items = append(t.items, newItem(t, fd))
		}
		return a
	}
	for _, d := range f.Diags {
		t.items = append(t.items, newItem(t, d.Finding))
	}
	if f.Changed {
		e := minimalEdit(snap.text, f.After)
		t.fixAll = &e
	}
	return a
}

func newItem(t *target, fd finding.Finding) item {
	return item{fd: fd, diag: diagnostic(t.lines, fd)}
}

// diagnostic is a finding as the protocol shows it: its code links the
// rule's section of docs/rules.md, and its message and data say whether
// its fix is safe, unsafe, or not applied and why.
func diagnostic(l *lines, fd finding.Finding) Diagnostic {
	data := &DiagnosticData{Outcome: string(fd.Outcome), Reason: fd.Reason}
	msg := fd.Message
	if fd.Fix != nil {
		data.Fix = string(fd.Fix.Applicability)
	}
	switch {
	case fd.Outcome == finding.OutcomeFixed && fd.Fix != nil:
		msg += " (safe fix: " + fd.Fix.Message + ")"
	case fd.Outcome == finding.OutcomeUnsafe && fd.Fix != nil:
		msg += " (unsafe fix: " + fd.Fix.Message + "; look before applying)"
	case (fd.Fix != nil || fd.Withheld != "") && fd.Reason != "":
		msg += " (not fixed: " + fd.Reason + ")"
	}
	return Diagnostic{
		Range:           l.rangeOf(fd.Start, fd.End),
		Severity:        severity(fd.Severity),
		Code:            fd.Code,
		CodeDescription: &CodeDescription{Href: report.RuleURL(fd.Code)},
		Source:          "loratune-fix",
		Message:         fd.Name + ": " + msg,
		Data:            data,
	}
}

func severity(s finding.Severity) int {
	switch s {
	case finding.SeverityError:
		return 1
	case finding.SeverityWarning:
		return 2
	}
	return 3 // information
}

// before reports p < q.
func before(p, q Position) bool {
	return p.Line < q.Line || p.Line == q.Line && p.Character < q.Character
}

// overlaps reports whether two ranges share a position (ends included:
// a cursor right after a finding still asks about it).
func overlaps(a, b Range) bool { return !before(a.End, b.Start) && !before(b.End, a.Start) }

// codeActions are the actions on the findings in the requested range,
// and fix all safe for the document.
func (s *server) codeActions(d *doc, a *analysis, p *CodeActionParams) []CodeAction {
	t := a.files[p.TextDocument.URI]
	out := []CodeAction{}
	if t == nil {
		return out // the notebook itself: actions are asked per cell
	}
	wants := func(kind string) bool {
		if len(p.Context.Only) == 0 {
			return true
		}
		for _, k := range p.Context.Only {
			if kind == k || strings.HasPrefix(kind, k+".") {
				return true
			}
		}
		return false
	}
	for _, it := range t.items {
		if !overlaps(it.diag.Range, p.Range) {
			continue
		}
		fd := it.fd
		if wants(KindQuickFix) && a.err == nil && fd.Fix != nil && fd.Outcome != finding.OutcomeNotFixed {
			title := "loratune-fix: " + fd.Fix.Message
			if fd.Fix.Applicability == finding.Unsafe {
				title += " (unsafe fix)"
			}
			var edits []TextEdit
			for _, e := range finding.InOrder(fd.Fix.Edits) {
				edits = append(edits, TextEdit{Range: t.lines.rangeOf(e.Start, e.End), NewText: e.NewText})
			}
			out = append(out, CodeAction{Title: title, Kind: KindQuickFix, Diagnostics: []Diagnostic{it.diag},
				IsPreferred: fd.Fix.Applicability == finding.Safe, Edit: s.workspaceEdit(t, edits)})
		}
		if wants(KindQuickFix) {
			if e, ok := suppression(t, fd); ok {
				out = append(out, CodeAction{Title: "loratune-fix: suppress " + fd.Code + " on this line (# noqa: " + fd.Code + ")",
					Kind: KindQuickFix, Diagnostics: []Diagnostic{it.diag}, Edit: s.workspaceEdit(t, []TextEdit{e})})
			}
		}
	}
	if wants(KindFixAll) && a.err == nil && t.fixAll != nil {
		out = append(out, CodeAction{Title: "loratune-fix: fix all safe", Kind: KindFixAll, Edit: s.workspaceEdit(t, []TextEdit{*t.fixAll})})
	}
	return out
}

// workspaceEdit is edits of one document, tied to the version they were
// computed for where the client takes versioned edits.
func (s *server) workspaceEdit(t *target, edits []TextEdit) *WorkspaceEdit {
	s.mu.Lock()
	versioned := s.documentChanges
	s.mu.Unlock()
	if versioned {
		return &WorkspaceEdit{DocumentChanges: []TextDocumentEdit{{TextDocument: VersionedTextDocumentIdentifier{URI: t.uri, Version: t.version}, Edits: edits}}}
	}
	return &WorkspaceEdit{Changes: map[string][]TextEdit{t.uri: edits}}
}

// suppression is the edit that silences fd on its first line, the line
// the engine reads suppression comments on: "  # noqa: CODE" at its end,
// or ", CODE" after the codes of a noqa comment already there. None for
// a JSON file (no comments) or a line that a backslash continues.
func suppression(t *target, fd finding.Finding) (TextEdit, bool) {
	if strings.HasSuffix(strings.ToLower(t.uri), ".json") {
		return TextEdit{}, false
	}
	start := fd.Start - len(lastLine(t.text[:fd.Start]))
	end := start
	for end < len(t.text) && t.text[end] != '\n' {
		end++
	}
	if end > start && t.text[end-1] == '\r' {
		end--
	}
	line := string(t.text[start:end])
	trimmed := strings.TrimRight(line, " \t")
	if strings.HasSuffix(trimmed, "\\") {
		return TextEdit{}, false
	}
	at := start + len(trimmed)
	insert := "  # noqa: " + fd.Code
	if m := noqaList.FindStringIndex(trimmed); m != nil && m[1] == len(trimmed) {
		insert = ", " + fd.Code
	}
	return TextEdit{Range: t.lines.rangeOf(at, at), NewText: insert}, true
}

func lastLine(b []byte) []byte {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '\n' {
			return b[i+1:]
		}
	}
	return b
}

// hover is the rule's why and cost for the findings under pos.
func hover(a *analysis, uri string, pos Position) *Hover {
	t := a.files[uri]
	if t == nil {
		return nil
	}
	var parts []string
	var at *Range
	for _, it := range t.items {
		r := it.diag.Range
		if before(pos, r.Start) || before(r.End, pos) {
			continue
		}
		if at == nil {
			at = &r
		}
		parts = append(parts, ruleHover(it.fd))
	}
	if len(parts) == 0 {
		return nil
	}
	return &Hover{Contents: MarkupContent{Kind: "markdown", Value: strings.Join(parts, "\n\n---\n\n")}, Range: at}
}

func ruleHover(fd finding.Finding) string {
	var b strings.Builder
	b.WriteString("**" + fd.Code + " " + fd.Name + "** (" + string(fd.Severity) + ")\n\n" + fd.Message + "\n")
	if info, ok := ruleInfos()[fd.Code]; ok {
		for _, sec := range []string{"Why", "Cost"} {
			if text := docSection(info.Doc, sec); text != "" {
				b.WriteString("\n**" + sec + ".** " + text + "\n")
			}
		}
	}
	b.WriteString("\n[" + fd.Code + " in docs/rules.md](" + report.RuleURL(fd.Code) + ")")
	return b.String()
}

var ruleInfos = sync.OnceValue(func() map[string]finding.RuleInfo {
	m := map[string]finding.RuleInfo{}
	for _, r := range rewrite.Infos(rewrite.All()) {
		m[r.Code] = r
	}
	return m
})

// docSection is the text under "## name" of a rule's doc.
func docSection(doc, name string) string {
	_, rest, ok := strings.Cut(doc, "## "+name+"\n")
	if !ok {
		return ""
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	return strings.TrimSpace(rest)
}

// noqaList is a noqa comment with codes, at the end of a line.
var noqaList = regexp.MustCompile(`#\s*(?i:noqa):[ \t]*[A-Za-z0-9_-]+(?:[ \t]*,[ \t]*[A-Za-z0-9_-]+)*$`)
