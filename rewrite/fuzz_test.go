package rewrite_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/python"

	"github.com/loratune/loratune-fix/rewrite"
	"github.com/loratune/loratune-fix/syntree"
	"github.com/loratune/loratune-fix/version"
)

// hangBound only catches hangs: a fuzz input is a few KB, and its parse is
// bounded by the engine's ParseTimeout (fuzzParseTimeout) per pass.
const (
	fuzzParseTimeout = 5 * time.Second
	hangBound        = 2 * time.Minute
)

// fuzzEngines are the rule sets a fuzz input runs under, picked by the mode
// byte: bit 0 the lean profile, bit 1 unsafe fixes, bit 2 every rule, bit 3
// old pinned versions (transformers 4.40, peft 0.10, torch 2.1).
var fuzzEngines [16]*rewrite.Engine

func engineFor(t testing.TB, mode uint8) *rewrite.Engine {
	mode &= 15
	if fuzzEngines[mode] != nil {
		return fuzzEngines[mode]
	}
	opts := rewrite.Options{ParseTimeout: fuzzParseTimeout}
	if mode&1 != 0 {
		opts.Profile = rewrite.ProfileLean
	}
	opts.UnsafeFixes = mode&2 != 0
	if mode&4 != 0 {
		opts.Select = []string{"ALL"}
	}
	if mode&8 != 0 {
		for lib, ver := range map[string]string{"transformers": "4.40", "peft": "0.10", "torch": "2.1"} {
			v, err := version.Parse(ver)
			if err != nil {
				t.Fatal(err)
			}
			if err := opts.Target.Set(lib, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	eng, err := rewrite.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	fuzzEngines[mode] = eng
	return eng
}

// fixtureFiles are every file under fixtures/: inputs, goldens, findings
// and options alike (all of them are interesting bytes).
func fixtureFiles(t testing.TB) map[string][]byte {
	out := map[string][]byte{}
	err := filepath.WalkDir("../fixtures", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && filepath.Ext(path) != ".go" {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out[path] = data
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no fixtures found under ../fixtures")
	}
	return out
}

// FuzzFix runs Engine.Fix over mutated fixtures and checks the promises a
// bulk run relies on: no panic, no hang, parsing input gives parsing
// output, a second run changes nothing, bytes outside the reported edits
// stay, and findings point inside the file.
func FuzzFix(f *testing.F) {
	files := fixtureFiles(f)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, mode := range []uint8{0, 1, 2, 4, 8} {
			f.Add(files[n], mode)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		checkFix(t, engineFor(t, mode), data)
	})
}

// fixWithin runs Fix in a goroutine and fails the test if it has not
// returned after hangBound.
func fixWithin(t *testing.T, eng *rewrite.Engine, data []byte) (*rewrite.Result, error) {
	type outcome struct {
		res *rewrite.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := eng.Fix(data, version.Versions{})
		done <- outcome{res, err}
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-time.After(hangBound):
		t.Fatalf("Fix did not return within %v on %d bytes", hangBound, len(data))
		return nil, nil
	}
}

var bom = []byte("\xef\xbb\xbf")

// reserved are Python's reserved words.
var reserved = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true, "async": true,
	"await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true,
	"else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true,
	"import": true, "in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true,
	"pass": true, "raise": true, "return": true, "try": true, "while": true, "with": true, "yield": true,
}

// namesAKeyword reports an identifier spelled as a reserved word, which
// tree-sitter's grammar accepts where it is unambiguous (else = 1).
func namesAKeyword(text []byte) bool {
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(python.GetLanguage())
	tree, err := p.ParseCtx(context.Background(), nil, text)
	if err != nil {
		return false
	}
	defer tree.Close()
	found := false
	var walk func(n *syntree.Node)
	walk = func(n *syntree.Node) {
		if n.Type() == "identifier" && reserved[n.Content(text)] {
			found = true
		}
		for i := 0; i < int(n.NamedChildCount()) && !found; i++ {
			walk(n.NamedChild(i))
		}
	}
	walk(syntree.New(tree, syntree.NewLanguage(python.GetLanguage())).Root())
	return found
}

func checkFix(t *testing.T, eng *rewrite.Engine, data []byte) {
	body := bytes.TrimPrefix(data, bom)
	parses := bytes.IndexByte(data, 0) < 0 && utf8.Valid(body) && rewrite.Parses(body) == nil

	res, err := fixWithin(t, eng, data)
	if err != nil {
		if parses && !errors.Is(err, rewrite.ErrParseTimeout) && !errors.Is(err, rewrite.ErrTooDeep) {
			t.Fatalf("input parses but Fix failed: %v", err)
		}
		return
	}
	if !parses {
		t.Fatalf("input does not parse but Fix succeeded")
	}
	out := res.Output
	if res.Changed != !bytes.Equal(out, data) {
		t.Fatalf("Changed=%v but output equal to input is %v", res.Changed, bytes.Equal(out, data))
	}
	if bytes.HasPrefix(data, bom) != bytes.HasPrefix(out, bom) {
		t.Fatalf("byte order mark not kept")
	}
	outBody := bytes.TrimPrefix(out, bom)
	if err := rewrite.Parses(outBody); err != nil {
		t.Fatalf("input parses, output does not: %v\n--- output ---\n%s", err, out)
	}
	checkFindingsInside(t, body, res.Findings)

	// Idempotence: the fixed file is a fixed point. Claimed for Python
	// only: a name spelled as a reserved word (else%f()) parses for
	// tree-sitter but not for CPython, and a block inserted before it
	// turns it into an else clause, which no longer parses.
	if namesAKeyword(body) {
		return
	}
	again, err := fixWithin(t, eng, out)
	if err != nil {
		t.Fatalf("second Fix failed: %v", err)
	}
	if !bytes.Equal(again.Output, out) {
		t.Fatalf("fix(fix(x)) != fix(x)\n--- fix(x) ---\n%s\n--- fix(fix(x)) ---\n%s", out, again.Output)
	}

	// Only the reported edits changed bytes. With one pass the output is
	// the input with some of the first pass's edits applied; later passes
	// may edit places the first pass's findings did not name.
	if res.Passes <= 1 {
		checkOnlyEditsChanged(t, body, outBody, res.Findings)
	}
}

// checkFindingsInside checks offsets, positions and edits against the text.
func checkFindingsInside(t *testing.T, text []byte, findings []rewrite.Finding) {
	lines := bytes.Split(text, []byte("\n"))
	posOK := func(p rewrite.Position) bool {
		if p.Line < 1 || p.Line > len(lines) {
			return false
		}
		return p.Column >= 1 && p.Column <= utf8.RuneCount(lines[p.Line-1])+1
	}
	for _, fd := range findings {
		if fd.Start < 0 || fd.Start > fd.End || fd.End > len(text) {
			t.Fatalf("%s: offsets %d..%d outside a %d-byte file", fd.Code, fd.Start, fd.End, len(text))
		}
		if !posOK(fd.StartPos) || !posOK(fd.EndPos) {
			t.Fatalf("%s: position %v..%v outside the file (%d lines)", fd.Code, fd.StartPos, fd.EndPos, len(lines))
		}
		if fd.EndPos.Line < fd.StartPos.Line || fd.EndPos.Line == fd.StartPos.Line && fd.EndPos.Column < fd.StartPos.Column {
			t.Fatalf("%s: range ends before it begins: %v..%v", fd.Code, fd.StartPos, fd.EndPos)
		}
		if fd.Fix == nil {
			continue
		}
		for _, e := range fd.Fix.Edits {
			if e.Start < 0 || e.Start > e.End || e.End > len(text) {
				t.Fatalf("%s: edit %d..%d outside a %d-byte file", fd.Code, e.Start, e.End, len(text))
			}
			if !utf8.ValidString(e.NewText) {
				t.Fatalf("%s: edit inserts invalid UTF-8 %q", fd.Code, e.NewText)
			}
		}
	}
}

// checkOnlyEditsChanged splits text at every edit of every finding; the
// pieces between edits must all appear in out, in order, with the first
// piece a prefix and the last a suffix.
func checkOnlyEditsChanged(t *testing.T, text, out []byte, findings []rewrite.Finding) {
	type span struct{ lo, hi int }
	var spans []span
	for _, fd := range findings {
		if fd.Fix == nil {
			continue
		}
		for _, e := range fd.Fix.Edits {
			spans = append(spans, span{e.Start, e.End})
		}
	}
	if len(spans) == 0 {
		if !bytes.Equal(text, out) {
			t.Fatalf("output changed without any fix reported")
		}
		return
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
	var pieces [][]byte
	last := 0
	for _, s := range spans {
		if s.lo > last {
			pieces = append(pieces, text[last:s.lo])
		} else if s.lo < last {
			// overlapping edits of different findings: one was left for a
			// later pass; the bytes up to the furthest end may change.
		} else {
			pieces = append(pieces, nil)
		}
		last = max(last, s.hi)
	}
	pieces = append(pieces, text[last:])
	first, rest := pieces[0], pieces[len(pieces)-1]
	if !bytes.HasPrefix(out, first) {
		t.Fatalf("bytes before the first edit (offset %d) changed", len(first))
	}
	if !bytes.HasSuffix(out[len(first):], rest) {
		t.Fatalf("bytes after the last edit (offset %d) changed", last)
	}
	mid := out[len(first) : len(out)-len(rest)]
	for _, p := range pieces[1 : len(pieces)-1] {
		i := bytes.Index(mid, p)
		if i < 0 {
			t.Fatalf("unedited bytes %q vanished from the output", p)
		}
		mid = mid[i+len(p):]
	}
}
