package rewrite

import (
	"strings"
	"testing"
	"unicode"

	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

// DottedName's plain-bytes path names every node of the fixtures as the
// walk down the chain does.
func TestDottedNameFastPathEqualsWalk(t *testing.T) {
	var walk func(n *syntree.Node, text []byte) string
	walk = func(n *syntree.Node, text []byte) string {
		switch n.Type() {
		case "identifier":
			return n.Content(text)
		case "attribute":
			obj, attr := n.ChildByFieldName("object"), n.ChildByFieldName("attribute")
			if obj == nil || attr == nil {
				return ""
			}
			prefix := walk(obj, text)
			if prefix == "" {
				prefix = "?"
			}
			return prefix + "." + attr.Content(text)
		}
		return ""
	}
	extra := []byte("None.x()\nTrue.real\na . b . c()\nf().g.h()\nx[0].y.z\nmodel.\\\n    to()\n1.5.real\né.x()\n")
	texts := fixtureTexts(t, extra)
	n := 0
	for _, text := range texts {
		tree, err := parse(text, 0)
		if err != nil {
			t.Fatal(err)
		}
		var visit func(node *syntree.Node)
		visit = func(node *syntree.Node) {
			if got, want := semantic.DottedName(node, text), walk(node, text); got != want {
				t.Errorf("%q: dottedName %q, walk %q", node.Content(text), got, want)
			}
			n++
			for i := 0; i < int(node.NamedChildCount()); i++ {
				visit(node.NamedChild(i))
			}
		}
		visit(goTree(tree).Root())
		tree.Close()
	}
	t.Logf("%d nodes", n)
}

// StringValue reads plain literals only: an f-string model id or dtype is
// computed at run time, so reading its text as the value would let a rule
// act on a model or dtype the script may not use.
func TestStringValueRefusesFStrings(t *testing.T) {
	for _, c := range []struct {
		expr, want string
		ok         bool
	}{
		{`"meta-llama/Llama-3.1-8B"`, "meta-llama/Llama-3.1-8B", true},
		{`'bfloat16'`, "bfloat16", true},
		{`r"o_proj"`, "o_proj", true},
		{`"""auto"""`, "auto", true},
		{`f"meta-llama/Llama-3.1-{size}"`, "", false},
		{`f"meta-llama/Llama-3.1-8B"`, "", false},
		{`F'bfloat16'`, "", false},
		{`rf"{base}/Llama-3.1-8B"`, "", false},
		{`Fr"{dtype}"`, "", false},
		{`b"bfloat16"`, "", false},
		{`"meta-llama/" "Llama-3.1-8B"`, "", false},
	} {
		text := []byte("x = " + c.expr + "\n")
		tree, err := parse(text, 0)
		if err != nil {
			t.Fatal(err)
		}
		value := goTree(tree).Root().NamedChild(0).NamedChild(0).ChildByFieldName("right")
		got, ok := semantic.StringValue(value, text)
		if got != c.want || ok != c.ok {
			t.Errorf("StringValue(%s) = %q, %v; want %q, %v", c.expr, got, ok, c.want, c.ok)
		}
		tree.Close()
	}
}

// HasSpace, which tells ASCII bytes without decoding, answers what
// unicode.IsSpace over every rune answers, for the text of every node of
// every fixture and for spaces past ASCII and broken UTF-8.
func TestHasSpaceEqualsIsSpace(t *testing.T) {
	texts := []string{"", " ", "a", "a b", "a\tb", "a\vb", "a\fb", "a\rb", "a\nb", "a\u0085b", "a\u00a0b", "é\u2028", "é", "\xff", "\xff ", "x\xc2", "model.config"}
	texts = append(texts, fixtureNodeTexts(t)...)
	spaced := 0
	for _, s := range texts {
		want := strings.IndexFunc(s, unicode.IsSpace) >= 0
		if got := semantic.HasSpace(s); got != want {
			t.Errorf("%.40q: hasSpace %v, unicode.IsSpace %v", s, got, want)
		}
		if want {
			spaced++
		}
	}
	if spaced < 100 {
		t.Fatalf("only %d texts with a space", spaced)
	}
}

// A call's Qual is its callee resolved once the imports are all read, so
// rules read it instead of resolving again: on every fixture it is what
// Resolve gives after BuildFacts.
func TestQualIsResolved(t *testing.T) {
	calls, aliased := 0, 0
	for _, text := range fixtureTexts(t, []byte("c = th.compile(m)\nimport torch as th\n")) {
		f := fileOf(t, string(text))
		for _, c := range f.Calls {
			calls++
			if want := f.Resolve(c.Dotted); c.Qual != want {
				t.Errorf("%s: Qual %q, Resolve %q", c.Dotted, c.Qual, want)
			}
			if c.Qual != c.Dotted {
				aliased++
			}
		}
	}
	if calls < 1000 || aliased < 100 {
		t.Fatalf("only %d calls, %d resolved to another name", calls, aliased)
	}
}

// PlainDotted, one pass over the bytes, judges every node text of every
// fixture and the edge cases as a split at the dots does.
func TestPlainDottedEqualsSplit(t *testing.T) {
	split := func(s string) bool {
		for _, part := range strings.Split(s, ".") {
			if part == "" || '0' <= part[0] && part[0] <= '9' || part == "None" || part == "True" || part == "False" {
				return false
			}
			for i := 0; i < len(part); i++ {
				if !semantic.IsWordByte(part[i]) {
					return false
				}
			}
		}
		return true
	}
	texts := []string{"", ".", "a.", ".a", "a..b", "None", "None.x", "x.None", "Nonex.y", "1a", "a.1", "é", "a_b.c2", "True", "x.False.y", "a b", "a.b.c"}
	texts = append(texts, fixtureNodeTexts(t)...)
	plain := 0
	for _, s := range texts {
		want := split(s)
		if got := semantic.PlainDotted([]byte(s)); got != want {
			t.Errorf("%.40q: plainDotted %v, split %v", s, got, want)
		}
		if want {
			plain++
		}
	}
	if plain < 1000 {
		t.Fatalf("only %d plain names", plain)
	}
}
