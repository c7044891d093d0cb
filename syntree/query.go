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
	npattern int      // the patterns at every level, numbered by pattern.id
	plans    sync.Map // *Language -> *plan
}

// pattern is one node pattern: a type ("_": any named node), the child
// patterns its node's named children must match in order, and the capture
// it binds. An alternation has alts instead of a type.
type pattern struct {
	id       int // position in a plan's tables
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
	var out []Match
	q.Each(t, func(pattern int, caps []*Node) {
		out = append(out, Match{pattern, slices.Clone(caps)})
	})
	return out
}

// Each calls visit for every match in t, in the order Matches lists them.
// caps holds the match's captures by id (nil where it binds none) and is
// valid only during the call: its room is reused, by the next match and
// by the next tree, so that a walk allocates nothing (the matches' room
// was a third of what a fix allocated).
func (q *Query) Each(t *Tree, visit func(pattern int, caps []*Node)) {
	m, _ := matchers.Get().(*matcher)
	if m == nil {
		m = &matcher{}
	}
	nc := len(q.captures)
	m.caps = room(m.caps, nc)
	clear(m.caps)
	m.plan = q.planOf(t.lang)
	for i := range t.nodes {
		n := &t.nodes[i]
		// Most nodes: no pattern is of their type.
		for _, k := range m.plan.starts[n.symbol] {
			pat := q.patterns[k]
			if !m.plan.admits(pat, n) {
				continue
			}
			m.pattern, m.start = k, i
			m.node(pat, n)
		}
	}
	slices.SortStableFunc(m.found, func(a, b found) int {
		return cmp.Or(cmp.Compare(a.finish, b.finish), cmp.Compare(a.start, b.start))
	})
	for _, f := range m.found {
		visit(f.pattern, m.store[f.at:f.at+nc:f.at+nc])
	}
	// The pool keeps no node of t alive; a big tree's room is not kept.
	clear(m.store)
	m.found, m.store = m.found[:0], m.store[:0]
	if cap(m.store) <= maxPooledCaptures {
		matchers.Put(m)
	}
}

// matcher finds the ways a pattern matches, depth first, and records each
// with caps bound and the last node the match looked at. What is left to
// match is a stack of frames, not closures, so that a match allocates
// nothing.
type matcher struct {
	plan  *plan
	caps  []*Node
	stack []frame
	// pattern and start are the top-level pattern being matched and the
	// position of the node it is matched at.
	pattern, start int
	found          []found
	store          []*Node // the found matches' captures, len(caps) at a time
}

// found is one match: its captures are store[at:at+len(caps)].
type found struct {
	pattern, at   int
	finish, start int
}

var matchers sync.Pool

// maxPooledCaptures is the most captures a pooled matcher keeps room for.
const maxPooledCaptures = 1 << 16

// emit records a match of the bound captures; last is the last node it
// looked at.
func (m *matcher) emit(last *Node) {
	at := len(m.store)
	m.store = append(m.store, m.caps...)
	m.found = append(m.found, found{m.pattern, at, int(last.pos), m.start})
}

// frame is a pattern whose children are being matched: p.children[k:]
// are left, to match kids in order (siblings between them skipped).
type frame struct {
	p    *pattern
	kids []*Node
	k    int
}

// node matches p at n, then what the stack holds. p admits n (the
// caller has asked); the captures are as they were when it returns.
func (m *matcher) node(p *pattern, n *Node) {
	if p.alts != nil {
		for _, a := range p.alts {
			if !m.plan.admits(a, n) {
				continue
			}
			if p.capture >= 0 {
				m.caps[p.capture] = n
			}
			m.node(a, n)
		}
		if p.capture >= 0 {
			m.caps[p.capture] = nil
		}
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
		if m.plan.admits(child, c) {
			m.stack[i] = frame{top.p, top.kids[j+1:], top.k + 1}
			m.node(child, c)
		}
	}
	m.stack[i] = top
}

// plan is the query's patterns read against one language's names, so
// that matching compares numbers: made once per language.
type plan struct {
	starts [][]int  // by symbol: the top-level patterns that can match a node of it, in order
	kinds  [][]bool // by pattern id, by symbol: the pattern's type is the symbol's (nil: "_")
	fields []uint16 // by pattern id: the id of the field the node must fill (0: any)
}

// noField is the field id of a field the language does not have: no node
// fills it.
const noField = 0xFFFF

func (q *Query) planOf(lang *Language) *plan {
	if v, ok := q.plans.Load(lang); ok {
		return v.(*plan)
	}
	pl := &plan{starts: make([][]int, len(lang.symbols)), kinds: make([][]bool, q.npattern), fields: make([]uint16, q.npattern)}
	var add func(p *pattern)
	add = func(p *pattern) {
		if p.field != "" {
			if pl.fields[p.id] = lang.fieldID(p.field); pl.fields[p.id] == 0 {
				pl.fields[p.id] = noField
			}
		}
		if p.alts == nil && p.kind != "_" {
			pl.kinds[p.id] = make([]bool, len(lang.symbols))
			for sym, name := range lang.symbols {
				pl.kinds[p.id][sym] = name == p.kind
			}
		}
		for _, c := range p.children {
			add(c)
		}
		for _, a := range p.alts {
			add(a)
		}
	}
	for k, p := range q.patterns {
		add(p)
		for sym, name := range lang.symbols {
			if p.mayStart(name) {
				pl.starts[sym] = append(pl.starts[sym], k)
			}
		}
	}
	q.plans.Store(lang, pl)
	return pl
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

// admits is the test of n's own type and field by p, before a match
// looks at its children.
func (pl *plan) admits(p *pattern, n *Node) bool {
	if p.alts != nil {
		for _, a := range p.alts {
			if pl.admits(a, n) {
				return true
			}
		}
		return false
	}
	if f := pl.fields[p.id]; f != 0 && n.field != f {
		return false
	}
	if k := pl.kinds[p.id]; k != nil {
		return k[n.symbol]
	}
	return n.isNamed // "_"
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
	pat := &pattern{id: p.q.npattern, capture: -1}
	p.q.npattern++
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
