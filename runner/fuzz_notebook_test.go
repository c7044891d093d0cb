package runner_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/rewrite"
	"github.com/loratune/loratune-fix/runner"
)

// FuzzNotebook runs the notebook path (runner.Process on a .ipynb) over
// mutated fixtures: no panic, no hang; a fixed notebook is valid JSON that
// differs from the input only in code cells' sources, a code cell that
// parsed still parses, a second run changes nothing, and findings point
// inside their cell.
func FuzzNotebook(f *testing.F) {
	var names []string
	err := filepath.WalkDir("../fixtures", func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && filepath.Ext(path) != ".go" {
			names = append(names, path)
		}
		return err
	})
	if err != nil || len(names) == 0 {
		f.Fatalf("no fixtures under ../fixtures: %v", err)
	}
	sort.Strings(names)
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	eng, err := rewrite.New(rewrite.Options{ParseTimeout: 5 * time.Second})
	if err != nil {
		f.Fatal(err)
	}
	opts := &runner.Options{Engine: eng, Fix: true}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkNotebook(t, opts, data)
	})
}

// processWithin fails the test if Process has not returned after a bound
// that only catches hangs.
func processWithin(t *testing.T, opts *runner.Options, data []byte) *finding.FileResult {
	done := make(chan *finding.FileResult, 1)
	go func() { done <- runner.Process(opts, "fuzz.ipynb", data) }()
	select {
	case f := <-done:
		return f
	case <-time.After(2 * time.Minute):
		t.Fatalf("Process did not return within 2 minutes on %d bytes", len(data))
		return nil
	}
}

// cellSources are the notebook's cells as (type, source) with the source
// joined; ok is false when data is not a notebook this test can read.
func cellSources(data []byte) (types, sources []string, ok bool) {
	// Maps, not structs: encoding/json matches struct fields without
	// regard to case, and "sourCe" is not the source.
	var nb map[string]json.RawMessage
	var cells []map[string]json.RawMessage
	if json.Unmarshal(data, &nb) != nil || json.Unmarshal(nb["cells"], &cells) != nil {
		return nil, nil, false
	}
	for _, c := range cells {
		var typ, s string
		json.Unmarshal(c["cell_type"], &typ)
		if json.Unmarshal(c["source"], &s) != nil {
			var parts []string
			if json.Unmarshal(c["source"], &parts) != nil {
				return nil, nil, false
			}
			s = strings.Join(parts, "")
		}
		types = append(types, typ)
		sources = append(sources, s)
	}
	return types, sources, true
}

// withoutCodeSources decodes a notebook with every code cell's source
// removed: what must not change.
func withoutCodeSources(t *testing.T, data []byte) any {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if m, ok := v.(map[string]any); ok {
		if cells, ok := m["cells"].([]any); ok {
			for _, c := range cells {
				if cm, ok := c.(map[string]any); ok && cm["cell_type"] == "code" {
					delete(cm, "source")
				}
			}
		}
	}
	return v
}

func checkNotebook(t *testing.T, opts *runner.Options, data []byte) {
	f := processWithin(t, opts, data)
	if f.Err != nil || !f.Changed {
		if f.Err == nil && !bytes.Equal(f.After, data) {
			t.Fatalf("not Changed, but the output differs from the input")
		}
		return
	}
	if !json.Valid(f.After) {
		t.Fatalf("fixed notebook is not valid JSON:\n%s", f.After)
	}
	if !reflect.DeepEqual(withoutCodeSources(t, data), withoutCodeSources(t, f.After)) {
		t.Fatalf("the fix changed more than code cells' sources:\n--- in ---\n%s\n--- out ---\n%s", data, f.After)
	}
	types, before, okBefore := cellSources(data)
	_, after, okAfter := cellSources(f.After)
	if okBefore && okAfter {
		if len(before) != len(after) {
			t.Fatalf("%d cells became %d", len(before), len(after))
		}
		for i := range before {
			// A cell ending in a line-continuation backslash is not Python
			// on its own (CPython: unexpected EOF), though tree-sitter
			// accepts it alone; it is no promise to keep.
			continued := strings.HasSuffix(strings.TrimRight(before[i], "\r\n"), "\\")
			if types[i] == "code" && before[i] != after[i] && !continued && rewrite.Parses([]byte(before[i])) == nil {
				if err := rewrite.Parses([]byte(after[i])); err != nil {
					t.Fatalf("cell %d parsed before the fix and not after: %v\n%s", i+1, err, after[i])
				}
			}
		}
		for _, d := range f.Diags {
			if d.Cell < 1 || d.Cell > len(before) {
				t.Fatalf("%s in cell %d of %d", d.Code, d.Cell, len(before))
			}
			lines := strings.Split(before[d.Cell-1], "\n")
			for _, p := range []finding.Position{d.StartPos, d.EndPos} {
				if p.Line < 1 || p.Line > len(lines) || p.Column < 1 || p.Column > utf8.RuneCountInString(lines[p.Line-1])+1 {
					t.Fatalf("%s at %d:%d outside cell %d (%d lines)", d.Code, p.Line, p.Column, d.Cell, len(lines))
				}
			}
		}
	}
	again := processWithin(t, opts, f.After)
	if again.Err != nil || again.Changed {
		t.Fatalf("second run: err %v, changed %v\n--- fix(x) ---\n%s\n--- fix(fix(x)) ---\n%s", again.Err, again.Changed, f.After, again.After)
	}
}
