package semantic

import (
	"fmt"
	"strings"

	"github.com/loratune/loratune-fix/syntree"
)

// DecidedAtRunTime is the reason every rule gives for a value it cannot
// know before the script runs: where the value comes from (runtimeSource),
// "decided at run time".
func (f *Facts) DecidedAtRunTime(v *syntree.Node, fn *Func) string {
	return f.runtimeSource(v, fn) + ", decided at run time"
}

// runtimeSource describes where a value decided at run time comes from, for
// a warning: "getattr(torch, args.dtype) (argparse --dtype, default
// "bfloat16")". It follows one variable assignment, a parameter default, an
// argparse option and an HfArgumentParser dataclass field.
func (f *Facts) runtimeSource(v *syntree.Node, fn *Func) string {
	text := f.Src.Text
	desc := v.Content(text)
	n := v
	if v.Type() == "identifier" {
		var assigned []*Def
		for _, d := range f.ReachingAt(v).Defs {
			if d.Kind == DefAssign && d.Index < 0 {
				assigned = append(assigned, d)
			}
		}
		if len(assigned) > 0 {
			var parts []string
			for _, a := range assigned {
				parts = append(parts, fmt.Sprintf("%s = %s (line %d)", v.Content(text), a.Value.Content(text), f.Src.Position(a.Stmt.Start()).Line))
			}
			desc = strings.Join(parts, " or ")
			n = assigned[len(assigned)-1].Value
		} else if d := ParamDefault(fn, v.Content(text), text); d != "" {
			return fmt.Sprintf("parameter %s (default %s)", v.Content(text), d)
		}
	}
	if n.Type() == "conditional_expression" {
		return desc + ", a choice made at run time"
	}
	// args.dtype, model_args.torch_dtype, getattr(torch, args.dtype)
	for _, attr := range AttributesIn(n, text) {
		if opt := f.optionDefault(attr); opt != "" {
			return desc + " (" + opt + ")"
		}
	}
	return desc
}

// AttributesIn lists the final names of x.y attributes inside n.
func AttributesIn(n *syntree.Node, text []byte) []string {
	var out []string
	var walk func(*syntree.Node)
	walk = func(c *syntree.Node) {
		if c.Type() == "attribute" {
			if obj := c.ChildByFieldName("object"); obj != nil && obj.Type() == "identifier" {
				out = append(out, c.ChildByFieldName("attribute").Content(text))
			}
		}
		for _, ch := range c.NamedChildren() {
			walk(ch)
		}
	}
	walk(n)
	return out
}

// optionDefault finds an argparse option or a dataclass field named attr and
// describes its default.
func (f *Facts) optionDefault(attr string) string {
	o := f.Option(attr)
	switch {
	case o == nil:
		return ""
	case o.Call != nil && o.Def == nil:
		return fmt.Sprintf("argparse %s, no default", o.flag)
	case o.Call != nil:
		return fmt.Sprintf("argparse %s, default %s; the launcher may override it", o.flag, o.Def.Content(f.Src.Text))
	case o.Def == nil:
		return fmt.Sprintf("dataclass field %s", attr)
	}
	return fmt.Sprintf("dataclass field %s, default %s; the command line may override it", attr, o.Def.Content(f.Src.Text))
}

// option is a command-line option a script declares: an argparse
// add_argument call (call set) or an HfArgumentParser dataclass field.
type option struct {
	flag string        // as declared: "--torch_dtype"; the field name for a dataclass
	Def  *syntree.Node // its default, nil when none is given
	Call *Call         // the add_argument call, nil for a dataclass field
}

// Option finds the option named attr (dashes read as underscores), nil
// when the script declares none.
func (f *Facts) Option(attr string) *option {
	text := f.Src.Text
	for _, c := range f.Calls {
		if c.Method != "add_argument" {
			continue
		}
		args := RealArgs(c.Args)
		if len(args) == 0 {
			continue
		}
		flag, ok := StringValue(args[0], text)
		if !ok || strings.ReplaceAll(strings.TrimLeft(flag, "-"), "-", "_") != attr {
			continue
		}
		return &option{flag: flag, Def: KeywordValue(c.Args, "default", text), Call: c}
	}
	for _, a := range f.Assigns {
		if a.Text != attr || !InsideClass(a.Node) {
			continue
		}
		val := a.Value
		if Last(f.CalleeOf(val)) == "field" {
			return &option{flag: attr, Def: KeywordValue(val.ChildByFieldName("arguments"), "default", text)}
		}
		return &option{flag: attr, Def: val}
	}
	return nil
}

func InsideClass(n *syntree.Node) bool {
	for p := n.Parent(); p != nil; p = p.Parent() {
		switch p.Type() {
		case "class_definition":
			return true
		case "function_definition":
			return false
		}
	}
	return false
}

// ParamDefault is the default of parameter name of function fn, or "".
func ParamDefault(fn *Func, name string, text []byte) string {
	if fn == nil || fn.Node == nil {
		return ""
	}
	params := fn.Node.ChildByFieldName("parameters")
	if params == nil {
		return ""
	}
	for _, p := range params.NamedChildren() {
		if p.Type() != "default_parameter" && p.Type() != "typed_default_parameter" {
			continue
		}
		if n := p.ChildByFieldName("name"); n != nil && n.Content(text) == name {
			return p.ChildByFieldName("value").Content(text)
		}
	}
	return ""
}
