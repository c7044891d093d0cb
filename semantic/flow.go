package semantic

import (
	"bytes"
	"cmp"
	"slices"
	"strings"

	"github.com/loratune/loratune-fix/syntree"
)

// The flow of names: which assignments may reach a read of a name (or of a
// dotted name such as self.model), and whether some path reaches it with
// the name unbound. It is the one "value of a name here" lookup of the
// engine, with one scope rule (Python's: a name bound anywhere in a
// function is local to all of it; other names are read from the enclosing
// function or the module), and the analysis of the binding guard.
//
// The walk follows the statements' control flow: if/elif/else, for and
// while (with else, break, continue), try/except/else/finally, with,
// match, del, return and raise. Each (scope, name) is walked once per file,
// on first use.

// Def is one binding of a name that may reach a read.
type Def struct {
	// Stmt is the statement that binds (nil for a parameter or a binding
	// outside the scope).
	Stmt *syntree.Node
	// Value is the expression bound, when there is one; nil for a loop
	// target, an import, a parameter, with ... as, an augmented assignment.
	Value *syntree.Node
	// Index is the position in an unpacked value (a, b = load()), -1 if none.
	Index int
	Kind  DefKind
}

// DefKind says how a name is bound.
type DefKind int

const (
	DefAssign DefKind = iota // name = value
	DefOpaque                // bound by something whose value the flow cannot see
	DefParam                 // a parameter of the function
	DefOuter                 // a dotted name set outside the scope (self.model)
	DefImport                // an import: the name stands for what it imports
)

// flowState is what holds at one point of the walk for one name.
type flowState struct {
	defs    []*Def
	unbound bool // some path reaches here with the name unbound
	dead    bool // no path reaches here (after return, raise, break)
}

func merge(states ...flowState) flowState {
	out := flowState{dead: true}
	for _, s := range states {
		if s.dead {
			continue
		}
		if out.dead {
			// Shared, clipped: the first def added below copies it. Most
			// merges add none (the branches bind nothing of the name).
			out = flowState{unbound: s.unbound}
			if len(s.defs) > 0 {
				out.defs = s.defs[:len(s.defs):len(s.defs)]
			}
			continue
		}
		out.unbound = out.unbound || s.unbound
		for _, d := range s.defs {
			if !containsDef(out.defs, d) {
				out.defs = append(out.defs, d)
			}
		}
	}
	return out
}

func containsDef(defs []*Def, d *Def) bool {
	for _, x := range defs {
		if x == d {
			return true
		}
	}
	return false
}

// flowKey names one walk.
type flowKey struct {
	scope *Func
	key   string
}

// flowResult is one walk: the state at each read of the name and at the
// start of each statement, by start byte.
type flowResult struct {
	reads map[uint32]flowState
	// stmts are kept in the order walked, which is the order of the text
	// (a slice costs far less than a map entry per statement and walk);
	// before reads them by start byte.
	stmts     []stmtState
	readNodes []*syntree.Node // the reads, in the order walked
	all       []*Def          // every binding in the scope
	local     bool            // the scope binds the name (else it is read from outside)
	outer     *flowState
}

type walker struct {
	f      *Facts
	key    string
	root   string // the key's first name
	text   []byte
	record bool
	res    *flowResult
	loops  []*loopExits
	local  bool
	// seen are the offsets in the text where root's bytes occur (as a
	// name or inside a longer one), in order; gated: root is a plain
	// name, so that seen can answer mentions.
	seen  []int
	gated bool
}

type loopExits struct{ breaks, continues []flowState }

// flow walks scope fn for key once and keeps the result.
func (f *Facts) flow(fn *Func, key string) *flowResult {
	k := flowKey{fn, key}
	if r, ok := f.flows[k]; ok {
		return r
	}
	if f.flows == nil {
		f.flows = map[flowKey]*flowResult{}
	}
	root, _, _ := strings.Cut(key, ".")
	w := &walker{f: f, key: key, root: root, text: f.Src.Text, record: true,
		res: &flowResult{}}
	f.flows[k] = w.res
	body := f.Root
	init := flowState{unbound: true}
	if fn.Node != nil {
		body = fn.Body
	}
	w.seen = f.Occurrences(root)
	w.gated = FlowGate && PlainDotted([]byte(root))
	w.res.stmts = make([]stmtState, 0, f.stmtsIn[fn])
	if fn.Node != nil {
		if strings.Contains(key, ".") {
			init = flowState{defs: []*Def{{Kind: DefOuter, Index: -1}}}
		} else if p := ParamNode(fn, key, w.text); p != nil {
			init = flowState{defs: []*Def{{Kind: DefParam, Value: p, Index: -1}}}
			w.local = true
		}
	}
	w.block(body, init)
	if f.stmtsIn == nil {
		f.stmtsIn = map[*Func]int{}
	}
	f.stmtsIn[fn] = len(w.res.stmts) // the same for every key: the next walk's room
	if !slices.IsSortedFunc(w.res.stmts, byStart) {
		slices.SortStableFunc(w.res.stmts, byStart) // (before finds the last)
	}
	w.res.local = w.local || len(w.res.all) > 0
	if fn.Node != nil && w.declaredOuter(body) {
		w.res.local = false
	}
	return w.res
}

// Occurrences are the offsets where word occurs in the text as a whole
// word (no letter, digit or _ either side), in order, found once per
// word: the walks of one name in several scopes share them. (A name in
// the code is such a word; "model" in model_id is not.)
func (f *Facts) Occurrences(word string) []int {
	if at, ok := f.seen[word]; ok {
		return at
	}
	var out []int
	text := f.Src.Text
	// The word is looked for where its rarest byte is (byteFreq): a byte
	// search for it stops at far fewer places than one for its first
	// byte, as bytes.Index's does (a third of the flow's time went there).
	k := rarestByte(word)
	for at := 0; word != ""; {
		i := bytes.IndexByte(text[at:], word[k])
		if i < 0 {
			break
		}
		at += i + 1
		start := at - 1 - k // where the word would start
		// (The last byte first: most places of the rare byte are in other
		// words, and one comparison tells.)
		end := start + len(word)
		if start < 0 || end > len(text) || text[end-1] != word[len(word)-1] || string(text[start:end]) != word {
			continue
		}
		if (start == 0 || !IsWordByte(text[start-1])) && (end == len(text) || !IsWordByte(text[end])) {
			out = append(out, start)
		}
	}
	if f.seen == nil {
		f.seen = map[string][]int{}
	}
	f.seen[word] = out
	return out
}

// rarestByte is the position in word of its byte least frequent in
// Python source (the first of equals).
func rarestByte(word string) int {
	k := 0
	for i := 1; i < len(word); i++ {
		if FreqOf(word[i]) < FreqOf(word[k]) {
			k = i
		}
	}
	return k
}

// wordWithin reports word written as a whole word inside n's text.
func (f *Facts) wordWithin(word string, n *syntree.Node) bool {
	at := f.Occurrences(word)
	i, _ := slices.BinarySearch(at, int(n.StartByte()))
	return i < len(at) && at[i]+len(word) <= int(n.EndByte())
}

// FlowGate turns mentions and the look for global and nonlocal on; a
// test turns it off to check that the walk finds the same without them.
var FlowGate = true

// mentions reports whether n's text holds the key's first name. Only a
// node that does can read or bind the key: one that does not leaves the
// state as it is, and the walk need not look inside it. (Most of a scope
// never names a given key: without this, each walk read every expression
// of the scope.) A key whose first name is not a plain name (a[0].x,
// compacted from "a[ 0 ].x") is looked for everywhere.
func (w *walker) mentions(n *syntree.Node) bool {
	if !w.gated {
		return true
	}
	i, _ := slices.BinarySearch(w.seen, int(n.StartByte()))
	return i < len(w.seen) && w.seen[i]+len(w.root) <= int(n.EndByte())
}

// declaredOuter reports "global key" or "nonlocal key" in the scope.
func (w *walker) declaredOuter(body *syntree.Node) bool {
	// (Most bodies hold neither word: no walk. Where the words are is
	// found once per file, not once per walk.)
	if FlowGate && !w.f.wordWithin("global", body) && !w.f.wordWithin("nonlocal", body) {
		return false
	}
	found := false
	var walk func(n *syntree.Node)
	walk = func(n *syntree.Node) {
		for _, c := range n.NamedChildren() {
			if found {
				break
			}
			switch c.Type() {
			case "global_statement", "nonlocal_statement":
				for _, cj := range c.NamedChildren() {
					if cj.Content(w.text) == w.root {
						found = true
					}
				}
			case "function_definition", "class_definition", "lambda":
			default:
				if w.mentions(c) {
					walk(c)
				}
			}
		}
	}
	walk(body)
	return found
}

// clip is st to be recorded. It shares st's defs, clipped: the flow only
// ever appends to a fresh copy (merge) or makes a new slice (bind), so a
// recorded state cannot change under its reader.
func clip(st flowState) flowState {
	return flowState{defs: st.defs[:len(st.defs):len(st.defs)], unbound: st.unbound, dead: st.dead}
}

// stmtState is the state at the start of the statement starting at at.
type stmtState struct {
	at uint32
	st flowState
}

func byStart(a, b stmtState) int { return cmp.Compare(a.at, b.at) }

// before is the state recorded at the start of the statement starting at
// at (the last one recorded there, should there be two).
func (r *flowResult) before(at uint32) (flowState, bool) {
	// The first entry past at, then the one before it.
	i, _ := slices.BinarySearchFunc(r.stmts, at+1, func(s stmtState, at uint32) int { return cmp.Compare(s.at, at) })
	if i == 0 || r.stmts[i-1].at != at {
		return flowState{}, false
	}
	return r.stmts[i-1].st, true
}

// read records st at the read n.
func (w *walker) read(n *syntree.Node, st flowState) {
	if !w.record {
		return
	}
	if w.res.reads == nil {
		w.res.reads = map[uint32]flowState{} // (many walks see no read)
	}
	if _, seen := w.res.reads[n.StartByte()]; !seen {
		w.res.readNodes = append(w.res.readNodes, n)
	}
	w.res.reads[n.StartByte()] = clip(st)
}

func (w *walker) bind(st flowState, d *Def) flowState {
	if !containsDef(w.res.all, d) {
		w.res.all = append(w.res.all, d)
	}
	return flowState{defs: []*Def{d}, dead: st.dead}
}

func (w *walker) block(n *syntree.Node, st flowState) flowState {
	if n == nil {
		return st
	}
	for _, c := range n.NamedChildren() {
		if c.Type() == "comment" {
			continue
		}
		st = w.stmt(c, st)
	}
	return st
}

func (w *walker) stmt(n *syntree.Node, st flowState) flowState {
	if w.record {
		w.res.stmts = append(w.res.stmts, stmtState{n.StartByte(), clip(st)})
	}
	switch n.Type() {
	case "expression_statement":
		if !w.mentions(n) {
			return st
		}
		for _, ci := range n.NamedChildren() {
			st = w.expr(ci, n, st)
		}
		return st
	case "if_statement":
		cond := n.ChildByFieldName("condition")
		st = w.reads(cond, st)
		outs := append(make([]flowState, 0, 4), w.block(n.ChildByFieldName("consequence"), st))
		hasElse := w.mainGuard(cond)
		for _, c := range n.NamedChildren() {
			switch c.Type() {
			case "elif_clause":
				st = w.reads(c.ChildByFieldName("condition"), st)
				outs = append(outs, w.block(c.ChildByFieldName("consequence"), st))
			case "else_clause":
				hasElse = true
				outs = append(outs, w.block(c.ChildByFieldName("body"), st))
			}
		}
		if !hasElse {
			outs = append(outs, st)
		}
		return merge(outs...)
	case "for_statement", "while_statement":
		return w.loop(n, st)
	case "try_statement":
		return w.try(n, st)
	case "with_statement":
		for _, c := range n.NamedChildren() {
			if c.Type() == "with_clause" {
				for _, cj := range c.NamedChildren() {
					item := cj.ChildByFieldName("value")
					if item != nil && item.Type() == "as_pattern" {
						st = w.reads(item.NamedChild(0), st)
						if alias := item.ChildByFieldName("alias"); alias != nil {
							st = w.bindTarget(alias, nil, -1, n, st)
						}
					} else {
						st = w.reads(item, st)
					}
				}
			}
		}
		return w.block(n.ChildByFieldName("body"), st)
	case "match_statement":
		st = w.reads(n.ChildByFieldName("subject"), st)
		var outs []flowState
		exhaustive := false
		body := n.ChildByFieldName("body")
		for _, c := range body.NamedChildren() {
			if c.Type() != "case_clause" {
				continue
			}
			cs := st
			for _, p := range c.NamedChildren() {
				if p.Type() == "case_pattern" {
					if p.NamedChildCount() == 0 {
						exhaustive = true
					}
					if len(Identifiers(p, w.root, w.text)) > 0 && !strings.Contains(w.key, ".") {
						cs = w.bind(cs, &Def{Stmt: n, Index: -1, Kind: DefOpaque})
					}
				}
			}
			cs = w.reads(c.ChildByFieldName("guard"), cs)
			outs = append(outs, w.block(c.ChildByFieldName("consequence"), cs))
		}
		if !exhaustive {
			outs = append(outs, st)
		}
		return merge(outs...)
	case "decorated_definition":
		return w.stmt(n.ChildByFieldName("definition"), st)
	case "function_definition", "class_definition":
		if name := n.ChildByFieldName("name"); name != nil && name.Content(w.text) == w.key {
			return w.bind(st, &Def{Stmt: n, Index: -1, Kind: DefOpaque})
		}
		return st
	case "return_statement", "raise_statement":
		st = w.reads(n, st)
		st.dead = true
		return st
	case "break_statement", "continue_statement":
		if k := len(w.loops); k > 0 {
			if n.Type() == "break_statement" {
				w.loops[k-1].breaks = append(w.loops[k-1].breaks, st)
			} else {
				w.loops[k-1].continues = append(w.loops[k-1].continues, st)
			}
		}
		st.dead = true
		return st
	case "delete_statement":
		for _, t := range flatTargets(n) {
			if w.matches(t) {
				w.local = true
				st = flowState{unbound: true, dead: st.dead}
			} else {
				st = w.reads(t, st)
			}
		}
		return st
	case "import_statement", "import_from_statement":
		if !w.mentions(n) {
			return st
		}
		for _, name := range boundByImport(n, w.text) {
			if name == w.key || name == w.root && strings.Contains(w.key, ".") {
				st = w.bind(st, &Def{Stmt: n, Index: -1, Kind: DefImport})
			}
		}
		return st
	case "global_statement", "nonlocal_statement", "pass_statement", "comment":
		return st
	}
	return w.reads(n, st)
}

// mainGuard: if __name__ == "__main__" counts as taken (a script run as
// one). cond is the if statement's condition.
func (w *walker) mainGuard(cond *syntree.Node) bool {
	if cond == nil || !bytes.Contains(w.text[cond.StartByte():cond.EndByte()], []byte("__main__")) {
		return false // (most conditions: no copy of the text)
	}
	return strings.Contains(Compact(cond.Content(w.text)), "__name__==")
}

func (w *walker) loop(n *syntree.Node, st flowState) flowState {
	bindTarget := func(s flowState) flowState {
		if n.Type() == "for_statement" {
			return w.bindTarget(n.ChildByFieldName("left"), nil, -1, n, s)
		}
		return w.reads(n.ChildByFieldName("condition"), s)
	}
	if n.Type() == "for_statement" {
		st = w.reads(n.ChildByFieldName("right"), st)
	}
	body := n.ChildByFieldName("body")
	// Twice: the second time with what the first left at the end of the
	// body, so that a read sees the bindings of earlier iterations.
	w.loops = append(w.loops, &loopExits{})
	record := w.record
	w.record = false
	first := w.block(body, bindTarget(st))
	exits := w.loops[len(w.loops)-1]
	w.record = record
	entry := merge(append([]flowState{st, first}, exits.continues...)...)
	w.loops[len(w.loops)-1] = &loopExits{}
	last := w.block(body, bindTarget(entry))
	exits = w.loops[len(w.loops)-1]
	w.loops = w.loops[:len(w.loops)-1]
	out := merge(append([]flowState{entry, last}, exits.continues...)...)
	if n.Type() == "while_statement" {
		if c := n.ChildByFieldName("condition"); c != nil && c.Type() == "true" {
			out = flowState{dead: true} // leaves only through a break
		}
	}
	for _, c := range n.NamedChildren() {
		if c.Type() == "else_clause" {
			out = w.block(c.ChildByFieldName("body"), out)
		}
	}
	return merge(append([]flowState{out}, exits.breaks...)...)
}

func (w *walker) try(n *syntree.Node, st flowState) flowState {
	body := w.block(n.ChildByFieldName("body"), st)
	// A handler may start anywhere in the body: before or after any of it.
	entry := merge(st, body)
	normal := body
	var outs []flowState
	var fin *syntree.Node
	for _, c := range n.NamedChildren() {
		switch c.Type() {
		case "except_clause", "except_group_clause":
			hs := entry
			for _, x := range c.NamedChildren() {
				switch x.Type() {
				case "block":
					outs = append(outs, w.block(x, hs))
				case "as_pattern":
					hs = w.reads(x.NamedChild(0), hs)
					if alias := x.ChildByFieldName("alias"); alias != nil {
						hs = w.bindTarget(alias, nil, -1, c, hs)
					}
				default:
					hs = w.reads(x, hs)
				}
			}
		case "else_clause":
			normal = w.block(c.ChildByFieldName("body"), body)
		case "finally_clause":
			fin = c
		}
	}
	out := merge(append([]flowState{normal}, outs...)...)
	if fin != nil {
		for _, b := range fin.NamedChildren() {
			if b.Type() == "block" {
				// Reads in finally see every path (an exception too); what
				// follows the statement sees the paths that go on.
				w.block(b, merge(append([]flowState{out, entry}, outs...)...))
				record := w.record
				w.record = false
				out = w.block(b, out)
				w.record = record
			}
		}
	}
	return out
}

// expr handles one child of an expression statement: an assignment binds
// after its value is read.
func (w *walker) expr(n, stmt *syntree.Node, st flowState) flowState {
	switch n.Type() {
	case "assignment":
		var targets []*syntree.Node
		value := n
		for value != nil && value.Type() == "assignment" {
			targets = append(targets, value.ChildByFieldName("left"))
			value = value.ChildByFieldName("right")
		}
		st = w.reads(value, st)
		for _, t := range targets {
			st = w.targetReads(t, st)
		}
		for _, t := range targets {
			st = w.bindTarget(t, value, -1, stmt, st)
		}
		return st
	case "augmented_assignment":
		st = w.reads(n.ChildByFieldName("right"), st)
		left := n.ChildByFieldName("left")
		st = w.reads(left, st)
		if w.matches(left) {
			st = w.bind(st, &Def{Stmt: stmt, Index: -1, Kind: DefOpaque})
		}
		return st
	}
	return w.reads(n, st)
}

// matches reports a target or read spelled as the key.
func (w *walker) matches(t *syntree.Node) bool {
	switch t.Type() {
	case "identifier":
		return t.Content(w.text) == w.key
	case "attribute":
		return strings.Contains(w.key, ".") && Compact(t.Content(w.text)) == w.key
	}
	return false
}

// bindTarget binds the key when target t is (or unpacks to) it; value is
// the expression assigned (nil when unseen), index its position in value.
func (w *walker) bindTarget(t, value *syntree.Node, index int, stmt *syntree.Node, st flowState) flowState {
	if t == nil || !w.mentions(t) {
		return st
	}
	switch t.Type() {
	case "identifier", "attribute":
		if w.matches(t) {
			kind := DefAssign
			if value == nil {
				kind = DefOpaque
			}
			return w.bind(st, &Def{Stmt: stmt, Value: value, Index: index, Kind: kind})
		}
		// cfg = Config() changes what cfg.x holds.
		if name := Compact(t.Content(w.text)); strings.HasPrefix(w.key, name+".") {
			return w.bind(st, &Def{Stmt: stmt, Index: -1, Kind: DefOpaque})
		}
	case "pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "expression_list":
		elts := NamedNoComments(t)
		var vals []*syntree.Node
		if value != nil && index < 0 {
			switch value.Type() {
			case "expression_list", "tuple", "list":
				vals = NamedNoComments(value)
			}
		}
		for i, e := range elts {
			switch {
			case e.Type() == "list_splat_pattern" || e.Type() == "list_splat":
				st = w.bindTarget(e.NamedChild(0), nil, -1, stmt, st)
			case len(vals) == len(elts):
				st = w.bindTarget(e, vals[i], -1, stmt, st)
			case value != nil && index < 0 && len(vals) == 0:
				st = w.bindTarget(e, value, i, stmt, st)
			default:
				st = w.bindTarget(e, nil, -1, stmt, st)
			}
		}
	case "parenthesized_expression", "as_pattern_target":
		if t.NamedChildCount() > 0 {
			return w.bindTarget(t.NamedChild(0), value, index, stmt, st)
		}
	}
	return st
}

// targetReads reads what an assignment target reads: the object of an
// attribute, the value and index of a subscript.
func (w *walker) targetReads(t *syntree.Node, st flowState) flowState {
	switch t.Type() {
	case "attribute":
		if w.matches(t) {
			return st
		}
		return w.reads(t.ChildByFieldName("object"), st)
	case "subscript":
		return w.reads(t, st)
	case "pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "parenthesized_expression", "list_splat_pattern":
		for _, e := range NamedNoComments(t) {
			st = w.targetReads(e, st)
		}
	}
	return st
}

// reads records the state at each read of the key inside expression n,
// in evaluation order as far as it matters here; a walrus binds.
func (w *walker) reads(n *syntree.Node, st flowState) flowState {
	if n == nil || !w.mentions(n) {
		return st
	}
	switch n.Type() {
	case "identifier":
		if n.Content(w.text) == w.key {
			w.read(n, st)
		}
		return st
	case "attribute":
		if w.matches(n) {
			w.read(n, st)
			return st
		}
		return w.reads(n.ChildByFieldName("object"), st)
	case "keyword_argument":
		return w.reads(n.ChildByFieldName("value"), st)
	case "lambda", "function_definition", "class_definition":
		return st
	case "list_comprehension", "set_comprehension", "dictionary_comprehension", "generator_expression":
		for _, c := range n.NamedChildren() {
			if c.Type() == "for_in_clause" && len(Identifiers(c.ChildByFieldName("left"), w.root, w.text)) > 0 {
				return st // the comprehension binds its own
			}
		}
	case "named_expression":
		st = w.reads(n.ChildByFieldName("value"), st)
		return w.bindTarget(n.ChildByFieldName("name"), n.ChildByFieldName("value"), -1, Statement(n), st)
	}
	for _, ci := range n.NamedChildren() {
		st = w.reads(ci, st)
	}
	return st
}

// NamedNoComments are n's named children, comments left out.
func NamedNoComments(n *syntree.Node) []*syntree.Node {
	var out []*syntree.Node
	for _, c := range n.NamedChildren() {
		if c.Type() != "comment" {
			out = append(out, c)
		}
	}
	return out
}

// flatTargets are the targets of del a, b.c.
func flatTargets(del *syntree.Node) []*syntree.Node {
	var out []*syntree.Node
	for _, c := range NamedNoComments(del) {
		if c.Type() == "expression_list" {
			out = append(out, NamedNoComments(c)...)
		} else {
			out = append(out, c)
		}
	}
	return out
}

// boundByImport are the names an import statement binds.
func boundByImport(n *syntree.Node, text []byte) []string {
	var out []string
	from := n.Type() == "import_from_statement"
	for _, c := range n.NamedChildren() {
		if from && n.ChildByFieldName("module_name") != nil && n.ChildByFieldName("module_name").Equal(c) {
			continue
		}
		switch c.Type() {
		case "aliased_import":
			out = append(out, c.ChildByFieldName("alias").Content(text))
		case "dotted_name":
			name := c.Content(text)
			if !from {
				name, _, _ = strings.Cut(name, ".")
			}
			out = append(out, name)
		}
	}
	return out
}

// ParamNode is the parameter node of fn named name, or nil.
func ParamNode(fn *Func, name string, text []byte) *syntree.Node {
	params := fn.Node.ChildByFieldName("parameters")
	if params == nil {
		return nil
	}
	for _, p := range NamedNoComments(params) {
		id := p
		switch p.Type() {
		case "default_parameter", "typed_default_parameter":
			id = p.ChildByFieldName("name")
		case "typed_parameter", "list_splat_pattern", "dictionary_splat_pattern":
			id = p.NamedChild(0)
		}
		if id != nil && id.Type() == "identifier" && id.Content(text) == name {
			return p
		}
	}
	return nil
}

// Reach is what a read of a name (or dotted name) may see.
type Reach struct {
	Defs []*Def
	// MaybeUnbound: some path reaches the read with the name unbound, or it
	// is bound nowhere the read can see (and is no builtin).
	MaybeUnbound bool
}

// ReachingAt is what the read n (an identifier, or an attribute chain read
// as one name) may see.
func (f *Facts) ReachingAt(n *syntree.Node) Reach {
	key := Compact(n.Content(f.Src.Text))
	fn := f.ScopeOf(n)
	r := f.flow(fn, key)
	if !r.local {
		st := f.outerState(fn, key)
		return Reach{Defs: st.defs, MaybeUnbound: st.unbound}
	}
	st, ok := r.reads[n.StartByte()]
	if !ok {
		// Not a read the walk saw (inside a lambda, a class body): any
		// binding of the scope.
		return Reach{Defs: r.all}
	}
	return Reach{Defs: f.expandOuter(fn, key, st.defs), MaybeUnbound: st.unbound && !st.dead}
}

// ReachingBefore is what holds for key at the start of statement stmt.
func (f *Facts) ReachingBefore(key string, stmt *syntree.Node) Reach {
	fn := f.ScopeOf(stmt)
	r := f.flow(fn, key)
	if !r.local {
		st := f.outerState(fn, key)
		return Reach{Defs: st.defs, MaybeUnbound: st.unbound}
	}
	st, ok := r.before(stmt.StartByte())
	if !ok {
		return Reach{Defs: r.all}
	}
	return Reach{Defs: f.expandOuter(fn, key, st.defs), MaybeUnbound: st.unbound && !st.dead}
}

func (f *Facts) expandOuter(fn *Func, key string, defs []*Def) []*Def {
	for i, d := range defs {
		if d.Kind == DefOuter {
			out := append([]*Def(nil), defs[:i]...)
			for _, o := range f.outerState(fn, key).defs {
				if !containsDef(out, o) {
					out = append(out, o)
				}
			}
			for _, x := range defs[i+1:] {
				if !containsDef(out, x) {
					out = append(out, x)
				}
			}
			return out
		}
	}
	return defs
}

// outerState is what a name not bound in fn holds when fn runs: for
// self.x, every assignment to self.x in the class; else the enclosing
// function's bindings, or the module's at the module-level calls of fn (all
// of the module's when fn is not called there).
func (f *Facts) outerState(fn *Func, key string) flowState {
	r := f.flow(fn, key)
	if r.outer != nil {
		return *r.outer
	}
	st := flowState{unbound: true}
	r.outer = &st // a recursion sees "unbound"
	if strings.HasPrefix(key, "self.") {
		if cls := Enclosing(fn.Node, "class_definition"); cls != nil {
			var defs []*Def
			for _, m := range f.Funcs {
				if m == fn || !Within(m.Node, cls) {
					continue
				}
				if mr := f.flow(m, key); mr.local || len(mr.all) > 0 {
					defs = append(defs, mr.all...)
				}
			}
			st = flowState{defs: defs}
			r.outer = &st
			return st
		}
	}
	// The enclosing function, if it binds the name.
	for p := Enclosing(fn.Node, "function_definition"); p != nil; p = Enclosing(p, "function_definition") {
		outer := f.funcOf(p)
		if outer == nil {
			break
		}
		if or := f.flow(outer, key); or.local {
			st = flowState{defs: or.all}
			r.outer = &st
			return st
		}
	}
	mod := f.flow(f.Module, key)
	if len(mod.all) == 0 {
		st = flowState{unbound: !isBuiltin(key)}
		r.outer = &st
		return st
	}
	var sites []flowState
	if fn.Node != nil {
		for _, c := range f.Calls {
			if c.Func == f.Module && callsName(c.Dotted, fn.Name) && !strings.Contains(c.Dotted, ".") {
				if s := Statement(c.Node); s != nil {
					if at, ok := mod.before(s.StartByte()); ok {
						sites = append(sites, at)
					}
				}
			}
		}
	}
	if len(sites) > 0 {
		st = merge(sites...)
	} else {
		st = flowState{defs: mod.all}
	}
	r.outer = &st
	return st
}

// Enclosing is the nearest ancestor of n of type typ, or nil.
func Enclosing(n *syntree.Node, typ string) *syntree.Node {
	if n == nil {
		return nil
	}
	for p := n.Parent(); p != nil; p = p.Parent() {
		if p.Type() == typ {
			return p
		}
	}
	return nil
}

// funcOf is the Func of a function_definition node.
func (f *Facts) funcOf(n *syntree.Node) *Func {
	for _, fn := range f.Funcs {
		if fn.Start == n.StartByte() && fn.End == n.EndByte() {
			return fn
		}
	}
	return nil
}

var builtinNames = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`abs all any ascii bin bool breakpoint bytearray bytes callable chr classmethod
	compile complex delattr dict dir divmod enumerate eval exec filter float format frozenset getattr globals
	hasattr hash help hex id input int isinstance issubclass iter len list locals map max memoryview min next
	object oct open ord pow print property range repr reversed round set setattr slice sorted staticmethod str
	sum super tuple type vars zip __import__ __name__ __file__ __doc__ __spec__ __builtins__ True False None
	Exception BaseException ValueError TypeError KeyError IndexError RuntimeError AttributeError ImportError
	OSError NotImplementedError StopIteration AssertionError FileNotFoundError NameError KeyboardInterrupt
	NotImplemented Ellipsis exit quit get_ipython display`) {
		builtinNames[n] = true
	}
}

func isBuiltin(key string) bool {
	root, _, _ := strings.Cut(key, ".")
	return builtinNames[root]
}

// assignOf is the assignment of f.Assigns that made d, a binding of key.
func (f *Facts) assignOf(d *Def, key string) *Assign {
	if d.Kind != DefAssign || d.Index >= 0 || d.Stmt == nil {
		return nil
	}
	for _, a := range f.Assigns {
		if a.Text == key && Within(a.Node, d.Stmt) && a.Value.Equal(d.Value) {
			return a
		}
	}
	return nil
}
