package rewrite

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Inserted code is laid out the way the project's formatter (black, ruff
// format) would lay it out at its line length, so that a formatter run
// after a fix changes nothing: long comments become several comment
// lines, long generated conditions are wrapped in parentheses one operand
// a line, and a call that an edit makes too long gets its arguments on
// lines of their own (pyedit.go's listAdd and relaidCall). Only inserted
// lines and the edited call are laid out; other bytes stay.

// DefaultLineLength is black's and ruff's line length.
const DefaultLineLength = 88

// lineLimit is the line length inserted lines keep within.
func (s *Source) lineLimit() int {
	if s.LineLength > 0 {
		return s.LineLength
	}
	return DefaultLineLength
}

// width is a line's length as the formatters count it: in characters.
func width(line string) int { return utf8.RuneCountInString(line) }

// laidOut lays out one inserted line (indentation included, no line
// ending) within limit: a comment too long becomes several comment lines,
// an "if"/"elif"/"while" line too long gets its condition wrapped.
// Anything else is returned as it is.
func laidOut(line, unit string, limit int) []string {
	if width(line) <= limit {
		return []string{line}
	}
	indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
	body := line[len(indent):]
	if strings.HasPrefix(body, "#") {
		return wrapComment(indent, body, limit)
	}
	if m := conditionLine.FindStringSubmatch(body); m != nil && !strings.Contains(body, "#") {
		return wrapCondition(indent, m[1], m[2], unit, limit)
	}
	return []string{line}
}

// wrapComment splits a comment into comment lines of whole words within
// limit (a word longer than a line stands alone on its line).
func wrapComment(indent, comment string, limit int) []string {
	words := strings.Fields(strings.TrimPrefix(comment, "#"))
	var out []string
	cur := indent + "#"
	empty := true
	for _, w := range words {
		if !empty && width(cur)+1+width(w) > limit {
			out = append(out, cur)
			cur, empty = indent+"#", true
		}
		cur += " " + w
		empty = false
	}
	return append(out, cur)
}

// conditionLine is a compound statement's header that is a keyword and a
// condition.
var conditionLine = regexp.MustCompile(`^(if|elif|while) (.+):$`)

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
	var quote byte
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
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
	}
	return append(parts, expr[from:])
}

// parenthesised reports whether expr is one parenthesised expression, and
// what stands inside: the leading "(" closes at the very end.
func parenthesised(expr string) (string, bool) {
	if !strings.HasPrefix(expr, "(") || !strings.HasSuffix(expr, ")") {
		return "", false
	}
	depth := 0
	var quote byte
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
			if depth == 0 && i != len(expr)-1 {
				return "", false
			}
		}
	}
	return expr[1 : len(expr)-1], true
}
