package rewrite

import (
	"bytes"
	"regexp"
	"sort"
	"strings"

	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/signatures"
	"github.com/loratune/loratune-fix/syntree"
)

// The keyword guard, beside the binding guard: a keyword that a fix
// writes into a call of a class the signatures table knows
// (TrainingArguments, SFTConfig, LoraConfig, Trainer ...) must be one the
// class takes at the pinned version of its library, or the newest where
// nothing is pinned. A keyword it does not take is a TypeError the first
// time the script runs (model_init_kwargs= on TrainingArguments, which
// only TRL's configs have). A fix that writes one is dropped, and its
// finding says why.

// KeywordGuardPrefix starts the reason given for a fix the keyword guard
// drops.
const KeywordGuardPrefix = "keyword guard: "

// Refused reports a reason of a fix that a guard dropped (binding or
// keyword): fix leaves it out, and check and review do not offer it.
func Refused(reason string) bool {
	return strings.HasPrefix(reason, GuardPrefix) || strings.HasPrefix(reason, KeywordGuardPrefix)
}

// unslothImport: unsloth patches TRL's configs to take more keywords
// than TRL's own (vllm_sampling_params), so they are not checked in a
// file that imports it.
var unslothImport = regexp.MustCompile(`(?m)^[ \t]*(?:from|import)[ \t]+unsloth\b`)

func importsUnsloth(text []byte) bool {
	return bytes.Contains(text, []byte("unsloth")) && unslothImport.Match(text)
}

// keywordGuard checks out, the text the edits applied (in before's
// offsets) made of before, for the fixes chosen: each keyword argument
// whose name lies in an edit's new text, in a call of a class of the
// table, must be accepted there, unless the text the edit replaced passed
// it already (a call written anew on several lines). It returns the fixes
// that fail. was is the parse of before, with what its pass found (the
// import aliases that resolve a callee, the pins); tree is out's.
func keywordGuard(before, out []byte, was, tree *parsed, applied []Edit, chosen []*Finding) []Refusal {
	if was.resolve == nil {
		return nil
	}
	root := tree.goTree().Root()
	var fails []Refusal
	for _, span := range outputSpans(applied) {
		if span.text == "" {
			continue
		}
		for _, kw := range keywordsIn(root, span.start, span.start+len(span.text)) {
			class := checkedClass(kw, out, was.resolve)
			if class == "" {
				continue
			}
			name := kw.ChildByFieldName("name").Content(out)
			if carried(before[span.edit.Start:span.edit.End], name) {
				continue // a call the edit writes anew with the keyword it had
			}
			why := signatures.Refuses(class, name, was.pins)
			if why == "" {
				continue
			}
			why = KeywordGuardPrefix + why + " (TypeError when the script runs)"
			for _, c := range chosen {
				if ownsEdit(c.Fix, span.edit) {
					fails = append(fails, Refusal{c, why})
				}
			}
		}
	}
	return fails
}

// carried reports old text that passes keyword name: "name=", not "name==".
func carried(old []byte, name string) bool {
	for i := 0; ; {
		j := bytes.Index(old[i:], []byte(name))
		if j < 0 {
			return false
		}
		at := i + j
		i = at + len(name)
		if at > 0 && isIdentByte(old[at-1]) {
			continue
		}
		rest := bytes.TrimLeft(old[i:], " \t")
		if len(rest) > 0 && rest[0] == '=' && (len(rest) == 1 || rest[1] != '=') {
			return true
		}
	}
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// keywordsIn lists the keyword arguments under root whose name starts in
// [from, to).
func keywordsIn(root *syntree.Node, from, to int) []*syntree.Node {
	var out []*syntree.Node
	var walk func(n *syntree.Node)
	walk = func(n *syntree.Node) {
		if int(n.EndByte()) <= from || int(n.StartByte()) >= to {
			return
		}
		switch n.Type() {
		case "keyword_argument":
			if name := n.ChildByFieldName("name"); name != nil && int(name.StartByte()) >= from && int(name.StartByte()) < to {
				out = append(out, n)
			}
		case "comment", "string":
			return
		}
		kids := n.NamedChildren()
		for _, c := range kids[sort.Search(len(kids), func(i int) bool { return int(kids[i].EndByte()) > from }):] {
			if int(c.StartByte()) >= to {
				break
			}
			walk(c)
		}
	}
	walk(root)
	return out
}

// checkedClass is the signatures table's class of the call that the
// keyword argument kw is passed to, its callee resolved through the
// file's imports (resolve), "" when there is none or it is not checked
// (TRL's configs where unsloth patches them).
func checkedClass(kw *syntree.Node, text []byte, resolve func(string) string) string {
	call := kw.Parent().Parent() // keyword_argument < argument_list < call
	if call == nil || call.Type() != "call" {
		return ""
	}
	dotted := semantic.DottedName(call.ChildByFieldName("function"), text)
	if dotted == "" {
		return ""
	}
	class := signatures.Class(resolve(dotted))
	if strings.HasPrefix(class, "trl.") && importsUnsloth(text) {
		return ""
	}
	return class
}

// KeywordUses counts, over a whole text, the keyword arguments passed to
// calls of the signatures table's classes, by "class keyword": what the
// keyword guard checks of a fix's lines. A test compares a fixed output
// with its input: every keyword the fixes added is taken at the pins.
func KeywordUses(text []byte) (map[string]int, error) {
	f, done, err := wholeText(text)
	if err != nil {
		return nil, err
	}
	defer done()
	out := map[string]int{}
	for _, kw := range keywordsIn(f.Root, 0, len(text)) {
		if class := checkedClass(kw, text, f.Resolve); class != "" {
			out[class+" "+kw.ChildByFieldName("name").Content(text)]++
		}
	}
	return out, nil
}
