// Package layers holds the test that keeps the import graph pointing one
// way (docs/architecture.md): the value types and the formats build
// without the engine, its cgo parser or the runner.
package layers

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

const module = "github.com/loratune/loratune-fix/"

// mayImport lists, for each package, the packages of this module its
// (non-test) dependencies may include, directly or not.
var mayImport = map[string][]string{
	"version":    {},
	"finding":    {"version"},
	"udiff":      {},
	"queries":    {},
	"treewalk":   {},
	"syntree":    {},
	"notebook":   {"finding", "version"},
	"pins":       {"version"},
	"signatures": {"version"},
	"semantic":   {"finding", "version", "queries", "syntree"},
	"pyedit":     {"finding", "version", "queries", "syntree", "semantic"},
	"config":     {"version"},
	"report":     {"finding", "version"},
	"review":     {"finding", "version", "report", "udiff", "gitcmd", "githubapi"},
	"githubapi":  {},
	"gitcmd":     {},
	"rewrite":    {"finding", "version", "queries", "syntree", "treewalk", "signatures", "semantic", "pyedit"},
	"launch":     {"finding", "version", "queries", "treewalk", "syntree", "signatures", "semantic", "pyedit", "rewrite"},
	"runner":     {"finding", "version", "queries", "treewalk", "syntree", "signatures", "semantic", "pyedit", "rewrite", "launch", "notebook", "pins", "config"},
	// The language server sits where the runner does: it runs the runner
	// per document, and the command hands it the configuration.
	"lsp": {"finding", "version", "queries", "treewalk", "syntree", "signatures", "semantic", "pyedit", "rewrite", "launch", "notebook", "pins", "config", "report", "runner"},

	// The tests' check of requests against GitHub's OpenAPI description.
	"githubapi/githubtest": {},
}

// withoutEngine lists the packages whose dependencies must not include the
// cgo parser, whatever the path.
var withoutEngine = []string{"version", "finding", "udiff", "notebook", "pins", "signatures", "config", "report", "review", "gitcmd", "githubapi"}

const parser = "github.com/smacker/go-tree-sitter"

// watchSources stats every Go file of the module: go test caches a result
// by the files the test itself touched, and go list's reads are not
// among them.
var watchSources = sync.OnceFunc(func() {
	filepath.WalkDir("../..", func(path string, d os.DirEntry, err error) error {
		if err == nil && (strings.HasSuffix(path, ".go") || d.Name() == "go.mod") {
			os.Stat(path)
		}
		return nil
	})
})

func deps(t *testing.T, pkg string) []string {
	t.Helper()
	watchSources()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", module+pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", pkg, err, out)
	}
	return strings.Fields(string(out))
}

func TestImportsPointDown(t *testing.T) {
	for pkg, allowed := range mayImport {
		for _, d := range deps(t, pkg) {
			rel, ours := strings.CutPrefix(d, module)
			if ours && rel != pkg && !slices.Contains(allowed, rel) {
				t.Errorf("%s depends on %s (docs/architecture.md says what each package may import)", pkg, rel)
			}
		}
	}
	for _, pkg := range withoutEngine {
		for _, d := range deps(t, pkg) {
			if d == parser || strings.HasPrefix(d, parser+"/") {
				t.Errorf("%s depends on the cgo parser %s", pkg, d)
			}
		}
	}
	// The shipped binary does not carry the test fixtures or test helpers.
	for _, d := range deps(t, "cmd/loratune-fix") {
		if d == module+"fixtures" || d == module+"githubapi/githubtest" {
			t.Errorf("the command imports %s", d)
		}
	}
}

// TestTheCheckSeesTheEngine guards the test itself: the command does
// depend on the engine and its parser, so a go list that printed nothing
// would not pass for a clean graph.
func TestTheCheckSeesTheEngine(t *testing.T) {
	all := strings.Join(deps(t, "cmd/loratune-fix"), "\n")
	for _, want := range []string{module + "rewrite", module + "runner", parser} {
		if !strings.Contains(all, want) {
			t.Errorf("go list -deps of the command lacks %s", want)
		}
	}
}

// TestNoPackageHoldsTheHouse keeps the engine's weight where the map puts
// it: no package holds more than a third of the module's non-test Go
// lines (the rules in rewrite, the file model in semantic, the edits in
// pyedit).
func TestNoPackageHoldsTheHouse(t *testing.T) {
	lines := map[string]int{}
	total := 0
	filepath.WalkDir("../..", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n := strings.Count(string(text), "\n")
		lines[filepath.Dir(path)] += n
		total += n
		return nil
	})
	if lines["../../rewrite"] == 0 || lines["../../semantic"] == 0 {
		t.Fatalf("counted no lines in rewrite or semantic: %v", lines)
	}
	for dir, n := range lines {
		if 3*n > total {
			t.Errorf("%s holds %d of %d non-test Go lines (more than a third): split it along docs/architecture.md", strings.TrimPrefix(dir, "../../"), n, total)
		}
	}
}
