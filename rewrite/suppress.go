package rewrite

import (
	"bytes"
	"regexp"
	"strings"
	"unicode"

	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

var (
	skipFile = []byte("# loratune-fix: skip-file")
	// One comment may hold both directives ("# loratune-fix: ignore[X]  # noqa: Y");
	// a missing or empty list silences every finding on the line, as ruff's bare noqa.
	ignoreDirective = regexp.MustCompile(`#\s*(?i:loratune-fix):\s*(?i:ignore)(?:\[([A-Za-z0-9_,\s-]*)\])?`)
	noqaDirective   = regexp.MustCompile(`#\s*(?i:noqa)(?::[ \t]*([A-Za-z0-9_-]+(?:[ \t]*,?[ \t]*[A-Za-z0-9_-]+)*))?`)
)

// suppress drops findings silenced by a comment on their first line: "#
// loratune-fix: ignore[LTF002]" or "# noqa: LTF002" (codes in any case, or
// names), a bare "# loratune-fix: ignore" or "# noqa" (every rule), and "#
// loratune-fix: skip-file" anywhere in the file. Only comments count, as the
// parse sees them: a "# noqa" inside a string literal silences nothing.
func suppress(src *semantic.Source, root *syntree.Node, findings []Finding) []Finding {
	if len(findings) == 0 {
		return findings
	}
	for at := 0; ; {
		i := bytes.Index(src.Text[at:], skipFile)
		if i < 0 {
			break
		}
		if commentAt(src, root, at+i) != "" {
			return findings[:0]
		}
		at += i + len(skipFile)
	}
	directives := map[int][]string{} // line start: the directive lists of its comment; nil: none
	kept := findings[:0]
	for _, f := range findings {
		start := src.LineStart(f.Start)
		lists, seen := directives[start]
		if !seen {
			lists = lineDirectives(src, root, start)
			directives[start] = lists
		}
		if !silenced(lists, f) {
			kept = append(kept, f)
		}
	}
	return kept
}

// lineDirectives returns the code lists of the suppression directives in
// the comment on the line that starts at start: "" for a bare one.
func lineDirectives(src *semantic.Source, root *syntree.Node, start int) []string {
	end := src.LineEnd(start)
	for at := start; at < end; {
		i := bytes.IndexByte(src.Text[at:end], '#')
		if i < 0 {
			return nil
		}
		comment := commentAt(src, root, at+i)
		if comment == "" {
			at += i + 1 // a '#' inside a string
			continue
		}
		var lists []string
		for _, re := range []*regexp.Regexp{ignoreDirective, noqaDirective} {
			for _, m := range re.FindAllStringSubmatch(comment, -1) {
				lists = append(lists, m[1])
			}
		}
		return lists // a comment runs to the end of its line
	}
	return nil
}

// commentAt returns the comment token that starts at byte i, or "" when the
// parse has none there (the '#' is inside a string, or there is no '#').
func commentAt(src *semantic.Source, root *syntree.Node, i int) string {
	n := root.NamedDescendantForByteRange(uint32(i), uint32(i))
	if n == nil || n.Type() != "comment" || int(n.StartByte()) != i {
		return ""
	}
	return string(src.Text[n.StartByte():n.EndByte()])
}

func silenced(lists []string, f Finding) bool {
	for _, list := range lists {
		items := strings.FieldsFunc(list, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
		if len(items) == 0 {
			return true
		}
		for _, item := range items {
			if strings.EqualFold(item, f.Code) || strings.EqualFold(item, f.Name) {
				return true
			}
		}
	}
	return false
}
