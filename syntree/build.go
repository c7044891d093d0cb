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
	uintptr_t key; // the subtree's address (see syntree_key); 0: none
	uint32_t start, end;
	TSPoint start_pt;
	int32_t parent;
	uint16_t symbol, field;
	uint8_t named, missing;
	int32_t reuse; // position in the earlier tree of the same subtree; -1: none
} syntree_record;

// syntree_seen is a hash table of an earlier tree's subtree addresses
// (syntree_key), to find the subtrees a parse reused:
// positions in the earlier tree's node array, -1 for an empty slot.
typedef struct {
	const uintptr_t *ids;
	int32_t *slots;
	uint32_t mask; // slots - 1, a power of two less one; 0: no table
} syntree_seen;

// syntree_key is the address of a node's subtree: a TSNode's id points
// at tree-sitter's Subtree, a union of that address and, for a small leaf,
// the leaf's own bits with the low bit set. The slot the id points at
// belongs to the parent, which a parse rebuilds around an edit; the
// subtree it holds is the one the parse reused. 0 for a leaf held inline.
static uintptr_t syntree_key(TSNode x) {
	uintptr_t v = *(const uintptr_t *)x.id;
	return (v & 1) ? 0 : v;
}

static uint32_t syntree_hash(uintptr_t id, uint32_t mask) {
	return (uint32_t)((id >> 3) * 0x9E3779B97F4A7C15ull >> 32) & mask;
}

static void syntree_seen_fill(syntree_seen *s, int n) {
	for (uint32_t i = 0; i <= s->mask; i++) s->slots[i] = -1;
	for (int i = 0; i < n; i++) {
		if (s->ids[i] == 0) continue;
		uint32_t h = syntree_hash(s->ids[i], s->mask);
		while (s->slots[h] >= 0) h = (h + 1) & s->mask;
		s->slots[h] = i;
	}
}

static int32_t syntree_seen_find(const syntree_seen *s, uintptr_t id) {
	if (s->mask == 0 || id == 0) return -1;
	for (uint32_t h = syntree_hash(id, s->mask); s->slots[h] >= 0; h = (h + 1) & s->mask) {
		if (s->ids[s->slots[h]] == id) return s->slots[h];
	}
	return -1;
}

// syntree_walk writes the nodes under root in preorder into out, each with
// the index of its parent, and returns how many; -1 when out (or stack,
// the open parents) is too small. A node whose subtree seen holds (one
// the parse reused from the tree seen was made from) is written with
// its position there, and without its children: they are the same.
static int syntree_walk(TSNode root, syntree_record *out, int cap, int32_t *stack, int depth_cap, const uintptr_t *seen_ids, int nseen, int32_t *slots, uint32_t mask) {
	syntree_seen seen_table = {seen_ids, slots, mask}, *seen = &seen_table;
	if (mask) syntree_seen_fill(seen, nseen);
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
		r->key = syntree_key(x);
		r->reuse = syntree_seen_find(seen, r->key);
		n++;
		if (r->reuse < 0 && ts_tree_cursor_goto_first_child(&c)) {
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
func New(ts *sitter.Tree, nm *Language) *Tree { return NewReusing(ts, nm, nil) }

// NewReusing is New for a tree that an incremental parse made from the
// tree that old copies (tree-sitter keeps the subtrees an edit left
// alone): the walk stops at each node whose subtree old holds, and the
// copy takes that node's descendants from old, moved to their new place.
// The old tree-sitter tree must still be open: a subtree's address then
// names that subtree alone. A fix edits a few lines, so the walk of its
// output visits a few nodes instead of all.
func NewReusing(ts *sitter.Tree, nm *Language, old *Tree) *Tree {
	root := ts.RootNode()
	b, _ := buffers.Get().(*buffer)
	if b == nil {
		b = &buffer{}
	}
	recs := walkC(root, b, old)
	if recs != nil && !reusesFit(recs, old) {
		recs, old = walkC(root, b, nil), nil
	}
	if recs == nil {
		recs, old = walkCursor(root, nm), nil
	}
	t := assemble(recs, nm, old, &b.at)
	// The room a big file needed is not kept for the next: a pool holds
	// on to what it is given.
	if len(b.recs) <= maxPooled {
		buffers.Put(b)
	}
	return t
}

// reusesFit checks each subtree the walk found in old: the same subtree
// spans the same number of bytes. (It always does; a walk that found
// otherwise is not trusted, and the tree is walked whole.)
func reusesFit(recs []record, old *Tree) bool {
	for i := range recs {
		r := &recs[i]
		if p := int32(r.reuse); p >= 0 && old.nodes[p].end-old.nodes[p].start != uint32(r.end-r.start) {
			return false
		}
	}
	return true
}

// maxPooled is the most records a pooled buffer keeps room for (about a
// 100 KB script).
const maxPooled = 1 << 15

// walkC reads the tree in a single cgo call. go-tree-sitter keeps a
// node's C value unexported, as the first field of its Node; the walk
// reads it there, and falls back to the cursor walk (nil) if what it
// reads is not root, so that a go-tree-sitter whose Node changed is slow,
// not wrong.
func walkC(root *sitter.Node, b *buffer, old *Tree) []record {
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
	var ids *C.uintptr_t
	var slots *C.int32_t
	var nkeys, mask C.uint32_t
	if old != nil && len(old.keys) > 0 {
		n := 1
		for n < 2*len(old.keys) {
			n *= 2
		}
		if len(b.slots) < n {
			b.slots = make([]C.int32_t, n)
		}
		ids, slots, nkeys, mask = (*C.uintptr_t)(unsafe.Pointer(&old.keys[0])), &b.slots[0], C.uint32_t(len(old.keys)), C.uint32_t(n-1)
		size = max(size/8, 1024) // most of the tree is old's
	}
	for {
		if len(b.recs) < size {
			b.recs = make([]record, size)
			b.stack = make([]C.int32_t, size)
		}
		n := int(C.syntree_walk(c, &b.recs[0], C.int(len(b.recs)), &b.stack[0], C.int(len(b.stack)), ids, C.int(nkeys), slots, mask))
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
	slots []C.int32_t // the hash table of an earlier tree's keys
	at    []int32     // where each record's node goes (assemble)
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
			reuse:    -1,
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
// the child lists in two more, and HasError from the leaves up. A record
// of a subtree old holds (reuse) brings its descendants from old. at is
// scratch room: where each record's node goes.
func assemble(recs []record, nm *Language, old *Tree, at *[]int32) *Tree {
	total := len(recs)
	for i := range recs {
		if p := int32(recs[i].reuse); p >= 0 {
			total += int(old.lastDescendant(p) - p)
		}
	}
	t := &Tree{lang: nm}
	st, _ := storages.Get().(*storage)
	if st == nil {
		st = &storage{}
	}
	t.nodes, t.keys = room(st.nodes, total), room(st.keys, total)
	if cap(*at) < len(recs) {
		*at = make([]int32, len(recs))
	}
	pos := (*at)[:len(recs)]
	j := int32(0)
	for i := range recs {
		r := &recs[i]
		field := uint16(r.field)
		if int(field) >= len(nm.fields) {
			field = 0
		}
		parent := int32(-1)
		if r.parent >= 0 {
			parent = pos[r.parent]
		}
		n := &t.nodes[j]
		*n = Node{
			t:       t,
			pos:     j,
			parent:  parent,
			symbol:  nm.symbolIndex(uint16(r.symbol)),
			field:   field,
			start:   uint32(r.start),
			end:     uint32(r.end),
			startPt: sitter.Point{Row: uint32(r.start_pt.row), Column: uint32(r.start_pt.column)},
			isNamed: r.named != 0,
			missing: r.missing != 0,
		}
		n.hasError = n.missing || n.symbol == nm.errorSymbol
		t.keys[j] = uintptr(r.key)
		if parent >= 0 {
			// Its place among the parent's children, and named children.
			p := &t.nodes[parent]
			n.index = p.nkids
			p.nkids++
			if n.isNamed {
				n.nindex = p.nnamed
				p.nnamed++
			}
		}
		pos[i] = j
		j++
		if p := int32(r.reuse); p >= 0 {
			j = t.copyDescendants(j, old, p)
		}
	}
	// Every node but the root is a child once: the lists are runs of two
	// shared arrays, laid out parent by parent. A parent comes before its
	// children, so its lists have their place when they are reached.
	// Every slot of kids, and of named up to its final length, is written
	// below: pooled room needs no clearing.
	t.kids, t.named = room(st.kids, len(t.nodes)-1), room(st.named, len(t.nodes)-1)
	kat, nat := int32(0), int32(0)
	anyError := false
	for i := range t.nodes {
		n := &t.nodes[i]
		n.kidsAt, n.namedAt = kat, nat
		kat += n.nkids
		nat += n.nnamed
		anyError = anyError || n.hasError
		if n.parent < 0 {
			continue
		}
		p := &t.nodes[n.parent]
		t.kids[p.kidsAt+n.index] = n
		if n.isNamed {
			t.named[p.namedAt+n.nindex] = n
		}
	}
	t.named = t.named[:nat]
	if anyError { // (a parse the fix loop keeps has none)
		for i := len(t.nodes) - 1; i > 0; i-- {
			if n := &t.nodes[i]; n.hasError {
				t.nodes[n.parent].hasError = true
			}
		}
	}
	return t
}

// copyDescendants copies the descendants of old's node p under node j-1,
// its copy, placed where that copy starts, and returns the position after
// them. The subtree is unchanged, so each descendant keeps its links
// (child counts, places among its siblings, errors below it) and moves by
// the bytes and rows the subtree moved; one on the subtree's first row
// also moves by its columns.
func (t *Tree) copyDescendants(j int32, old *Tree, p int32) int32 {
	root, was := &t.nodes[j-1], &old.nodes[p]
	root.nkids, root.nnamed = was.nkids, was.nnamed
	root.hasError = was.hasError
	shift := j - 1 - p // where each node of the subtree moves in the array
	dByte := int64(root.start) - int64(was.start)
	dRow := int64(root.startPt.Row) - int64(was.startPt.Row)
	dCol := int64(root.startPt.Column) - int64(was.startPt.Column)
	last := old.lastDescendant(p)
	copy(t.keys[j:], old.keys[p+1:last+1])
	for k := p + 1; k <= last; k++ {
		n := &t.nodes[j]
		*n = old.nodes[k]
		n.t, n.pos, n.parent = t, j, n.parent+shift
		n.start = uint32(int64(n.start) + dByte)
		n.end = uint32(int64(n.end) + dByte)
		if n.startPt.Row == was.startPt.Row {
			n.startPt.Column = uint32(int64(n.startPt.Column) + dCol)
		}
		n.startPt.Row = uint32(int64(n.startPt.Row) + dRow)
		j++
	}
	return j
}

// lastDescendant is the position of the last node under p in preorder
// (p itself when it has no children).
func (t *Tree) lastDescendant(p int32) int32 {
	for n := &t.nodes[p]; n.nkids > 0; n = t.kids[n.kidsAt+n.nkids-1] {
		p = t.kids[n.kidsAt+n.nkids-1].pos
	}
	return p
}

// storage is the room of a Tree's arrays, which Release hands to the
// next tree built: two trees a script, a third of what a fix allocated.
type storage struct {
	nodes []Node
	keys  []uintptr
	kids  []*Node
	named []*Node
}

var storages sync.Pool

// maxPooledNodes is the most nodes a pooled storage keeps room for (a
// script of about 200 KB); bigger room goes back to the collector.
const maxPooledNodes = 1 << 16

// room is s with length n, reusing its room when there is enough.
func room[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// Release hands t's room to the next tree built. Neither t nor any of its
// nodes may be read afterwards: the nodes' memory then holds another
// tree. (t's own arrays are dropped, so that a read through t fails
// instead of reading the other tree.)
func (t *Tree) Release() {
	if t == nil || t.nodes == nil {
		return
	}
	if cap(t.nodes) <= maxPooledNodes {
		storages.Put(&storage{t.nodes[:0], t.keys[:0], t.kids[:0], t.named[:0]})
	}
	t.nodes, t.keys, t.kids, t.named = nil, nil, nil, nil
}
