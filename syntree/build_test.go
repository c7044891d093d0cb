package syntree

import (
	"context"
	"fmt"
	"hash/crc32"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/python"
)

// sources are the repository's Python fixtures and a few broken texts
// (ERROR and MISSING nodes).
func sources(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{
		"broken-call":   []byte("x = f(a, b\ny = 2\n"),
		"broken-indent": []byte("def f():\nreturn 1\n"),
		"missing-colon": []byte("if x\n    pass\n"),
		"stray":         []byte("model = (\n)) from_pretrained(\n"),
		"empty":         nil,
		"crlf-bom":      []byte("\ufeffimport torch\r\nx = torch.compile(m)\r\n"),
		// More nodes than bytes/2: the walk's first buffer is too small.
		"dense": []byte("x = a" + strings.Repeat(".b", 3000) + "\n"),
	}
	err := filepath.WalkDir("../fixtures", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".py") || strings.HasSuffix(p, ".py.golden")) {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[p] = b
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 100 {
		t.Fatalf("only %d sources", len(out))
	}
	return out
}

func parseTS(t testing.TB, src []byte) *sitter.Tree {
	t.Helper()
	p := sitter.NewParser()
	p.SetLanguage(python.GetLanguage())
	tree, err := p.ParseCtx(context.Background(), nil, src)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// TestWalkMatchesCursor: the one-call C walk reads what go-tree-sitter's
// cursor API reads, node for node.
func TestWalkMatchesCursor(t *testing.T) {
	nm := NewLanguage(python.GetLanguage())
	for name, src := range sources(t) {
		ts := parseTS(t, src)
		fast := walkC(ts.RootNode(), &buffer{}, nil)
		if fast == nil {
			t.Fatalf("%s: the C walk refused the tree (go-tree-sitter's Node layout changed?)", name)
		}
		slow := walkCursor(ts.RootNode(), nm)
		if len(fast) != len(slow) {
			t.Fatalf("%s: %d nodes, cursor %d", name, len(fast), len(slow))
		}
		for i := range fast {
			f := fast[i]
			f.key = 0 // tree-sitter's API does not show it
			if f != slow[i] {
				t.Fatalf("%s: node %d: %+v, cursor %+v", name, i, fast[i], slow[i])
			}
		}
	}
}

// TestNewReusingMatchesNew: the copy of an incremental parse that takes
// the unchanged subtrees from the copy of the tree before the edits is,
// node for node, the copy a full walk makes, for edits of every kind:
// a line inserted, text replaced on one line (columns after it move),
// text deleted across lines, and an edit at the start and at the end.
func TestNewReusingMatchesNew(t *testing.T) {
	nm := NewLanguage(python.GetLanguage())
	p := sitter.NewParser()
	p.SetLanguage(python.GetLanguage())
	walked, total := 0, 0
	for name, src := range sources(t) {
		n := len(src)
		mid := strings.LastIndexByte(string(src[:n/2]), '\n') + 1
		call := n / 3
		if i := strings.IndexByte(string(src[call:]), '('); i >= 0 {
			call += i + 1
		}
		edits := []struct {
			what       string
			start, end int
			text       string
		}{
			{"insert a line", mid, mid, "zz_inserted = f(1, x=[2])\n"},
			{"insert an argument", call, call, "z, "},
			{"delete across lines", n / 4, min(n/4+40, n), ""},
			{"at the start", 0, 0, "import os\n"},
			{"at the end", n, n, "\nprint(1)\n"},
		}
		for _, e := range edits {
			oldTS, err := p.ParseCtx(context.Background(), nil, src)
			if err != nil {
				t.Fatal(err)
			}
			oldGo := New(oldTS, nm)
			out := append(append(append([]byte{}, src[:e.start]...), e.text...), src[e.end:]...)
			cp := oldTS.Copy()
			cp.Edit(sitter.EditInput{
				StartIndex: uint32(e.start), OldEndIndex: uint32(e.end), NewEndIndex: uint32(e.start + len(e.text)),
				StartPoint: pointAt(src, e.start), OldEndPoint: pointAt(src, e.end), NewEndPoint: pointAt(out, e.start+len(e.text)),
			})
			newTS, err := p.ParseCtx(context.Background(), cp, out)
			if err != nil {
				t.Fatal(err)
			}
			want := New(newTS, nm)
			got := NewReusing(newTS, nm, oldGo)
			if got.Len() != want.Len() {
				t.Fatalf("%s, %s: %d nodes, want %d", name, e.what, got.Len(), want.Len())
			}
			for i := range want.nodes {
				g, w := got.nodes[i], want.nodes[i]
				g.t, w.t = nil, nil
				if g != w || got.keys[i] != want.keys[i] {
					t.Fatalf("%s, %s: node %d (%s at %d): %+v, want %+v", name, e.what, i, want.nodes[i].Type(), w.start, g, w)
				}
			}
			if e.what == "insert a line" || e.what == "at the end" {
				walked += len(walkC(newTS.RootNode(), &buffer{}, oldGo))
				total += got.Len()
			}
			cp.Close()
			newTS.Close()
			oldTS.Close()
		}
	}
	// The point of it: after a line added between statements, most nodes
	// come from the old copy, not the walk. (Tree-sitter reuses less
	// after some edits: one before a file's leading comments, nothing.)
	if walked*2 > total {
		t.Fatalf("the walks read %d nodes of %d", walked, total)
	}
	t.Logf("after a line added, the walks read %d nodes of %d", walked, total)
}

// pointAt is the row and byte column of offset in text.
func pointAt(text []byte, offset int) sitter.Point {
	line := strings.LastIndexByte(string(text[:offset]), '\n') + 1
	return sitter.Point{Row: uint32(strings.Count(string(text[:offset]), "\n")), Column: uint32(offset - line)}
}

// TestNodesMatchAPI: every method of Node answers as go-tree-sitter's
// does, on every node of every source (with -short: the small
// hand-written sources and one fixture in 16).
func TestNodesMatchAPI(t *testing.T) {
	lang := python.GetLanguage()
	nm := NewLanguage(lang)
	checked := 0
	all := sources(t)
	names := slices.Sorted(maps.Keys(all))
	if testing.Short() {
		names = slices.DeleteFunc(names, func(name string) bool {
			// dense alone is half the full run: a descendant lookup
			// per node of a 6000-node chain.
			return name == "dense" || strings.HasPrefix(name, "../fixtures") && crc32.ChecksumIEEE([]byte(name))%16 != 0
		})
	}
	for _, name := range names {
		src := all[name]
		ts := parseTS(t, src)
		tree := New(ts, nm)
		of := nodeOf(ts, tree, nm)
		var visit func(s *sitter.Node)
		visit = func(s *sitter.Node) {
			n := of(s)
			if n == nil {
				t.Fatalf("%s: no node for %s at %d", name, s.Type(), s.StartByte())
			}
			where := func() string { return name + ": " + s.Type() + " at " + fmt.Sprint(s.StartPoint()) }
			if n.Type() != s.Type() || n.StartByte() != s.StartByte() || n.EndByte() != s.EndByte() ||
				n.StartPoint() != s.StartPoint() {
				t.Fatalf("%s: got %s %d-%d", where(), n.Type(), n.StartByte(), n.EndByte())
			}
			if n.IsNamed() != s.IsNamed() || n.IsMissing() != s.IsMissing() || n.HasError() != s.HasError() || n.IsError() != s.IsError() {
				t.Fatalf("%s: named/missing/error flags differ", where())
			}
			if n.Content(src) != s.Content(src) {
				t.Fatalf("%s: content differs", where())
			}
			if n.ChildCount() != s.ChildCount() || n.NamedChildCount() != s.NamedChildCount() {
				t.Fatalf("%s: %d/%d children, want %d/%d", where(), n.ChildCount(), n.NamedChildCount(), s.ChildCount(), s.NamedChildCount())
			}
			same := func(what string, got *Node, want *sitter.Node) {
				if (got == nil) != (want == nil) || got != nil && got != of(want) {
					t.Fatalf("%s: %s differs", where(), what)
				}
			}
			same("parent", n.Parent(), s.Parent())
			same("next named sibling", n.NextNamedSibling(), s.NextNamedSibling())
			same("previous named sibling", n.PrevNamedSibling(), s.PrevNamedSibling())
			same("next sibling", n.NextSibling(), s.NextSibling())
			same("previous sibling", n.PrevSibling(), s.PrevSibling())
			for _, f := range nm.fields[1:] {
				same("field "+f, n.ChildByFieldName(f), s.ChildByFieldName(f))
			}
			for i := 0; i < int(s.NamedChildCount()); i++ {
				same("named child", n.NamedChild(i), s.NamedChild(i))
			}
			for i := 0; i < int(s.ChildCount()); i++ {
				same("child", n.Child(i), s.Child(i))
			}
			// The smallest named node at the node's start, at its end, and
			// over its whole range.
			for _, r := range [][2]sitter.Point{{s.StartPoint(), s.StartPoint()}, {s.EndPoint(), s.EndPoint()}, {s.StartPoint(), s.EndPoint()}} {
				want := ts.RootNode().NamedDescendantForPointRange(r[0], r[1])
				got := tree.Root().NamedDescendantForByteRange(byteAt(src, r[0]), byteAt(src, r[1]))
				same("named descendant for "+fmt.Sprint(r), got, want)
			}
			checked++
			for i := 0; i < int(s.ChildCount()); i++ {
				visit(s.Child(i))
			}
		}
		visit(ts.RootNode())
		if tree.Len() == 0 || tree.Root() != of(ts.RootNode()) {
			t.Fatalf("%s: root", name)
		}
	}
	t.Logf("%d nodes checked", checked)
}

// byteAt is the offset of a row and byte column in src.
func byteAt(src []byte, p sitter.Point) uint32 {
	off := 0
	for row := uint32(0); row < p.Row; row++ {
		i := strings.IndexByte(string(src[off:]), '\n')
		off += i + 1
	}
	return uint32(off) + p.Column
}

// nodeOf maps the nodes of ts, from which tree was built, to tree's: the
// cursor walk reads them in the order of tree's array.
func nodeOf(ts *sitter.Tree, tree *Tree, nm *Language) func(*sitter.Node) *Node {
	byID := map[uintptr]*Node{}
	for i, r := range walkCursor(ts.RootNode(), nm) {
		byID[uintptr(r.id)] = &tree.nodes[i]
	}
	return func(n *sitter.Node) *Node {
		if n == nil {
			return nil
		}
		return byID[n.ID()]
	}
}

// TestReleasedRoomIsReusedWhole: a tree built in the room another tree
// released is the tree built in fresh room, node for node and child list
// for child list, whatever the first tree held; and the released tree
// cannot be read.
func TestReleasedRoomIsReusedWhole(t *testing.T) {
	nm := NewLanguage(python.GetLanguage())
	srcs := sources(t)
	names := make([]string, 0, len(srcs))
	for name := range srcs {
		names = append(names, name)
	}
	slices.Sort(names)
	var prev *Tree
	reused := 0
	for _, name := range names {
		ts := parseTS(t, srcs[name])
		fresh := New(ts, nm)
		var room *Node
		if prev != nil && cap(prev.nodes) >= fresh.Len() {
			room = &prev.nodes[:1][0]
		}
		prev.Release() // its room goes to the next New
		got := New(ts, nm)
		if room != nil && &got.nodes[0] == room {
			reused++
		}
		if got.Len() != fresh.Len() || len(got.kids) != len(fresh.kids) || len(got.named) != len(fresh.named) {
			t.Fatalf("%s: sizes differ", name)
		}
		for i := range fresh.nodes {
			g, w := got.nodes[i], fresh.nodes[i]
			g.t, w.t = nil, nil
			if g != w || got.keys[i] != fresh.keys[i] {
				t.Fatalf("%s: node %d: %+v, want %+v", name, i, g, w)
			}
		}
		for i := range fresh.kids {
			if got.kids[i].pos != fresh.kids[i].pos || got.kids[i].t != got {
				t.Fatalf("%s: child slot %d differs", name, i)
			}
		}
		for i := range fresh.named {
			if got.named[i].pos != fresh.named[i].pos || got.named[i].t != got {
				t.Fatalf("%s: named child slot %d differs", name, i)
			}
		}
		prev = got
	}
	if reused < 20 {
		t.Fatalf("the room was reused %d times", reused)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("a released tree was read")
			}
		}()
		prev.Release()
		prev.Root()
	}()
}
