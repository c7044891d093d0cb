package syntree

/*
#include <stdint.h>
#include <stdbool.h>

// The layouts and functions of tree_sitter/api.h that the walk uses, as the
// go-tree-sitter version in go.mod compiles them (its C code is linked
// into the binary; these declarations only name it). build_test.go checks
// the walk against go-tree-sitter's own API on every fixture.
typedef struct { uint32_t context[4]; const void *id; const void *tree; } TSNode;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } TSTreeCursor;
typedef struct { uint32_t row; uint32_t column; } TSPoint;
TSTreeCursor ts_tree_cursor_new(TSNode);
void ts_tree_cursor_delete(TSTreeCursor *);
bool ts_tree_cursor_goto_first_child(TSTreeCursor *);
bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *);
bool ts_tree_cursor_goto_parent(TSTreeCursor *);
TSNode ts_tree_cursor_current_node(const TSTreeCursor *);
uint16_t ts_tree_cursor_current_field_id(const TSTreeCursor *);
uint32_t ts_node_end_byte(TSNode);
uint16_t ts_node_symbol(TSNode);
bool ts_node_is_named(TSNode);
bool ts_node_is_missing(TSNode);

typedef struct {
	uintptr_t id;
	uint32_t start, end;
	TSPoint start_pt;
	int32_t parent;
	uint16_t symbol, field;
	uint8_t named, missing;
} syntree_record;

// syntree_walk writes the nodes under root in preorder into out, each with
// the index of its parent, and returns how many; -1 when out (or stack,
// the open parents) is too small.
static int syntree_walk(TSNode root, syntree_record *out, int cap, int32_t *stack, int depth_cap) {
	TSTreeCursor c = ts_tree_cursor_new(root);
	int n = 0, depth = 0;
	stack[0] = -1;
	for (;;) {
		if (n == cap) { ts_tree_cursor_delete(&c); return -1; }
		TSNode x = ts_tree_cursor_current_node(&c);
		syntree_record *r = &out[n];
		r->id = (uintptr_t)x.id;
		r->start = x.context[0]; // ts_node_start_byte
		r->end = ts_node_end_byte(x);
		r->start_pt.row = x.context[1]; // ts_node_start_point
		r->start_pt.column = x.context[2];
		r->parent = stack[depth];
		r->symbol = ts_node_symbol(x);
		r->field = ts_tree_cursor_current_field_id(&c);
		r->named = ts_node_is_named(x);
		r->missing = ts_node_is_missing(x);
		n++;
		if (ts_tree_cursor_goto_first_child(&c)) {
			if (++depth == depth_cap) { ts_tree_cursor_delete(&c); return -1; }
			stack[depth] = n - 1;
			continue;
		}
		while (!ts_tree_cursor_goto_next_sibling(&c)) {
			if (!ts_tree_cursor_goto_parent(&c)) { ts_tree_cursor_delete(&c); return n; }
			depth--;
		}
	}
}
*/
import "C"

import (
	"sync"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// record is one node as the walk reads it.
type record = C.syntree_record

// New builds the Go copy of ts, a tree of lang, in one pass over the C
// tree.
func New(ts *sitter.Tree, nm *Language) *Tree {
	root := ts.RootNode()
	b, _ := buffers.Get().(*buffer)
	if b == nil {
		b = &buffer{}
	}
	recs := walkC(root, b)
	if recs == nil {
		recs = walkCursor(root, nm)
	}
	t := assemble(recs, nm)
	// The room a big file needed is not kept for the next: a pool holds
	// on to what it is given.
	if len(b.recs) <= maxPooled {
		buffers.Put(b)
	}
	return t
}

// maxPooled is the most records a pooled buffer keeps room for (about a
// 100 KB script).
const maxPooled = 1 << 15

// walkC reads the tree in a single cgo call. go-tree-sitter keeps a
// node's C value unexported, as the first field of its Node; the walk
// reads it there, and falls back to the cursor walk (nil) if what it
// reads is not root, so that a go-tree-sitter whose Node changed is slow,
// not wrong.
func walkC(root *sitter.Node, b *buffer) []record {
	if unsafe.Sizeof(sitter.Node{}) < unsafe.Sizeof(C.TSNode{}) {
		return nil
	}
	c := *(*C.TSNode)(unsafe.Pointer(root))
	if uintptr(c.id) != root.ID() {
		return nil
	}
	// About one node per three bytes of Python, room for one per two; a
	// tree that needs more is walked again with room for four times as many.
	size := max(1024, int(root.EndByte())/2)
	for {
		if len(b.recs) < size {
			b.recs = make([]record, size)
			b.stack = make([]C.int32_t, size)
		}
		n := int(C.syntree_walk(c, &b.recs[0], C.int(len(b.recs)), &b.stack[0], C.int(len(b.stack))))
		if n >= 0 {
			if n == 0 || uint32(b.recs[0].end) != root.EndByte() || uint16(b.recs[0].symbol) != uint16(root.Symbol()) {
				return nil
			}
			return b.recs[:n]
		}
		size = 4 * len(b.recs)
	}
}

// buffer is room for a walk's records, reused from file to file.
type buffer struct {
	recs  []record
	stack []C.int32_t
}

var buffers sync.Pool

// walkCursor reads the tree through go-tree-sitter's cursor API, a few
// cgo calls per node: the slow path, and build_test.go's reference.
func walkCursor(root *sitter.Node, nm *Language) []record {
	var recs []record
	c := sitter.NewTreeCursor(root)
	defer c.Close()
	stack := []int32{-1}
	for {
		n := c.CurrentNode()
		sp := n.StartPoint()
		recs = append(recs, record{
			id:       C.uintptr_t(n.ID()),
			start:    C.uint32_t(n.StartByte()),
			end:      C.uint32_t(n.EndByte()),
			start_pt: C.TSPoint{row: C.uint32_t(sp.Row), column: C.uint32_t(sp.Column)},
			parent:   C.int32_t(stack[len(stack)-1]),
			symbol:   C.uint16_t(n.Symbol()),
			field:    C.uint16_t(nm.fieldID(c.CurrentFieldName())),
			named:    boolByte(n.IsNamed()),
			missing:  boolByte(n.IsMissing()),
		})
		if c.GoToFirstChild() {
			stack = append(stack, int32(len(recs)-1))
			continue
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				return recs
			}
			stack = stack[:len(stack)-1]
		}
	}
}

func boolByte(b bool) C.uint8_t {
	if b {
		return 1
	}
	return 0
}

// assemble makes the Tree of the walk's records: the nodes in one array,
// the child lists in two more, and HasError from the leaves up.
func assemble(recs []record, nm *Language) *Tree {
	t := &Tree{nodes: make([]Node, len(recs)), lang: nm}
	for i := range recs {
		r := &recs[i]
		n := &t.nodes[i]
		n.t = t
		n.symbol = nm.symbolIndex(uint16(r.symbol))
		if n.field = uint16(r.field); int(n.field) >= len(nm.fields) {
			n.field = 0
		}
		n.start, n.end = uint32(r.start), uint32(r.end)
		n.startPt = sitter.Point{Row: uint32(r.start_pt.row), Column: uint32(r.start_pt.column)}
		n.isNamed, n.missing = r.named != 0, r.missing != 0
		n.hasError = n.missing || n.symbol == nm.errorSymbol
		n.pos, n.parent = int32(i), int32(r.parent)
		if p := n.parent; p >= 0 {
			parent := &t.nodes[p]
			n.index = parent.nkids
			parent.nkids++
			if n.isNamed {
				n.nindex = parent.nnamed
				parent.nnamed++
			}
		}
	}
	// Every node but the root is a child once: the lists are runs of two
	// shared arrays, laid out parent by parent.
	at, nat := int32(0), int32(0)
	for i := range t.nodes {
		n := &t.nodes[i]
		n.kidsAt, n.namedAt = at, nat
		at += n.nkids
		nat += n.nnamed
	}
	t.kids = make([]*Node, at)
	t.named = make([]*Node, nat)
	for i := 1; i < len(t.nodes); i++ {
		n := &t.nodes[i]
		p := &t.nodes[n.parent]
		t.kids[p.kidsAt+n.index] = n
		if n.isNamed {
			t.named[p.namedAt+n.nindex] = n
		}
	}
	for i := len(t.nodes) - 1; i > 0; i-- {
		if n := &t.nodes[i]; n.hasError {
			t.nodes[n.parent].hasError = true
		}
	}
	return t
}
