package semantic

import (
	"fmt"
	"io/fs"
	"sync"

	"github.com/loratune/loratune-fix/queries"
	"github.com/loratune/loratune-fix/syntree"
)

// Queries holds the embedded queries, compiled once per process into one
// query, so that one pass over the tree serves them all. Each pattern
// keeps the name of the file it came from. A compiled query is read-only
// and shared by every worker. The matching runs in Go, on the tree's Go
// copy (package syntree).
type Queries struct {
	all     *syntree.Query
	file    []int          // pattern index -> index in queryFiles
	capture map[string]int // capture name -> id
}

// queryFiles are compiled in this order; BuildFacts reads them by name.
var queryFiles = []string{"functions.scm", "imports.scm", "calls.scm", "assignments.scm"}

var (
	compileOnce sync.Once
	compiledQ   *Queries
	compileErr  error
)

func LoadQueries() (*Queries, error) {
	compileOnce.Do(func() {
		c := &Queries{}
		var all []byte
		for i, name := range queryFiles {
			text, err := fs.ReadFile(queries.FS, name)
			if err != nil {
				compileErr = err
				return
			}
			// Compiled alone first: an error names its file, and the
			// pattern count maps the patterns back to it.
			q, err := syntree.NewQuery(string(text))
			if err != nil {
				compileErr = fmt.Errorf("queries/%s: %w", name, err)
				return
			}
			for k := 0; k < q.PatternCount(); k++ {
				c.file = append(c.file, i)
			}
			all = append(append(all, text...), '\n')
		}
		if c.all, compileErr = syntree.NewQuery(string(all)); compileErr != nil {
			return
		}
		c.capture = map[string]int{}
		for id := 0; id < c.all.CaptureCount(); id++ {
			c.capture[c.all.CaptureName(id)] = id
		}
		compiledQ = c
	})
	return compiledQ, compileErr
}
