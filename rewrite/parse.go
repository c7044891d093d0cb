package rewrite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/python"

	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

// pythonNames are the Python grammar's names, for goTree.
var pythonNames = syntree.NewLanguage(python.GetLanguage())

// goTree is the Go copy of a parse, which the analyses read.
func goTree(ts *sitter.Tree) *syntree.Tree { return syntree.New(ts, pythonNames) }

// parsed is one parse of a text: tree-sitter's tree, which the parse of
// an edited text reuses, and its Go copy, made once, on first use.
// resolve and pins are what the pass over the text found (the file
// model's import aliases, the pins that governed it), for the keyword
// guard to read after the Go copy is gone.
type parsed struct {
	ts      *sitter.Tree
	gt      *syntree.Tree
	resolve func(dotted string) string
	pins    Versions
	fresh   bool // the parse of a new text, not yet checked for depth
}

func (p *parsed) goTree() *syntree.Tree {
	if p.gt == nil {
		p.gt = goTree(p.ts)
	}
	return p.gt
}

// Close frees the parse and hands the room of its Go copy to the next.
func (p *parsed) Close() {
	p.resolve = nil
	p.releaseGo()
	p.ts.Close()
}

// releaseGo drops the Go copy, whose room the next copy reuses; nothing
// may read its nodes afterwards.
func (p *parsed) releaseGo() {
	p.gt.Release()
	p.gt = nil
}

// parserPool hands each goroutine its own parser: parsers are not safe for
// concurrent use, but one can be reused for many files.
var parserPool = sync.Pool{New: func() any {
	p := sitter.NewParser()
	p.SetLanguage(python.GetLanguage())
	return p
}}

// ErrParseTimeout is returned when a file takes longer to parse and
// analyse than Options.ParseTimeout allows.
var ErrParseTimeout = errors.New("parse and analysis took longer than the limit")

// parse parses text with a pooled parser, bounded by limit (0: none). The
// bound is tree-sitter's own timeout, not a context: smacker's context
// watcher can flag a parser as cancelled after its parse has finished,
// which would poison the pooled parser for its next file.
func parse(text []byte, limit time.Duration) (*sitter.Tree, error) {
	return reparse(nil, text, limit)
}

// reparse is parse reusing old, the tree of an earlier text edited to
// match text (nil: parse from scratch).
func reparse(old *sitter.Tree, text []byte, limit time.Duration) (*sitter.Tree, error) {
	p := parserPool.Get().(*sitter.Parser)
	defer parserPool.Put(p)
	p.SetOperationLimit(int(limit.Microseconds()))
	tree, err := p.ParseCtx(context.Background(), old, text)
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
	Reason  string // Python's own words, when known ("'(' was never closed")
}

func (e *SyntaxError) Error() string {
	switch {
	case e.Reason != "":
		return fmt.Sprintf("syntax error at %d:%d: %s", e.Pos.Line, e.Pos.Column, e.Reason)
	case e.Missing != "":
		return fmt.Sprintf("syntax error at %d:%d (missing %q)", e.Pos.Line, e.Pos.Column, e.Missing)
	}
	return fmt.Sprintf("syntax error at %d:%d", e.Pos.Line, e.Pos.Column)
}

// firstSyntaxError finds the first ERROR or MISSING node, or nil.
func firstSyntaxError(root *syntree.Node, src *semantic.Source) *SyntaxError {
	if !root.HasError() {
		return nil
	}
	var found *SyntaxError
	var walk func(n *syntree.Node) bool
	walk = func(n *syntree.Node) bool {
		if n.IsError() || n.IsMissing() {
			found = &SyntaxError{Pos: src.Position(int(n.StartByte()))}
			if n.IsMissing() {
				found.Missing = strings.TrimSpace(n.Type())
			}
			return true
		}
		for _, c := range n.Children() {
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
	// tree-sitter's ERROR node often starts at its statement, where Python
	// points at the token it could not take: say what Python says where
	// it can be told without Python.
	// A token tree-sitter had to invent is where Python stops too.
	if found.Missing != "" {
		return found
	}
	if at, reason, ok := bracketError(src.Text); ok && src.Position(at).Line <= found.Pos.Line {
		found = &SyntaxError{Pos: src.Position(at), Reason: reason}
	} else if found.Pos.Column == 1 {
		// A statement tree-sitter could not parse, running onto the next
		// line: Python stops at the end of its first line ("expected ':'").
		start := src.LineStarts[found.Pos.Line-1]
		if end := src.ContentEnd(start); end < len(src.Text) && firstErrorSpansLines(root, src.Text) {
			found.Pos = src.Position(end)
		}
	}
	return found
}

// firstErrorSpansLines reports whether the first ERROR node of the tree
// runs over more than one line.
func firstErrorSpansLines(root *syntree.Node, text []byte) bool {
	var first *syntree.Node
	var walk func(n *syntree.Node) bool
	walk = func(n *syntree.Node) bool {
		if n.IsError() {
			first = n
			return true
		}
		for _, c := range n.Children() {
			if c.HasError() && walk(c) {
				return true
			}
		}
		return false
	}
	return walk(root) && bytes.Contains(text[first.StartByte():first.EndByte()], []byte("\n"))
}

// bracketError finds what Python's tokenizer refuses before it parses: a
// closing bracket with no opening one, one that does not match, or an
// opening bracket never closed. It scans tokens: brackets in strings and
// comments do not count.
func bracketError(text []byte) (at int, reason string, ok bool) {
	var open []int // offsets of the open brackets
	pairs := map[byte]byte{')': '(', ']': '[', '}': '{'}
	for i := 0; i < len(text); i++ {
		switch b := text[i]; b {
		case '#':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case '\'', '"':
			i = stringEnd(text, i) - 1
		case '(', '[', '{':
			open = append(open, i)
		case ')', ']', '}':
			if len(open) == 0 {
				return i, fmt.Sprintf("unmatched '%c'", b), true
			}
			if o := open[len(open)-1]; text[o] != pairs[b] {
				return i, fmt.Sprintf("closing parenthesis '%c' does not match opening parenthesis '%c'", b, text[o]), true
			}
			open = open[:len(open)-1]
		}
	}
	if len(open) > 0 {
		return open[0], fmt.Sprintf("'%c' was never closed", text[open[0]]), true
	}
	return 0, "", false
}

// stringEnd returns the offset just past the string literal whose opening
// quote is at i (prefixes such as f or rb come before i and do not
// matter), or len(text) when it never ends.
func stringEnd(text []byte, i int) int {
	q := text[i]
	triple := i+2 < len(text) && text[i+1] == q && text[i+2] == q
	j := i + 1
	if triple {
		j = i + 3
	}
	for j < len(text) {
		switch {
		case text[j] == '\\':
			j += 2 // an escaped quote (a raw string cannot end on one either)
			continue
		case !triple && text[j] == '\n':
			return j // an unterminated one-line string: Python's tokenizer stops
		case text[j] == q && (!triple || j+2 < len(text) && text[j+1] == q && text[j+2] == q):
			if triple {
				return j + 3
			}
			return j + 1
		}
		j++
	}
	return len(text)
}

// maxDepth bounds the syntax tree's depth. Python itself refuses more
// than 200 nested brackets and 100 indented blocks (about 700 levels);
// deeper trees come from generated or hostile files, and tree-sitter's
// Node.Parent walks down from the root, so rules climbing such a tree took
// minutes on a 100,000-deep nest.
const maxDepth = 1000

// ErrTooDeep refuses a file nested deeper than maxDepth.
var ErrTooDeep = fmt.Errorf("nested more than %d levels deep; not processed", maxDepth)

// tooDeep reports whether the tree under root is deeper than maxDepth. A
// subtree of n bytes is at most about 4n deep (each nesting the grammar
// repeats takes a token), so subtrees too small to reach the limit from
// where they stand are not entered: on a normal file the walk sees the
// few big nodes and their children only.
func tooDeep(root *syntree.Node) bool {
	depth := 0
	for n := root; ; {
		if kids := n.Children(); len(kids) > 0 && 4*int(n.EndByte()-n.StartByte())+8 > maxDepth-depth {
			if depth++; depth > maxDepth {
				return true
			}
			n = kids[0]
			continue
		}
		for n.NextSibling() == nil {
			if n = n.Parent(); n == nil {
				return false
			}
			depth--
		}
		n = n.NextSibling()
	}
}

// Parses reports whether text parses without ERROR or MISSING nodes. It is
// what the engine checks before writing anything.
func Parses(text []byte) error {
	tree, err := parse(text, 0)
	if err != nil {
		return err
	}
	defer tree.Close()
	if !tree.RootNode().HasError() {
		return nil
	}
	if se := firstSyntaxError(goTree(tree).Root(), semantic.NewSource(text)); se != nil {
		return se
	}
	return nil
}
