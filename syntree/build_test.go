package syntree

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
		fast := walkC(ts.RootNode(), &buffer{})
		if fast == nil {
			t.Fatalf("%s: the C walk refused the tree (go-tree-sitter's Node layout changed?)", name)
		}
		slow := walkCursor(ts.RootNode(), nm)
		if len(fast) != len(slow) {
			t.Fatalf("%s: %d nodes, cursor %d", name, len(fast), len(slow))
		}
		for i := range fast {
			if fast[i] != slow[i] {
				t.Fatalf("%s: node %d: %+v, cursor %+v", name, i, fast[i], slow[i])
			}
		}
	}
}

// TestNodesMatchAPI: every method of Node answers as go-tree-sitter's
// does, on every node of every source.
func TestNodesMatchAPI(t *testing.T) {
	lang := python.GetLanguage()
	nm := NewLanguage(lang)
	checked := 0
	for name, src := range sources(t) {
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
