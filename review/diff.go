package review

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Range is a run of lines, 1-based and inclusive.
type Range struct{ Start, End int }

// FileDiff is what a pull request changed in one file, seen from the RIGHT
// side (the new version): the lines it added or modified.
type FileDiff struct {
	OldPath, NewPath string // "" for /dev/null
	Added            []Range
	Binary           bool
}

// Covers reports whether every line of from..to was added or modified.
func (fd *FileDiff) Covers(from, to int) bool {
	for _, r := range fd.Added {
		if r.Start <= from && to <= r.End {
			return true
		}
	}
	return false
}

// Touches reports whether any line of from..to was added or modified.
func (fd *FileDiff) Touches(from, to int) bool {
	for _, r := range fd.Added {
		if r.Start <= to && from <= r.End {
			return true
		}
	}
	return false
}

// Has reports whether line was added or modified.
func (fd *FileDiff) Has(line int) bool { return fd.Covers(line, line) }

// ParseDiff reads a unified diff (git diff, diff -u) and returns the files it
// changes, keyed by their new path. Deleted files are left out: nothing on
// the RIGHT side to comment on.
func ParseDiff(r io.Reader) (map[string]*FileDiff, error) {
	out := map[string]*FileDiff{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	var cur *FileDiff
	fresh := false // cur comes from a "diff --git" line and has no ---/+++ yet
	oldLeft, newLeft, newLine := 0, 0, 0
	lineNo := 0
	flush := func() {
		if cur != nil && cur.NewPath != "" {
			out[cur.NewPath] = cur
		}
	}
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if oldLeft > 0 || newLeft > 0 {
			// Inside a hunk: count lines until both sides are used up.
			if line == `\ No newline at end of file` {
				continue
			}
			if line == "" {
				line = " " // some tools strip the blank of an empty context line
			}
			switch line[0] {
			case ' ':
				oldLeft--
				newLeft--
				newLine++
			case '-':
				oldLeft--
			case '+':
				addLine(cur, newLine)
				newLeft--
				newLine++
			default:
				return nil, fmt.Errorf("diff line %d: %q inside a hunk", lineNo, line)
			}
			if oldLeft < 0 || newLeft < 0 {
				return nil, fmt.Errorf("diff line %d: hunk longer than its header says", lineNo)
			}
			continue
		}
		switch {
		case strings.HasPrefix(line, "diff --git "):
			flush()
			cur, fresh = &FileDiff{}, true
			if a, b, ok := gitHeaderPaths(line[len("diff --git "):]); ok {
				cur.OldPath, cur.NewPath = a, b
			}
		case strings.HasPrefix(line, "--- "):
			if !fresh {
				flush()
				cur = &FileDiff{}
			}
			fresh = false
			cur.OldPath = diffPath(line[4:])
		case strings.HasPrefix(line, "+++ "):
			if cur == nil {
				cur = &FileDiff{}
			}
			fresh = false
			cur.NewPath = diffPath(line[4:])
		case cur == nil:
			// Text before the first file header (a commit message): skip.
			if strings.HasPrefix(line, "@@ ") {
				return nil, fmt.Errorf("diff line %d: hunk before any file header", lineNo)
			}
		case strings.HasPrefix(line, "rename to "), strings.HasPrefix(line, "copy to "):
			_, p, _ := strings.Cut(line, " to ")
			cur.NewPath = unquote(p)
		case strings.HasPrefix(line, "deleted file mode"):
			cur.NewPath = ""
		case strings.HasPrefix(line, "Binary files "), line == "GIT binary patch":
			cur.Binary = true
		case strings.HasPrefix(line, "@@ "):
			var err error
			oldLeft, newLeft, newLine, err = hunkHeader(line)
			if err != nil {
				return nil, fmt.Errorf("diff line %d: %w", lineNo, err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if oldLeft > 0 || newLeft > 0 {
		return nil, fmt.Errorf("diff ends inside a hunk (%d old, %d new lines missing)", oldLeft, newLeft)
	}
	flush()
	for _, fd := range out {
		sort.Slice(fd.Added, func(i, j int) bool { return fd.Added[i].Start < fd.Added[j].Start })
	}
	return out, nil
}

// addLine extends the last range or starts a new one.
func addLine(fd *FileDiff, line int) {
	if n := len(fd.Added); n > 0 && fd.Added[n-1].End == line-1 {
		fd.Added[n-1].End = line
		return
	}
	fd.Added = append(fd.Added, Range{line, line})
}

// hunkHeader reads "@@ -a,b +c,d @@": the old and new line counts and the
// first new line.
func hunkHeader(line string) (oldN, newN, newStart int, err error) {
	rest := strings.TrimPrefix(line, "@@ ")
	end := strings.Index(rest, " @@")
	if end < 0 {
		return 0, 0, 0, fmt.Errorf("bad hunk header %q", line)
	}
	parts := strings.Fields(rest[:end])
	if len(parts) != 2 || !strings.HasPrefix(parts[0], "-") || !strings.HasPrefix(parts[1], "+") {
		return 0, 0, 0, fmt.Errorf("bad hunk header %q", line)
	}
	_, oldN, err = span(parts[0][1:])
	if err != nil {
		return 0, 0, 0, fmt.Errorf("bad hunk header %q", line)
	}
	newStart, newN, err = span(parts[1][1:])
	if err != nil {
		return 0, 0, 0, fmt.Errorf("bad hunk header %q", line)
	}
	return oldN, newN, newStart, nil
}

// span reads "start,count" or "start" (count 1).
func span(s string) (start, n int, err error) {
	a, b, ok := strings.Cut(s, ",")
	if start, err = strconv.Atoi(a); err != nil {
		return 0, 0, err
	}
	n = 1
	if ok {
		if n, err = strconv.Atoi(b); err != nil {
			return 0, 0, err
		}
	}
	return start, n, nil
}

// diffPath turns "a/x.py", "b/x.py\t2024-..." or "/dev/null" into a path.
func diffPath(s string) string {
	if i := strings.IndexByte(s, '\t'); i >= 0 && !strings.HasPrefix(s, `"`) {
		s = s[:i]
	}
	s = unquote(strings.TrimRight(s, " "))
	if s == "/dev/null" {
		return ""
	}
	if strings.HasPrefix(s, "a/") || strings.HasPrefix(s, "b/") {
		return s[2:]
	}
	return s
}

// gitHeaderPaths splits "a/x b/x" when both halves are the same length (the
// usual case); the ---/+++ lines settle anything else.
func gitHeaderPaths(s string) (string, string, bool) {
	if strings.HasPrefix(s, `"`) {
		return "", "", false
	}
	if len(s)%2 == 1 {
		half := len(s) / 2
		a, b := s[:half], s[half+1:]
		if strings.HasPrefix(a, "a/") && strings.HasPrefix(b, "b/") && a[2:] == b[2:] {
			return a[2:], b[2:], true
		}
	}
	return "", "", false
}

// unquote undoes git's C-style quoting of unusual paths.
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}
