package syntree

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Query matches tree-sitter query patterns against a Tree in Go: the
// engine's queries (queries/*.scm) capture every call, assignment, import
// and function, and tree-sitter's query cursor spent more per script on
// them than the parse did. The subset read here is the one those files
// use: node patterns with field constraints, (_), alternations [...], and
// captures. Anything else (predicates, quantifiers, anchors, strings) is
// a compile error, not a silent mismatch; query_test.go checks the
// matches against tree-sitter's own cursor.
type Query struct {
	patterns []*pattern
	captures []string // capture id -> name
	starts   sync.Map // *Language -> []bool: by symbol, whether a pattern can start there
}

// pattern is one node pattern: a type ("_": any named node), the child
// patterns its node's named children must match in order, and the capture
// it binds. An alternation has alts instead of a type.
type pattern struct {
	kind     string
	field    string // the field the node must fill in its parent ("": any)
	children []*pattern
	alts     []*pattern
	capture  int // -1: none
}

// Match is one match of a pattern: Captures[id] is the node bound to the
// capture id, nil where the match binds none.
type Match struct {
	Pattern  int
	Captures []*Node
}

// NewQuery compiles query text.
func NewQuery(text string) (*Query, error) {
	q := &Query{}
	p := &queryParser{toks: tokenize(text), q: q}
	for !p.done() {
		pat, err := p.pattern()
		if err != nil {
			return nil, err
		}
		q.patterns = append(q.patterns, pat)
	}
	return q, nil
}

// PatternCount is the number of top-level patterns.
func (q *Query) PatternCount() int { return len(q.patterns) }

// CaptureCount and CaptureName list the captures by id.
func (q *Query) CaptureCount() int         { return len(q.captures) }
func (q *Query) CaptureName(id int) string { return q.captures[id] }

// Matches lists every match in t, in the order tree-sitter's query cursor
// yields them: by the node at which a match is complete (the last node
// its patterns look at, in document order), then by where it starts.
func (q *Query) Matches(t *Tree) []Match {
	type found struct {
		m             Match
		finish, start int
	}
	nc := len(q.captures)
	// About one match per four nodes in a training script.
	all := make([]found, 0, len(t.nodes)/4+1)
	store := make([]*Node, 0, nc*cap(all)) // the matches' captures, nc at a time
	var pi, start int
	m := &matcher{caps: make([]*Node, nc)}
	m.emit = func(last *Node) {
		if len(store)+nc > cap(store) {
			store = make([]*Node, 0, max(64*nc, 2*cap(store)))
		}
		at := len(store)
		store = append(store, m.caps...)
		all = append(all, found{Match{pi, store[at : at+nc : at+nc]}, int(last.pos), start})
	}
	starts := q.startsOf(t.lang)
	for i := range t.nodes {
		n := &t.nodes[i]
		if !starts[n.symbol] {
			continue // most nodes: no pattern is of their type
		}
		for k, pat := range q.patterns {
			if !pat.admits(n) {
				continue
			}
			pi, start = k, i
			m.node(pat, n)
			clear(m.caps)
		}
	}
	slices.SortStableFunc(all, func(a, b found) int {
		return cmp.Or(cmp.Compare(a.finish, b.finish), cmp.Compare(a.start, b.start))
	})
	out := make([]Match, len(all))
	for i, f := range all {
		out[i] = f.m
	}
	return out
}

// matcher finds the ways a pattern matches, depth first, calling emit
// for each with caps bound and the last node the match looked at. What is
// left to match is a stack of frames, not closures, so that a match
// allocates nothing.
type matcher struct {
	caps  []*Node
	stack []frame
	emit  func(last *Node)
}

// frame is a pattern whose children are being matched: p.children[k:]
// are left, to match kids in order (siblings between them skipped).
type frame struct {
	p    *pattern
	kids []*Node
	k    int
}

// node matches p at n, then what the stack holds.
func (m *matcher) node(p *pattern, n *Node) {
	if p.alts != nil {
		for _, a := range p.alts {
			if !a.admits(n) {
				continue
			}
			if p.capture >= 0 {
				m.caps[p.capture] = n
			}
			m.node(a, n)
		}
		return
	}
	if !p.admits(n) {
		return
	}
	if p.capture >= 0 {
		m.caps[p.capture] = n
	}
	if len(p.children) == 0 {
		m.rest(n)
	} else {
		m.stack = append(m.stack, frame{p, n.namedChildren(), 0})
		m.rest(n)
		m.stack = m.stack[:len(m.stack)-1]
	}
	if p.capture >= 0 {
		m.caps[p.capture] = nil
	}
}

// rest matches what the stack holds, last being the last node looked at.
func (m *matcher) rest(last *Node) {
	i := len(m.stack) - 1
	if i < 0 {
		m.emit(last)
		return
	}
	top := m.stack[i]
	if top.k == len(top.p.children) {
		// The top pattern is whole: on with the one holding it.
		m.stack = m.stack[:i]
		m.rest(last)
		m.stack = append(m.stack, top)
		return
	}
	child := top.p.children[top.k]
	for j, c := range top.kids {
		if child.admits(c) {
			m.stack[i] = frame{top.p, top.kids[j+1:], top.k + 1}
			m.node(child, c)
		}
	}
	m.stack[i] = top
}

// startsOf says, for each symbol of lang, whether a top-level pattern can
// match a node of it, worked out once per language.
func (q *Query) startsOf(lang *Language) []bool {
	if v, ok := q.starts.Load(lang); ok {
		return v.([]bool)
	}
	starts := make([]bool, len(lang.symbols))
	for sym, name := range lang.symbols {
		for _, p := range q.patterns {
			starts[sym] = starts[sym] || p.mayStart(name)
		}
	}
	q.starts.Store(lang, starts)
	return starts
}

// mayStart reports whether p can match a node whose type is kind.
func (p *pattern) mayStart(kind string) bool {
	if p.alts != nil {
		for _, a := range p.alts {
			if a.mayStart(kind) {
				return true
			}
		}
		return false
	}
	return p.kind == "_" || p.kind == kind
}

// admits is the test of n's own type and field, before a match looks at
// its children.
func (p *pattern) admits(n *Node) bool {
	if p.alts != nil {
		for _, a := range p.alts {
			if a.admits(n) {
				return true
			}
		}
		return false
	}
	if p.field != "" && (n.field == 0 || p.field != n.FieldName()) {
		return false
	}
	if p.kind == "_" {
		return n.isNamed
	}
	return p.kind == n.Type()
}

type queryParser struct {
	toks []string
	at   int
	q    *Query
}

func (p *queryParser) done() bool { return p.at >= len(p.toks) }

func (p *queryParser) next() string {
	if p.done() {
		return ""
	}
	p.at++
	return p.toks[p.at-1]
}

func (p *queryParser) peek() string {
	if p.done() {
		return ""
	}
	return p.toks[p.at]
}

func (p *queryParser) pattern() (*pattern, error) {
	pat := &pattern{capture: -1}
	switch tok := p.next(); tok {
	case "(":
		pat.kind = p.next()
		if !isName(pat.kind) {
			return nil, fmt.Errorf("query: node type expected after '(', found %q", pat.kind)
		}
		for p.peek() != ")" {
			if p.done() {
				return nil, fmt.Errorf("query: ')' missing")
			}
			field := ""
			if isName(p.peek()) && p.at+1 < len(p.toks) && p.toks[p.at+1] == ":" {
				field = p.next()
				p.next()
			}
			child, err := p.pattern()
			if err != nil {
				return nil, err
			}
			if field != "" {
				if child.alts != nil {
					for _, a := range child.alts {
						a.field = field
					}
				} else {
					child.field = field
				}
			}
			pat.children = append(pat.children, child)
		}
		p.next()
	case "[":
		for p.peek() != "]" {
			if p.done() {
				return nil, fmt.Errorf("query: ']' missing")
			}
			alt, err := p.pattern()
			if err != nil {
				return nil, err
			}
			pat.alts = append(pat.alts, alt)
		}
		p.next()
	default:
		return nil, fmt.Errorf("query: unsupported syntax %q (this matcher reads node patterns, fields, (_), [...] and @captures)", tok)
	}
	if strings.HasPrefix(p.peek(), "@") {
		name := p.next()[1:]
		pat.capture = -1
		for id, c := range p.q.captures {
			if c == name {
				pat.capture = id
			}
		}
		if pat.capture < 0 {
			pat.capture = len(p.q.captures)
			p.q.captures = append(p.q.captures, name)
		}
	}
	return pat, nil
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// tokenize splits query text into ( ) [ ] : @name and names, dropping
// ; comments; any other character is a token of its own, which the
// parser refuses.
func tokenize(text string) []string {
	var toks []string
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == ';':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.IndexByte("()[]:", c) >= 0:
			toks = append(toks, string(c))
			i++
		default:
			j := i + 1
			if c == '@' || isName(string(c)) {
				for j < len(text) && (isName(string(text[j])) || text[j] == '.' && c == '@') {
					j++
				}
			}
			toks = append(toks, text[i:j])
			i = j
		}
	}
	return toks
}
