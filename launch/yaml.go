package launch

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/loratune/loratune-fix/treewalk"
)

// A YAML or JSON file is read with tree-sitter's YAML grammar: JSON is
// YAML's flow syntax, so one mapping model serves both, and every key and
// value keeps its exact byte range. A JSON file must also be valid JSON
// for encoding/json (the check that makes the grammar's reading exact),
// before and after a fix.

// mapping is a block or flow mapping: its pairs in file order.
type mapping struct {
	node  *sitter.Node
	flow  bool
	pairs []*pair
}

// pair is one key: value of a mapping.
type pair struct {
	key   string
	keyN  *sitter.Node // the key's scalar node
	node  *sitter.Node // the whole pair
	value *sitter.Node // the value's flow_node or block_node; nil for "key:"
	sub   *mapping     // the value, when it is a mapping
}

// get returns the pair of key, nil when absent; dup says the key appears
// more than once (the last one wins for the loaders; fixes stay away).
func (m *mapping) get(key string) (p *pair, dup bool) {
	if m == nil {
		return nil, false
	}
	for _, q := range m.pairs {
		if q.key == key {
			dup = p != nil
			p = q
		}
	}
	return p, dup
}

// lookup follows a dotted path of keys ("bf16.enabled").
func (m *mapping) lookup(path string) *pair {
	keys := strings.Split(path, ".")
	for i, k := range keys {
		p, _ := m.get(k)
		if p == nil || i == len(keys)-1 {
			return p
		}
		m = p.sub
	}
	return nil
}

// topMapping reads the single document of a YAML stream: nil when the
// stream has several documents or its root is not a mapping.
func topMapping(root *sitter.Node, text []byte) *mapping {
	var doc *sitter.Node
	for _, c := range treewalk.NamedChildren(root) {
		if c.Type() == "document" {
			if doc != nil {
				return nil
			}
			doc = c
		}
	}
	if doc == nil {
		return nil
	}
	for _, c := range treewalk.NamedChildren(doc) {
		if m := mappingOf(c, text); m != nil {
			return m
		}
	}
	return nil
}

// mappingOf reads a block_node or flow_node holding a mapping (after any
// anchor or tag), else nil.
func mappingOf(n *sitter.Node, text []byte) *mapping {
	if n == nil || n.Type() != "block_node" && n.Type() != "flow_node" {
		return nil
	}
	for _, c := range treewalk.NamedChildren(n) {
		switch c.Type() {
		case "block_mapping", "flow_mapping":
			m := &mapping{node: c, flow: c.Type() == "flow_mapping"}
			for _, pn := range treewalk.NamedChildren(c) {
				if pn.Type() != "block_mapping_pair" && pn.Type() != "flow_pair" {
					continue
				}
				k := pn.ChildByFieldName("key")
				key, ok := scalarOf(k, text)
				if !ok {
					continue // a complex key: nothing a rule reads
				}
				v := pn.ChildByFieldName("value")
				m.pairs = append(m.pairs, &pair{key: key.text, keyN: key.node, node: pn, value: v, sub: mappingOf(v, text)})
			}
			return m
		}
	}
	return nil
}

// scalar is a plain or quoted scalar: its text without quotes, and the
// byte range of that text (inside the quotes), which an edit replaces.
type scalar struct {
	text       string
	node       *sitter.Node
	start, end int
	quote      byte // 0, '"' or '\''
}

// scalarOf reads a flow_node holding a plain or quoted scalar without
// escapes, an anchor or a tag; ok is false for anything else (an alias, a
// mapping, a block scalar, an escaped string): values a fix cannot read
// exactly.
func scalarOf(n *sitter.Node, text []byte) (scalar, bool) {
	if n == nil || n.Type() != "flow_node" || n.NamedChildCount() != 1 {
		return scalar{}, false
	}
	c := n.NamedChild(0)
	s := scalar{node: c, start: int(c.StartByte()), end: int(c.EndByte())}
	switch c.Type() {
	case "plain_scalar":
	case "double_quote_scalar", "single_quote_scalar":
		if c.NamedChildCount() > 0 || s.end-s.start < 2 {
			return scalar{}, false // escape sequences
		}
		s.quote = text[s.start]
		s.start++
		s.end--
		if strings.Contains(string(text[s.start:s.end]), "\n") {
			return scalar{}, false // a folded multi-line string
		}
	default:
		return scalar{}, false
	}
	s.text = string(text[s.start:s.end])
	return s, true
}

// value is the scalar value of a pair, ok false when it is not one.
func (p *pair) scalar(text []byte) (scalar, bool) {
	if p == nil {
		return scalar{}, false
	}
	return scalarOf(p.value, text)
}

// boolean reads YAML 1.1 booleans as PyYAML does (true, True, yes, on...),
// and the strings "true"/"false" that HfArgumentParser and pydantic accept.
func boolean(s string) (value, ok bool) {
	switch strings.ToLower(s) {
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off":
		return false, true
	}
	return false, false
}

// falseLike spells false the way s spells true: true -> false, True ->
// False, TRUE -> FALSE, yes -> no, on -> off.
func falseLike(s string) string {
	word := map[string]string{"true": "false", "yes": "no", "on": "off"}[strings.ToLower(s)]
	switch {
	case s == strings.ToUpper(s):
		return strings.ToUpper(word)
	case s[:1] == strings.ToUpper(s[:1]):
		return strings.ToUpper(word[:1]) + word[1:]
	}
	return word
}

// isTrue reports a pair whose value is a true boolean.
func (p *pair) isTrue(text []byte) bool {
	s, ok := p.scalar(text)
	if !ok {
		return false
	}
	v, ok := boolean(s.text)
	return ok && v
}

// isFalse reports a pair whose value is a false boolean.
func (p *pair) isFalse(text []byte) bool {
	s, ok := p.scalar(text)
	if !ok {
		return false
	}
	v, ok := boolean(s.text)
	return ok && !v
}

// lookupScalar is the scalar value of a top-level key.
func (m *mapping) lookupScalar(key string, text []byte) (scalar, bool) {
	p, _ := m.get(key)
	return p.scalar(text)
}
