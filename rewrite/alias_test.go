package rewrite

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

// aliasImports renames every name the file imports to a local alias of the
// same length ("torch" -> "Qorch" through `import torch as Qorch`, and
// every use of it), so that only the import tells what a name stands for.
// ok is false when nothing was renamed.
func aliasImports(text []byte) (out []byte, ok bool) {
	tree, err := parse(text, 0)
	if err != nil {
		return nil, false
	}
	defer tree.Close()
	root := goTree(tree).Root()
	type edit struct {
		start, end uint32
		text       string
	}
	var edits []edit
	renamed := map[string]string{}
	bind := func(local *syntree.Node, insertAfter *syntree.Node) {
		l := local.Content(text)
		if len(l) < 2 || l[0] == 'Q' || strings.Contains(l, ".") {
			return
		}
		n := "Q" + l[1:]
		if strings.Contains(string(text), n) {
			return
		}
		if prev, seen := renamed[l]; seen && prev != n {
			return
		}
		renamed[l] = n
		if insertAfter != nil {
			edits = append(edits, edit{insertAfter.EndByte(), insertAfter.EndByte(), " as " + n})
		} else {
			edits = append(edits, edit{local.StartByte(), local.EndByte(), n})
		}
	}
	inImport := map[*syntree.Node]bool{}
	semantic.WalkNodes(root, func(n *syntree.Node) bool {
		switch n.Type() {
		case "import_statement", "import_from_statement", "future_import_statement":
			inImport[n] = true
			if n.Type() == "future_import_statement" {
				return false
			}
			module := n.ChildByFieldName("module_name")
			for _, c := range n.NamedChildren() {
				if module != nil && c.Equal(module) {
					continue
				}
				switch c.Type() {
				case "dotted_name":
					if c.NamedChildCount() == 1 {
						bind(c, c)
					}
				case "aliased_import":
					if a := c.ChildByFieldName("alias"); a != nil {
						bind(a, nil)
					}
				}
			}
			return false
		}
		return true
	})
	if len(renamed) == 0 {
		return nil, false
	}
	semantic.WalkNodes(root, func(n *syntree.Node) bool {
		if inImport[n] {
			return false
		}
		if n.Type() != "identifier" {
			return true
		}
		to, ok := renamed[n.Content(text)]
		if !ok {
			return true
		}
		if p := n.Parent(); p != nil {
			if a := p.ChildByFieldName("attribute"); p.Type() == "attribute" && a != nil && a.Equal(n) {
				return true
			}
			if k := p.ChildByFieldName("name"); p.Type() == "keyword_argument" && k != nil && k.Equal(n) {
				return true
			}
		}
		edits = append(edits, edit{n.StartByte(), n.EndByte(), to})
		return true
	})
	slices.SortFunc(edits, func(a, b edit) int { return int(a.start) - int(b.start) })
	var b strings.Builder
	last := uint32(0)
	for _, e := range edits {
		b.Write(text[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	b.Write(text[last:])
	return []byte(b.String()), true
}

// What a user reads of a finding, less its message and columns (which
// quote and count the names as written).
func findingShape(f Finding) string {
	fix := "-"
	if f.Fix != nil {
		fix = string(f.Fix.Applicability)
	}
	return fmt.Sprintf("%d %s %s fix=%s %s", f.StartPos.Line, f.Code, f.Severity, fix, f.Outcome)
}

// No rule reads a callee's name as written where an import can rename it:
// every fixture, with every imported name renamed to an alias, gets the
// findings it gets as written (line, code, severity, fix and outcome).
func TestFindingsSurviveImportAliases(t *testing.T) {
	inputs, _ := filepath.Glob("../fixtures/*/*.py")
	more, _ := filepath.Glob("../fixtures/*/*/*.py")
	inputs = append(inputs, more...)
	if len(inputs) < 100 {
		t.Fatalf("only %d fixture inputs", len(inputs))
	}
	eng, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, in := range inputs {
		text, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		aliased, ok := aliasImports(text)
		if !ok || Parses(aliased) != nil {
			continue
		}
		want, err1 := eng.Check(text, Versions{})
		got, err2 := eng.Check(aliased, Versions{})
		if err1 != nil || err2 != nil {
			if (err1 == nil) != (err2 == nil) {
				t.Errorf("%s: error %v as written, %v aliased", in, err1, err2)
			}
			continue
		}
		compared++
		var w, g []string
		// LTF103 renames a removed name as written: whether a use of the
		// name outlives the rename rightly depends on an alias.
		for _, f := range want.Findings {
			if f.Code != "LTF103" {
				w = append(w, findingShape(f))
			}
		}
		for _, f := range got.Findings {
			if f.Code != "LTF103" {
				g = append(g, findingShape(f))
			}
		}
		if !slices.Equal(w, g) {
			t.Errorf("%s: findings change when its imports are aliased\nas written:\n  %s\naliased:\n  %s\naliased text:\n%s",
				in, strings.Join(w, "\n  "), strings.Join(g, "\n  "), aliased)
		}
	}
	if compared < 100 {
		t.Errorf("only %d fixtures compared", compared)
	}
}
