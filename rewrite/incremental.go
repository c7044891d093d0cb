package rewrite

import (
	"bytes"
	"context"
	"time"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/loratune/loratune-fix/finding"
)

// Incremental keeps one document's parse from one analysis to the next (a
// language server's open buffer): the next analysis tells the kept tree
// what changed, the bytes between the common prefix and suffix of the two
// texts, and tree-sitter re-parses only that, as the fix loop's verifying
// parse already does. One per document; not for concurrent use.
type Incremental struct {
	text []byte       // the text tree is the parse of
	tree *sitter.Tree // nil before the first parse
}

// Close frees the kept parse; the next analysis parses from scratch.
func (in *Incremental) Close() {
	if in.tree != nil {
		in.tree.Close()
	}
	in.tree, in.text = nil, nil
}

// parse is the parse of body, reusing the kept tree, which it replaces.
func (in *Incremental) parse(body []byte, limit time.Duration) (*sitter.Tree, error) {
	var old *sitter.Tree
	if in.tree != nil {
		old = edited(in.tree, in.text, []Edit{finding.Changed(in.text, body)})
	}
	ts, err := reparse(old, body, limit)
	if old != nil {
		old.Close()
	}
	if err != nil {
		in.Close() // a stopped parse leaves nothing worth reusing
		return nil, err
	}
	in.Close()
	in.tree, in.text = ts.Copy(), bytes.Clone(body)
	return ts, nil
}

// FixIncremental is FixFrozen whose first parse reuses in's kept tree and
// leaves the new one there (in nil: FixFrozen).
func (e *Engine) FixIncremental(ctx context.Context, text []byte, vs Versions, frozen []Span, in *Incremental) (*Result, error) {
	return e.fix(ctx, text, vs, frozen, in)
}
