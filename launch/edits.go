package launch

import (
	"fmt"
	"strings"

	"github.com/loratune/loratune-fix/rewrite"
)

// The edits a launch-file fix makes: a scalar's text replaced inside its
// quotes, a key renamed, a top-level key added on a line of its own.

func setScalar(s scalar, to string) rewrite.Edit {
	return rewrite.Edit{Start: s.start, End: s.end, NewText: to}
}

// setWord replaces a shell word's value where it is held: the literal, or
// the variable's assignment.
func setWord(w *word, to string) rewrite.Edit {
	return rewrite.Edit{Start: w.start, End: w.end, NewText: to}
}

func renameKey(p *pair, text []byte, to string) (rewrite.Edit, bool) {
	k, ok := scalarOf(p.node.ChildByFieldName("key"), text)
	if !ok {
		return rewrite.Edit{}, false
	}
	return setScalar(k, to), true
}

// addKey adds "key: value" as the last key of a block mapping at the top of
// the file, with the indentation of its first key and the file's line
// ending; false for a flow (JSON) mapping.
func (f *file) addKey(key, value string) (rewrite.Edit, bool) {
	m := f.top
	if m == nil || m.flow || len(m.pairs) == 0 {
		return rewrite.Edit{}, false
	}
	first := int(m.pairs[0].node.StartByte())
	indent := string(f.text[f.src.LineStart(first):first])
	if strings.Trim(indent, " ") != "" {
		return rewrite.Edit{}, false // a mapping after "- " or "--- ": not a plain top level
	}
	last := m.pairs[len(m.pairs)-1].node
	end := int(last.EndByte())
	if end > int(last.StartByte()) {
		end--
	}
	at := f.src.LineEnd(end)
	line := fmt.Sprintf("%s%s: %s%s", indent, key, value, f.src.EOL)
	if at == len(f.text) && (at == 0 || f.text[at-1] != '\n') {
		line = f.src.EOL + strings.TrimSuffix(line, f.src.EOL)
	}
	return rewrite.Edit{Start: at, End: at, NewText: line}, true
}

// keySpan is where a finding about a pair points: its key.
func keySpan(p *pair) (int, int) {
	return int(p.keyN.StartByte()), int(p.keyN.EndByte())
}

// pairSpan covers the key and a scalar value.
func pairSpan(p *pair) (int, int) {
	end := int(p.keyN.EndByte())
	if p.value != nil && p.sub == nil {
		end = int(p.value.EndByte())
	}
	return int(p.keyN.StartByte()), end
}

// addFlag adds "--name value" at the end of a command: on a line of its
// own, after a backslash, where the command spans lines; else after a
// space.
func (p *pass) addFlag(c *command, name, value string) (rewrite.Edit, bool) {
	src, text := p.f.src, p.f.text
	end := int(c.node.EndByte())
	start := int(c.node.StartByte())
	opt := "--" + name
	if value != "" {
		opt += " " + value
	}
	if src.LineStart(end) == src.LineStart(start) {
		return rewrite.Edit{Start: end, End: end, NewText: " " + opt}, true
	}
	// The indentation of the command's last line.
	ls := src.LineStart(end)
	indent := ls
	for indent < end && (text[indent] == ' ' || text[indent] == '\t') {
		indent++
	}
	return rewrite.Edit{Start: end, End: end, NewText: " \\" + src.EOL + string(text[ls:indent]) + opt}, true
}
