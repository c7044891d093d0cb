package rewrite

import (
	"fmt"
	"strings"

	"github.com/loratune/loratune-fix/pyedit"
	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

var computeLossSignature = &Rule{
	Code:     "LTF106",
	Name:     "compute-loss-signature",
	Summary:  "a Trainer subclass's compute_loss without num_items_in_batch is a TypeError on transformers 4.46+",
	Severity: SeverityError,
	Profiles: []string{ProfileDefault, ProfileLean},
	Triggers: []string{"compute_loss"},
	Also:     []string{"Trainer"},
	Doc: `## What it does
Adds num_items_in_batch=None to the signature of compute_loss in a class
that derives from transformers' or TRL's Trainer (directly, or through
another class of the file), and keeps the loss's scale under gradient
accumulation:
- where the loss is written as a sum over the label tokens (one assignment
  of cross_entropy or nll_loss with reduction="sum", the name every return
  returns), it divides that sum by num_items_in_batch when the Trainer
  passes one: the Trainer's own normalisation;
- otherwise (a mean over the micro-batch, the model's own loss, any other
  sum) it sets self.model_accepts_loss_kwargs = False after the
  super().__init__(...) of the class's __init__, or in an __init__ it adds
  before compute_loss.

## Why
From transformers 4.46 the Trainer calls
self.compute_loss(model, inputs, num_items_in_batch=...). An override
written for older versions, compute_loss(self, model, inputs,
return_outputs=False), stops the run with "TypeError: compute_loss() got an
unexpected keyword argument 'num_items_in_batch'" (transformers issue
36331). Adding the parameter alone is not enough: the same release
(transformers PR 34191 and 35438) made the Trainer trust an override that
takes it, where the model accepts loss keyword arguments (a PEFT model
does), to normalise the loss over all the tokens of the accumulated
batch, and stop dividing it by gradient_accumulation_steps. A loss
averaged over one micro-batch then comes out gradient_accumulation_steps
times too large, in the log and in the gradients, so max_grad_norm clips
every step. With model_accepts_loss_kwargs False the Trainer divides by
the steps again, as before 4.46 (for any loss, the scale the script had);
a summed token loss divided by num_items_in_batch is exactly the
Trainer's own normalisation. The flag is
set on the instance after the Trainer's __init__, because that __init__
sets it and would hide a class attribute.

Measured on an H200 (torch 2.11, transformers 5.17, peft 0.21; a tiny
random Llama with LoRA, gradient_accumulation_steps=4,
e2e/gpu/ltf106_scale.py on the goldens of fixtures/e2e/ltf106_*.py): see
docs/gpu-validation.md.

## Example
    class WeightedTrainer(Trainer):
        def compute_loss(self, model, inputs, return_outputs=False):
becomes
    class WeightedTrainer(Trainer):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            # loratune-fix LTF106: ...
            self.model_accepts_loss_kwargs = False

        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):

## When it stays away
A signature that already names num_items_in_batch or takes **kwargs. A
script pinned below 4.46 (the Trainer never passes it). With no pin the fix
is offered as a warning: an optional parameter with a default, a flag the
Trainer does not read and a division by a value it never passes are
harmless before 4.46. An __init__ with no super().__init__(...) statement
to follow: the signature is fixed, and the message says to set the flag
by hand. Classes whose
base is not a Trainer of transformers or TRL (or of this file).

## Cost
None.

## Evidence

| status | what was run |
| --- | --- |
| failure reproduced | on torch 2.11, cuDNN 9.19, transformers 5.17, peft 0.21, H200 (e2e/gpu/trainer_checks.py, 2026-12-02): the pre-4.46 signature stops at step 1 with the TypeError |
| old fix wrong, new fix measured | the signature alone logged 4.00x the plain Trainer's loss (gradient accumulation 4); today's output: within 0.04% (mean loss) and 4e-8 (summed loss) |`,
	Run: runComputeLossSignature,
}

func runComputeLossSignature(p *Pass) {
	f, text := p.Facts, p.Src.Text
	tv := p.Versions.Transformers
	if tv.Below(4, 46) {
		return
	}
	for _, fn := range f.Funcs {
		if fn.Name != "compute_loss" {
			continue
		}
		cls := semantic.Enclosing(fn.Node, "class_definition")
		if cls == nil || !fnDirectlyIn(fn.Node, cls.ChildByFieldName("body")) {
			continue // not a method (a function nested in one)
		}
		base := trainerBase(f, cls, 0)
		if base == "" {
			continue
		}
		params := fn.Node.ChildByFieldName("parameters")
		if params == nil || semantic.ParamNode(fn, "num_items_in_batch", text) != nil || hasKwargsParam(params) {
			continue
		}
		name := cls.ChildByFieldName("name").Content(text)
		fd := Finding{Start: fn.Node.ChildByFieldName("name").Start(), End: params.End(),
			Message: fmt.Sprintf("%s.compute_loss overrides %s's without num_items_in_batch: from transformers 4.46 the Trainer passes it and the run stops with TypeError (%s)",
				name, base, tv.Describe("transformers"))}
		add := pyedit.ListAddition(p.Src, params, "num_items_in_batch=None")
		var scale []Edit
		if sum, e, ok := sumNormalised(p, fn); ok {
			fd.Message += fmt.Sprintf("; accept num_items_in_batch=None, and divide the summed loss (%s) by it: the Trainer then takes it as normalised over the accumulated batch, as its own loss is", sum)
			scale = []Edit{e}
		} else if e, ok := lossKwargsOff(p, cls, fn); ok {
			fd.Message += "; accept num_items_in_batch=None, and set model_accepts_loss_kwargs = False after the Trainer's __init__: an override that takes the parameter is trusted to normalise over the accumulated batch, so a loss averaged over its own micro-batch comes out gradient_accumulation_steps times too large (4.00x at 4 steps, measured on transformers 5.17); with the flag off the Trainer divides it by the steps, as before 4.46"
			scale = []Edit{e}
		} else {
			fd.Severity = SeverityWarning
			fd.Message += "; accept num_items_in_batch=None, and then set self.model_accepts_loss_kwargs = False after the Trainer's __init__ by hand (this class's __init__ has no super().__init__(...) statement the fix can follow): otherwise a loss averaged over its micro-batch comes out gradient_accumulation_steps times too large"
		}
		if !tv.Known && fd.Severity == "" {
			fd.Severity = SeverityWarning
			fd.Message += "; the changes are harmless before 4.46"
		}
		fd.Fix = pyedit.AddingFix("add num_items_in_batch=None to compute_loss", add, scale...)
		if len(scale) > 0 {
			fd.Fix.Message += " and keep the loss's scale under gradient accumulation"
		}
		p.Report(fd)
	}
}

// sumNormalised finds a compute_loss whose loss is written as a sum over
// the label tokens: one assignment, a direct statement of the body, of
// cross_entropy or nll_loss with reduction="sum", to a name that every
// return statement returns and nothing else assigns. The edit divides it by
// num_items_in_batch right after, when the Trainer passes one.
func sumNormalised(p *Pass, fn *semantic.Func) (string, Edit, bool) {
	f, text := p.Facts, p.Src.Text
	for _, c := range f.Calls {
		if c.Func != fn {
			continue
		}
		// A token loss summed: each term is one label, as num_items_in_batch
		// counts them. Other sums (.sum() of anything) keep the flag fix,
		// which restores what the script computed before 4.46.
		if c.Method != "cross_entropy" && c.Method != "nll_loss" {
			continue
		}
		if v, ok := semantic.StringValue(semantic.KeywordValue(c.Args, "reduction", text), text); !ok || v != "sum" {
			continue
		}
		stmt := semantic.Statement(c.Node)
		if stmt == nil || stmt.Parent() == nil || !stmt.Parent().Equal(fn.Body) || stmt.Type() != "expression_statement" || stmt.NamedChildCount() != 1 {
			continue
		}
		asg := stmt.NamedChild(0)
		if asg.Type() != "assignment" || asg.ChildByFieldName("left").Type() != "identifier" || !asg.ChildByFieldName("right").Equal(c.Node) {
			continue
		}
		name := asg.ChildByFieldName("left").Content(text)
		n := 0
		for _, a := range f.Assigns {
			if a.Func == fn && a.Text == name {
				n++
			}
		}
		if n != 1 || !returnsName(fn.Body, name, text) {
			continue
		}
		e, ok := pyedit.InsertAfter(p.Src, stmt, []string{
			"# loratune-fix LTF106: the Trainer takes this loss as normalised over the accumulated batch",
			"if num_items_in_batch is not None:",
			"\t" + name + " = " + name + " / num_items_in_batch",
		})
		return name, e, ok
	}
	return "", Edit{}, false
}

// returnsName reports a block whose return statements (outside nested
// functions; at least one) all mention name.
func returnsName(n *syntree.Node, name string, text []byte) bool {
	seen, all := 0, true
	var walk func(*syntree.Node)
	walk = func(n *syntree.Node) {
		for _, c := range n.NamedChildren() {
			switch c.Type() {
			case "function_definition", "class_definition", "lambda":
				continue
			case "return_statement":
				seen++
				all = all && mentions(c, name, text)
				continue
			}
			walk(c)
		}
	}
	walk(n)
	return seen > 0 && all
}

// mentions reports an identifier name within n.
func mentions(n *syntree.Node, name string, text []byte) bool {
	if n.Type() == "identifier" {
		return n.Content(text) == name
	}
	for _, c := range n.NamedChildren() {
		if mentions(c, name, text) {
			return true
		}
	}
	return false
}

// sumsSomething reports a compute_loss that sums (.sum(), or a
// reduction="sum"), whose loss may be no mean.
func sumsSomething(p *Pass, fn *semantic.Func) bool {
	text := p.Src.Text
	for _, c := range p.Facts.Calls {
		if c.Func != fn {
			continue
		}
		if v, ok := semantic.StringValue(semantic.KeywordValue(c.Args, "reduction", text), text); c.Method == "sum" || ok && v == "sum" {
			return true
		}
	}
	return false
}

// lossKwargsOff is the edit that sets model_accepts_loss_kwargs = False
// on the instance once the Trainer's __init__ has set it (a class
// attribute would be overwritten there): after the super().__init__(...)
// statement of the class's __init__, or in an __init__ added before
// compute_loss.
func lossKwargsOff(p *Pass, cls *syntree.Node, fn *semantic.Func) (Edit, bool) {
	text := p.Src.Text
	comment := "# loratune-fix LTF106: compute_loss returns a mean over its own micro-batch; the Trainer divides it by the accumulation steps"
	if sumsSomething(p, fn) {
		comment = "# loratune-fix LTF106: the Trainer divides this compute_loss's loss by the accumulation steps, as before transformers 4.46"
	}
	for _, init := range p.Facts.Funcs {
		if init.Name != "__init__" || !fnDirectlyIn(init.Node, cls.ChildByFieldName("body")) {
			continue
		}
		for _, stmt := range semantic.NamedNoComments(init.Body) {
			if stmt.Type() == "expression_statement" && strings.Contains(stmt.Content(text), ".__init__(") && strings.HasPrefix(stmt.Content(text), "super(") {
				return pyedit.InsertAfter(p.Src, stmt, []string{comment, "self.model_accepts_loss_kwargs = False"})
			}
		}
		return Edit{}, false
	}
	def := fn.Node
	if d := def.Parent(); d != nil && d.Type() == "decorated_definition" {
		def = d
	}
	e, ok := insertBefore(p.Src, def, []string{
		"def __init__(self, *args, **kwargs):",
		"\tsuper().__init__(*args, **kwargs)",
		"\t" + comment,
		"\tself.model_accepts_loss_kwargs = False",
	})
	e.NewText += p.Src.EOL
	return e, ok
}

// fnDirectlyIn reports a function definition (decorated or not) that is a
// statement of body.
func fnDirectlyIn(def, body *syntree.Node) bool {
	stmt := def
	if p := def.Parent(); p != nil && p.Type() == "decorated_definition" {
		stmt = p
	}
	parent := stmt.Parent()
	return body != nil && parent != nil && parent.Equal(body)
}

// hasKwargsParam reports a **kwargs parameter.
func hasKwargsParam(params *syntree.Node) bool {
	for _, prm := range params.NamedChildren() {
		if prm.Type() == "dictionary_splat_pattern" {
			return true
		}
	}
	return false
}

// trainerBase names the transformers or TRL Trainer a class derives from,
// directly or through classes of this file ("" when none).
func trainerBase(f *semantic.Facts, cls *syntree.Node, depth int) string {
	text := f.Src.Text
	supers := cls.ChildByFieldName("superclasses")
	if supers == nil || depth > 8 {
		return ""
	}
	for _, sup := range semantic.NamedNoComments(supers) {
		if sup.Type() != "identifier" && sup.Type() != "attribute" {
			continue // a keyword such as metaclass=
		}
		name := semantic.DottedName(sup, text)
		q := f.Resolve(name)
		if strings.HasSuffix(q, "Trainer") && (strings.HasPrefix(q, "transformers.") || strings.HasPrefix(q, "trl.")) {
			return name
		}
		if strings.Contains(name, ".") {
			continue
		}
		for _, n := range f.Root.NamedChildren() {
			if n.Type() == "decorated_definition" {
				n = n.ChildByFieldName("definition")
			}
			if n != nil && n.Type() == "class_definition" && !n.Equal(cls) && n.ChildByFieldName("name").Content(text) == name {
				if b := trainerBase(f, n, depth+1); b != "" {
					return b
				}
			}
		}
	}
	return ""
}
