package rewrite

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// versionRules find what a script cannot run under its pinned versions,
// and the version-independent traps of the GPU evidence (LTF1xx).
var versionRules = []*Rule{loadIn8bitRemoved, removedTrainingArguments, prepareModelForInt8Training, doraOProj, autocastAdapterDtype}

var loadIn8bitRemoved = &Rule{
	Code:     "LTF101",
	Name:     "load-in-8bit-removed",
	Summary:  "from_pretrained(load_in_8bit=/load_in_4bit=) is a TypeError on transformers 5: use quantization_config",
	Severity: SeverityError,
	Profiles: []string{ProfileDefault, ProfileLean},
	Triggers: []string{"load_in_8bit", "load_in_4bit"},
	Doc: `## What it does
On a script pinned to transformers 5 or later, reports load_in_8bit= and
load_in_4bit= passed to from_pretrained. A literal False is removed; a
literal True becomes quantization_config=BitsAndBytesConfig(load_in_8bit=True)
(or load_in_4bit), importing BitsAndBytesConfig from transformers when the
file lacks it.

## Why
transformers 5 removed the two shortcuts: from_pretrained raises TypeError
on them, even load_in_8bit=False, so a 4.x script stops before training.
BitsAndBytesConfig(load_in_8bit=True) is what the shortcut built in 4.x.

## Example
    model = AutoModelForCausalLM.from_pretrained(name, load_in_8bit=True)
becomes
    model = AutoModelForCausalLM.from_pretrained(name, quantization_config=BitsAndBytesConfig(load_in_8bit=True))

## When it stays away
Scripts pinned below 5, or with no pin (4.x scripts keep working there).
No fix where the flag is a variable, both flags are set, the load already
has quantization_config=, other bitsandbytes keywords (llm_int8_*,
bnb_4bit_*) ride along, **kwargs may carry more, or the flag sits in a
**kwargs dict built earlier (reported at its entry): the finding says what
to write.

## Cost
None: the same quantized load.`,
	Run: runLoadIn8bitRemoved,
}

var bnbKeyword = regexp.MustCompile(`^(llm_int8_\w+|bnb_4bit_\w+)$`)

func runLoadIn8bitRemoved(p *Pass) {
	f, text := p.File, p.Src.Text
	tv := p.Versions.Transformers
	if !tv.AtLeast(5, 0) {
		return
	}
	// Flags inside a **kwargs dict built in view: reported at the entry;
	// no fix (the key and the value would both change).
	for _, l := range f.ModelLoads() {
		for _, k := range []string{"load_in_8bit", "load_in_4bit"} {
			if KeywordValue(l.Args, k, text) != nil {
				continue // the call's own keyword: below
			}
			if v := l.Arg(k, text); v != nil {
				p.Report(Finding{Start: start(v), End: end(v),
					Message: fmt.Sprintf("%s in the kwargs of %s() was removed in transformers 5 and raises TypeError, even =False (%s); put quantization_config=BitsAndBytesConfig(%s=...) in the dict instead", k, l.Method, tv.Describe("transformers"), k)})
			}
		}
	}
	for _, c := range f.Calls {
		if c.Method != "from_pretrained" {
			continue
		}
		var flags []*sitter.Node
		for _, k := range []string{"load_in_8bit", "load_in_4bit"} {
			if kw := Keyword(c.Args, k, text); kw != nil {
				flags = append(flags, kw)
			}
		}
		for _, kw := range flags {
			name := kw.ChildByFieldName("name").Content(text)
			val := kw.ChildByFieldName("value")
			fd := Finding{Start: start(kw), End: end(kw),
				Message: fmt.Sprintf("from_pretrained(%s=...) was removed in transformers 5 and raises TypeError, even =False (%s)", name, tv.Describe("transformers"))}
			switch val.Content(text) {
			case "False", "None":
				fd.Message += "; it asks for no quantization: drop it"
				if edits, ok := dropKeywordArg(p.Src, c.Args, kw); ok {
					fd.Fix = &Fix{Message: "remove " + name + "=" + val.Content(text), Edits: edits}
				}
			case "True":
				bits := strings.TrimPrefix(name, "load_in_")
				fd.Message += fmt.Sprintf("; pass quantization_config=BitsAndBytesConfig(%s=True)", name)
				if exactQuantRewrite(c, flags, text) {
					class, imp := fromImport(f, "transformers", "BitsAndBytesConfig")
					fd.Fix = &Fix{Message: fmt.Sprintf("quantization_config=%s(%s=True) (%s)", class, name, bits),
						Edits: append([]Edit{{Start: start(kw), End: end(kw), NewText: fmt.Sprintf("quantization_config=%s(%s=True)", class, name)}}, imp...)}
				}
			default:
				fd.Message += fmt.Sprintf("; pass quantization_config=BitsAndBytesConfig(%s=%s)", name, val.Content(text))
			}
			p.Report(fd)
		}
	}
}

// exactQuantRewrite: the one True flag is the whole quantization request.
func exactQuantRewrite(c *Call, flags []*sitter.Node, text []byte) bool {
	if len(flags) != 1 || HasSplat(c.Args) || Keyword(c.Args, "quantization_config", text) != nil {
		return false
	}
	for _, a := range realArgs(c.Args) {
		if a.Type() == "keyword_argument" && bnbKeyword.MatchString(a.ChildByFieldName("name").Content(text)) {
			return false
		}
	}
	return true
}

var removedTrainingArguments = &Rule{
	Code:     "LTF102",
	Name:     "removed-training-arguments",
	Summary:  "warmup_ratio=, evaluation_strategy= and Trainer(tokenizer=) are TypeErrors on transformers 5: renamed",
	Severity: SeverityError,
	Profiles: []string{ProfileDefault, ProfileLean},
	Triggers: []string{"warmup_ratio", "evaluation_strategy", "tokenizer="},
	// Only in a Trainer call or a training-arguments class (trainingArgsClass).
	Also: []string{"Trainer", "TrainingArguments", "Config"},
	Doc: `## What it does
On a script pinned to transformers 5 or later, renames what 5.x removed:
TrainingArguments(warmup_ratio=x) (and SFTConfig and TRL's other configs)
becomes warmup_steps=x, evaluation_strategy= becomes eval_strategy=, and
Trainer(tokenizer=...) becomes processing_class=.

## Why
Each is a TypeError in transformers 5: the script stops before its first
step. The renames are exact: from 5.0 warmup_steps takes a float below 1
as a ratio of the total steps, eval_strategy exists from 4.41 and
processing_class from 4.46, with the same meaning.

## Example
    args = TrainingArguments(output_dir="out", warmup_ratio=0.03, evaluation_strategy="steps")
becomes
    args = TrainingArguments(output_dir="out", warmup_steps=0.03, eval_strategy="steps")

## When it stays away
Scripts pinned below 5, or with no pin. No fix where the new keyword is
already passed too (a conflict to settle by hand), and for trainers that
are not transformers' own (TRL's trainers follow TRL's versions).

## Cost
None.`,
	Run: runRemovedTrainingArguments,
}

func runRemovedTrainingArguments(p *Pass) {
	f, text := p.File, p.Src.Text
	tv := p.Versions.Transformers
	if !tv.AtLeast(5, 0) {
		return
	}
	rename := func(c *Call, old, repl, why string) {
		kw := Keyword(c.Args, old, text)
		if kw == nil {
			return
		}
		name := kw.ChildByFieldName("name")
		fd := Finding{Start: start(name), End: end(kw),
			Message: fmt.Sprintf("%s(%s=...) was removed in transformers 5 and raises TypeError (%s); %s", c.Method, old, tv.Describe("transformers"), why)}
		if Keyword(c.Args, repl, text) == nil {
			fd.Fix = &Fix{Message: fmt.Sprintf("%s= becomes %s=", old, repl), Edits: []Edit{{Start: start(name), End: end(name), NewText: repl}}}
		} else {
			fd.Message += fmt.Sprintf("; %s= is passed too: keep one", repl)
		}
		p.Report(fd)
	}
	for _, c := range f.Calls {
		switch {
		case isTrainingArgsClass(c.Method):
			rename(c, "warmup_ratio", "warmup_steps", "warmup_steps takes the same ratio (a float below 1) from 5.0")
			rename(c, "evaluation_strategy", "eval_strategy", "eval_strategy is the same setting")
		case c.IsTrainerCall() && strings.HasPrefix(c.Qual, "transformers."):
			rename(c, "tokenizer", "processing_class", "processing_class takes the tokenizer")
		}
	}
}

var prepareModelForInt8Training = &Rule{
	Code:     "LTF103",
	Name:     "prepare-model-for-int8-training",
	Summary:  "prepare_model_for_int8_training is gone from peft 0.10: prepare_model_for_kbit_training",
	Severity: SeverityError,
	Profiles: []string{ProfileDefault, ProfileLean},
	Triggers: []string{"prepare_model_for_int8_training"},
	Doc: `## What it does
Renames peft's prepare_model_for_int8_training to
prepare_model_for_kbit_training, in the import and at every call.

## Why
peft deprecated the int8 name when 4-bit loading arrived and removed it in
0.10: the import fails (ImportError) before anything runs. The alpaca-lora
lineage still imports it. For the arguments those scripts pass (the model,
use_gradient_checkpointing=) the kbit function does the same thing; it
exists from peft 0.4.

## Example
    from peft import LoraConfig, prepare_model_for_int8_training
    model = prepare_model_for_int8_training(model)
becomes
    from peft import LoraConfig, prepare_model_for_kbit_training
    model = prepare_model_for_kbit_training(model)

## When it stays away
Scripts pinned below peft 0.10 (the name still works there). With no pin
it is a warning with the same fix: any peft of the last two years lacks
the old name. No fix when a call passes output_embedding_layer_name= or
layer_norm_names= (the kbit function has neither) or the name is used
other than by calling it.

## Cost
None.`,
	Run: runPrepareModelForInt8Training,
}

const int8Name, kbitName = "prepare_model_for_int8_training", "prepare_model_for_kbit_training"

func runPrepareModelForInt8Training(p *Pass) {
	f, text := p.File, p.Src.Text
	pv := p.Versions.Peft
	if pv.Below(0, 10) {
		return
	}
	sev := SeverityError
	if !pv.Known {
		sev = SeverityWarning
	}
	msg := fmt.Sprintf("prepare_model_for_int8_training was removed in peft 0.10 (%s): the script fails with ImportError; prepare_model_for_kbit_training does the same for these arguments", pv.Describe("peft"))
	// The names to rename: in "from peft import ..." statements, and the
	// callee of every call (unless it goes through an alias).
	var edits []Edit
	var first *sitter.Node
	exact := true
	for _, n := range importedNames(f, "peft", int8Name) {
		edits = append(edits, Edit{Start: start(n), End: end(n), NewText: kbitName})
		if first == nil {
			first = n
		}
	}
	for _, c := range f.Calls {
		if !strings.HasSuffix(c.Qual, "."+int8Name) || !strings.HasPrefix(c.Qual, "peft.") {
			continue
		}
		if first == nil {
			first = c.Node
		}
		for i, a := range realArgs(c.Args) {
			if a.Type() == "keyword_argument" {
				if k := a.ChildByFieldName("name").Content(text); k != "model" && k != "use_gradient_checkpointing" {
					exact = false
				}
			} else if i > 0 {
				exact = false // a second positional: output_embedding_layer_name
			}
		}
		if c.Method != int8Name {
			continue // called through an alias: the import rename covers it
		}
		callee := c.Node.ChildByFieldName("function")
		if callee.Type() == "attribute" {
			callee = callee.ChildByFieldName("attribute")
		}
		edits = append(edits, Edit{Start: start(callee), End: end(callee), NewText: kbitName})
	}
	if first == nil {
		return
	}
	// Every mention of the bare name must be an import or a call we rename.
	if strings.Count(string(text), int8Name) != len(edits) {
		exact = false
	}
	fd := Finding{Start: start(first), End: end(first), Severity: sev, Message: msg}
	if exact && len(edits) > 0 {
		fd.Fix = &Fix{Message: fmt.Sprintf("rename to prepare_model_for_kbit_training (%d place(s))", len(edits)), Edits: edits}
	} else {
		fd.Message += "; a call passes arguments the kbit function lacks (output_embedding_layer_name, layer_norm_names) or the name is used otherwise: rename by hand"
	}
	p.Report(fd)
}

// importedNames finds "from <module>[.x] import name [as alias]" anywhere in
// the file and returns the name nodes.
func importedNames(f *File, module, name string) []*sitter.Node {
	text := f.Src.Text
	if !bytes.Contains(text, []byte(name)) {
		return nil // the walk below costs a cgo call per node
	}
	var out []*sitter.Node
	var walk func(n *sitter.Node)
	walk = func(n *sitter.Node) {
		if n.Type() == "import_from_statement" {
			mod := n.ChildByFieldName("module_name")
			if mod != nil && (mod.Content(text) == module || strings.HasPrefix(mod.Content(text), module+".")) {
				for i := 0; i < int(n.NamedChildCount()); i++ {
					c := n.NamedChild(i)
					if c.Equal(mod) {
						continue
					}
					if c.Type() == "aliased_import" {
						c = c.ChildByFieldName("name")
					}
					if c != nil && c.Content(text) == name {
						out = append(out, c)
					}
				}
			}
			return
		}
		for i := 0; i < int(n.NamedChildCount()); i++ {
			walk(n.NamedChild(i))
		}
	}
	walk(f.Root)
	return out
}

var doraOProj = &Rule{
	Code:     "LTF104",
	Name:     "dora-o-proj",
	Summary:  "DoRA on o_proj of Llama-3.1-8B gives NaN whatever the dtype: leave o_proj out",
	Severity: SeverityWarning,
	Profiles: []string{ProfileDefault, ProfileLean},
	Triggers: []string{"use_dora"},
	Doc: `## What it does
Warns when a LoraConfig with use_dora=True targets o_proj (by name,
"all-linear", or a pattern naming it) and the file trains
Llama-3.1-8B.

## Why
The Llama-3.1-8B checkpoint has all-zero rows in o_proj; DoRA divides by
the weight's column norms, so the magnitude vector and its gradient are
NaN from the first step whatever the dtype (peft issue 2049). fp32, eager
attention and the cuDNN fence do not help.

## Example
    LoraConfig(use_dora=True, target_modules=["q_proj", "k_proj", "v_proj", "o_proj"])
with meta-llama/Llama-3.1-8B: leave "o_proj" out, or use plain LoRA there.

## When it stays away
Other models; a model id known only at run time; target_modules held in a
variable. No fix: which modules to adapt is the user's choice.

## Cost
None.`,
	Run: runDoraOProj,
}

var llama31_8b = regexp.MustCompile(`(?i)llama-?3\.1-8b`)

func runDoraOProj(p *Pass) {
	f, text := p.File, p.Src.Text
	model := ""
	for _, l := range f.ModelLoads() {
		if l.IDKnown && llama31_8b.MatchString(l.ModelID) && l.Use != NotTraining {
			model = l.ModelID
			break
		}
	}
	if model == "" {
		return
	}
	for _, c := range f.Calls {
		if c.Method != "LoraConfig" {
			continue
		}
		if v := KeywordValue(c.Args, "use_dora", text); v == nil || v.Content(text) != "True" {
			continue
		}
		tm := KeywordValue(c.Args, "target_modules", text)
		if tm == nil || !namesOProj(tm, text) {
			continue
		}
		p.Report(Finding{Start: start(tm), End: end(tm),
			Message: fmt.Sprintf("DoRA on o_proj of %s gives NaN from the first step whatever the dtype (zero rows in the checkpoint; peft issue 2049): leave o_proj out of target_modules or use plain LoRA", model)})
	}
}

// namesOProj: a list naming "o_proj", "all-linear", or a string pattern
// that mentions o_proj.
func namesOProj(n *sitter.Node, text []byte) bool {
	if s, ok := StringValue(n, text); ok {
		return s == "all-linear" || strings.Contains(s, "o_proj")
	}
	if n.Type() != "list" && n.Type() != "tuple" && n.Type() != "set" {
		return false
	}
	for i := 0; i < int(n.NamedChildCount()); i++ {
		if s, ok := StringValue(n.NamedChild(i), text); ok && (s == "o_proj" || strings.HasSuffix(s, ".o_proj")) {
			return true
		}
	}
	return false
}

var autocastAdapterDtype = &Rule{
	Code:     "LTF105",
	Name:     "autocast-adapter-dtype",
	Summary:  "autocast_adapter_dtype=False outside DeepSpeed trains the adapters in bf16/fp16",
	Severity: SeverityWarning,
	Profiles: []string{ProfileDefault, ProfileLean},
	Triggers: []string{"autocast_adapter_dtype"},
	Doc: `## What it does
Warns on autocast_adapter_dtype=False (get_peft_model,
PeftModel.from_pretrained, ...) in a file that does not use DeepSpeed.

## Why
peft (0.12 and later) keeps the LoRA weights in float32 even on a bf16 or
fp16 base: they are the fp32 masters of a LoRA run. False leaves them in
the base's half precision, so small updates vanish and the optimizer
state is half precision too: the disease LTF001 cures for the base, moved
into the adapters. DeepSpeed manages the dtypes itself, which is why the
switch exists.

## Example
    model = get_peft_model(model, config, autocast_adapter_dtype=False)
drop the keyword (the default is True).

## When it stays away
Files that mention deepspeed (an import, TrainingArguments(deepspeed=...)).
No fix: the keyword may be there on purpose.

## Cost
None; float32 adapters cost 4 bytes a trainable parameter (a few MB for
LoRA).`,
	Run: runAutocastAdapterDtype,
}

func runAutocastAdapterDtype(p *Pass) {
	f, text := p.File, p.Src.Text
	if strings.Contains(strings.ToLower(string(text)), "deepspeed") {
		return
	}
	for _, c := range f.Calls {
		v := KeywordValue(c.Args, "autocast_adapter_dtype", text)
		if v == nil || v.Content(text) != "False" {
			continue
		}
		p.Report(Finding{Start: start(v.Parent()), End: end(v),
			Message: fmt.Sprintf("autocast_adapter_dtype=False keeps the LoRA adapters in the base model's half precision (no fp32 masters for the adapters) outside DeepSpeed (%s); drop it unless DeepSpeed manages the dtypes", p.Versions.Peft.Describe("peft"))})
	}
}

// dropKeywordArg removes the keyword argument kw from a call's argument
// list: its whole line when it stands alone on one, else the argument with
// the comma that joins it to its neighbour.
func dropKeywordArg(src *Source, args, kw *sitter.Node) ([]Edit, bool) {
	list := realArgs(args)
	idx := -1
	for i, a := range list {
		if a.Equal(kw) {
			idx = i
		}
	}
	if idx < 0 {
		return nil, false
	}
	text := src.Text
	// The argument alone on its line (one argument a line style).
	if _, own := src.Indent(start(kw)); own && len(list) > 1 {
		lineEnd := src.LineEnd(end(kw))
		rest := strings.TrimSpace(string(text[end(kw):lineEnd]))
		rest = strings.TrimSpace(strings.TrimPrefix(rest, ","))
		if rest == "" || strings.HasPrefix(rest, "#") {
			if idx == len(list)-1 && commaAfter(args, kw) == nil {
				// The last argument without a trailing comma: the previous
				// argument's comma goes too.
				prev := list[idx-1]
				if commaAfter(args, prev) != nil && src.Position(end(prev)).Line != src.Position(start(kw)).Line {
					comma := commaAfter(args, prev)
					return []Edit{{Start: start(comma), End: end(comma)}, {Start: src.LineStart(start(kw)), End: lineEnd}}, true
				}
				return nil, false
			}
			return []Edit{{Start: src.LineStart(start(kw)), End: lineEnd}}, true
		}
	}
	switch {
	case len(list) == 1:
		from, to := start(kw), end(kw)
		if c := commaAfter(args, kw); c != nil {
			to = end(c)
		}
		return []Edit{{Start: from, End: to}}, true
	case idx > 0:
		return []Edit{{Start: end(list[idx-1]), End: end(kw)}}, true
	default:
		return []Edit{{Start: start(kw), End: start(list[1])}}, true
	}
}

// fromImport returns the name under which the file can call module.name
// (its own import, an alias of the module, or a new from-import) and the
// edit that adds the import when it is missing.
func fromImport(f *File, module, name string) (string, []Edit) {
	if local, ok := f.Alias(module + "." + name); ok {
		return local, nil
	}
	if local, ok := f.Alias(module); ok {
		return local + "." + name, nil
	}
	// Join an existing one-line "from module import a, b".
	for _, st := range f.importStmts {
		mod := st.ChildByFieldName("module_name")
		if st.Type() != "import_from_statement" || mod == nil || mod.Content(f.Src.Text) != module ||
			strings.ContainsAny(st.Content(f.Src.Text), "(*\\\n") {
			continue
		}
		last := st.NamedChild(int(st.NamedChildCount()) - 1)
		return name, []Edit{{Start: end(last), End: end(last), NewText: ", " + name}}
	}
	line := "from " + module + " import " + name
	if n := len(f.importStmts); n > 0 {
		if e, ok := insertAfter(f.Src, f.importStmts[n-1], []string{line}); ok {
			return name, []Edit{e}
		}
	}
	return name, []Edit{{Start: 0, End: 0, NewText: line + f.Src.EOL}}
}
