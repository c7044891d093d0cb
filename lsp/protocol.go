package lsp

// The Language Server Protocol 3.17 types this server reads and writes:
// the subset it uses, by the specification's names. No Go module served
// today has 3.17's notebook documents (go.lsp.dev/protocol stops at
// 3.16), so they are written here, over go.lsp.dev/jsonrpc2's wire.

import "encoding/json"

// Position is a line and a character offset in UTF-16 code units, both
// zero-based (the protocol's default position encoding).
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

type TextDocumentIdentifier struct {
	URI string `json:"uri"`
}

type VersionedTextDocumentIdentifier struct {
	URI     string `json:"uri"`
	Version int32  `json:"version"`
}

type TextDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int32  `json:"version"`
	Text       string `json:"text"`
}

type TextEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// TextDocumentContentChangeEvent is a change of a range, or of the whole
// text when Range is nil.
type TextDocumentContentChangeEvent struct {
	Range *Range `json:"range,omitempty"`
	Text  string `json:"text"`
}

type DidOpenTextDocumentParams struct {
	TextDocument TextDocumentItem `json:"textDocument"`
}

type DidChangeTextDocumentParams struct {
	TextDocument   VersionedTextDocumentIdentifier  `json:"textDocument"`
	ContentChanges []TextDocumentContentChangeEvent `json:"contentChanges"`
}

type DidSaveTextDocumentParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
}

type DidCloseTextDocumentParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
}

// Notebook documents (3.17).

type NotebookCell struct {
	Kind     int    `json:"kind"` // 1 markup, 2 code
	Document string `json:"document"`
}

const cellCode = 2

type NotebookDocument struct {
	URI          string         `json:"uri"`
	NotebookType string         `json:"notebookType"`
	Version      int32          `json:"version"`
	Cells        []NotebookCell `json:"cells"`
}

type DidOpenNotebookDocumentParams struct {
	NotebookDocument  NotebookDocument   `json:"notebookDocument"`
	CellTextDocuments []TextDocumentItem `json:"cellTextDocuments"`
}

type NotebookCellArrayChange struct {
	Start       int            `json:"start"`
	DeleteCount int            `json:"deleteCount"`
	Cells       []NotebookCell `json:"cells,omitempty"`
}

type NotebookDocumentChangeEvent struct {
	Cells *struct {
		Structure *struct {
			Array    NotebookCellArrayChange  `json:"array"`
			DidOpen  []TextDocumentItem       `json:"didOpen,omitempty"`
			DidClose []TextDocumentIdentifier `json:"didClose,omitempty"`
		} `json:"structure,omitempty"`
		Data        []NotebookCell `json:"data,omitempty"`
		TextContent []struct {
			Document VersionedTextDocumentIdentifier  `json:"document"`
			Changes  []TextDocumentContentChangeEvent `json:"changes"`
		} `json:"textContent,omitempty"`
	} `json:"cells,omitempty"`
}

type DidChangeNotebookDocumentParams struct {
	NotebookDocument VersionedTextDocumentIdentifier `json:"notebookDocument"`
	Change           NotebookDocumentChangeEvent     `json:"change"`
}

type DidSaveNotebookDocumentParams struct {
	NotebookDocument TextDocumentIdentifier `json:"notebookDocument"`
}

type DidCloseNotebookDocumentParams struct {
	NotebookDocument  TextDocumentIdentifier   `json:"notebookDocument"`
	CellTextDocuments []TextDocumentIdentifier `json:"cellTextDocuments"`
}

// Diagnostics.

type CodeDescription struct {
	Href string `json:"href"`
}

// DiagnosticData is what a diagnostic carries for code actions and for
// clients that show it: whether its fix is safe, and what fix --write
// does with it.
type DiagnosticData struct {
	Fix     string `json:"fix,omitempty"` // "safe", "unsafe", or empty: no fix
	Outcome string `json:"outcome"`       // as the CLI's JSON: fixed, unsafe-fix, not-fixed
	Reason  string `json:"reason,omitempty"`
}

type Diagnostic struct {
	Range           Range            `json:"range"`
	Severity        int              `json:"severity"`
	Code            string           `json:"code"`
	CodeDescription *CodeDescription `json:"codeDescription,omitempty"`
	Source          string           `json:"source"`
	Message         string           `json:"message"`
	Data            *DiagnosticData  `json:"data,omitempty"`
}

type PublishDiagnosticsParams struct {
	URI         string       `json:"uri"`
	Version     *int32       `json:"version,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// Code actions and hover.

type CodeActionContext struct {
	Diagnostics []Diagnostic `json:"diagnostics"`
	Only        []string     `json:"only,omitempty"`
}

type CodeActionParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Range        Range                  `json:"range"`
	Context      CodeActionContext      `json:"context"`
}

type TextDocumentEdit struct {
	TextDocument VersionedTextDocumentIdentifier `json:"textDocument"`
	Edits        []TextEdit                      `json:"edits"`
}

type WorkspaceEdit struct {
	Changes         map[string][]TextEdit `json:"changes,omitempty"`
	DocumentChanges []TextDocumentEdit    `json:"documentChanges,omitempty"`
}

type CodeAction struct {
	Title       string         `json:"title"`
	Kind        string         `json:"kind"`
	Diagnostics []Diagnostic   `json:"diagnostics,omitempty"`
	IsPreferred bool           `json:"isPreferred,omitempty"`
	Edit        *WorkspaceEdit `json:"edit,omitempty"`
}

type TextDocumentPositionParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Position     Position               `json:"position"`
}

type MarkupContent struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

type Hover struct {
	Contents MarkupContent `json:"contents"`
	Range    *Range        `json:"range,omitempty"`
}

// Lifecycle.

type InitializeParams struct {
	ProcessID    *int            `json:"processId"`
	RootURI      string          `json:"rootUri,omitempty"`
	Capabilities json.RawMessage `json:"capabilities,omitempty"`
}

// clientCapabilities is the part of the client's capabilities read here.
type clientCapabilities struct {
	Workspace struct {
		WorkspaceEdit struct {
			DocumentChanges bool `json:"documentChanges"`
		} `json:"workspaceEdit"`
	} `json:"workspace"`
}

type CancelParams struct {
	ID json.RawMessage `json:"id"`
}

type LogMessageParams struct {
	Type    int    `json:"type"` // 1 error, 2 warning, 3 info, 4 log
	Message string `json:"message"`
}

// The code action kinds offered.
const (
	KindQuickFix = "quickfix"
	KindFixAll   = "source.fixAll.loratune-fix"
)

// LSP error codes used beyond JSON-RPC's own.
const (
	codeRequestFailed    = -32803
	codeRequestCancelled = -32800
	codeServerNotInit    = -32002
	codeInvalidRequest   = -32600
)
