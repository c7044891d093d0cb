package rewrite

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/loratune/loratune-fix/pyedit"
	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

var deferredCompile = &Rule{
	Code:     "LTF006",
	Name:     "deferred-compile",
	Summary:  "defer torch.compile until training is known stable; drop a compile placed after the Trainer",
	Severity: SeverityWarning,
	Profiles: []string{ProfileDefault, ProfileLean},
	Triggers: []string{"compile"},
	// torch.compile and torch_compile= spell "torch" (an import at least);
	// model.compile() needs a model from a load or get_peft_model
	// (isModelVar). re.compile alone costs no parse.
	Also:         []string{"torch", "from_pretrained", "from_config", "get_peft_model"},
	TrainingOnly: true,
	Doc: `## What it does
- model = torch.compile(model) after Trainer(model=model, ...) is removed,
  with a comment saying why: it only rebinds a name, the trainer trains
  the uncompiled model.
- A compile before the Trainer is commented out, under a comment that says
  how to turn it back on once training is stable.
- TrainingArguments(torch_compile=True) becomes torch_compile=False.
- Trainer(model=torch.compile(m)) becomes Trainer(model=m).
A guard such as if torch.__version__ >= "2" and sys.platform != "win32":
goes with the compile it guards.

## Why
While a run goes NaN, a compiled graph is one more moving part, and the
failure must first be fixed eagerly. A compile placed after the Trainer
never took effect. Trainer(model=torch.compile(peft_model)) fails in
transformers 5.17 ("The batch received was empty").

## Example
    trainer = Trainer(model=model, args=args)
    model = torch.compile(model)
becomes
    trainer = Trainer(model=model, args=args)
    # loratune-fix LTF006: removed torch.compile(model) ...

## When it stays away
Compiles in inference or export code. A compile (before the Trainer, or
in place) behind the script's own flag that is off unless the user turns
it on (if args.compile: with
action="store_true", if use_compile: with a False default, torch.compile(m)
if compile else m) is the user's choice: a note, no edit. A flag set True
in the file or defaulting to True compiles every run: deferred.

## Cost
Speed only: compiled training can be faster once it is stable. The
compile after the Trainer cost nothing because it did nothing.

## Evidence

| status | what was run |
| --- | --- |
| mechanism only | a torch.compile after Trainer(...) only rebinds a name; the harness's Llama original carries one, which changes nothing in its failure; Trainer(model=torch.compile(peft_model)) failing on transformers 5.17 was seen in the first reproduction, not by the harness |`,
	Run: runDeferredCompile,
}

const (
	compileRemoved  = "# loratune-fix LTF006: removed a torch.compile placed after Trainer(...): it only rebound the name, the trainer trained the uncompiled model"
	compileDeferred = "# loratune-fix LTF006: torch.compile deferred until training is known stable; uncomment the %s below to turn it back on"
)

// deferredNote is the comment above a compile that is commented out, with
// "line" or "lines" as many as unit spans.
func deferredNote(src *semantic.Source, unit *syntree.Node) string {
	if !bytes.Contains(src.Text[unit.Start():unit.End()], []byte("\n")) {
		return fmt.Sprintf(compileDeferred, "line")
	}
	return fmt.Sprintf(compileDeferred, "lines")
}

func runDeferredCompile(p *Pass) {
	f, text := p.Facts, p.Src.Text
	if !f.HasTraining() {
		return
	}
	for _, c := range f.Calls {
		if c.IsTrainerCall() || strings.HasSuffix(c.Method, "Config") || strings.HasSuffix(c.Method, "TrainingArguments") {
			compileArgument(p, c)
		}
		if f.TrainingUse(c.Func) != semantic.Training {
			continue
		}
		if c.Method == "compile" && len(semantic.RealArgs(c.Args)) == 0 && isModelVar(f, c) {
			// model.compile() compiles in place: it takes effect even after
			// the Trainer, so it is deferred, never removed.
			if stmt := semantic.Statement(c.Node); stmt != nil && stmt.Type() == "expression_statement" && stmt.NamedChild(0).Equal(c.Node) {
				if optIn(p, c) {
					continue
				}
				fd := Finding{Start: c.Node.Start(), End: c.Node.End(),
					Message: "in-place compile of the training model: defer it until training is known stable (a NaN must be fixed eagerly first)"}
				if edits, ok := pyedit.CommentOut(p.Src, compileGuard(stmt), deferredNote(p.Src, compileGuard(stmt))); ok {
					fd.Fix = &Fix{Message: "comment out the compile until training is stable", Edits: edits}
				}
				p.Report(fd)
			}
			continue
		}
		if c.Qual != "torch.compile" {
			continue
		}
		trainer := firstTrainer(f, c.Func)
		if trainer != nil && semantic.Within(c.Node, trainer.Node) {
			// Trainer(model=torch.compile(m)): pass m itself.
			args := semantic.RealArgs(c.Args)
			if len(args) == 1 {
				p.Report(Finding{Start: c.Node.Start(), End: c.Node.End(),
					Message: "Trainer(model=torch.compile(...)) fails in transformers 5 (column pruning reads the compiled wrapper's signature); pass the model and compile once training is stable",
					Fix:     &Fix{Message: "pass the uncompiled model", Edits: []Edit{{Start: c.Node.Start(), End: c.Node.End(), NewText: args[0].Content(text)}}}})
			}
			continue
		}
		stmt := semantic.Statement(c.Node)
		if stmt == nil || stmt.Type() != "expression_statement" {
			continue
		}
		unit := compileGuard(stmt)
		after := trainer != nil && trainer.Func == c.Func && c.Node.StartByte() > trainer.Node.EndByte()
		if after {
			fd := Finding{Start: c.Node.Start(), End: c.Node.End(),
				Message: "torch.compile after Trainer(...) only rebinds the name: the trainer trains the uncompiled model; removed"}
			if e, ok := pyedit.ReplaceStatement(p.Src, unit, []string{compileRemoved}); ok {
				fd.Fix = &Fix{Message: "remove the compile that never took effect", Edits: []Edit{e}}
			}
			p.Report(fd)
			continue
		}
		if optIn(p, c) {
			continue
		}
		fd := Finding{Start: c.Node.Start(), End: c.Node.End(),
			Message: "torch.compile on the training path: defer it until training is known stable (a NaN must be fixed eagerly first)"}
		if edits, ok := pyedit.CommentOut(p.Src, unit, deferredNote(p.Src, unit)); ok {
			fd.Fix = &Fix{Message: "comment out the compile until training is stable", Edits: edits}
		}
		p.Report(fd)
	}
}

// compileArgument handles torch_compile=True in training arguments, and
// torch_compile_mode= / torch_compile_backend=, each of which turns
// compile on by itself.
func compileArgument(p *Pass, c *semantic.Call) {
	text := p.Src.Text
	for _, k := range []string{"torch_compile_mode", "torch_compile_backend"} {
		kw := semantic.Keyword(c.Args, k, text)
		if kw == nil {
			continue
		}
		fd := Finding{Start: kw.Start(), End: kw.End(),
			Message: k + "= turns torch.compile on by itself: defer it until training is known stable"}
		if edits, verb, ok := disableArgument(p.Src, c.Args, kw); ok {
			fd.Fix = &Fix{Message: verb + " " + k, Edits: edits, Claim: pyedit.ArgsClaim(c.Args)}
		}
		p.Report(fd)
	}
	v := semantic.KeywordValue(c.Args, "torch_compile", text)
	if v == nil || v.Content(text) != "True" {
		return
	}
	edits := []Edit{{Start: v.Start(), End: v.End(), NewText: "False"}}
	kw := v.Parent()
	rest := strings.TrimSpace(string(text[kw.End():p.Src.LineEnd(kw.End())]))
	if rest == "," || rest == "" && p.Src.Position(kw.End()).Line != p.Src.Position(c.Args.End()).Line {
		at := kw.End() + len(rest)
		edits = append(edits, Edit{Start: at, End: at, NewText: "  # loratune-fix LTF006: set True again once training is stable"})
	}
	p.Report(Finding{Start: v.Start(), End: v.End(),
		Message: "torch_compile=True compiles the training model: defer it until training is known stable",
		Fix:     &Fix{Message: "torch_compile=False", Edits: edits}})
}

func firstTrainer(f *semantic.Facts, fn *semantic.Func) *semantic.Call {
	for _, c := range f.Calls {
		if c.Func == fn && c.IsTrainerCall() {
			return c
		}
	}
	return nil
}

// compileGuard widens a compile statement to an "if" that guards only it,
// such as if torch.__version__ >= "2" and sys.platform != "win32":
func compileGuard(stmt *syntree.Node) *syntree.Node {
	if guard := pyedit.SoleGuard(stmt); guard != nil {
		return guard
	}
	return stmt
}

// disableArgument comments out a keyword argument that stands on its own
// line (with its comma and its comment, if any), or removes it (with its
// comma) from an inline argument list; verb says which, for the fix's
// title.
func disableArgument(src *semantic.Source, args, kw *syntree.Node) (edits []Edit, verb string, ok bool) {
	text := src.Text
	line := src.Position(kw.Start()).Line
	if _, own := src.Indent(kw.Start()); own && src.Position(kw.End()).Line == line {
		rest := strings.TrimSpace(string(text[kw.End():src.LineEnd(kw.End())]))
		rest = strings.TrimSpace(strings.TrimPrefix(rest, ","))
		if (rest == "" || strings.HasPrefix(rest, "#")) && src.Position(args.End()).Line != line {
			// The note goes on a line of its own above: after the
			// argument and a comment of the user's it would make the line
			// too long.
			indent, _ := src.Indent(kw.Start())
			return []Edit{{
				Start:   src.LineStart(kw.Start()),
				End:     kw.Start(),
				NewText: indent + "# loratune-fix LTF006: turns compile on; restore once training is stable" + src.EOL + indent + "# ",
			}}, "comment out", src.LineEnd(kw.End()) > kw.End()
		}
	}
	edits, ok = pyedit.DropArg(args, kw)
	return edits, "remove", ok
}

// isModelVar reports a call on a variable that holds the trained model: the
// target of a training load or of get_peft_model.
func isModelVar(f *semantic.Facts, c *semantic.Call) bool {
	obj := c.Object()
	if obj == "" {
		return false // a bare compile(...)
	}
	for _, l := range f.TrainingLoads() {
		if l.Target == obj {
			return true
		}
	}
	for _, a := range f.Assigns {
		if a.Text == obj && semantic.Of(f.CalleeOf(a.Value)).Has(semantic.AdapterWrap) {
			return true
		}
	}
	return false
}

// optIn reports (with a note) a compile behind the script's own flag that
// is off unless the user turns it on (if args.compile:, if use_compile:,
// model = torch.compile(model) if compile else model): the user's choice,
// left as it is. A flag set True in the file, or defaulting to True, turns
// compile on by itself and is deferred like any compile.
func optIn(p *Pass, c *semantic.Call) bool {
	f := p.Facts
	for n := c.Node.Parent(); n != nil && n.Type() != "function_definition" && n.Type() != "module"; n = n.Parent() {
		// The compile must sit where the condition holds: the body of an
		// if or elif, or the first part of "a if cond else b".
		var cond, then *syntree.Node
		switch n.Type() {
		case "if_statement", "elif_clause":
			cond, then = n.ChildByFieldName("condition"), n.ChildByFieldName("consequence")
		case "conditional_expression":
			if n.NamedChildCount() == 3 {
				then, cond = n.NamedChild(0), n.NamedChild(1)
			}
		}
		if cond == nil || then == nil || !semantic.Within(c.Node, then) {
			continue
		}
		if flag := compileFlag(f, cond, c.Func); flag != "" {
			p.Report(Finding{Start: c.Node.Start(), End: c.Node.End(), Severity: SeverityInfo,
				Message: fmt.Sprintf("torch.compile behind the script's own flag %s, off unless turned on: the user's choice, left as it is (keep it off while a run goes NaN)", flag)})
			return true
		}
	}
	return false
}

// compileFlag finds, in a condition, a name or attribute naming a compile
// switch (compile, args.compile, use_compile, cfg.torch_compile) that is
// off by default, and returns it as written; "" when there is none.
func compileFlag(f *semantic.Facts, cond *syntree.Node, fn *semantic.Func) string {
	text := f.Src.Text
	var found string
	var walk func(n *syntree.Node)
	walk = func(n *syntree.Node) {
		if found != "" {
			return
		}
		switch n.Type() {
		case "call", "string", "comparison_operator":
			return // hasattr(torch, "compile"), torch.__version__ >= "2"
		case "identifier", "attribute":
			name := semantic.DottedName(n, text)
			last := strings.ToLower(name[strings.LastIndexByte(name, '.')+1:])
			if strings.Contains(last, "compile") && f.Resolve(name) != "torch.compile" && !flagOnByDefault(f, n, fn) {
				found = name
			}
			return
		}
		for _, ci := range n.NamedChildren() {
			walk(ci)
		}
	}
	walk(cond)
	return found
}

// flagOnByDefault reports a flag that is True unless the user says
// otherwise: assigned True in the file, a parameter defaulting to True, an
// argparse option or dataclass field with default True.
func flagOnByDefault(f *semantic.Facts, n *syntree.Node, fn *semantic.Func) bool {
	text := f.Src.Text
	if n.Type() == "identifier" {
		vals, _ := f.Values(n)
		for _, v := range vals {
			if v.Content(text) == "True" {
				return true
			}
		}
		return semantic.ParamDefault(fn, n.Content(text), text) == "True"
	}
	attr := n.ChildByFieldName("attribute").Content(text)
	for _, c := range f.Calls {
		if c.Method != "add_argument" {
			continue
		}
		if args := semantic.RealArgs(c.Args); len(args) > 0 {
			if flag, ok := semantic.StringValue(args[0], text); ok && strings.ReplaceAll(strings.TrimLeft(flag, "-"), "-", "_") == attr {
				d := semantic.KeywordValue(c.Args, "default", text)
				return d != nil && d.Content(text) == "True" || semantic.KeywordValue(c.Args, "action", text) != nil && strings.Contains(semantic.KeywordValue(c.Args, "action", text).Content(text), "store_false")
			}
		}
	}
	for _, a := range f.Assigns {
		if a.Text == attr && semantic.InsideClass(a.Node) {
			v := a.Value
			if semantic.Last(f.CalleeOf(v)) == "field" {
				v = semantic.KeywordValue(v.ChildByFieldName("arguments"), "default", text)
			}
			return v != nil && v.Content(text) == "True"
		}
	}
	return false
}
