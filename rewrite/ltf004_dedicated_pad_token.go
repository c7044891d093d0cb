package rewrite

import (
	"fmt"
	"regexp"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

var dedicatedPadToken = &Rule{
	Code:         "LTF004",
	Name:         "dedicated-pad-token",
	Summary:      "give Llama-3 a dedicated pad token before get_peft_model and set model.config.pad_token_id",
	Severity:     SeverityError,
	Profiles:     []string{ProfileDefault, ProfileLean},
	Triggers:     []string{"pad_token", "from_pretrained"},
	TrainingOnly: true,
	Doc: `## What it does
For a Llama-3 family model, replaces tokenizer.pad_token_id = 0, pad_token =
eos_token (or unk_token), or no pad at all, by a dedicated pad set after the
tokenizer and the model exist and before get_peft_model, then sets
model.config.pad_token_id = tokenizer.pad_token_id.
- Llama-3.1/3.2/3.3 (a literal model id): the reserved
  "<|finetune_right_pad_id|>" (id 128004); no resize.
- Llama-3.0: adds "<|pad|>" and resizes the embeddings, guarded so that it
  happens only when the tokenizer has no pad or pads with id 0.
- A model id known only at run time: the emitted block checks the
  vocabulary at run time and acts only for the Llama-3 family; the
  script's own pad line stays for other families.

## Why
Llama-3 has no pad token. Id 0 is the real token "!": padding with it makes
transformers' language-model collator drop every real "!" from the loss.
pad = eos with a collator that masks labels by id masks every EOS, so the
model never learns to stop.

## Example
    tokenizer.pad_token_id = 0
becomes (after the model load)
    tokenizer.pad_token = "<|finetune_right_pad_id|>"
    model.config.pad_token_id = tokenizer.pad_token_id

## When it stays away
Other families (Llama-2: id 0 is <unk>, a fine pad). A file without a
tokenizer: a finding, no fix. A resize that would land after
get_peft_model: a finding, no fix. A file that already resizes (a
smart_tokenizer_and_embedding_resize helper): no second resize.

## Cost
None with the reserved pad. With "<|pad|>", one new embedding row, which
must be saved with the adapter (peft's save_embedding_layers, or
modules_to_save).`,
	Run: runDedicatedPadToken,
}

type family int

const (
	familyOther family = iota
	familyLlama3
	familyLlama31 // 3.1, 3.2, 3.3: reserved pad
	familyDynamic
)

var (
	llama31ID = regexp.MustCompile(`(?i)llama-?3[._-][123]([^0-9]|$)`)
	llama3ID  = regexp.MustCompile(`(?i)llama-?3([^.0-9]|$)`)
)

func modelFamily(l *Load) family {
	switch {
	case !l.IDKnown:
		return familyDynamic
	case llama31ID.MatchString(l.ModelID):
		return familyLlama31
	case llama3ID.MatchString(l.ModelID):
		return familyLlama3
	}
	return familyOther
}

const reservedPad = "<|finetune_right_pad_id|>"

// padAssignment classifies "tok.pad_token(_id) = value": "bad" for 0, eos
// or unk, "good" for a string literal, "" otherwise.
func padAssignment(v *sitter.Node, text []byte) string {
	for v.Type() == "parenthesized_expression" && v.NamedChildCount() > 0 {
		inner := v.NamedChild(0)
		for i := 0; inner.Type() == "comment" && i+1 < int(v.NamedChildCount()); i++ {
			inner = v.NamedChild(i + 1)
		}
		v = inner
	}
	switch v.Type() {
	case "integer":
		if v.Content(text) == "0" {
			return "bad"
		}
	case "attribute":
		name := v.ChildByFieldName("attribute").Content(text)
		switch name {
		case "eos_token", "eos_token_id", "unk_token", "unk_token_id":
			return "bad"
		}
	case "string":
		if s, ok := StringValue(v, text); ok && s != "" {
			return "good"
		}
	}
	return ""
}

func runDedicatedPadToken(p *Pass) {
	f, src, text := p.File, p.Src, p.Src.Text
	var load *Load
	for _, l := range f.TrainingLoads() {
		if l.Target != "" {
			load = l
			break
		}
	}
	if load == nil {
		return
	}
	fam := modelFamily(load)
	if fam == familyOther {
		return
	}
	// The tokenizer: in the load's scope, else at module level.
	var tokAssign *Assign
	for _, a := range f.Assigns {
		if a.Func != load.Func && a.Func != f.module {
			continue
		}
		if c := a.Value; c.Type() == "call" {
			callee := dottedName(c.ChildByFieldName("function"), text)
			if strings.HasSuffix(callee, ".from_pretrained") && strings.Contains(callee, "Tokenizer") {
				if tokAssign == nil || a.Func == load.Func {
					tokAssign = a
				}
			}
		}
	}
	if tokAssign == nil {
		if fam != familyDynamic {
			p.Report(Finding{Start: start(load.Node), End: end(load.Args), Severity: SeverityWarning,
				Message: "Llama-3 has no pad token (id 0 is \"!\"); this file creates no tokenizer: give it a dedicated pad before get_peft_model and set model.config.pad_token_id"})
		}
		return
	}
	tok, model := tokAssign.Text, load.Target

	var bad []*sitter.Node
	good, configSet := false, false
	for _, a := range f.Assigns {
		switch a.Text {
		case tok + ".pad_token", tok + ".pad_token_id":
			switch padAssignment(a.Value, text) {
			case "bad":
				if stmt := padStatement(a.Node, text); len(bad) == 0 || !bad[len(bad)-1].Equal(stmt) {
					bad = append(bad, stmt)
				}
			case "good":
				good = true
			}
		case model + ".config.pad_token_id":
			if padAssignment(a.Value, text) != "bad" {
				configSet = true
			}
		}
	}
	resizes := false
	for _, c := range f.Calls {
		switch c.Method {
		case "add_special_tokens":
			if strings.Contains(c.Args.Content(text), "pad_token") {
				good = true
			}
		case "smart_tokenizer_and_embedding_resize":
			resizes = true
			if strings.Contains(c.Args.Content(text), "pad_token") {
				good = true // alpaca's helper adds a dedicated pad and resizes
			}
		case "resize_token_embeddings":
			resizes = true
			if peft := firstCall(f, "get_peft_model", c.Func); peft != nil && c.Node.StartByte() > peft.Node.EndByte() {
				p.Report(Finding{Start: start(c.Node), End: end(c.Node), Severity: SeverityWarning,
					Message: "resize_token_embeddings after get_peft_model: the new rows are neither trained nor saved with the adapter; resize before get_peft_model"})
			}
		}
	}
	// A custom state_dict override (alpaca-lora) saves only the adapter
	// weights, so resized embedding rows would be lost on save.
	stateDictOverride := false
	for _, a := range f.Assigns {
		if strings.HasSuffix(a.Text, ".state_dict") {
			stateDictOverride = true
		}
	}
	if kv := KeywordValue(tokAssign.Value.ChildByFieldName("arguments"), "pad_token", text); kv != nil && padAssignment(kv, text) == "good" {
		good = true
	}
	if good && configSet {
		return
	}

	// Where the new lines go: after both the tokenizer and the model exist.
	anchor := f.statementIn(load.Node, load.Func)
	if tokAssign.Func == load.Func {
		if t := f.statementIn(tokAssign.Node, load.Func); t != nil && anchor != nil && t.StartByte() > anchor.StartByte() {
			anchor = t
		}
	}
	peft := firstCall(f, "get_peft_model", load.Func)
	report := func(sev Severity, msg string, fix *Fix) {
		at := load.Node
		if len(bad) > 0 {
			at = bad[0]
		}
		p.Report(Finding{Start: start(at), End: end(at), Severity: sev, Message: msg, Fix: fix})
	}
	if good {
		if anchor == nil {
			return
		}
		e, ok := insertAfter(src, anchor, []string{model + ".config.pad_token_id = " + tok + ".pad_token_id"})
		var fix *Fix
		if ok {
			fix = &Fix{Message: "set model.config.pad_token_id", Edits: []Edit{e}}
		}
		report(SeverityWarning, "the tokenizer has a dedicated pad but model.config.pad_token_id is not set: generation and loss masking read it from the config", fix)
		return
	}

	var lines []string
	needsResize := false
	msg := ""
	switch fam {
	case familyLlama31:
		lines = []string{
			`# loratune-fix LTF004: Llama-3.1+ reserves a pad token; id 0 is "!" and eos as pad hides the stop token`,
			fmt.Sprintf("%s.pad_token = %q", tok, reservedPad),
		}
		msg = fmt.Sprintf("%s has no pad token: id 0 is the real token \"!\" and pad = eos masks every EOS, so the model never learns to stop; use the reserved %s (no resize)", load.ModelID, reservedPad)
	case familyLlama3:
		if resizes {
			report(SeverityError, "Llama-3 has no pad token and id 0 is \"!\": add a dedicated \"<|pad|>\" through the file's own resize helper, before get_peft_model", nil)
			return
		}
		needsResize = true
		lines = []string{
			`# loratune-fix LTF004: a dedicated pad; Llama-3 has none, id 0 is "!" and eos as pad hides the stop token`,
			fmt.Sprintf("if %s.pad_token is None or %s.pad_token_id == 0:", tok, tok),
			fmt.Sprintf("\t%s.add_special_tokens({\"pad_token\": \"<|pad|>\"})", tok),
			fmt.Sprintf("\t%s.resize_token_embeddings(len(%s))", model, tok),
		}
		msg = fmt.Sprintf("%s has no pad token: id 0 is the real token \"!\" and pad = eos masks every EOS; add \"<|pad|>\" and resize the embeddings before get_peft_model", load.ModelID)
	case familyDynamic:
		if resizes {
			return
		}
		needsResize = true
		lines = []string{
			`# loratune-fix LTF004: Llama-3 has no pad token (id 0 is "!", eos as pad hides the stop token); give it a dedicated one`,
			fmt.Sprintf("if \"<|begin_of_text|>\" in %s.get_vocab() and (%s.pad_token is None or %s.pad_token_id in (0, %s.eos_token_id)):", tok, tok, tok, tok),
			fmt.Sprintf("\tif %q in %s.get_vocab():", reservedPad, tok),
			fmt.Sprintf("\t\t%s.pad_token = %q", tok, reservedPad),
			"\telse:",
			fmt.Sprintf("\t\t%s.add_special_tokens({\"pad_token\": \"<|pad|>\"})", tok),
			fmt.Sprintf("\t\t%s.resize_token_embeddings(len(%s))", model, tok),
		}
		msg = "the model id is known only at run time: for the Llama-3 family (no pad token; id 0 is \"!\"), set a dedicated pad before get_peft_model; the block checks the vocabulary at run time"
		// Other families keep the script's own pad line, so the block goes
		// after it: placed before, the line would undo the block.
		for _, b := range bad {
			if st := f.statementIn(b, load.Func); st != nil && anchor != nil && st.StartByte() > anchor.StartByte() {
				anchor = st
			}
		}
		bad = nil
	}
	if !configSet {
		lines = append(lines, model+".config.pad_token_id = "+tok+".pad_token_id")
	}
	sev := SeverityError
	if fam == familyDynamic {
		sev = SeverityWarning
	}
	if anchor == nil {
		report(sev, msg+" (no place found after both the tokenizer and the model exist)", nil)
		return
	}
	if needsResize && peft != nil && anchor.StartByte() > peft.Node.StartByte() {
		report(sev, msg+"; the tokenizer or model is created after get_peft_model, so the resize cannot go before it: move it", nil)
		return
	}
	var edits []Edit
	for _, b := range bad {
		e, ok := replaceStatement(src, b, nil)
		if !ok {
			report(sev, msg, nil)
			return
		}
		edits = append(edits, e)
	}
	e, ok := insertAfter(src, anchor, lines)
	if !ok {
		report(sev, msg, nil)
		return
	}
	edits = append(edits, e)
	fix := &Fix{Message: "set a dedicated pad token and model.config.pad_token_id", Edits: edits}
	if needsResize && stateDictOverride {
		fix.Applicability = Unsafe
		fix.Message += " (unsafe: the file overrides model.state_dict, which will not save the resized embedding rows; save them with modules_to_save)"
	}
	report(sev, msg, fix)
}

// padStatement is the statement to remove for a bad pad assignment: the
// assignment's statement, or a guard "if tok.pad_token is None:" whose only
// body it is.
func padStatement(assign *sitter.Node, text []byte) *sitter.Node {
	stmt := Statement(assign)
	if stmt == nil {
		return assign
	}
	if guard := soleGuard(stmt); guard != nil {
		if cond := guard.ChildByFieldName("condition"); cond != nil && strings.Contains(cond.Content(text), "pad_token") {
			return guard
		}
	}
	return stmt
}

// firstCall is the first call of method in scope fn, or nil.
func firstCall(f *File, method string, fn *Func) *Call {
	for _, c := range f.Calls {
		if c.Method == method && c.Func == fn {
			return c
		}
	}
	return nil
}
