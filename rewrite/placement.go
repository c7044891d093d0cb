package rewrite

import (
	"github.com/loratune/loratune-fix/pyedit"
	"github.com/loratune/loratune-fix/semantic"
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
func bindingOf(f *semantic.Facts, l *semantic.Load) *syntree.Node {
	if l.Target == "" {
		return nil
	}
	stmt := semantic.Statement(l.Node)
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
func InsertAfterBinding(f *semantic.Facts, l *semantic.Load, lines []string) (Edit, bool) {
	stmt := bindingOf(f, l)
	if stmt == nil {
		return Edit{}, false
	}
	return pyedit.InsertAfter(f.Src, stmt, lines)
}

// InsertBeforeTraining inserts lines that read only module-level names
// (an import such as torch) once before the training of load l, on every
// path: after the statement of l's scope that holds the load, or before
// that statement when it also holds the training (the whole run under
// "if args.train:").
func InsertBeforeTraining(f *semantic.Facts, l *semantic.Load, lines []string) (Edit, bool) {
	anchor := f.StatementIn(l.Node, l.Func)
	if anchor == nil {
		return Edit{}, false
	}
	for _, s := range l.Sinks {
		if s.Use == semantic.Training && s.At != nil && semantic.Within(s.At, anchor) && s.At.StartByte() > l.Node.EndByte() {
			return insertBefore(f.Src, anchor, lines)
		}
	}
	return pyedit.InsertAfter(f.Src, anchor, lines)
}

// AfterTraining reports whether n lies after a training call
// (trainer.train()) of its scope that runs before it: a line there
// changes nothing the training sees.
func AfterTraining(f *semantic.Facts, n *syntree.Node) bool {
	return trainingBefore(f, n.Start()) != nil
}

// insertBefore inserts lines before the statement stmt, at its
// indentation.
func insertBefore(src *semantic.Source, stmt *syntree.Node, lines []string) (Edit, bool) {
	indent, ok := pyedit.StandsAlone(src, stmt)
	if !ok {
		return Edit{}, false
	}
	at := src.LineStart(stmt.Start())
	return Edit{Start: at, End: at, NewText: pyedit.Template(src, indent, lines)}, true
}
