package launch

import (
	"path"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/loratune/loratune-fix/treewalk"
)

// command is one training launch of a shell script: the launcher, the
// script or config file it runs, the launcher's own options and the
// options given to the script.
type command struct {
	node     *sitter.Node
	launcher string // "python", "torchrun", "accelerate launch", "deepspeed", "llamafactory-cli train", "axolotl train", "trl sft", "swift sft"
	script   *word  // the Python script (python, torchrun, accelerate, deepspeed) or the config file (llamafactory-cli, axolotl); nil for trl
	pre      []*flag
	flags    []*flag
	// overrides are the words after the config of llamafactory-cli
	// train: key=value settings that override the YAML's.
	overrides []*sitter.Node
}

// word is a shell word whose value a rule reads: a literal, or a variable
// assigned once, earlier, to a literal.
type word struct {
	node *sitter.Node
	text string
	// known: text is the value the command gets; start..end are the bytes
	// that hold it (inside quotes; in the assignment for a variable).
	known      bool
	start, end int
	variable   string // the variable the value comes from, "" for a literal
	array      bool   // variable is an array the command expands (spliceArrays)
	fallback   bool   // the value is the default of ${variable:-value}: the environment can override it
	shared     bool   // the variable has other uses: an edit would change them too
	assignment *sitter.Node
}

// flag is one --name [value] option; name is written with underscores.
type flag struct {
	name  string
	node  *sitter.Node // the word holding --name
	value *word        // nil for a bare switch (--use_peft)
}

// get returns the last flag of that name, as argparse keeps the last one.
func getFlag(fs []*flag, name string) *flag {
	var out *flag
	for _, f := range fs {
		if f.name == name {
			out = f
		}
	}
	return out
}

// shell is a parsed shell script: its training commands, and what
// resolving variables needs.
type shell struct {
	text     []byte
	root     *sitter.Node
	commands []*command
	assigns  map[string][]*sitter.Node // variable name -> its assignments
	uses     map[string]int            // variable name -> expansions of it
	// fromArray names the array each element spliced into a command came
	// from, by the element's start byte (see spliceArrays).
	fromArray map[uint32]string
}

func readShell(root *sitter.Node, text []byte) *shell {
	s := &shell{text: text, root: root, assigns: map[string][]*sitter.Node{}, uses: map[string]int{}, fromArray: map[uint32]string{}}
	var cmds []*sitter.Node
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		switch n.Type() {
		case "variable_assignment":
			if name := n.ChildByFieldName("name"); name != nil {
				s.assigns[name.Content(text)] = append(s.assigns[name.Content(text)], n)
			}
		case "simple_expansion", "expansion":
			for _, c := range treewalk.NamedChildren(n) {
				if c.Type() == "subscript" {
					c = c.ChildByFieldName("name") // ${ARGS[@]}
				}
				if c != nil && c.Type() == "variable_name" {
					s.uses[c.Content(text)]++
				}
			}
		case "command":
			cmds = append(cmds, n)
		}
		for _, c := range treewalk.NamedChildren(n) {
			walk(c)
		}
	}
	walk(root)
	for _, n := range cmds {
		if c := s.command(n); c != nil {
			s.commands = append(s.commands, c)
		}
	}
	return s
}

// words are a command's name and arguments, wrappers (nohup, exec, env,
// time) taken off.
func (s *shell) words(n *sitter.Node) []*sitter.Node {
	var ws []*sitter.Node
	for _, f := range treewalk.Fields(n) {
		c := f.Node
		switch f.Name {
		case "name":
			if c.NamedChildCount() == 1 {
				ws = append(ws, c.NamedChild(0))
			} else {
				ws = append(ws, c)
			}
		case "argument":
			ws = append(ws, c)
		}
	}
	ws = s.spliceArrays(n, ws)
	for len(ws) > 0 {
		switch s.lit(ws[0]) {
		case "nohup", "exec", "time":
			ws = ws[1:]
		case "env":
			ws = ws[1:]
			for len(ws) > 0 && strings.Contains(s.lit(ws[0]), "=") && !strings.HasPrefix(s.lit(ws[0]), "-") {
				ws = ws[1:]
			}
		default:
			return ws
		}
	}
	return ws
}

// spliceArrays puts in place of each "${NAME[@]}" (or ${NAME[@]}, [*])
// among the words of command n the elements of the array NAME, when NAME
// is assigned once, before the command, to an array literal: options kept
// in an array are read, and fixed in the array, as if written on the
// command line.
func (s *shell) spliceArrays(n *sitter.Node, ws []*sitter.Node) []*sitter.Node {
	var out []*sitter.Node
	for _, w := range ws {
		name, ok := s.arrayExpansion(w)
		as := s.assigns[name]
		if !ok || len(as) != 1 || as[0].StartByte() > n.StartByte() {
			out = append(out, w)
			continue
		}
		v := as[0].ChildByFieldName("value")
		if v == nil || v.Type() != "array" {
			out = append(out, w)
			continue
		}
		for _, e := range treewalk.NamedChildren(v) {
			if e.Type() == "comment" {
				continue
			}
			s.fromArray[e.StartByte()] = name
			out = append(out, e)
		}
	}
	return out
}

// arrayExpansion names the array a word expands whole: "${NAME[@]}",
// ${NAME[@]}, or the same with [*].
func (s *shell) arrayExpansion(w *sitter.Node) (string, bool) {
	if w.Type() == "string" && w.NamedChildCount() == 1 {
		w = w.NamedChild(0)
	}
	if w.Type() != "expansion" || w.NamedChildCount() != 1 || w.ChildCount() != 3 {
		return "", false
	}
	sub := w.NamedChild(0)
	if sub.Type() != "subscript" {
		return "", false
	}
	name, index := sub.ChildByFieldName("name"), sub.ChildByFieldName("index")
	if name == nil || index == nil {
		return "", false
	}
	if i := index.Content(s.text); i != "@" && i != "*" {
		return "", false
	}
	return name.Content(s.text), true
}

// lit is a word's literal text, "" when it holds an expansion or escape.
func (s *shell) lit(n *sitter.Node) string {
	w := s.word(n)
	if w == nil || !w.known || w.variable != "" {
		return ""
	}
	return w.text
}

// swiftTrains are ms-swift's training subcommands (swift sft, rlhf, pt).
var swiftTrains = map[string]bool{"sft": true, "rlhf": true, "pt": true}

// command recognises a training launch.
func (s *shell) command(n *sitter.Node) *command {
	ws := s.words(n)
	if len(ws) == 0 {
		return nil
	}
	name := path.Base(s.lit(ws[0]))
	c := &command{node: n}
	rest := ws[1:]
	switch {
	case name == "python" || strings.HasPrefix(name, "python3") || name == "python2":
		c.launcher = "python"
	case name == "torchrun" || name == "deepspeed":
		c.launcher = name
	case name == "accelerate" && len(rest) > 0 && s.lit(rest[0]) == "launch":
		c.launcher, rest = "accelerate launch", rest[1:]
	case (name == "llamafactory-cli" || name == "lmf") && len(rest) > 0 && s.lit(rest[0]) == "train":
		c.launcher = "llamafactory-cli train"
		switch {
		case len(rest) > 1 && strings.HasPrefix(s.lit(rest[1]), "--"):
			c.flags = s.flags(rest[1:]) // the settings as options, no YAML
		case len(rest) > 1:
			c.script, c.flags, c.overrides = s.word(rest[1]), s.flags(rest[2:]), rest[2:]
		}
		return c
	case name == "axolotl" && len(rest) > 0 && s.lit(rest[0]) == "train":
		c.launcher = "axolotl train"
		if len(rest) > 1 {
			c.script, c.flags = s.word(rest[1]), s.flags(rest[2:])
		}
		return c
	case name == "trl" && len(rest) > 0 && s.lit(rest[0]) == "sft":
		c.launcher = "trl sft"
		c.flags = s.flags(rest[1:])
		return c
	case name == "swift" && len(rest) > 0 && swiftTrains[s.lit(rest[0])]:
		c.launcher = "swift " + s.lit(rest[0])
		c.flags = s.flags(rest[1:])
		return c
	default:
		return nil
	}
	// The launcher's options run up to the script: the first *.py word,
	// or the module after -m.
	for i, a := range rest {
		t := s.lit(a)
		if strings.HasSuffix(t, ".py") && !strings.HasPrefix(t, "-") {
			c.pre, c.script, c.flags = s.flags(rest[:i]), s.word(a), s.flags(rest[i+1:])
			return c
		}
		if t == "-m" && i+1 < len(rest) {
			switch s.lit(rest[i+1]) {
			case "axolotl.cli.train":
				c.launcher = "axolotl train"
				if i+2 < len(rest) {
					c.script = s.word(rest[i+2])
					c.flags = s.flags(rest[i+3:])
				}
				return c
			case "torch.distributed.run", "torch.distributed.launch":
				// python -m torch.distributed.run ... train.py: torchrun.
				c.launcher, rest = "torchrun", rest[i+2:]
				for j, b := range rest {
					if t := s.lit(b); strings.HasSuffix(t, ".py") && !strings.HasPrefix(t, "-") {
						c.pre, c.script, c.flags = s.flags(rest[:j]), s.word(b), s.flags(rest[j+1:])
						return c
					}
				}
			}
			return nil
		}
	}
	return nil
}

// flags reads --name value, --name=value and bare --switch options; a
// word that is not an option (a positional argument) is skipped.
func (s *shell) flags(ws []*sitter.Node) []*flag {
	var out []*flag
	for i := 0; i < len(ws); i++ {
		n := ws[i]
		if f := s.inlineFlag(n); f != nil {
			out = append(out, f)
			continue
		}
		t := s.lit(n)
		if !strings.HasPrefix(t, "--") || len(t) < 3 {
			continue
		}
		f := &flag{name: optionName(t), node: n}
		if i+1 < len(ws) && !strings.HasPrefix(s.lit(ws[i+1]), "-") {
			f.value = s.word(ws[i+1])
			s.inArray(f.value)
			i++
		}
		out = append(out, f)
	}
	return out
}

// inArray marks a value spliced from an array (spliceArrays) that the
// script expands elsewhere too: an edit of the array would change those.
func (s *shell) inArray(w *word) {
	if name, ok := s.fromArray[w.node.StartByte()]; ok && w.variable == "" {
		w.variable, w.array, w.shared = name, true, s.uses[name] > 1
	}
}

func optionName(t string) string {
	return strings.ReplaceAll(strings.TrimLeft(t, "-"), "-", "_")
}

// inlineFlag reads --name=value: one word, or --name= followed by an
// expansion.
func (s *shell) inlineFlag(n *sitter.Node) *flag {
	text := s.text
	switch n.Type() {
	case "word":
		t := n.Content(text)
		name, val, ok := strings.Cut(t, "=")
		if !ok || !strings.HasPrefix(name, "--") || strings.ContainsAny(t, `\$'"`) {
			return nil
		}
		start := int(n.StartByte()) + len(name) + 1
		return &flag{name: optionName(name), node: n, value: &word{node: n, text: val, known: true, start: start, end: start + len(val)}}
	case "concatenation":
		if n.NamedChildCount() != 2 || n.NamedChild(0).Type() != "word" {
			return nil
		}
		head := n.NamedChild(0).Content(text)
		if !strings.HasPrefix(head, "--") || !strings.HasSuffix(head, "=") || strings.Count(head, "=") != 1 {
			return nil
		}
		return &flag{name: optionName(strings.TrimSuffix(head, "=")), node: n, value: s.word(n.NamedChild(1))}
	}
	return nil
}

// word reads a word's value: a literal (plain, "quoted" or 'quoted'), or
// $VAR / ${VAR} / "$VAR" assigned once before the command to a literal.
// The word is returned with known false when its value cannot be told.
func (s *shell) word(n *sitter.Node) *word {
	text := s.text
	w := &word{node: n}
	switch n.Type() {
	case "word", "number":
		t := n.Content(text)
		if strings.ContainsAny(t, `\$`) {
			return w
		}
		w.text, w.known, w.start, w.end = t, true, int(n.StartByte()), int(n.EndByte())
	case "raw_string":
		w.text, w.known, w.start, w.end = strings.Trim(n.Content(text), "'"), true, int(n.StartByte())+1, int(n.EndByte())-1
	case "string":
		switch {
		case n.NamedChildCount() == 0:
			w.known, w.start, w.end = true, int(n.StartByte())+1, int(n.EndByte())-1
		case n.NamedChildCount() == 1 && n.NamedChild(0).Type() == "string_content":
			c := n.NamedChild(0)
			if strings.ContainsAny(c.Content(text), `\$`+"`") {
				return w
			}
			w.text, w.known, w.start, w.end = c.Content(text), true, int(c.StartByte()), int(c.EndByte())
		case n.NamedChildCount() == 1:
			return s.variable(n.NamedChild(0), w)
		}
	case "simple_expansion", "expansion":
		return s.variable(n, w)
	}
	return w
}

// variable resolves $VAR or ${VAR}: known when VAR is assigned exactly
// once in the script, before the use, to a literal, or to the default of
// ${VAR:-literal}. ${VAR:-literal} itself reads as its default.
func (s *shell) variable(n *sitter.Node, w *word) *word {
	if def := s.fallback(n); def != nil {
		def.node = n
		return def
	}
	if n.NamedChildCount() != 1 || n.NamedChild(0).Type() != "variable_name" {
		return w // ${#VAR}, ${VAR:+alt}, ...
	}
	if n.Type() == "expansion" && n.ChildCount() != 3 {
		return w
	}
	name := n.NamedChild(0).Content(s.text)
	as := s.assigns[name]
	if len(as) != 1 || as[0].StartByte() > n.StartByte() {
		return w
	}
	v := as[0].ChildByFieldName("value")
	if v == nil {
		return w
	}
	val := s.word(v)
	uses := s.uses[name]
	switch {
	case !val.known:
		return w
	case val.fallback && val.variable == name:
		uses-- // VAR=${VAR:-default} reads VAR once itself
	case val.variable != "":
		return w
	}
	val.node, val.variable, val.assignment = n, name, as[0]
	val.shared = uses > 1
	return val
}

// fallback reads ${VAR:-value} (or ${VAR-value}, ${VAR:=value}) as value,
// the default the script chose, when value is a literal; nil otherwise.
func (s *shell) fallback(n *sitter.Node) *word {
	if n.Type() != "expansion" || n.ChildCount() != 5 || n.NamedChildCount() != 2 {
		return nil
	}
	name, def := n.NamedChild(0), n.NamedChild(1)
	if name.Type() != "variable_name" {
		return nil
	}
	switch n.Child(2).Type() {
	case ":-", "-", ":=", "=":
	default:
		return nil
	}
	val := s.word(def)
	if !val.known || val.variable != "" {
		return nil
	}
	val.variable, val.fallback = name.Content(s.text), true
	return val
}

// configPath is the path a launcher option names, "" when not literal.
func (f *flag) path() string {
	if f == nil || f.value == nil || !f.value.known {
		return ""
	}
	return f.value.text
}
