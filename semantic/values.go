package semantic

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/loratune/loratune-fix/syntree"
)

// Values are the expressions n may evaluate to: a name followed to every
// assignment that reaches it (on different paths, a set: never "the last
// textual one"), a dotted name to its literal attribute assignments
// (cfg.use_fast_kernels = True), a call of a function of the file to what
// it returns (an element of a returned tuple when unpacked), and a
// conditional whose condition is no user choice (a literal, a hardware
// check such as torch.cuda.is_bf16_supported()) to its branches. Anything
// else is its own value. ok is false when some path gives a value decided
// at run time or not seen: a parameter, a loop target, a condition on
// args, a name that may be unbound.
func (f *Facts) Values(n *syntree.Node) (vals []*syntree.Node, ok bool) {
	ok = f.values(n, -1, 0, &vals)
	return vals, ok
}

// maxValueDepth bounds how many names, returns and conditionals a value is
// followed through.
const maxValueDepth = 8

func (f *Facts) values(n *syntree.Node, index, depth int, out *[]*syntree.Node) bool {
	if n == nil || depth > maxValueDepth {
		return false
	}
	add := func(v *syntree.Node) {
		for _, x := range *out {
			if x.Equal(v) {
				return
			}
		}
		*out = append(*out, v)
	}
	if index >= 0 {
		// Element index of what n evaluates to.
		switch n.Type() {
		case "expression_list", "tuple", "list":
			elts := NamedNoComments(n)
			if index < len(elts) && !hasSplatElement(elts) {
				return f.values(elts[index], -1, depth+1, out)
			}
			return false
		case "call":
			return f.returnValues(n, index, depth, out)
		case "parenthesized_expression":
			return f.values(n.NamedChild(0), index, depth+1, out)
		}
		if n.Type() == "identifier" {
			return f.defsValues(f.ReachingAt(n), index, depth, out)
		}
		return false
	}
	switch n.Type() {
	case "parenthesized_expression":
		if kids := NamedNoComments(n); len(kids) == 1 {
			return f.values(kids[0], -1, depth+1, out) // (False  # a comment)
		}
	case "identifier":
		if isBuiltin(n.Content(f.Src.Text)) && !f.bindsAnywhere(n.Content(f.Src.Text)) {
			add(n)
			return true
		}
		r := f.ReachingAt(n)
		imported := len(r.Defs) > 0 && !r.MaybeUnbound
		for _, d := range r.Defs {
			imported = imported && d.Kind == DefImport
		}
		if imported {
			add(n) // from torch import bfloat16: Resolve reads it
			return true
		}
		return f.defsValues(r, -1, depth, out)
	case "attribute":
		// Only a dotted name given a value in this file is followed:
		// torch.bfloat16 and args.dtype are their own values.
		r := f.ReachingAt(n)
		assigned := false
		for _, d := range r.Defs {
			if d.Kind == DefAssign {
				assigned = true
			}
		}
		if !assigned {
			add(n)
			return true
		}
		return f.defsValues(r, -1, depth, out)
	case "conditional_expression":
		kids := NamedNoComments(n)
		if len(kids) != 3 {
			break
		}
		then, cond, other := kids[0], kids[1], kids[2]
		switch v, kind := f.condition(cond, depth); kind {
		case condKnown:
			if v {
				return f.values(then, -1, depth+1, out)
			}
			return f.values(other, -1, depth+1, out)
		case condHardware:
			a := f.values(then, -1, depth+1, out)
			b := f.values(other, -1, depth+1, out)
			return a && b
		}
		add(n)
		return false
	case "call":
		if fn := f.LocalFunc(n); fn != nil {
			return f.returnValues(n, -1, depth, out)
		}
	}
	add(n)
	return true
}

func hasSplatElement(elts []*syntree.Node) bool {
	for _, e := range elts {
		if e.Type() == "list_splat" {
			return true
		}
	}
	return false
}

func (f *Facts) defsValues(r Reach, index, depth int, out *[]*syntree.Node) bool {
	ok := !r.MaybeUnbound && len(r.Defs) > 0
	for _, d := range r.Defs {
		if d.Value == nil || d.Kind != DefAssign {
			ok = false
			continue
		}
		i := index
		if d.Index >= 0 {
			if index >= 0 {
				ok = false // a tuple inside a tuple: not followed
				continue
			}
			i = d.Index
		}
		if !f.values(d.Value, i, depth+1, out) {
			ok = false
		}
	}
	return ok
}

// returnValues are the values a call of a function of the file returns
// (element index of each, when unpacked).
func (f *Facts) returnValues(call *syntree.Node, index, depth int, out *[]*syntree.Node) bool {
	fn := f.LocalFunc(call)
	if fn == nil {
		return false
	}
	rets := returnsOf(fn)
	if len(rets) == 0 {
		return false
	}
	ok := true
	for _, r := range rets {
		v := r.NamedChild(0)
		if v == nil || !f.values(v, index, depth+1, out) {
			ok = false
		}
	}
	return ok
}

// returnsOf lists the return statements of fn, not those of functions
// nested in it.
func returnsOf(fn *Func) []*syntree.Node {
	var out []*syntree.Node
	var walk func(n *syntree.Node)
	walk = func(n *syntree.Node) {
		for _, c := range n.NamedChildren() {
			switch c.Type() {
			case "return_statement":
				out = append(out, c)
			case "function_definition", "class_definition", "lambda":
			default:
				walk(c)
			}
		}
	}
	walk(fn.Body)
	return out
}

// LocalFunc is the function of this file a call calls by its plain name
// (helper(...)) or as a method of self (self.helper(...)), or nil.
func (f *Facts) LocalFunc(call *syntree.Node) *Func {
	callee := call.ChildByFieldName("function")
	if callee == nil {
		return nil
	}
	name := DottedName(callee, f.Src.Text)
	method := false
	if rest, ok := strings.CutPrefix(name, "self."); ok {
		name, method = rest, true
	}
	if name == "" || strings.Contains(name, ".") {
		return nil
	}
	var found *Func
	for _, fn := range f.Funcs {
		if fn.Name != name {
			continue
		}
		inClass := Enclosing(fn.Node, "class_definition") != nil
		if method != inClass {
			continue
		}
		if found != nil {
			return nil // two functions of that name: which one is unknown
		}
		found = fn
	}
	return found
}

// bindsAnywhere reports a name the module binds (a builtin shadowed).
func (f *Facts) bindsAnywhere(name string) bool {
	return len(f.flow(f.Module, name).all) > 0
}

type condKind int

const (
	condRuntime  condKind = iota // a user's choice or unknown: CLI, config, environment
	condKnown                    // a literal, or a name holding one
	condHardware                 // a check of the machine: not the user's choice
)

// HardwareChecks are calls that ask the machine, not the user.
var HardwareChecks = []string{"is_bf16_supported", "is_available", "get_device_capability", "is_torch_bf16_gpu_available",
	"is_torch_bf16_available", "is_torch_tf32_available", "device_count", "get_device_name", "is_flash_attn_2_available"}

// condition classifies an if-condition: known (with its value), a hardware
// check, or decided at run time.
func (f *Facts) condition(c *syntree.Node, depth int) (bool, condKind) {
	text := f.Src.Text
	switch c.Type() {
	case "true":
		return true, condKnown
	case "false", "none":
		return false, condKnown
	case "parenthesized_expression":
		if c.NamedChildCount() == 1 {
			return f.condition(c.NamedChild(0), depth)
		}
	case "not_operator":
		v, k := f.condition(c.ChildByFieldName("argument"), depth)
		return !v, k
	case "identifier", "attribute":
		if f.globalsRewritten() {
			return false, condRuntime // exec() or globals().update may rebind it
		}
		var vals []*syntree.Node
		if ok := f.values(c, -1, depth+1, &vals); ok && len(vals) > 0 {
			first := vals[0].Type()
			same := first == "true" || first == "false"
			for _, v := range vals {
				same = same && v.Type() == first
			}
			if same {
				return first == "true", condKnown
			}
			if len(vals) == 1 && depth < maxValueDepth {
				// has_bf16 = torch.cuda.is_available() and ...: the name is
				// what its one value is.
				switch vals[0].Type() {
				case "call", "boolean_operator", "comparison_operator", "not_operator", "parenthesized_expression":
					return f.condition(vals[0], depth+1)
				}
			}
		}
		return false, condRuntime
	case "call":
		callee := DottedName(c.ChildByFieldName("function"), text)
		if q := f.Resolve(callee); strings.HasPrefix(q, "torch.cuda.") || strings.HasPrefix(q, "torch.backends.") {
			return false, condHardware
		}
		for _, h := range HardwareChecks {
			if callsName(callee, h) {
				return false, condHardware
			}
		}
	case "comparison_operator", "boolean_operator":
		// torch.cuda.get_device_capability()[0] >= 8, a and b: hardware
		// when every part is a hardware check or a number.
		kind := condHardware
		for _, part := range NamedNoComments(c) {
			switch part.Type() {
			case "integer", "float", "string":
				continue
			case "subscript":
				part = part.ChildByFieldName("value")
			}
			if _, k := f.condition(part, depth); k != condHardware {
				kind = condRuntime
			}
		}
		return false, kind
	}
	return false, condRuntime
}

// SoleValue is the one expression n holds on every path (Values with a
// single member), or nil.
func (f *Facts) SoleValue(n *syntree.Node) *syntree.Node {
	if n == nil {
		return nil
	}
	if vals, ok := f.Values(n); ok && len(vals) == 1 {
		return vals[0]
	}
	return nil
}

// StringValues are the plain string literals n may hold (Values), and
// whether all its values are such strings.
func (f *Facts) StringValues(n *syntree.Node) ([]string, bool) {
	if n == nil {
		return nil, false
	}
	vals, ok := f.Values(n)
	var out []string
	for _, v := range vals {
		s, isString := StringValue(v, f.Src.Text)
		if !isString {
			ok = false
			continue
		}
		out = append(out, s)
	}
	return out, ok && len(out) > 0
}

// ValueOf is the one string n holds on every path: a literal, or a name
// whose every reaching value is that same literal.
func (f *Facts) ValueOf(n *syntree.Node) (string, bool) {
	ss, ok := f.StringValues(n)
	if !ok {
		return "", false
	}
	for _, s := range ss[1:] {
		if s != ss[0] {
			return "", false
		}
	}
	return ss[0], true
}

// Always reports a value that is a literal of node type typ ("true",
// "false", "none") on every path.
func (f *Facts) Always(v *syntree.Node, typ string) bool {
	vals, ok := f.Values(v)
	for _, x := range vals {
		ok = ok && x.Type() == typ
	}
	return ok && len(vals) > 0
}

// IgnoreIndex reports -100, the label id the loss ignores, written or
// through a name whose every value is -100 (IGNORE_INDEX).
func (f *Facts) IgnoreIndex(v *syntree.Node) bool {
	text := f.Src.Text
	if Compact(v.Content(text)) == "-100" {
		return true
	}
	if v.Type() != "identifier" {
		return false
	}
	vals, known := f.Values(v)
	if ignoreName.MatchString(Last(f.Resolve(v.Content(text)))) {
		// IGNORE_INDEX, bound here or imported from the project's
		// constants: -100 unless a number here says otherwise.
		for _, val := range vals {
			if t := val.Type(); (t == "integer" || t == "unary_operator") && Compact(val.Content(text)) != "-100" {
				return false
			}
		}
		return true
	}
	for _, val := range vals {
		if Compact(val.Content(text)) != "-100" {
			return false
		}
	}
	return known && len(vals) > 0
}

// ignoreName is the name projects give -100 in their constants modules
// (LLaVA's IGNORE_INDEX, FastChat's IGNORE_TOKEN_ID).
var ignoreName = regexp.MustCompile(`^IGNORE_(INDEX|TOKEN_ID|ID|LABEL)$`)

// OwnPositionalMask finds where the script masks labels itself by
// position: a slice of labels set to -100 (labels[:n] = IGNORE_INDEX), a
// run of -100 ([IGNORE_INDEX] * len(prompt)), or labels padded with -100
// (pad_sequence(..., padding_value=IGNORE_INDEX)); nil where it does not.
// Such labels keep every EOS whatever the pad is, unless a collator that
// masks by pad id rebuilds them.
func (f *Facts) OwnPositionalMask() *syntree.Node {
	text := f.Src.Text
	for _, a := range f.Assigns {
		if a.Target.Type() == "subscript" && a.Value != nil && f.IgnoreIndex(a.Value) {
			for _, sl := range a.Target.NamedChildren() {
				if sl.Type() == "slice" {
					return a.Node
				}
			}
		}
	}
	for _, c := range f.Calls {
		if Last(c.Qual) == "pad_sequence" {
			if v := KeywordValue(c.Args, "padding_value", text); v != nil && f.IgnoreIndex(v) {
				return c.Node
			}
		}
	}
	if !bytes.Contains(text, []byte("*")) {
		return nil
	}
	var run *syntree.Node
	WalkNodes(f.Root, func(n *syntree.Node) bool {
		if run != nil {
			return false
		}
		if n.Type() == "binary_operator" && n.ChildByFieldName("operator").Type() == "*" {
			for _, side := range []*syntree.Node{n.ChildByFieldName("left"), n.ChildByFieldName("right")} {
				if side != nil && side.Type() == "list" && side.NamedChildCount() == 1 && f.IgnoreIndex(side.NamedChild(0)) {
					run = n
					return false
				}
			}
		}
		return true
	})
	return run
}
