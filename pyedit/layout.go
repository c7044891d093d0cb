package pyedit

import (
	"bytes"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

// Inserted code is laid out the way the project's formatter (black, ruff
// format) would lay it out at its line length, so that a formatter run
// after a fix changes nothing: long comments become several comment
// lines, long generated conditions are wrapped in parentheses one operand
// a line, and a call that an edit makes too long gets its arguments on
// lines of their own (pyedit.go's ListAdd and relaidCall). Only inserted
// lines and the edited call are laid out; other bytes stay.

// DefaultLineLength is black's and ruff's line length.
const DefaultLineLength = 88

// lineLimit is the line length inserted lines keep within.
func lineLimit(s *semantic.Source) int {
	if s.LineLength > 0 {
		return s.LineLength
	}
	return DefaultLineLength
}

// width is a line's length as the formatters count it: in characters.
func width(line string) int { return utf8.RuneCountInString(line) }

// LaidOut lays out one inserted line (indentation included, no line
// ending) within limit: a comment too long becomes several comment lines,
// an "if"/"elif"/"while" line too long gets its condition wrapped.
// Anything else is returned as it is.
func LaidOut(line, unit string, limit int) []string {
	if width(line) <= limit {
		return []string{line}
	}
	indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
	body := line[len(indent):]
	if strings.HasPrefix(body, "#") {
		return wrapComment(indent, body, limit)
	}
	if keyword, cond, ok := ConditionOf(body); ok && !strings.Contains(body, "#") {
		return wrapCondition(indent, keyword, cond, unit, limit)
	}
	return []string{line}
}

// wrapComment splits a comment into comment lines of whole words within
// limit (a word longer than a line stands alone on its line).
func wrapComment(indent, comment string, limit int) []string {
	words := strings.Fields(strings.TrimPrefix(comment, "#"))
	var out []string
	// A line is built word by word, its width kept as it grows (width
	// adds up), so that a long comment costs one pass over it.
	head := indent + "#"
	var cur strings.Builder
	cur.WriteString(head)
	curWidth, empty := width(head), true
	for _, w := range words {
		ww := width(w)
		if !empty && curWidth+1+ww > limit {
			out = append(out, cur.String())
			cur.Reset()
			cur.WriteString(head)
			curWidth, empty = width(head), true
		}
		cur.WriteString(" ")
		cur.WriteString(w)
		curWidth += 1 + ww
		empty = false
	}
	return append(out, cur.String())
}

// ConditionOf splits a compound statement's header that is a keyword and
// a condition, "if|elif|while <cond>:" on one line, into the two (what the
// regexp ^(if|elif|while) (.+):$ reads, without its backtracking: a
// tenth of a fix's layout).
func ConditionOf(body string) (keyword, cond string, ok bool) {
	for _, kw := range []string{"if", "elif", "while"} {
		rest, found := strings.CutPrefix(body, kw)
		if !found || !strings.HasPrefix(rest, " ") {
			continue
		}
		cond, found = strings.CutSuffix(rest[1:], ":")
		if found && cond != "" && !strings.Contains(cond, "\n") {
			return kw, cond, true
		}
	}
	return "", "", false
}

// wrapCondition lays out "keyword cond:" as black does when it does not
// fit: the condition in parentheses on its own line, or, when that is too
// long too, one operand a line, each after its "and"/"or"; a parenthesised
// operand that is still too long is opened the same way.
func wrapCondition(indent, keyword, cond, unit string, limit int) []string {
	out := []string{indent + keyword + " ("}
	out = append(out, wrapOperands(indent+unit, "", cond, unit, limit)...)
	return append(out, indent+"):")
}

// wrapOperands writes lead+expr at indent within limit: on one line when it
// fits, else split before each "and"/"or" outside brackets and strings.
func wrapOperands(indent, lead, expr, unit string, limit int) []string {
	if width(indent+lead+expr) <= limit {
		return []string{indent + lead + expr}
	}
	parts := splitBoolean(expr)
	if len(parts) == 1 {
		if inner, ok := parenthesised(expr); ok {
			out := []string{indent + lead + "("}
			out = append(out, wrapOperands(indent+unit, "", inner, unit, limit)...)
			return append(out, indent+")")
		}
		return []string{indent + lead + expr}
	}
	var out []string
	for i, p := range parts {
		l := lead
		if i > 0 {
			op, _, _ := strings.Cut(p, " ")
			l, p = op+" ", p[len(op)+1:]
		}
		out = append(out, wrapOperands(indent, l, p, unit, limit)...)
	}
	return out
}

// splitBoolean splits expr before each "and"/"or" that stands outside
// brackets and strings; every part but the first starts with its operator.
func splitBoolean(expr string) []string {
	var parts []string
	depth, from := 0, 0
	scanCode(expr, func(i int, c byte) bool {
		switch {
		case strings.IndexByte("([{", c) >= 0:
			depth++
		case strings.IndexByte(")]}", c) >= 0:
			depth--
		case depth == 0 && c == ' ':
			for _, op := range []string{" and ", " or "} {
				if strings.HasPrefix(expr[i:], op) {
					parts = append(parts, expr[from:i])
					from = i + 1
					break
				}
			}
		}
		return true
	})
	return append(parts, expr[from:])
}

// parenthesised reports whether expr is one parenthesised expression, and
// what stands inside: the leading "(" closes at the very end.
func parenthesised(expr string) (string, bool) {
	if !strings.HasPrefix(expr, "(") || !strings.HasSuffix(expr, ")") {
		return "", false
	}
	depth, whole := 0, true
	scanCode(expr, func(i int, c byte) bool {
		switch {
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
			if depth == 0 && i != len(expr)-1 {
				whole = false
			}
		}
		return whole
	})
	if !whole {
		return "", false
	}
	return expr[1 : len(expr)-1], true
}

// callLayout is a bracketed list (an argument list or a dict literal) as
// black lays it out, in a form that can be laid out again after an edit:
// on the line of its statement or element, or, for a call, "hugged" (the
// items on one line of their own between the brackets). Other layouts
// (one item a line, hand-aligned, comments inside) are not re-laid: black
// keeps one item a line, and the others are not black's.
type callLayout struct {
	items        []string // the items' texts, in order
	indent, head string   // the line's indentation; its text up to the list
	tail         string   // what follows the list on its line: "", "," or ".f()"
	call         bool     // an argument list: the hugged form is allowed
}

// emptyTrailers is what may follow a list that black splits at: empty
// calls (".train()") and an element's comma.
var emptyTrailers = regexp.MustCompile(`^(\.[A-Za-z_][A-Za-z_0-9]*\(\)|\(\))*,?$`)

// layoutOf reads the layout of list (an argument_list or dictionary), or
// ok=false when it is not one that relaidList may change.
func layoutOf(src *semantic.Source, list *syntree.Node) (callLayout, bool) {
	var l callLayout
	if list.Type() != "argument_list" && list.Type() != "dictionary" {
		return l, false
	}
	l.call = list.Type() == "argument_list"
	items := semantic.RealArgs(list)
	if len(items) == 0 || len(items) != int(list.NamedChildCount()) {
		return l, false // empty, or comments inside
	}
	text := src.Text
	open, close := list.Start(), list.End()-1
	lineStart := src.LineStart(open)
	line := text[lineStart:src.ContentEnd(open)]
	l.indent = string(line[:len(line)-len(bytes.TrimLeft(line, " \t"))])
	l.head = string(text[lineStart+len(l.indent) : open+1])
	if src.Position(close).Line != src.Position(open).Line {
		// Hugged: "(" ends its line, the items fill the next, ")" opens
		// the one after at the head's indentation.
		if !l.call || src.ContentEnd(open) != open+1 || src.LineStart(close) != src.LineEnd(src.LineEnd(open)) ||
			string(text[src.LineStart(close):close]) != l.indent || src.Position(items[0].Start()).Line != src.Position(open).Line+1 {
			return l, false
		}
		if first, _ := src.Indent(items[0].Start()); first != l.indent+src.IndentUnit() || src.ContentEnd(items[0].Start()) != items[len(items)-1].End() {
			return l, false
		}
	} else if items[0].Start() != open+1 || items[len(items)-1].End() != close {
		return l, false
	}
	for i, it := range items {
		if i > 0 && string(text[items[i-1].End():it.Start()]) != ", " {
			return l, false
		}
		l.items = append(l.items, it.Content(text))
	}
	l.tail = string(text[close+1 : src.ContentEnd(close)])
	if !emptyTrailers.MatchString(l.tail) || !balancedHead(l.head) {
		return l, false
	}
	return l, true
}

// balancedHead reports whether the text before a list's opening bracket
// closes every bracket it opens and has no comma outside them: then
// black splits the line at the list, not before it.
func balancedHead(head string) bool {
	depth, ok := 0, true
	inString := scanCode(head[:max(len(head)-1, 0)], func(i int, c byte) bool {
		switch {
		case c == '#':
			ok = false
		case strings.IndexByte("([{", c) >= 0:
			depth++
		case strings.IndexByte(")]}", c) >= 0:
			depth--
			ok = depth >= 0
		case c == ',' && depth == 0:
			ok = false
		}
		return ok
	})
	return ok && depth == 0 && !inString
}

// relaidList is the edit that lays out list with items as black does, or
// ok=false when the items fit on the list's line as they are (an inline
// edit is right) or the layout is not one to re-lay: the list on one line
// when it fits, else (a call) hugged when the items fit on one line, else
// one item a line with a trailing comma.
func relaidList(src *semantic.Source, list *syntree.Node, l callLayout, items []string) (finding.Edit, bool) {
	limit, unit, eol := lineLimit(src), src.IndentUnit(), src.EOL
	closing := string(src.Text[list.End()-1])
	oneLine := src.Position(list.End()).Line == src.Position(list.Start()).Line
	joined := strings.Join(items, ", ")
	if oneLine && width(l.indent+l.head+joined+closing+l.tail) <= limit {
		return finding.Edit{}, false
	}
	if width(l.indent+l.head) > limit {
		return finding.Edit{}, false // black would split elsewhere
	}
	var b strings.Builder
	b.WriteString("(")
	if closing == "}" {
		b.Reset()
		b.WriteString("{")
	}
	b.WriteString(eol)
	if l.call && width(l.indent+unit+joined) <= limit {
		b.WriteString(l.indent + unit + joined + eol)
	} else {
		for _, it := range items {
			line := l.indent + unit + it + ","
			// black adds no comma after *args or **kwargs for every
			// Python version, nor splits an item it cannot fit.
			if strings.HasPrefix(it, "*") || strings.Contains(it, "\n") || width(line) > limit {
				return finding.Edit{}, false
			}
			b.WriteString(line + eol)
		}
	}
	b.WriteString(l.indent + closing)
	return finding.Edit{Start: list.Start(), End: list.End(), NewText: b.String()}, true
}

// RelayGrownList lays out again the list a fix's edits lengthen (a keyword
// renamed to a longer one, a value replaced by a longer call) when the
// list no longer fits on its line, as ListAddition does for an added item.
// Such a fix claims the list, so that other fixes on it wait for the next
// pass and each lays out the list as it then is.
func RelayGrownList(src *semantic.Source, root *syntree.Node, fx *finding.Fix) {
	grows := false
	for _, e := range fx.Edits {
		grows = grows || width(e.NewText) > width(string(src.Text[e.Start:e.End]))
	}
	if !grows || len(fx.Edits) == 0 {
		return
	}
	// The innermost list that holds an edit (the first edit in one).
	var list *syntree.Node
	for _, e := range fx.Edits {
		for n := root; n != nil && list == nil; {
			var next *syntree.Node
			for _, c := range n.NamedChildren() {
				if c.Start() <= e.Start && e.End <= c.End() {
					next = c
					break
				}
			}
			if t := n.Type(); (t == "argument_list" || t == "dictionary" || t == "parameters") && n.Start() < e.Start && e.End < n.End() &&
				(next == nil || !strings.Contains("argument_list dictionary parameters", next.Type()) && !holdsList(next, e)) {
				list = n
			}
			n = next
		}
		if list != nil {
			break
		}
	}
	if list == nil {
		return
	}
	var inside, outside []finding.Edit
	for _, e := range fx.Edits {
		if e.End <= list.Start() || e.Start >= list.End() {
			outside = append(outside, e)
		} else {
			inside = append(inside, e)
		}
	}
	e, ok := relaid(src, list, inside)
	if (!ok || relaidAsIs(src, list, inside, e)) && lineLocal(src, list, inside) {
		// The list keeps its layout, one item a line, and the edits stay
		// on their lines, clear of where an addition goes: the list is
		// not claimed, so that another fix's addition to it goes in in
		// the same pass, where a second pass would put it.
		return
	}
	if ok {
		fx.Edits = append(granular(src, list, inside, e), outside...)
	}
	if fx.Claim == "" {
		fx.Claim = ArgsClaim(list)
	}
}

// lineLocal reports edits inside list, a list of one item a line, that
// each stay on one line and leave the places an addition to the list
// inserts at alone: the line after the last item's, and the end of the
// last item when no comma follows it.
func lineLocal(src *semantic.Source, list *syntree.Node, edits []finding.Edit) bool {
	items := semantic.RealArgs(list)
	if len(items) == 0 {
		return false
	}
	line := src.Position(list.Start()).Line
	for _, it := range items {
		l := src.Position(it.Start()).Line
		if l == line {
			return false // two items on a line, or one on the "(" line
		}
		line = l
	}
	last := items[len(items)-1]
	if src.Position(list.End()).Line == src.Position(last.End()).Line {
		return false // the ")" hugs the last item
	}
	for _, e := range edits {
		if strings.ContainsAny(e.NewText, "\r\n") || src.Position(e.Start).Line != src.Position(e.End).Line {
			return false
		}
		if e.End >= last.End() && (commaAfter(list, last) == nil || e.End >= src.ContentEnd(last.End())+1) {
			return false
		}
	}
	return true
}

// granular splits e, which lays out list again once edits (inside it) are
// applied, into edits of the bytes around the items that edits leave
// alone: another fix's edit inside such an item (a value replaced) then
// applies in the same pass, and the list keeps the layout e gives it.
// Where the items of e's text cannot be matched with the list's, e stays
// whole.
func granular(src *semantic.Source, list *syntree.Node, edits []finding.Edit, e finding.Edit) []finding.Edit {
	whole := []finding.Edit{e}
	open, close := list.Start(), list.End()-1
	if open < e.Start || close >= e.End {
		return whole
	}
	head := string(src.Text[e.Start : open+1])
	if !strings.HasPrefix(e.NewText, head) {
		return whole
	}
	// The top-level items of the new list, as offsets into e.NewText,
	// and where its closing bracket lies.
	type span struct{ from, to int }
	var got []span
	body := e.NewText[len(head):]
	depth, from, closeAt := 0, 0, -1
	item := func(to int) {
		t := body[from:to]
		lead := len(t) - len(strings.TrimLeft(t, " \t\r\n"))
		if t = strings.TrimSpace(t); t != "" {
			got = append(got, span{len(head) + from + lead, len(head) + from + lead + len(t)})
		}
	}
	scanCode(body, func(i int, c byte) bool {
		switch {
		case strings.IndexByte("([{", c) >= 0:
			depth++
		case strings.IndexByte(")]}", c) >= 0:
			if depth == 0 {
				item(i)
				closeAt = len(head) + i
				return false
			}
			depth--
		case c == ',' && depth == 0:
			item(i)
			from = i + 1
		}
		return true
	})
	items := semantic.RealArgs(list)
	if closeAt < 0 || len(got) < len(items) || e.NewText[closeAt:] != string(src.Text[close:e.End]) {
		return whole
	}
	var out []finding.Edit
	oldAt, newAt := e.Start, 0
	gap := func(oldTo, newTo int) {
		old, neu := string(src.Text[oldAt:oldTo]), e.NewText[newAt:newTo]
		p := 0
		for p < len(old) && p < len(neu) && old[p] == neu[p] {
			p++
		}
		q := 0
		for q < len(old)-p && q < len(neu)-p && old[len(old)-1-q] == neu[len(neu)-1-q] {
			q++
		}
		if old != neu {
			out = append(out, finding.Edit{Start: oldAt + p, End: oldTo - q, NewText: neu[p : len(neu)-q]})
		}
	}
	for i, it := range items {
		touched := false
		for _, x := range edits {
			touched = touched || x.Start < it.End() && x.End > it.Start()
		}
		if touched {
			continue
		}
		if e.NewText[got[i].from:got[i].to] != it.Content(src.Text) {
			return whole
		}
		gap(it.Start(), got[i].from)
		oldAt, newAt = it.End(), got[i].to
	}
	gap(e.End, len(e.NewText))
	shifted := make([]finding.Edit, len(out))
	for i, x := range out {
		shifted[i] = finding.Edit{Start: x.Start - e.Start, End: x.End - e.Start, NewText: x.NewText}
	}
	if neu, err := finding.ApplyEdits(src.Text[e.Start:e.End], shifted); err != nil || string(neu) != e.NewText {
		return whole
	}
	return out
}

// relaidAsIs reports that the layout e gives list is what applying edits
// where they are gives.
func relaidAsIs(src *semantic.Source, list *syntree.Node, edits []finding.Edit, e finding.Edit) bool {
	var shifted []finding.Edit
	for _, x := range edits {
		shifted = append(shifted, finding.Edit{Start: x.Start - list.Start(), End: x.End - list.Start(), NewText: x.NewText})
	}
	inline, err := finding.ApplyEdits(src.Text[list.Start():list.End()], shifted)
	return err == nil && string(inline) == e.NewText
}

// holdsList reports whether a list below n holds the edit e.
func holdsList(n *syntree.Node, e finding.Edit) bool {
	for n != nil {
		var next *syntree.Node
		for _, c := range n.NamedChildren() {
			if c.Start() <= e.Start && e.End <= c.End() {
				next = c
				break
			}
		}
		if next != nil && strings.Contains("argument_list dictionary parameters", next.Type()) && next.Start() < e.Start && e.End < next.End() {
			return true
		}
		n = next
	}
	return false
}

// relaid is the edit that lays out list again, as black does, once edits
// inside it are applied, or ok=false when that is not needed or not
// possible (see relaidLine and relaidList).
func relaid(src *semantic.Source, list *syntree.Node, edits []finding.Edit) (finding.Edit, bool) {
	if src.Position(list.End()).Line == src.Position(list.Start()).Line {
		return relaidLine(src, list, edits)
	}
	l, ok := layoutOf(src, list)
	if !ok {
		return finding.Edit{}, false
	}
	items := semantic.RealArgs(list)
	from, to := items[0].Start(), items[len(items)-1].End()
	var shifted []finding.Edit
	for _, e := range edits {
		if e.Start < from || e.End > to {
			return finding.Edit{}, false
		}
		shifted = append(shifted, finding.Edit{Start: e.Start - from, End: e.End - from, NewText: e.NewText})
	}
	body, err := finding.ApplyEdits(src.Text[from:to], shifted)
	if err != nil {
		return finding.Edit{}, false
	}
	return relaidList(src, list, l, splitTopCommas(string(body)))
}

// relaidLine is the edit that lays out again, as black does, the line
// that holds list once edits (inside the line) are applied, or ok=false
// when the edited line fits, or is not a line black would split at its
// brackets alone (a comment on it, operators outside the brackets, an
// item that cannot fit, or a line inside brackets that holds several items:
// black splits those at their commas first).
func relaidLine(src *semantic.Source, list *syntree.Node, edits []finding.Edit) (finding.Edit, bool) {
	from := src.LineStart(list.Start())
	to := src.ContentEnd(list.Start())
	if to < list.End() {
		return finding.Edit{}, false
	}
	line := string(src.Text[from:to])
	indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
	from += len(indent)
	var err error
	text := []byte(src.Text[from:to])
	shifted := make([]finding.Edit, 0, len(edits))
	for _, e := range edits {
		if e.Start < from || e.End > to {
			return finding.Edit{}, false
		}
		shifted = append(shifted, finding.Edit{Start: e.Start - from, End: e.End - from, NewText: e.NewText})
	}
	if text, err = finding.ApplyEdits(text, shifted); err != nil {
		return finding.Edit{}, false
	}
	content := string(text)
	limit := lineLimit(src)
	if width(indent+content) <= limit || strings.Contains(content, "\n") {
		return finding.Edit{}, false
	}
	// A trailing comment counts in the length (as black counts it) and
	// stays at the end of the last line.
	code, comment := content, ""
	if skel, _ := skeleton(content); strings.Contains(skel, "#") {
		i := commentStart(content)
		code = strings.TrimRight(content[:i], " \t")
		comment = content[len(code):]
	}
	if skel, ok := skeleton(code); !ok || insideBrackets(list, src.LineStart(list.Start())) && strings.Contains(strings.TrimSuffix(skel, ","), ",") {
		return finding.Edit{}, false
	}
	lines, ok := splitRight(indent, src.IndentUnit(), code, limit-width(comment))
	if !ok || len(lines) == 1 {
		return finding.Edit{}, false
	}
	if comment != "" {
		if lines, ok = splitRight(indent, src.IndentUnit(), code, limit); !ok {
			return finding.Edit{}, false
		}
		if len(lines) == 1 {
			// Fits without the comment: left as it is (whether black
			// splits it depends on more than the brackets).
			return finding.Edit{}, false
		}
		lines[len(lines)-1] += comment
	}
	return finding.Edit{Start: from, End: to, NewText: strings.TrimPrefix(strings.Join(lines, src.EOL), indent)}, true
}

// commentStart is the offset of the "#" that opens a line's comment.
func commentStart(line string) int {
	at := len(line)
	scanCode(line, func(i int, c byte) bool {
		if c == '#' {
			at = i
		}
		return at == len(line)
	})
	return at
}

// insideBrackets reports whether n lies in brackets opened before lineStart.
func insideBrackets(n *syntree.Node, lineStart int) bool {
	for p := n.Parent(); p != nil; p = p.Parent() {
		switch p.Type() {
		case "argument_list", "dictionary", "list", "tuple", "set", "parenthesized_expression", "subscript",
			"generator_expression", "list_comprehension", "dictionary_comprehension", "set_comprehension":
			if p.Start() < lineStart {
				return true
			}
		}
	}
	return false
}

// skeleton is content with every bracketed part and string emptied
// ("f(a, b).g()" gives "f().g()"), or ok=false when its brackets do not
// balance.
func skeleton(content string) (string, bool) {
	var b strings.Builder
	depth := 0
	inString := scanCode(content, func(i int, c byte) bool {
		switch {
		case strings.IndexByte("([{", c) >= 0:
			depth++
			if depth == 1 {
				b.WriteByte(c)
			}
			return true
		case strings.IndexByte(")]}", c) >= 0:
			depth--
			if depth < 0 {
				return false
			}
		}
		if depth == 0 {
			b.WriteByte(c)
		}
		return true
	})
	if depth < 0 {
		return "", false
	}
	return b.String(), depth == 0 && !inString
}

// simpleSkeleton is what may stand outside the brackets of a line black
// splits at its last brackets: "name = ", "return " or "key=" before a
// chain of names, calls, subscripts and attributes, and an element's ",".
var simpleSkeleton = regexp.MustCompile(`^(return |[A-Za-z_][\w.]* = |[A-Za-z_]\w*=)?([A-Za-z_][\w.]*|\{\}|\[\])(\(\)|\[\]|\{\}|\.[A-Za-z_]\w*)*,?$`)

// defSkeleton is a def's line, its parameters emptied.
var defSkeleton = regexp.MustCompile(`^(async )?def [A-Za-z_]\w*\(\)( -> [^#]*)?:$`)

// splitRight lays out content at indent as black's right-hand split does:
// on one line when it fits; else split at its last non-empty brackets
// (after a head that fits): the items on one line of their own when they
// fit (a call's arguments; a literal's items always go one a line), else
// one item a line with a trailing comma, each laid out the same way.
func splitRight(indent, unit, content string, limit int) ([]string, bool) {
	if width(indent+content) <= limit {
		return []string{indent + content}, true
	}
	skel, ok := skeleton(content)
	def := defSkeleton.MatchString(skel)
	if !ok || !def && !simpleSkeleton.MatchString(skel) {
		return nil, false
	}
	// The last bracket pair at depth 0 with something inside; a def's
	// parameters (black splits a def at its first bracket).
	open, close := -1, -1
	for _, pr := range topPairs(content) {
		if pr[1] > pr[0]+1 && (!def || open < 0) {
			open, close = pr[0], pr[1]
		}
	}
	if open < 0 {
		return nil, false
	}
	head, body, tail := content[:open+1], content[open+1:close], content[close:]
	if width(indent+head) > limit {
		return nil, false
	}
	inner := indent + unit
	parts := splitTopCommas(body)
	literal := !def && (open == 0 || strings.IndexByte(" =(,[{:", content[open-1]) >= 0)
	out := []string{indent + head}
	switch {
	case len(parts) == 1:
		sub, ok := splitRight(inner, unit, parts[0], limit)
		if !ok {
			return nil, false
		}
		out = append(out, sub...)
	case !literal && width(inner+strings.Join(parts, ", ")) <= limit:
		out = append(out, inner+strings.Join(parts, ", "))
	default:
		for _, p := range parts {
			if strings.HasPrefix(p, "*") {
				return nil, false // black's trailing comma depends on the target version
			}
			sub, ok := splitRight(inner, unit, p+",", limit)
			if !ok {
				return nil, false
			}
			out = append(out, sub...)
		}
	}
	return append(out, indent+tail), true
}

// topPairs are the offsets of the bracket pairs at depth 0, in order.
func topPairs(content string) [][2]int {
	var pairs [][2]int
	var stack []int
	ok := true
	scanCode(content, func(i int, c byte) bool {
		switch {
		case strings.IndexByte("([{", c) >= 0:
			stack = append(stack, i)
		case strings.IndexByte(")]}", c) >= 0:
			if len(stack) == 0 {
				ok = false
				return false
			}
			if len(stack) == 1 {
				pairs = append(pairs, [2]int{stack[0], i})
			}
			stack = stack[:len(stack)-1]
		}
		return true
	})
	if !ok {
		return nil
	}
	return pairs
}

// splitTopCommas splits a list's inside at its commas outside brackets and
// strings, items trimmed, a trailing empty item dropped.
func splitTopCommas(body string) []string {
	var parts []string
	depth, from := 0, 0
	scanCode(body, func(i int, c byte) bool {
		switch {
		case strings.IndexByte("([{", c) >= 0:
			depth++
		case strings.IndexByte(")]}", c) >= 0:
			depth--
		case c == ',' && depth == 0:
			parts = append(parts, strings.TrimSpace(body[from:i]))
			from = i + 1
		}
		return true
	})
	if last := strings.TrimSpace(body[from:]); last != "" {
		parts = append(parts, last)
	}
	return parts
}

// scanCode calls visit for each byte of s that is code, the quotes that
// open and close a string included but not what they enclose, until visit
// returns false. It reports whether s ends inside a string. The layout
// helpers read one line or one expression: a string never spans them.
func scanCode(s string, visit func(i int, c byte) bool) (inString bool) {
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
				continue
			}
			if c != quote {
				continue
			}
			quote = 0
		case c == '"' || c == '\'':
			quote = c
		}
		if !visit(i, c) {
			break
		}
	}
	return quote != 0
}
