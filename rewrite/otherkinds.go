package rewrite

import (
	"bytes"
	"strings"

	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

// What the engine offers to the readers of other file kinds (launch
// configs): they report the same findings, silenced by the same comments,
// and apply their fixes with the same edit rules.

// Suppress drops findings silenced by a "# loratune-fix: ignore[...]" or
// "# noqa: ..." comment on their first line, or by "# loratune-fix:
// skip-file": in any grammar whose comments start with '#' and whose
// comment nodes are named "comment" (YAML, bash, Python).
func Suppress(src *semantic.Source, root *syntree.Node, findings []Finding) []Finding {
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
	// Quantized: a training load is quantized, always, or on some path
	// whose options are not all off by default.
	Quantized bool
	// QuantizedByOption: a training load is quantized only when an option
	// (load_in_4bit, load_in_8bit, qlora, bits...) off by default is
	// turned on: the launcher's options decide.
	QuantizedByOption bool
	// Trains: the script trains (a Trainer, get_peft_model, .train()).
	Trains bool
	// DefaultAttention: a non-quantized training load passes no
	// attention keyword (transformers' default SDPA).
	DefaultAttention bool
	// Options are the command-line options the script declares (argparse
	// --name, HfArgumentParser dataclass fields, TRL's ModelConfig fields
	// where it parses one), each with its default as written ("None" where
	// none is given): a launcher adds only an option the script accepts.
	Options map[string]string
}

// modelConfigFields are the fields of TRL's ModelConfig that launchers
// pass (trl/trainer/model_config.py), with their defaults.
var modelConfigFields = map[string]string{"model_name_or_path": "None", "torch_dtype": "None", "dtype": "None",
	"attn_implementation": "None", "use_peft": "False", "load_in_4bit": "False", "load_in_8bit": "False", "trust_remote_code": "False"}

// ReadScript reads a training script's facts; an error when it does not
// parse.
func ReadScript(text []byte) (*ScriptFacts, error) {
	q, err := semantic.LoadQueries()
	if err != nil {
		return nil, err
	}
	text = bytes.TrimPrefix(text, bom)
	tree, err := parse(text, 0)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	src := semantic.NewSource(text)
	pt := goTree(tree)
	src.Root = pt.Root()
	if se := firstSyntaxError(pt.Root(), src); se != nil {
		return nil, se
	}
	f := semantic.BuildFacts(src, pt, q)
	sf := &ScriptFacts{Trains: f.HasTraining(), Options: declaredOptions(f)}
	for _, c := range f.Calls {
		switch c.Method {
		case "get_peft_model", "LoraConfig", "prepare_model_for_kbit_training":
			sf.Adapter = true
		}
	}
	options := func(l *semantic.Load, kw string) []string {
		v := l.Arg(kw, text)
		if v == nil {
			return nil
		}
		vals := []*syntree.Node{v}
		if v.Type() == "identifier" {
			vals = nil
			for _, d := range f.ReachingAt(v).Defs {
				if d.Kind == semantic.DefAssign && d.Index < 0 {
					vals = append(vals, d.Value)
				}
			}
		}
		var attrs []string
		for _, n := range vals {
			attrs = append(attrs, semantic.AttributesIn(n, text)...)
		}
		var out []string
		for _, attr := range attrs {
			if _, ok := sf.Options[attr]; ok && optionAccepts(f, attr, "float32") {
				out = append(out, attr)
			}
		}
		return out
	}
	for _, l := range f.ModelLoads() {
		if l.Use == semantic.NotTraining {
			continue
		}
		sometimes := l.MaybeQuantized || l.Quantized && unquantizedPath(f, l)
		if l.Quantized && !sometimes || sometimes && !quantizedOffByDefault(f) {
			sf.Quantized = true
			continue
		}
		sf.QuantizedByOption = sf.QuantizedByOption || sometimes
		sf.DtypeOptions = append(sf.DtypeOptions, options(l, "torch_dtype")...)
		sf.DtypeOptions = append(sf.DtypeOptions, options(l, "dtype")...)
		sf.AttnOptions = append(sf.AttnOptions, options(l, "attn_implementation")...)
		if l.Arg("attn_implementation", text) == nil && l.Arg("_attn_implementation", text) == nil && !l.Opaque() {
			sf.DefaultAttention = true
		}
	}
	return sf, nil
}

// declaredOptions are the options the script declares, with their
// defaults as written ("None" where none is given).
func declaredOptions(f *semantic.Facts) map[string]string {
	text := f.Src.Text
	out := map[string]string{}
	for _, c := range f.Calls {
		if c.Method != "add_argument" {
			continue
		}
		if args := semantic.RealArgs(c.Args); len(args) > 0 {
			if flag, ok := semantic.StringValue(args[0], text); ok && strings.HasPrefix(flag, "--") {
				def := "None"
				if d := semantic.KeywordValue(c.Args, "default", text); d != nil {
					def = d.Content(text)
				}
				out[strings.ReplaceAll(strings.TrimLeft(flag, "-"), "-", "_")] = def
			}
		}
	}
	for _, a := range f.Assigns {
		if !semantic.InsideClass(a.Node) || strings.Contains(a.Text, ".") {
			continue
		}
		if o := f.Option(a.Text); o != nil && o.Call == nil {
			def := "None"
			if o.Def != nil {
				def = o.Def.Content(text)
			}
			out[a.Text] = def
		}
	}
	// TRL's ModelConfig parsed beside the script's own arguments.
	for _, c := range f.Calls {
		if !strings.HasSuffix(c.Method, "Parser") {
			continue
		}
		for _, a := range semantic.RealArgs(c.Args) {
			for _, n := range append([]*syntree.Node{a}, a.NamedChildren()...) {
				if n.Type() == "identifier" && strings.HasPrefix(f.Resolve(n.Content(text)), "trl.") && strings.HasSuffix(n.Content(text), "ModelConfig") {
					for k, v := range modelConfigFields {
						if _, had := out[k]; !had {
							out[k] = v
						}
					}
				}
			}
		}
	}
	return out
}

// optionAccepts reports whether the option attr takes value: true unless
// an argparse choices= list leaves the value out.
func optionAccepts(f *semantic.Facts, attr, value string) bool {
	o := f.Option(attr)
	if o == nil || o.Call == nil {
		return true
	}
	choices := semantic.KeywordValue(o.Call.Args, "choices", f.Src.Text)
	if choices == nil {
		return true
	}
	for _, c := range choices.NamedChildren() {
		if s, ok := semantic.StringValue(c, f.Src.Text); ok && s == value {
			return true
		}
	}
	return false
}

// quantizeOptions are the options by which training scripts choose a
// quantized load.
var quantizeOptions = []string{"load_in_4bit", "load_in_8bit", "qlora", "use_qlora", "q_lora", "quantization_bit", "bits", "load_in_kbits"}

// quantizedOffByDefault reports a script that declares quantization
// options, each off by default (False, None, 16 or 32 bits): a load
// quantized on some paths is then quantized only when the command line
// turns one on.
func quantizedOffByDefault(f *semantic.Facts) bool {
	declared := false
	for _, name := range quantizeOptions {
		o := f.Option(name)
		if o == nil {
			continue
		}
		declared = true
		if o.Def == nil {
			if o.Call == nil {
				return false // a required dataclass field
			}
			continue // argparse: None, or False for store_true
		}
		switch o.Def.Content(f.Src.Text) {
		case "False", "None", "16", "32":
		default:
			return false
		}
	}
	return declared
}

// unquantizedPath reports a load whose quantization argument is None on
// some path: quantization_config = None, then a BitsAndBytesConfig under
// an if; BitsAndBytesConfig(...) if args.qlora else None.
func unquantizedPath(f *semantic.Facts, l *semantic.Load) bool {
	text := f.Src.Text
	for _, k := range semantic.QuantKeywords {
		v := l.Arg(k, text)
		if v == nil {
			continue
		}
		vals, ok := f.Values(v)
		if v.Type() == "conditional_expression" {
			// X if opt else None: both branches are values.
			kids := v.NamedChildren()
			vals, ok = []*syntree.Node{kids[0], kids[len(kids)-1]}, true
		}
		if !ok {
			return false
		}
		for _, x := range vals {
			if c := x.Content(text); c == "None" || c == "False" {
				return true
			}
		}
	}
	return false
}
