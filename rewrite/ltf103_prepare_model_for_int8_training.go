package rewrite

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

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
the old name. A peft pinned to a git commit, or a vendored copy (its source
put on sys.path, or a peft/ package beside the script; DOMAIN §10), has a
version nobody can read and may predate the kbit name (peft 0.4): a
warning, no rename. No fix when a call passes output_embedding_layer_name= or
layer_norm_names= (the kbit function has neither) or the name is used
other than by calling it.

## Cost
None.

## Evidence

| status | what was run |
| --- | --- |
| mechanism only | peft 0.10 removed prepare_model_for_int8_training (ImportError); not run |`,
	Run: runPrepareModelForInt8Training,
}

const int8Name, kbitName = "prepare_model_for_int8_training", "prepare_model_for_kbit_training"

func runPrepareModelForInt8Training(p *Pass) {
	f, text := p.Facts, p.Src.Text
	pv := p.Versions.Peft
	if pv.Below(0, 10) {
		return
	}
	sev := SeverityError
	if !pv.Known {
		sev = SeverityWarning
	}
	msg := fmt.Sprintf("prepare_model_for_int8_training was removed in peft 0.10 (%s): the script fails with ImportError; prepare_model_for_kbit_training does the same for these arguments", pv.Describe("peft"))
	if pv.Unreadable() {
		msg = fmt.Sprintf("prepare_model_for_int8_training was removed in peft 0.10 and prepare_model_for_kbit_training came in 0.4, but the installed peft may have only the old name (%s): not renamed; rename it once you know it is 0.10 or newer", pv.Describe("peft"))
	}
	// The names to rename: in "from peft import ..." statements, and the
	// callee of every call (unless it goes through an alias).
	var edits []Edit
	var first *syntree.Node
	exact := true
	for _, n := range semantic.ImportedNames(f, "peft", int8Name) {
		edits = append(edits, Edit{Start: n.Start(), End: n.End(), NewText: kbitName})
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
		for i, a := range semantic.RealArgs(c.Args) {
			if a.Type() == "keyword_argument" {
				if k := a.ChildByFieldName("name").Content(text); k != "model" && k != "use_gradient_checkpointing" {
					exact = false
				}
			} else if i > 0 {
				exact = false // a second positional: output_embedding_layer_name
			}
		}
		if lastName(c.Dotted) != int8Name {
			continue // called through an alias: the import rename covers it
		}
		callee := c.Node.ChildByFieldName("function")
		if callee.Type() == "attribute" {
			callee = callee.ChildByFieldName("attribute")
		}
		edits = append(edits, Edit{Start: callee.Start(), End: callee.End(), NewText: kbitName})
	}
	if first == nil {
		return
	}
	// Every mention of the bare name must be an import or a call we rename.
	if bytes.Count(text, []byte(int8Name)) != len(edits) {
		exact = false
	}
	fd := Finding{Start: first.Start(), End: first.End(), Severity: sev, Message: msg}
	if exact && len(edits) > 0 && !pv.Unreadable() {
		fd.Fix = &Fix{Message: fmt.Sprintf("rename to prepare_model_for_kbit_training (%d place(s))", len(edits)), Edits: edits}
	} else if !pv.Unreadable() {
		fd.Message += "; a call passes arguments the kbit function lacks (output_embedding_layer_name, layer_norm_names) or the name is used otherwise: rename by hand"
	}
	p.Report(fd)
}
