package rewrite

import (
	"github.com/loratune/loratune-fix/syntree"
)

// Where inserted lines go, so that they run on the paths that need them,
// after what they read is bound and before the training they are for. The
// binding guard (guard.go) checks every insertion; these helpers choose
// places that pass it. The whole API:
//
//   - InsertAfterBinding(l, lines): right after the statement that binds
//     l.Target (inside its branch), for lines that read the model.
//   - InsertBeforeTraining(l, lines): once, on every path, before the
//     training of l, for lines that read only module-level names (torch).
//   - AfterTraining(n): whether n comes after the training of its scope.

// bindingOf is the statement that binds load l's target, inside whatever
// branch holds it: the load's own statement when it assigns the target
// (model = AutoModel...from_pretrained(...)), else nil.
func (f *Facts) bindingOf(l *Load) *syntree.Node {
	if l.Target == "" {
		return nil
	}
	stmt := Statement(l.Node)
	if stmt == nil || stmt.Type() != "expression_statement" {
		return nil
	}
	if a := stmt.NamedChild(0); a == nil || a.Type() != "assignment" {
		return nil
	}
	return stmt
}

// InsertAfterBinding inserts lines right after the statement that binds
// l.Target, in its branch: what they read of the model is bound wherever
// they run. A model bound in each branch of an if/elif/else gets the
// lines in each branch (one call per load). ok is false where no such
// statement stands alone on its lines.
func (f *Facts) InsertAfterBinding(l *Load, lines []string) (Edit, bool) {
	stmt := f.bindingOf(l)
	if stmt == nil {
		return Edit{}, false
	}
	return insertAfter(f.Src, stmt, lines)
}

// InsertBeforeTraining inserts lines that read only module-level names
// (an import such as torch) once before the training of load l, on every
// path: after the statement of l's scope that holds the load, or before
// that statement when it also holds the training (the whole run under
// "if args.train:").
func (f *Facts) InsertBeforeTraining(l *Load, lines []string) (Edit, bool) {
	anchor := f.statementIn(l.Node, l.Func)
	if anchor == nil {
		return Edit{}, false
	}
	for _, s := range l.sinks {
		if s.use == Training && s.at != nil && within(s.at, anchor) && s.at.StartByte() > l.Node.EndByte() {
			return insertBefore(f.Src, anchor, lines)
		}
	}
	return insertAfter(f.Src, anchor, lines)
}

// AfterTraining reports whether n lies after a training call
// (trainer.train()) of its scope that runs before it: a line there
// changes nothing the training sees.
func (f *Facts) AfterTraining(n *syntree.Node) bool {
	return f.trainingBefore(start(n)) != nil
}

// insertBefore inserts lines before the statement stmt, at its
// indentation.
func insertBefore(src *Source, stmt *syntree.Node, lines []string) (Edit, bool) {
	indent, ok := standsAlone(src, stmt)
	if !ok {
		return Edit{}, false
	}
	at := src.LineStart(start(stmt))
	return Edit{Start: at, End: at, NewText: template(src, indent, lines)}, true
}
