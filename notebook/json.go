package notebook

import (
	"encoding/json"
	"fmt"
	"strings"
)

// node is a JSON value with its byte span in the document, so that a value
// can be replaced in place and every other byte kept.
type node struct {
	kind       byte // '{', '[', '"', or 'v' for numbers, true, false, null
	start, end int
	keys       []string // objects: member names, in order
	vals       []*node  // objects: member values; arrays: elements
}

// get is the value of an object's member key. Of a key given twice the
// last counts, as Python's json (which Jupyter reads with) and Go's have it.
func (n *node) get(key string) *node {
	for i := len(n.keys) - 1; i >= 0; i-- {
		if n.keys[i] == key {
			return n.vals[i]
		}
	}
	return nil
}

// scanner is a small JSON reader that records spans. The document is
// checked with json.Valid first, so it only has to be right on valid JSON.
type scanner struct {
	data []byte
	pos  int
}

// parseJSON reads the document that starts at offset from (after a byte
// order mark); node spans are offsets in data.
func parseJSON(data []byte, from int) (*node, error) {
	if !json.Valid(data[from:]) {
		var v any
		err := json.Unmarshal(data[from:], &v)
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	s := &scanner{data: data, pos: from}
	return s.value()
}

func (s *scanner) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// members reads an object's or array's members, one per call of member,
// from its opening byte to its closing byte close.
func (s *scanner) members(close byte, member func() error) error {
	s.pos++
	for {
		s.space()
		switch s.data[s.pos] {
		case close:
			s.pos++
			return nil
		case ',':
			s.pos++
			continue
		}
		if err := member(); err != nil {
			return err
		}
	}
}

func (s *scanner) value() (*node, error) {
	s.space()
	n := &node{start: s.pos}
	switch c := s.data[s.pos]; c {
	case '{':
		n.kind = '{'
		err := s.members('}', func() error {
			k, err := s.value()
			if err != nil {
				return err
			}
			var key string
			if err := json.Unmarshal(s.data[k.start:k.end], &key); err != nil {
				return err
			}
			s.space()
			s.pos++ // ':'
			v, err := s.value()
			if err != nil {
				return err
			}
			n.keys = append(n.keys, key)
			n.vals = append(n.vals, v)
			return nil
		})
		if err != nil {
			return nil, err
		}
	case '[':
		n.kind = '['
		err := s.members(']', func() error {
			v, err := s.value()
			if err != nil {
				return err
			}
			n.vals = append(n.vals, v)
			return nil
		})
		if err != nil {
			return nil, err
		}
	case '"':
		n.kind = '"'
		s.pos++
		for s.data[s.pos] != '"' {
			if s.data[s.pos] == '\\' {
				s.pos++
			}
			s.pos++
		}
		s.pos++
	default:
		n.kind = 'v'
		for s.pos < len(s.data) && !strings.ContainsRune(",}] \t\r\n", rune(s.data[s.pos])) {
			s.pos++
		}
	}
	n.end = s.pos
	return n, nil
}

func (s *scanner) str(n *node) (string, error) {
	var out string
	err := json.Unmarshal(s.data[n.start:n.end], &out)
	return out, err
}

// encodeString writes s as a JSON string the way Jupyter does
// (json.dumps with ensure_ascii=False): quotes, backslashes and control
// characters escaped, "/" and "<" left alone. ascii escapes every non-ASCII
// character as \uXXXX, for notebooks written with ensure_ascii=True.
func encodeString(s string, ascii bool) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20 || ascii && r >= 0x7f:
			if r > 0xffff {
				r -= 0x10000
				fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
