package rewrite

import (
	"strings"
	"testing"
)

// laidOut keeps a line that fits, splits a long comment at words and wraps
// a long condition as black does; every line it writes fits unless one
// word or operand alone is longer.
func TestLaidOut(t *testing.T) {
	tests := []struct {
		line  string
		limit int
		want  []string
	}{
		{"    # short", 88, []string{"    # short"}},
		{"    # one two three four", 16, []string{"    # one two", "    # three four"}},
		{"# averyveryverylongword tail", 10, []string{"# averyveryverylongword", "# tail"}},
		{"x = 'a' + 'b' + 'c' + 'd'", 10, []string{"x = 'a' + 'b' + 'c' + 'd'"}},
		{"elif aaaa and bbbb:", 18, []string{"elif (", "    aaaa and bbbb", "):"}},
		{"if aaaa and bbbb:", 16, []string{"if (", "    aaaa", "    and bbbb", "):"}},
		{"  elif aaaa and bbbb or cccc:", 16, []string{"  elif (", "      aaaa", "      and bbbb", "      or cccc", "  ):"}},
		{`if "a and b" in v and f(x or y):`, 20, []string{"if (", `    "a and b" in v`, "    and f(x or y)", "):"}},
		{"if aaaa and (bbbb or cccc):", 16, []string{"if (", "    aaaa", "    and (", "        bbbb", "        or cccc", "    )", "):"}},
		{"if x:  # aaaa bbbb cccc", 10, []string{"if x:  # aaaa bbbb cccc"}},
	}
	for _, tc := range tests {
		got := laidOut(tc.line, "    ", tc.limit)
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("laidOut(%q, %d):\n got %q\nwant %q", tc.line, tc.limit, got, tc.want)
		}
	}
}
