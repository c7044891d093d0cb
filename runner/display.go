package runner

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// DisplayPath is path as messages print it: as it is, or Go-quoted when it
// holds a control character (a newline would split a one-line message) or
// is not UTF-8.
func DisplayPath(path string) string {
	if !utf8.ValidString(path) || strings.IndexFunc(path, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		return strconv.Quote(path)
	}
	return path
}
