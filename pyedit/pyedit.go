package pyedit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

// AddKeyword is the fix that appends name=value to a call's arguments in
// the call's style (see ListAddition).
func AddKeyword(src *semantic.Source, args *syntree.Node, message, name, value string) *finding.Fix {
	return AddingFix(message, ListAddition(src, args, name+"="+value))
}

// ListAdd is an item added to a bracketed list: the edits that add it, and
// whether they compose with other additions to the list.
type ListAdd struct {
	key   string // the keyword or dict key the item sets
	Edits []finding.Edit
	// composes: the edits are one insertion, after the last item, that
	// brings its own separator (", x", ",\n    x" or "    x,\n"), so that
	// several such additions at one place, applied together, add every
	// item. An addition to "()", or after a last item followed by a
	// comment and no comma, needs a separator another addition also
	// inserts: it takes the list alone.
	Composes bool
	claim    string // the list's Fix.Claim
}

// Key is the keyword or dict key the added item sets (Fix.Adds).
func (a *ListAdd) Key() string { return a.key }

// ListAddition lays out item added to the list args in the list's style:
// inline (", item" after the last item), or one item a line (with or
// without a trailing comma).
func ListAddition(src *semantic.Source, args *syntree.Node, item string) *ListAdd {
	// The key: what stands before the first "=" (a keyword) or ":" (a
	// dict entry).
	key := strings.TrimSpace(item[:strings.IndexAny(item+"=", "=:")])
	a := &ListAdd{key: key, claim: ArgsClaim(args), Composes: true}
	insert := func(at int, text string) { a.Edits = append(a.Edits, finding.Edit{Start: at, End: at, NewText: text}) }
	list := semantic.RealArgs(args)
	if len(list) == 0 {
		insert(args.Start()+1, item)
		a.Composes = false
		return a
	}
	last := list[len(list)-1]
	// Too long with the item: laid out again, as the formatter would.
	inner := []finding.Edit{{Start: last.End(), End: last.End(), NewText: ", " + item}}
	if e, ok := relaid(src, args, inner); ok {
		a.Edits, a.Composes = granular(src, args, inner, e), false
		return a
	}
	closeParen := args.End() - 1
	lastLine := src.Position(last.End()).Line
	indent, own := src.Indent(last.Start())
	// Inline, the closing parenthesis hugging the last item, or f(a,\n  b)
	// where the last item shares the "(" line: ", item" after it.
	if src.Position(closeParen).Line == lastLine ||
		!own && src.Position(last.Start()).Line == src.Position(args.Start()).Line {
		insert(last.End(), ", "+item)
		return a
	}
	lineEnd := src.LineEnd(last.End())
	switch rest := strings.TrimSpace(string(src.Text[last.End():src.ContentEnd(last.End())])); {
	case commaAfter(args, last) != nil:
		// A line "indent item," after the last item's line.
		text := indent + item + "," + src.EOL
		if lineEnd == len(src.Text) || src.Text[lineEnd-1] != '\n' {
			text = src.EOL + text
		}
		insert(lineEnd, text)
	case rest == "":
		insert(last.End(), ","+src.EOL+indent+item)
	default:
		// A comment after the last item: its comma goes before the
		// comment, the item on a line of its own after it.
		insert(last.End(), ",")
		insert(lineEnd, indent+item+src.EOL)
		a.Composes = false
	}
	return a
}

// AddingFix is the fix that makes the addition add, plus more edits (an
// import it needs). It claims the list: another fix on the list waits for
// the next pass, unless both are additions that compose, under different
// keys.
func AddingFix(message string, add *ListAdd, more ...finding.Edit) *finding.Fix {
	fx := &finding.Fix{Message: message, Edits: append(append([]finding.Edit(nil), add.Edits...), more...), Claim: add.claim}
	if add.Composes {
		fx.Adds = add
	}
	return fx
}

// commaAfter is the "," token after n inside args (comments skipped), or
// nil.
func commaAfter(args, n *syntree.Node) *syntree.Node {
	for _, c := range args.Children() {
		if c.StartByte() >= n.EndByte() && c.Type() == "," {
			return c
		}
		if c.StartByte() >= n.EndByte() && c.Type() != "comment" {
			return nil
		}
	}
	return nil
}

// ArgsClaim is the Fix.Claim of a fix that adds to an argument list.
func ArgsClaim(args *syntree.Node) string { return fmt.Sprintf("args@%d", args.StartByte()) }

// StandsAlone reports whether stmt is the only statement on its lines: only
// indentation before it and nothing but a comment after it.
func StandsAlone(src *semantic.Source, stmt *syntree.Node) (indent string, ok bool) {
	indent, own := src.Indent(stmt.Start())
	if !own {
		return "", false
	}
	rest := strings.TrimSpace(string(src.Text[stmt.End():src.LineEnd(stmt.End())]))
	if rest != "" && !strings.HasPrefix(rest, "#") {
		return "", false
	}
	return indent, true
}

// Template turns lines written with "\t" for each indentation level into the
// file's indentation and line ending, under base.
// Each line is laid out within the line length (LaidOut).
func Template(src *semantic.Source, base string, lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		depth := len(l) - len(strings.TrimLeft(l, "\t"))
		line := base + strings.Repeat(src.IndentUnit(), depth) + l[depth:]
		for _, out := range LaidOut(line, src.IndentUnit(), lineLimit(src)) {
			b.WriteString(out)
			b.WriteString(src.EOL)
		}
	}
	return b.String()
}

// InsertAfter inserts lines after the statement stmt, at its indentation.
func InsertAfter(src *semantic.Source, stmt *syntree.Node, lines []string) (finding.Edit, bool) {
	indent, ok := StandsAlone(src, stmt)
	if !ok {
		return finding.Edit{}, false
	}
	at := src.LineEnd(stmt.End())
	text := Template(src, indent, lines)
	if at == len(src.Text) && (at == 0 || src.Text[at-1] != '\n') {
		// The file ends without a line ending: keep it that way.
		text = src.EOL + strings.TrimSuffix(text, src.EOL)
	}
	return finding.Edit{Start: at, End: at, NewText: text}, true
}

// SoleStatement reports whether stmt is the only statement of its block, so
// that removing it needs a "pass" in its place.
func SoleStatement(stmt *syntree.Node) bool {
	p := stmt.Parent()
	if p == nil || p.Type() != "block" {
		return false
	}
	n := 0
	for _, c := range p.NamedChildren() {
		if c.Type() != "comment" {
			n++
		}
	}
	return n == 1
}

// SoleGuard is the if statement (without else) whose block holds stmt
// alone, or nil: removing or commenting out stmt takes the guard along.
func SoleGuard(stmt *syntree.Node) *syntree.Node {
	block := stmt.Parent()
	if block == nil || block.Type() != "block" || !SoleStatement(stmt) {
		return nil
	}
	guard := block.Parent()
	if guard == nil || guard.Type() != "if_statement" || guard.ChildByFieldName("alternative") != nil {
		return nil
	}
	return guard
}

// ReplaceStatement replaces the whole lines of stmt by lines (which may be
// empty), keeping the block valid.
func ReplaceStatement(src *semantic.Source, stmt *syntree.Node, lines []string) (finding.Edit, bool) {
	indent, ok := StandsAlone(src, stmt)
	if !ok {
		return finding.Edit{}, false
	}
	if SoleStatement(stmt) {
		lines = append(append([]string{}, lines...), "pass")
	}
	from, to := src.LineStart(stmt.Start()), src.LineEnd(stmt.End())
	// The user's comments on the replaced lines stay, as they were, on
	// lines of their own above what replaces them.
	var kept strings.Builder
	semantic.WalkNodes(stmt, func(n *syntree.Node) bool {
		if n.Type() == "comment" {
			kept.WriteString(indent + n.Content(src.Text) + src.EOL)
		}
		return true
	})
	if rest := strings.TrimSpace(string(src.Text[stmt.End():to])); strings.HasPrefix(rest, "#") {
		kept.WriteString(indent + rest + src.EOL)
	}
	text := kept.String() + Template(src, indent, lines)
	if to == len(src.Text) && (to == 0 || src.Text[to-1] != '\n') {
		text = strings.TrimSuffix(text, src.EOL)
	}
	return finding.Edit{Start: from, End: to, NewText: text}, true
}

// CommentOut turns the lines of stmt into comments under a header comment,
// so that the user can restore them by uncommenting.
func CommentOut(src *semantic.Source, stmt *syntree.Node, header string) ([]finding.Edit, bool) {
	indent, ok := StandsAlone(src, stmt)
	if !ok {
		return nil, false
	}
	first := src.LineStart(stmt.Start())
	edits := []finding.Edit{{Start: first, End: first, NewText: Template(src, indent, []string{header})}}
	for off := first; off < stmt.End(); off = src.LineEnd(off) {
		line := src.Text[off:src.LineEnd(off)]
		if strings.TrimSpace(string(line)) == "" {
			if src.LineEnd(off) == off {
				break
			}
			continue
		}
		at := off + len(indent)
		if !strings.HasPrefix(string(line), indent) {
			at = off + len(line) - len(strings.TrimLeft(string(line), " \t"))
		}
		edits = append(edits, finding.Edit{Start: at, End: at, NewText: "# "})
		if src.LineEnd(off) == off {
			break
		}
	}
	if SoleStatement(stmt) {
		at := src.LineEnd(stmt.End())
		text := Template(src, indent, []string{"pass"})
		if at == len(src.Text) && src.Text[at-1] != '\n' {
			text = src.EOL + strings.TrimSuffix(text, src.EOL)
		}
		edits = append(edits, finding.Edit{Start: at, End: at, NewText: text})
	}
	return edits, true
}

// EnsureImport returns the local name of module (its alias when imported
// as one) and, when the file lacks the import, the edit that adds
// "import module" (see addImport).
func EnsureImport(f *semantic.Facts, module string) (string, []finding.Edit) {
	if local, ok := f.Alias(module); ok {
		return local, nil
	}
	return module, []finding.Edit{addImport(f, "import "+module)}
}

// TorchName renders torch.<attr> with the file's alias for torch, adding
// the import when the file lacks it.
func TorchName(f *semantic.Facts, attr string) (string, []finding.Edit) {
	local, edits := EnsureImport(f, "torch")
	return local + "." + attr, edits
}

// EnsureFromImport returns the name under which the file can call
// module.name (its own import, an alias of the module, or a new
// from-import) and, when the import is missing, the edit that adds it:
// into a one-line "from module import a, b" where the file has one, at
// the place isort sorts it to (isortName); the statement is laid out one
// name a line in parentheses, as isort and black write it, when the joined
// line would pass the line length; else a new line (see addImport).
func EnsureFromImport(f *semantic.Facts, module, name string) (string, []finding.Edit) {
	if local, ok := f.Alias(module + "." + name); ok {
		return local, nil
	}
	if local, ok := f.Alias(module); ok {
		return local + "." + name, nil
	}
	text := f.Src.Text
	for _, st := range f.ImportStmts {
		mod := st.ChildByFieldName("module_name")
		if st.Type() != "import_from_statement" || mod == nil || mod.Content(text) != module ||
			strings.ContainsAny(st.Content(text), "(*\\\n") {
			continue
		}
		var names []*syntree.Node
		for _, n := range st.NamedChildren() {
			if n.FieldName() == "name" {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			continue
		}
		var before *syntree.Node // the first name that sorts after name
		for _, n := range names {
			if first, _, _ := strings.Cut(n.Content(text), " "); isortName(first) > isortName(name) {
				before = n
				break
			}
		}
		last := names[len(names)-1]
		line := string(text[f.Src.LineStart(last.End()):f.Src.ContentEnd(last.End())])
		if width(line+", "+name) <= lineLimit(f.Src) {
			if before != nil {
				return name, []finding.Edit{{Start: before.Start(), End: before.Start(), NewText: name + ", "}}
			}
			return name, []finding.Edit{{Start: last.End(), End: last.End(), NewText: ", " + name}}
		}
		if _, ok := StandsAlone(f.Src, st); !ok || strings.TrimSpace(line) != strings.TrimSpace(st.Content(text)) {
			break // a comment or more on its line: a line of its own
		}
		var b strings.Builder
		b.WriteString("from " + module + " import (" + f.Src.EOL)
		for _, n := range names {
			if n == before {
				b.WriteString("    " + name + "," + f.Src.EOL)
			}
			b.WriteString("    " + n.Content(text) + "," + f.Src.EOL)
		}
		if before == nil {
			b.WriteString("    " + name + "," + f.Src.EOL)
		}
		b.WriteString(")")
		return name, []finding.Edit{{Start: st.Start(), End: st.End(), NewText: b.String()}}
	}
	return name, []finding.Edit{addImport(f, "from "+module+" import "+name)}
}

// isortName is a from-import name's place in isort's default order
// (order_by_type, as ruff's): constants, then classes, then the rest,
// each regardless of case.
func isortName(name string) string {
	switch {
	case len(name) > 1 && strings.ToUpper(name) == name:
		return "A" + strings.ToLower(name)
	case name != "" && 'A' <= name[0] && name[0] <= 'Z':
		return "B" + strings.ToLower(name)
	}
	return "C" + strings.ToLower(name)
}

// addImport is the edit that adds the import statement line: where isort
// puts it (importPlace), else after the last top-level import, or, when
// there is none (or it shares its line), after what must stay first: the
// comments that open the file (a shebang, an encoding line), the module
// docstring and "from __future__" imports.
func addImport(f *semantic.Facts, line string) finding.Edit {
	src := f.Src
	if e, ok := importPlace(f, line); ok {
		return e
	}
	if n := len(f.ImportStmts); n > 0 {
		if e, ok := InsertAfter(src, f.ImportStmts[n-1], []string{line}); ok {
			return e
		}
	}
	at, stmts := len(src.Text), 0
	for _, c := range f.Root.NamedChildren() {
		if c.Type() == "comment" {
			continue
		}
		docstring := stmts == 0 && c.Type() == "expression_statement" && c.NamedChildCount() == 1 && c.NamedChild(0).Type() == "string"
		if docstring || c.Type() == "future_import_statement" {
			at, stmts = src.LineEnd(c.End()), stmts+1
			continue
		}
		if stmts == 0 {
			at = src.LineStart(c.Start())
		}
		break
	}
	text := line + src.EOL
	if at == len(src.Text) && at > 0 && src.Text[at-1] != '\n' {
		text = src.EOL + text
	}
	return finding.Edit{Start: at, End: at, NewText: text}
}

// DropKeywordArg removes the keyword argument kw from a call's argument
// list: its whole line when it stands alone on one, else the argument with
// the comma that joins it to its neighbour (DropArg).
func DropKeywordArg(src *semantic.Source, args, kw *syntree.Node) ([]finding.Edit, bool) {
	list := semantic.RealArgs(args)
	idx := slices.IndexFunc(list, kw.Equal)
	if idx < 0 {
		return nil, false
	}
	text := src.Text
	// The argument alone on its line (one argument a line style).
	if _, own := src.Indent(kw.Start()); own && len(list) > 1 {
		lineEnd := src.LineEnd(kw.End())
		rest := strings.TrimSpace(string(text[kw.End():lineEnd]))
		rest = strings.TrimSpace(strings.TrimPrefix(rest, ","))
		if rest == "" || strings.HasPrefix(rest, "#") {
			// The line goes; its comment stays, on a line of its own.
			line := finding.Edit{Start: src.LineStart(kw.Start()), End: lineEnd}
			if rest != "" {
				indent, _ := src.Indent(kw.Start())
				line.NewText = indent + rest + src.EOL
			}
			if idx == len(list)-1 && commaAfter(args, kw) == nil {
				// The last argument without a trailing comma: the previous
				// argument's comma goes too, unless a comment now follows
				// it (a trailing comma then, as a formatter writes it).
				prev := list[idx-1]
				if commaAfter(args, prev) != nil && src.Position(prev.End()).Line != src.Position(kw.Start()).Line {
					if rest != "" {
						return []finding.Edit{line}, true
					}
					comma := commaAfter(args, prev)
					return []finding.Edit{{Start: comma.Start(), End: comma.End()}, line}, true
				}
				return nil, false
			}
			return []finding.Edit{line}, true
		}
	}
	return DropArg(args, kw)
}

// DropArg removes the argument a from a call's argument list in place,
// with the comma that joins it to its neighbour (or its own trailing
// comma when it is the only argument, or when a comment lies between it
// and its neighbour: the comment stays).
func DropArg(args, a *syntree.Node) ([]finding.Edit, bool) {
	list := semantic.RealArgs(args)
	idx := slices.IndexFunc(list, a.Equal)
	withComma := func() ([]finding.Edit, bool) {
		to := a.End()
		if c := commaAfter(args, a); c != nil {
			to = c.End()
		}
		return []finding.Edit{{Start: a.Start(), End: to}}, true
	}
	switch {
	case idx < 0:
		return nil, false
	case len(list) == 1:
		return withComma()
	case idx > 0 && !commentBetween(args, list[idx-1].End(), a.Start()):
		return []finding.Edit{{Start: list[idx-1].End(), End: a.End()}}, true
	case idx+1 < len(list) && !commentBetween(args, a.End(), list[idx+1].Start()):
		return []finding.Edit{{Start: a.Start(), End: list[idx+1].Start()}}, true
	default:
		// Comments on both sides (or before the last argument): the
		// argument and its own comma go; the neighbour's comma stays, a
		// trailing comma where a is last.
		return withComma()
	}
}

// commentBetween reports a comment of the argument list args within
// [from, to).
func commentBetween(args *syntree.Node, from, to int) bool {
	for _, c := range args.Children() {
		if c.Type() == "comment" && c.Start() >= from && c.Start() < to {
			return true
		}
	}
	return false
}
