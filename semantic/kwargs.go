package semantic

import (
	"github.com/loratune/loratune-fix/syntree"
)

// kwargs is what a call's **name argument holds, when the dict is built in
// view: name = dict(...) or {...} earlier in the same scope, then
// name["key"] = v and name.update(...). Entries map a key to its value node,
// which is where an edit goes ("edit the entry where it is defined").
type kwargs struct {
	entries map[string]*syntree.Node
	// opaque: a splat whose content cannot be known (a call's result, a
	// parameter, a dict with **other inside, an update(...) of a variable).
	opaque bool
	// conditional: keys set in a nested block (under an if, a loop), so on
	// some paths only.
	conditional map[string]bool
}

// resolveKwargs reads every **splat of a call's arguments.
func (f *Facts) resolveKwargs(call *Call) kwargs {
	kw := kwargs{entries: map[string]*syntree.Node{}, conditional: map[string]bool{}}
	for _, a := range call.Args.NamedChildren() {
		if a.Type() != "dictionary_splat" {
			continue
		}
		expr := a.NamedChild(0)
		if expr == nil || expr.Type() != "identifier" {
			kw.opaque = true
			continue
		}
		if !f.readDict(expr, call, &kw) {
			kw.opaque = true
		}
	}
	return kw
}

// readDict fills kw from the definition of the dict variable name and its
// later updates before the call; false when the definition is not a dict
// built in view.
func (f *Facts) readDict(splat *syntree.Node, call *Call, kw *kwargs) bool {
	text := f.Src.Text
	name := splat.Content(text)
	r := f.ReachingAt(splat)
	if len(r.Defs) != 1 || r.MaybeUnbound {
		return false // built differently on different paths
	}
	def := f.assignOf(r.Defs[0], name)
	if def == nil || !dictLiteral(def.Value, text, kw.entries, f.privateDict(kw.entries, 0)) {
		return false
	}
	defBlock := Statement(def.Node).Parent()
	nested := func(n *syntree.Node) bool {
		stmt := Statement(n)
		return stmt == nil || !stmt.Parent().Equal(defBlock)
	}
	for _, a := range f.Assigns {
		if a.Func != def.Func || a.Node.StartByte() < def.Node.EndByte() || a.Node.EndByte() > call.Node.StartByte() {
			continue
		}
		if a.Target.Type() == "subscript" && Compact(a.Target.ChildByFieldName("value").Content(text)) == name {
			key, ok := StringValue(a.Target.ChildByFieldName("subscript"), text)
			if !ok {
				return false
			}
			kw.entries[key] = a.Value
			kw.conditional[key] = nested(a.Node)
		}
	}
	for _, c := range f.Calls {
		if c.Dotted != name+".update" || c.Func != def.Func || c.Node.StartByte() < def.Node.EndByte() || c.Node.EndByte() > call.Node.StartByte() {
			continue
		}
		for _, arg := range RealArgs(c.Args) {
			switch arg.Type() {
			case "keyword_argument":
				key := arg.ChildByFieldName("name").Content(text)
				kw.entries[key] = arg.ChildByFieldName("value")
				kw.conditional[key] = nested(c.Node)
			default:
				added := map[string]*syntree.Node{}
				if !DictEntries(arg, text, added) {
					return false
				}
				for key, v := range added {
					kw.entries[key] = v
					kw.conditional[key] = nested(c.Node)
				}
			}
		}
	}
	return true
}

// privateDict reads the **other inside a dict literal ({**base, "k": v})
// into entries through other's own literal, when that splat is other's
// only use (so an edit of one of its entries changes nothing else) and
// other is bound once before it.
func (f *Facts) privateDict(entries map[string]*syntree.Node, depth int) func(*syntree.Node) bool {
	text := f.Src.Text
	return func(expr *syntree.Node) bool {
		if depth > 3 || expr.Type() != "identifier" {
			return false
		}
		name := expr.Content(text)
		if len(Identifiers(f.Root, name, text)) != 2 {
			return false // read or written elsewhere
		}
		r := f.ReachingAt(expr)
		if len(r.Defs) != 1 || r.MaybeUnbound {
			return false
		}
		def := f.assignOf(r.Defs[0], name)
		return def != nil && dictLiteral(def.Value, text, entries, f.privateDict(entries, depth+1))
	}
}

// DictEntries reads {"k": v, ...} or dict(k=v, ...) into entries; false for
// anything else, or a dict with **other or a computed key inside.
func DictEntries(n *syntree.Node, text []byte, entries map[string]*syntree.Node) bool {
	return dictLiteral(n, text, entries, nil)
}

// dictLiteral is DictEntries with a reader for **other inside the dict
// (nil: such a dict is not read). Entries are read in order, so a key
// written after **other overrides other's.
func dictLiteral(n *syntree.Node, text []byte, entries map[string]*syntree.Node, splat func(expr *syntree.Node) bool) bool {
	readSplat := func(a *syntree.Node) bool {
		return splat != nil && a.NamedChildCount() == 1 && splat(a.NamedChild(0))
	}
	switch n.Type() {
	case "dictionary":
		for _, p := range n.NamedChildren() {
			switch p.Type() {
			case "comment":
				continue
			case "dictionary_splat":
				if !readSplat(p) {
					return false
				}
			case "pair":
				key, ok := StringValue(p.ChildByFieldName("key"), text)
				if !ok {
					return false
				}
				entries[key] = p.ChildByFieldName("value")
			default:
				return false
			}
		}
		return true
	case "call":
		if fn := n.ChildByFieldName("function"); fn == nil || fn.Content(text) != "dict" {
			return false
		}
		for _, arg := range RealArgs(n.ChildByFieldName("arguments")) {
			switch {
			case arg.Type() == "dictionary_splat":
				if !readSplat(arg) {
					return false
				}
			case arg.Type() != "keyword_argument":
				return false
			default:
				entries[arg.ChildByFieldName("name").Content(text)] = arg.ChildByFieldName("value")
			}
		}
		return true
	}
	return false
}

// Arg is the value given to keyword name: in the call itself or in a
// **kwargs dict built in view; nil when it is not given (or cannot be
// known: see Opaque).
func (l *Load) Arg(name string, text []byte) *syntree.Node {
	if v := KeywordValue(l.Args, name, text); v != nil {
		return v
	}
	return l.kwargs.entries[name]
}

// Opaque reports a **kwargs whose content is unknown: a keyword may be
// hiding in it, so nothing may be added.
func (l *Load) Opaque() bool { return l.kwargs.opaque }
