// Package syntree holds a tree-sitter syntax tree in Go memory: one array
// of nodes, built by a single pass over the C tree right after the parse.
// Reading a node of a tree-sitter tree is a cgo call (about 100 ns, and a
// Go allocation for each type name); the engine's analyses read each node
// many times, so a script's analysis made some 30,000 such calls. Here
// every read is a field load. Node mirrors the methods of
// go-tree-sitter's Node that the engine uses, with the same meaning.
package syntree

import (
	"sync/atomic"

	sitter "github.com/smacker/go-tree-sitter"
)

// Tree is a parsed source held in Go memory.
type Tree struct {
	nodes []Node
	kids  []*Node   // the child lists, one after another
	named []*Node   // the named-child lists, one after another
	keys  []uintptr // the C subtree of each node (0: a leaf held inline), for NewReusing
	lang  *Language
}

// Node is one node of a Tree; the zero of *Node (nil) stands for "none",
// as in go-tree-sitter.
// Its one pointer is to its tree, so that the garbage collector has little
// to scan: the rest are positions in the tree's arrays.
type Node struct {
	t        *Tree
	start    uint32
	end      uint32
	startPt  sitter.Point
	parent   int32 // position of the parent in t.nodes (-1: the root)
	pos      int32 // position in t.nodes (preorder)
	kidsAt   int32 // the children are t.kids[kidsAt : kidsAt+nkids]
	nkids    int32
	namedAt  int32 // the named children are t.named[namedAt : namedAt+nnamed]
	nnamed   int32
	index    int32  // position among the parent's children
	nindex   int32  // position among the parent's named children (if named)
	symbol   uint16 // index in t.lang.symbols
	field    uint16 // index in t.lang.fields (0: none)
	isNamed  bool
	missing  bool
	hasError bool
}

// Root is the tree's root node (a Python module's "module").
func (t *Tree) Root() *Node { return &t.nodes[0] }

// Len is the number of nodes.
func (t *Tree) Len() int { return len(t.nodes) }

// Type is the node's grammar name ("call", "identifier", "(").
func (n *Node) Type() string { return n.t.lang.symbols[n.symbol] }

// StartByte and EndByte bound the node's text.
func (n *Node) StartByte() uint32 { return n.start }
func (n *Node) EndByte() uint32   { return n.end }

// Start and End are StartByte and EndByte as ints, for slicing a source.
func (n *Node) Start() int { return int(n.start) }
func (n *Node) End() int   { return int(n.end) }

// StartPoint is the row and byte column where the node starts. (The end's
// is not kept: a walk of the tree spent a tenth of its time on it, and
// the text tells whether a node spans lines.)
func (n *Node) StartPoint() sitter.Point { return n.startPt }

// Content is the node's text in src, the text the tree was parsed from.
func (n *Node) Content(src []byte) string { return string(src[n.start:n.end]) }

// Parent is the node holding n; nil for the root.
func (n *Node) Parent() *Node {
	if n.parent < 0 {
		return nil
	}
	return &n.t.nodes[n.parent]
}

// FieldName is the field of its parent that n fills ("" for none).
func (n *Node) FieldName() string { return n.t.lang.fields[n.field] }

// IsNamed reports a node of a named grammar rule (not a bare token).
func (n *Node) IsNamed() bool { return n.isNamed }

// IsMissing reports a token the parser invented to recover from an error.
func (n *Node) IsMissing() bool { return n.missing }

// IsError reports an ERROR node.
func (n *Node) IsError() bool { return n.symbol == n.t.lang.errorSymbol }

// HasError reports an ERROR or MISSING node at or under n.
func (n *Node) HasError() bool { return n.hasError }

// Equal reports whether n and m are one node.
func (n *Node) Equal(m *Node) bool { return n == m }

// Children lists every child of n, tokens included. The slice is shared:
// appending to it copies.
func (n *Node) Children() []*Node {
	if counting.Load() {
		visits.Add(int64(n.nkids))
	}
	return n.children()
}

func (n *Node) children() []*Node {
	end := n.kidsAt + n.nkids
	return n.t.kids[n.kidsAt:end:end]
}

// NamedChildren lists the named children of n (comments included). The
// slice is shared: appending to it copies.
func (n *Node) NamedChildren() []*Node {
	if counting.Load() {
		visits.Add(int64(n.nnamed))
	}
	return n.namedChildren()
}

func (n *Node) namedChildren() []*Node {
	end := n.namedAt + n.nnamed
	return n.t.named[n.namedAt:end:end]
}

// counting turns on the count of the children that Children and
// NamedChildren hand out, for the tests that an analysis grows linearly
// with its file (a loop that walks a node's children once per child is
// quadratic however cheap each step is).
var (
	counting atomic.Bool
	visits   atomic.Int64
)

// CountVisits turns the count on or off; Visits is the count so far.
func CountVisits(on bool) { counting.Store(on) }
func Visits() int64       { return visits.Load() }

// ChildCount and Child(i) index every child, tokens included.
func (n *Node) ChildCount() uint32 { return uint32(n.nkids) }
func (n *Node) Child(i int) *Node {
	if i < 0 || i >= int(n.nkids) {
		return nil
	}
	return n.t.kids[int(n.kidsAt)+i]
}

// NamedChildCount and NamedChild(i) index the named children.
func (n *Node) NamedChildCount() uint32 { return uint32(n.nnamed) }
func (n *Node) NamedChild(i int) *Node {
	if i < 0 || i >= int(n.nnamed) {
		return nil
	}
	return n.t.named[int(n.namedAt)+i]
}

// ChildByFieldName is the first child that fills the field name.
func (n *Node) ChildByFieldName(name string) *Node {
	fields := n.t.lang.fields
	for _, c := range n.children() {
		if c.field != 0 && fields[c.field] == name {
			return c
		}
	}
	return nil
}

// NextSibling and PrevSibling are the children of n's parent beside n.
func (n *Node) NextSibling() *Node {
	if n.parent < 0 {
		return nil
	}
	return n.Parent().Child(int(n.index) + 1)
}

func (n *Node) PrevSibling() *Node {
	if n.parent < 0 {
		return nil
	}
	return n.Parent().Child(int(n.index) - 1)
}

// NextNamedSibling and PrevNamedSibling are the named siblings beside n.
// Like tree-sitter's, they skip tokens when n itself is one.
func (n *Node) NextNamedSibling() *Node {
	for s := n.NextSibling(); s != nil; s = s.NextSibling() {
		if s.isNamed {
			return s
		}
	}
	return nil
}

func (n *Node) PrevNamedSibling() *Node {
	for s := n.PrevSibling(); s != nil; s = s.PrevSibling() {
		if s.isNamed {
			return s
		}
	}
	return nil
}

// NamedDescendantForByteRange is the smallest named node at or under n
// that holds the bytes [start, end], by tree-sitter's rule: a child holds
// the range when it ends at or after end, past start, and starts at or
// before start.
func (n *Node) NamedDescendantForByteRange(start, end uint32) *Node {
	best := n
	for cur := n; ; {
		var next *Node
		for _, c := range cur.children() {
			if c.end < end || c.end <= start {
				continue
			}
			if start < c.start {
				break
			}
			next = c
			break
		}
		if next == nil {
			return best
		}
		if cur = next; cur.isNamed {
			best = cur
		}
	}
}

// Language is a grammar's symbol and field names, read once: reading one
// through cgo allocates a Go string each time. Make one per grammar and
// keep it (go-tree-sitter's GetLanguage returns a new value each call).
type Language struct {
	symbols     []string // by symbol, then "ERROR"
	fields      []string // by field id; "" first, for none
	errorSymbol uint16   // where "ERROR" is in symbols
}

// NewLanguage reads lang's names.
func NewLanguage(lang *sitter.Language) *Language {
	nm := &Language{fields: []string{""}}
	for s := uint32(0); s < lang.SymbolCount(); s++ {
		nm.symbols = append(nm.symbols, lang.SymbolName(sitter.Symbol(s)))
	}
	for i := 1; ; i++ {
		f := lang.FieldName(i)
		if f == "" {
			break
		}
		nm.fields = append(nm.fields, f)
	}
	nm.errorSymbol = uint16(len(nm.symbols))
	nm.symbols = append(nm.symbols, "ERROR")
	return nm
}

// symbolIndex is where tree-sitter's symbol s is in symbols.
func (nm *Language) symbolIndex(s uint16) uint16 {
	if int(s) >= int(nm.errorSymbol) {
		return nm.errorSymbol // 0xFFFF, tree-sitter's ERROR
	}
	return s
}

func (nm *Language) fieldID(name string) uint16 {
	for i, f := range nm.fields {
		if f == name && name != "" {
			return uint16(i)
		}
	}
	return 0
}
