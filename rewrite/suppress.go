package rewrite

import (
	"bytes"
	"regexp"
	"strings"
	"unicode"
)

var (
	skipFile   = []byte("# loratune-fix: skip-file")
	ignoreLine = regexp.MustCompile(`#\s*loratune-fix:\s*ignore(?:\[([A-Za-z0-9_,\s-]+)\])?`)
	noqaLine   = regexp.MustCompile(`#\s*noqa(?::\s*([A-Za-z0-9_,\s-]+))?`)
)

// suppress drops findings silenced by a comment on their first line:
// "# loratune-fix: ignore[LTF002]", a bare "# loratune-fix: ignore",
// "# noqa: LTF002", or "# loratune-fix: skip-file" anywhere in the file.
// A bare "# noqa" does not count: it is meant for other linters.
func suppress(src *Source, findings []Finding) []Finding {
	if bytes.Contains(src.Text, skipFile) {
		return findings[:0]
	}
	kept := findings[:0]
	for _, f := range findings {
		start := src.LineStart(f.Start)
		line := string(src.Text[start:src.LineEnd(f.Start)])
		if !silenced(line, f) {
			kept = append(kept, f)
		}
	}
	return kept
}

func silenced(line string, f Finding) bool {
	if !strings.Contains(line, "#") {
		return false
	}
	if m := ignoreLine.FindStringSubmatch(line); m != nil {
		return m[1] == "" || listNames(m[1], f)
	}
	if m := noqaLine.FindStringSubmatch(line); m != nil && m[1] != "" {
		return listNames(m[1], f)
	}
	return false
}

func listNames(list string, f Finding) bool {
	for _, item := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		if strings.EqualFold(item, f.Code) || item == f.Name {
			return true
		}
	}
	return false
}
