package syntree

import (
	"io/fs"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/python"

	"github.com/loratune/loratune-fix/queries"
)

// engineQueries is the text of every query file of the engine.
func engineQueries(t *testing.T) string {
	t.Helper()
	var all strings.Builder
	files, err := fs.Glob(queries.FS, "*.scm")
	if err != nil || len(files) == 0 {
		t.Fatalf("no queries: %v", err)
	}
	for _, f := range files {
		b, err := fs.ReadFile(queries.FS, f)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
		all.WriteByte('\n')
	}
	return all.String()
}

// TestMatchesAsTreeSitter: the engine's queries give, on every source, the
// matches tree-sitter's query cursor gives, in its order.
func TestMatchesAsTreeSitter(t *testing.T) {
	text := engineQueries(t)
	lang := python.GetLanguage()
	nm := NewLanguage(lang)
	ref, err := sitter.NewQuery([]byte(text), lang)
	if err != nil {
		t.Fatal(err)
	}
	q, err := NewQuery(text)
	if err != nil {
		t.Fatal(err)
	}
	if q.PatternCount() != int(ref.PatternCount()) || q.CaptureCount() != int(ref.CaptureCount()) {
		t.Fatalf("%d patterns and %d captures, tree-sitter %d and %d", q.PatternCount(), q.CaptureCount(), ref.PatternCount(), ref.CaptureCount())
	}
	for id := 0; id < q.CaptureCount(); id++ {
		if q.CaptureName(id) != ref.CaptureNameForId(uint32(id)) {
			t.Fatalf("capture %d is %s, tree-sitter %s", id, q.CaptureName(id), ref.CaptureNameForId(uint32(id)))
		}
	}
	total := 0
	for name, src := range sources(t) {
		ts := parseTS(t, src)
		tree := New(ts, nm)
		of := nodeOf(ts, tree, nm)
		var want []Match
		qc := sitter.NewQueryCursor()
		qc.Exec(ref, ts.RootNode())
		for {
			m, ok := qc.NextMatch()
			if !ok {
				break
			}
			caps := make([]*Node, ref.CaptureCount())
			for _, c := range m.Captures {
				caps[c.Index] = of(c.Node)
			}
			want = append(want, Match{int(m.PatternIndex), caps})
		}
		qc.Close()
		got := q.Matches(tree)
		if len(got) != len(want) {
			t.Fatalf("%s: %d matches, tree-sitter %d", name, len(got), len(want))
		}
		for i := range got {
			if got[i].Pattern != want[i].Pattern {
				t.Fatalf("%s: match %d is of pattern %d, tree-sitter %d", name, i, got[i].Pattern, want[i].Pattern)
			}
			for id := range got[i].Captures {
				if got[i].Captures[id] != want[i].Captures[id] {
					t.Fatalf("%s: match %d (pattern %d) binds @%s differently", name, i, got[i].Pattern, q.CaptureName(id))
				}
			}
		}
		total += len(got)
	}
	if total < 1000 {
		t.Fatalf("only %d matches over the sources", total)
	}
}

// TestQueryRefusesUnsupported: syntax the matcher does not read is an
// error, not a pattern that silently matches something else.
func TestQueryRefusesUnsupported(t *testing.T) {
	for _, text := range []string{
		`((identifier) @x (#eq? @x "torch"))`,
		`(call (argument_list)*)`,
		`(block . (expression_statement))`,
		`(call "(")`,
		`(call`,
		`[(identifier)`,
	} {
		if _, err := NewQuery(text); err == nil {
			t.Errorf("%s: compiled", text)
		}
	}
}
