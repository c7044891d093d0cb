package rewrite

import (
	"fmt"
	"strings"

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
another class of the file).

## Why
From transformers 4.46 the Trainer calls
self.compute_loss(model, inputs, num_items_in_batch=...). An override
written for older versions, compute_loss(self, model, inputs,
return_outputs=False), stops the run with "TypeError: compute_loss() got an
unexpected keyword argument 'num_items_in_batch'" (transformers issue
36331). The same release changed how the loss is scaled under gradient
accumulation (transformers PR 34191 and 35438): an override that takes the
parameter and computes a mean loss may still want to divide a summed loss
by num_items_in_batch; the message says so, the fix does not guess.

## Example
    class WeightedTrainer(Trainer):
        def compute_loss(self, model, inputs, return_outputs=False):
becomes
    class WeightedTrainer(Trainer):
        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):

## When it stays away
A signature that already names num_items_in_batch or takes **kwargs. A
script pinned below 4.46 (the Trainer never passes it). With no pin the fix
is offered as a warning: an optional parameter with a default is harmless
on every version, so adding it is the conservative choice. Classes whose
base is not a Trainer of transformers or TRL (or of this file).

## Cost
None.`,
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
		cls := enclosing(fn.Node, "class_definition")
		if cls == nil || !fnDirectlyIn(fn.Node, cls.ChildByFieldName("body")) {
			continue // not a method (a function nested in one)
		}
		base := f.trainerBase(cls, 0)
		if base == "" {
			continue
		}
		params := fn.Node.ChildByFieldName("parameters")
		if params == nil || paramNode(fn, "num_items_in_batch", text) != nil || hasKwargsParam(params) {
			continue
		}
		fd := Finding{Start: start(fn.Node.ChildByFieldName("name")), End: end(params),
			Message: fmt.Sprintf("%s.compute_loss overrides %s's without num_items_in_batch: from transformers 4.46 the Trainer passes it and the run stops with TypeError (%s); accept num_items_in_batch=None (and, with gradient accumulation, check how the loss is reduced: a summed loss divides by it)",
				cls.ChildByFieldName("name").Content(text), base, tv.Describe("transformers"))}
		if !tv.Known {
			fd.Severity = SeverityWarning
			fd.Message += "; the parameter is harmless before 4.46"
		}
		fd.Fix = addingFix("add num_items_in_batch=None to compute_loss", listAddition(p.Src, params, "num_items_in_batch=None"))
		p.Report(fd)
	}
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
func (f *Facts) trainerBase(cls *syntree.Node, depth int) string {
	text := f.Src.Text
	supers := cls.ChildByFieldName("superclasses")
	if supers == nil || depth > 8 {
		return ""
	}
	for _, sup := range namedNoComments(supers) {
		if sup.Type() != "identifier" && sup.Type() != "attribute" {
			continue // a keyword such as metaclass=
		}
		name := dottedName(sup, text)
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
				if b := f.trainerBase(n, depth+1); b != "" {
					return b
				}
			}
		}
	}
	return ""
}
