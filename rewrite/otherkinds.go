package rewrite

import (
	"bytes"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// What the engine offers to the readers of other file kinds (launch
// configs): they report the same findings, silenced by the same comments,
// and apply their fixes with the same edit rules.

// Suppress drops findings silenced by a "# loratune-fix: ignore[...]" or
// "# noqa: ..." comment on their first line, or by "# loratune-fix:
// skip-file": in any grammar whose comments start with '#' and whose
// comment nodes are named "comment" (YAML, bash, Python).
func Suppress(src *Source, root *sitter.Node, findings []Finding) []Finding {
	return suppress(src, root, findings)
}

// SortFindings orders findings by position, then code.
func SortFindings(fs []Finding) { sortFindings(fs) }

// UnsafeFixes says whether fixes marked unsafe are applied.
func (e *Engine) UnsafeFixes() bool { return e.opts.UnsafeFixes }

// Runs reports whether the engine runs the rule with this code.
func (e *Engine) Runs(code string) bool {
	for _, r := range e.rules {
		if r.Code == code {
			return true
		}
	}
	return false
}

// Governing merges the versions found for a file under --target, as the
// rules see them.
func (e *Engine) Governing(vs Versions) Versions { return e.opts.Target.Merge(vs) }

// FP32Cost is what fp32 master weights cost, as LTF001's findings say it.
const FP32Cost = fp32Cost

// ScriptFacts are what a launcher that runs a Python script needs to know
// of it: which command-line options decide its training load's dtype and
// attention, and whether it trains adapters on a quantized base.
type ScriptFacts struct {
	// DtypeOptions are the options (argparse --name, or an
	// HfArgumentParser dataclass field) a non-quantized training load
	// takes its dtype from, each accepting "float32".
	DtypeOptions []string
	// AttnOptions are the options its attn_implementation comes from.
	AttnOptions []string
	// Adapter: the script trains adapters (get_peft_model, a PEFT config).
	Adapter bool
	// Quantized: a training load is quantized on some path.
	Quantized bool
	// Trains: the script trains (a Trainer, get_peft_model, .train()).
	Trains bool
}

// ReadScript reads a training script's facts; an error when it does not
// parse.
func ReadScript(text []byte) (*ScriptFacts, error) {
	q, err := loadQueries()
	if err != nil {
		return nil, err
	}
	text = bytes.TrimPrefix(text, bom)
	tree, err := parse(text, 0)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	src := NewSource(text)
	root := tree.RootNode()
	src.root = root
	if se := firstSyntaxError(root, src); se != nil {
		return nil, se
	}
	f := buildFacts(src, root, q)
	sf := &ScriptFacts{Trains: f.HasTraining()}
	for _, c := range f.Calls {
		switch c.Method {
		case "get_peft_model", "LoraConfig", "prepare_model_for_kbit_training":
			sf.Adapter = true
		}
	}
	options := func(l *Load, kw string) []string {
		v := l.Arg(kw, text)
		if v == nil {
			return nil
		}
		vals := []*sitter.Node{v}
		if v.Type() == "identifier" {
			vals = nil
			for _, d := range f.ReachingAt(v).Defs {
				if d.Kind == DefAssign && d.Index < 0 {
					vals = append(vals, d.Value)
				}
			}
		}
		var attrs []string
		for _, n := range vals {
			attrs = append(attrs, attributesIn(n, text)...)
		}
		var out []string
		for _, attr := range attrs {
			if f.optionDefault(attr) != "" && f.optionAccepts(attr, "float32") {
				out = append(out, attr)
			}
		}
		return out
	}
	for _, l := range f.ModelLoads() {
		if l.Use == NotTraining {
			continue
		}
		if l.Quantized || l.MaybeQuantized {
			sf.Quantized = true
			continue
		}
		sf.DtypeOptions = append(sf.DtypeOptions, options(l, "torch_dtype")...)
		sf.DtypeOptions = append(sf.DtypeOptions, options(l, "dtype")...)
		sf.AttnOptions = append(sf.AttnOptions, options(l, "attn_implementation")...)
	}
	return sf, nil
}

// optionAccepts reports whether the argparse option attr takes value:
// true unless its choices= list leaves the value out.
func (f *Facts) optionAccepts(attr, value string) bool {
	text := f.Src.Text
	for _, c := range f.Calls {
		if c.Method != "add_argument" {
			continue
		}
		args := realArgs(c.Args)
		if len(args) == 0 {
			continue
		}
		flag, ok := StringValue(args[0], text)
		if !ok || strings.ReplaceAll(strings.TrimLeft(flag, "-"), "-", "_") != attr {
			continue
		}
		choices := KeywordValue(c.Args, "choices", text)
		if choices == nil {
			return true
		}
		for _, ch := range namedChildren(choices) {
			if s, ok := StringValue(ch, text); ok && s == value {
				return true
			}
		}
		return false
	}
	return true
}

// FixKey names a finding across fix passes: its code and message.
func FixKey(f *Finding) string { return fixKey(f) }

// SetOutcomes says, for each finding of the original text, what fix
// --write does with it, from the findings of the text the fix loop ended
// with; dropped holds the FixKeys of fixes that broke the file.
func (e *Engine) SetOutcomes(findings, final []Finding, settled bool, dropped map[string]bool) {
	why := map[string]string{}
	for k, d := range dropped {
		if d {
			why[k] = dropsUnparsable
		}
	}
	e.setOutcomes(findings, final, settled, why, nil)
}
