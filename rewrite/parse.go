package rewrite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/python"

	"github.com/loratune/loratune-fix/queries"
)

// compiled holds the embedded queries, compiled once per process. A compiled
// query is read-only and shared by every worker; cursors are per call.
type compiled struct {
	calls, imports, assignments, functions *sitter.Query
}

var (
	compileOnce sync.Once
	compiledQ   *compiled
	compileErr  error
)

func loadQueries() (*compiled, error) {
	compileOnce.Do(func() {
		lang := python.GetLanguage()
		get := func(name string) *sitter.Query {
			if compileErr != nil {
				return nil
			}
			text, err := fs.ReadFile(queries.FS, name)
			if err != nil {
				compileErr = err
				return nil
			}
			q, err := sitter.NewQuery(text, lang)
			if err != nil {
				compileErr = fmt.Errorf("queries/%s: %w", name, err)
			}
			return q
		}
		c := &compiled{
			calls:       get("calls.scm"),
			imports:     get("imports.scm"),
			assignments: get("assignments.scm"),
			functions:   get("functions.scm"),
		}
		compiledQ = c
	})
	return compiledQ, compileErr
}

// parserPool hands each goroutine its own parser: parsers are not safe for
// concurrent use, but one can be reused for many files.
var parserPool = sync.Pool{New: func() any {
	p := sitter.NewParser()
	p.SetLanguage(python.GetLanguage())
	return p
}}

// ErrParseTimeout is returned when a file takes longer to parse than allowed.
var ErrParseTimeout = errors.New("parse took longer than the limit")

// parse parses text with a pooled parser, bounded by limit (0: none). The
// bound is tree-sitter's own timeout, not a context: smacker's context
// watcher can flag a parser as cancelled after its parse has finished,
// which would poison the pooled parser for its next file.
func parse(text []byte, limit time.Duration) (*sitter.Tree, error) {
	p := parserPool.Get().(*sitter.Parser)
	defer parserPool.Put(p)
	p.SetOperationLimit(int(limit.Microseconds()))
	tree, err := p.ParseCtx(context.Background(), nil, text)
	if err != nil {
		p.Reset()
		if errors.Is(err, sitter.ErrOperationLimit) {
			return nil, ErrParseTimeout
		}
		return nil, err
	}
	return tree, nil
}

// SyntaxError says where a text fails to parse.
type SyntaxError struct {
	Pos     Position
	Missing string // the token tree-sitter had to invent, if any
}

func (e *SyntaxError) Error() string {
	if e.Missing != "" {
		return fmt.Sprintf("syntax error at %d:%d (missing %q)", e.Pos.Line, e.Pos.Column, e.Missing)
	}
	return fmt.Sprintf("syntax error at %d:%d", e.Pos.Line, e.Pos.Column)
}

// firstSyntaxError finds the first ERROR or MISSING node, or nil.
func firstSyntaxError(root *sitter.Node, src *Source) *SyntaxError {
	if !root.HasError() {
		return nil
	}
	var found *SyntaxError
	var walk func(n *sitter.Node) bool
	walk = func(n *sitter.Node) bool {
		if n.IsError() || n.IsMissing() {
			found = &SyntaxError{Pos: src.Position(int(n.StartByte()))}
			if n.IsMissing() {
				found.Missing = strings.TrimSpace(n.Type())
			}
			return true
		}
		for i := 0; i < int(n.ChildCount()); i++ {
			c := n.Child(i)
			if c.HasError() || c.IsMissing() {
				if walk(c) {
					return true
				}
			}
		}
		return false
	}
	if !walk(root) {
		found = &SyntaxError{Pos: src.Position(int(root.StartByte()))}
	}
	return found
}

// Parses reports whether text parses without ERROR or MISSING nodes. It is
// what the engine checks before writing anything.
func Parses(text []byte) error {
	tree, err := parse(text, 0)
	if err != nil {
		return err
	}
	defer tree.Close()
	if se := firstSyntaxError(tree.RootNode(), NewSource(text)); se != nil {
		return se
	}
	return nil
}
