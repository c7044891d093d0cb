package rewrite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loratune/loratune-fix/fixtures"
	"github.com/loratune/loratune-fix/syntree"
)

// commentedScript is the demo script with n top-level comments above it
// and n below, the shape that made the analysis quadratic.
func commentedScript(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "# note %d on the run\n", i)
	}
	b.Write(fixtures.Demo())
	for i := range n {
		fmt.Fprintf(&b, "# trailing note %d\n", i)
	}
	return b.Bytes()
}

// BenchmarkTopLevelComments is Fix on the demo script with 10,000
// top-level comments (5,000 above, 5,000 below; 0.3 MB). Read it against
// BenchmarkFixScripts: the ratio is the cost of the comments' bytes.
func BenchmarkTopLevelComments(b *testing.B) {
	e, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	src := commentedScript(5000)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := e.Fix(src, Versions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// The children the analysis visits grow with the file, not with its
// square: four times the comments, at most about four times the visits.
// (The quadratic walk visited the k-th child k times over.)
func TestChildVisitsGrowLinearly(t *testing.T) {
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	syntree.CountVisits(true)
	defer syntree.CountVisits(false)
	visits := func(n int) int64 {
		before := syntree.Visits()
		if _, err := e.Fix(commentedScript(n), Versions{}); err != nil {
			t.Fatal(err)
		}
		return syntree.Visits() - before
	}
	small, large := visits(2000), visits(8000)
	if small < 4000 {
		t.Fatalf("%d child visits for 4,000 comments: the walks do not go through Children or NamedChildren", small)
	}
	if ratio := float64(large) / float64(small); ratio > 4.2 {
		t.Errorf("child visits: %d for 4,000 comments, %d for 16,000: x%.1f, want at most x4.2", small, large, ratio)
	}
}

// No loop walks a go-tree-sitter node's children by index: NamedChild(i)
// and Child(i) start from the first child each time. Constant indexes
// (the first child) are fine. The launch-config and notebook readers use
// go-tree-sitter's nodes; the engine's Go tree (syntree) indexes children
// in constant time.
func TestNoIndexedChildWalks(t *testing.T) {
	indexed := regexp.MustCompile(`\.(NamedChild|Child)\(([^)]*)\)`)
	for _, dir := range []string{"../notebook", "../runner", "../launch"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, p := range files {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(string(b), "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "//") {
					continue
				}
				for _, m := range indexed.FindAllStringSubmatch(line, -1) {
					if !regexp.MustCompile(`^[0-9]+$`).MatchString(m[2]) {
						t.Errorf("%s:%d: %s by index: walk the children with namedChildren or children (treewalk)", p, i+1, m[0])
					}
				}
			}
		}
	}
}

// countedCtx is a context whose Err turns to DeadlineExceeded on its
// after-th call, and counts the calls.
type countedCtx struct {
	context.Context
	after int32
	calls atomic.Int32
}

func (c *countedCtx) Err() error {
	if c.calls.Add(1) >= c.after {
		return context.DeadlineExceeded
	}
	return nil
}

// The deadline bounds the whole analysis, not only the parse: it is
// looked at before every rule, and one passing while the rules run ends
// the file with ErrParseTimeout; a cancelled context (Ctrl-C) ends it
// with its own error.
func TestAnalysisStopsBetweenRules(t *testing.T) {
	e, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := &countedCtx{Context: context.Background(), after: 4} // the parse and two rules pass
	if _, err := e.CheckContext(ctx, fixtures.Demo(), Versions{}); !errors.Is(err, ErrParseTimeout) {
		t.Errorf("deadline passed during the rules: err %v, want ErrParseTimeout", err)
	}
	if n := ctx.calls.Load(); n != 4 {
		t.Errorf("the context was looked at %d times, want 4 (before the parse, then before each rule)", n)
	}
	fixCtx := &countedCtx{Context: context.Background(), after: 12} // well into the first pass's rules
	if _, err := e.FixContext(fixCtx, fixtures.Demo(), Versions{}); !errors.Is(err, ErrParseTimeout) {
		t.Errorf("Fix: err %v, want ErrParseTimeout", err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.FixContext(cancelled, fixtures.Demo(), Versions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err %v, want context.Canceled", err)
	}
	// ParseTimeout is that deadline: an expired one stops the file too.
	short, err := New(Options{ParseTimeout: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := short.Fix(fixtures.Demo(), Versions{}); !errors.Is(err, ErrParseTimeout) {
		t.Errorf("ParseTimeout of 1ns: err %v, want ErrParseTimeout", err)
	}
}
