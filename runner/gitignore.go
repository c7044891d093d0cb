package runner

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"strings"
)

// ignorePattern is one line of a .gitignore or .git/info/exclude file, as
// gitignore(5) defines it. A small matcher of our own rather than a
// dependency: go-git's plumbing/format/gitignore (the best-kept Go one)
// stops at the first match of "**" without backtracking ("**/a/b" misses
// "x/a/y/a/b") and reads "[!x]" as a literal "!"; the tests compare this
// one with git itself (git ls-files --exclude-standard).
type ignorePattern struct {
	base    []string // the folder of the file that holds it, from the repository root
	segs    []string // the pattern split at "/"; "**" is a segment of its own
	negate  bool     // "!pattern" re-includes
	dirOnly bool     // "pattern/" matches folders only
}

// parseIgnore reads patterns from data, each relative to base.
func parseIgnore(data []byte, base []string) []*ignorePattern {
	var out []*ignorePattern
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		if p := parseIgnoreLine(sc.Text(), base); p != nil {
			out = append(out, p)
		}
	}
	return out
}

func parseIgnoreLine(line string, base []string) *ignorePattern {
	line = strings.TrimSuffix(line, "\r")
	if line == "" || line[0] == '#' {
		return nil
	}
	// Trailing spaces go, unless escaped with a backslash.
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, "\\ ") {
		line = line[:len(line)-1]
	}
	p := &ignorePattern{base: base}
	if line[0] == '!' {
		p.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return nil
	}
	// A slash at the start or in the middle anchors the pattern to its
	// folder; otherwise it matches a name at any depth.
	if strings.Contains(line, "/") {
		line = strings.TrimPrefix(line, "/")
		p.segs = strings.Split(line, "/")
	} else {
		p.segs = []string{"**", line}
	}
	return p
}

// match reports whether rel (segments from the repository root) matches.
func (p *ignorePattern) match(rel []string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	if len(rel) <= len(p.base) {
		return false
	}
	for i, b := range p.base {
		if rel[i] != b {
			return false
		}
	}
	return matchSegs(p.segs, rel[len(p.base):])
}

func matchSegs(segs, names []string) bool {
	for len(segs) > 0 {
		if segs[0] == "**" {
			if len(segs) == 1 {
				return len(names) > 0 // "dir/**": everything inside, not dir itself
			}
			for i := 0; i <= len(names); i++ {
				if matchSegs(segs[1:], names[i:]) {
					return true
				}
			}
			return false
		}
		if len(names) == 0 || !matchName(segs[0], names[0]) {
			return false
		}
		segs, names = segs[1:], names[1:]
	}
	return len(names) == 0
}

// matchName matches one path segment with git's wildmatch rules mapped
// onto path.Match: "[!x]" is "[^x]", and "**" inside a segment is "*".
// POSIX classes ("[[:alpha:]]") are not supported: they never match.
func matchName(pat, name string) bool {
	if !strings.ContainsAny(pat, `*?[\`) {
		return pat == name
	}
	for strings.Contains(pat, "**") {
		pat = strings.ReplaceAll(pat, "**", "*")
	}
	pat = strings.ReplaceAll(pat, "[!", "[^")
	ok, err := path.Match(pat, name)
	return err == nil && ok
}

// ignoreSet is the patterns in force in one folder, outermost first; the
// last one that matches decides, as in git.
type ignoreSet []*ignorePattern

func (s ignoreSet) ignored(rel []string, isDir bool) bool {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i].match(rel, isDir) {
			return !s[i].negate
		}
	}
	return false
}

// with returns s plus the patterns of file (if it exists), leaving s as it
// was: sibling folders share the parent's slice.
func (s ignoreSet) with(file string, base []string) ignoreSet {
	data, err := os.ReadFile(file)
	if err != nil || len(data) == 0 {
		return s
	}
	more := parseIgnore(data, base)
	if len(more) == 0 {
		return s
	}
	out := make(ignoreSet, 0, len(s)+len(more))
	return append(append(out, s...), more...)
}
