package rewrite

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/loratune/loratune-fix/pyedit"
	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

var dedicatedPadToken = &Rule{
	Code:         "LTF004",
	Name:         "dedicated-pad-token",
	Summary:      "pad with a token distinct from eos (by model family) before get_peft_model and set model.config.pad_token_id",
	Severity:     SeverityError,
	Profiles:     []string{ProfileDefault, ProfileLean},
	Triggers:     []string{"pad_token", "from_pretrained", "SFTTrainer"},
	TrainingOnly: true,
	Doc: `## What it does
Replaces a pad that hides the stop token (pad = eos, an eos-like token such
as <|eot_id|>, <|im_end|> or Qwen-1's eod_id, unk or id 0 where those are
not a pad) by the model family's own pad, set after the tokenizer and the
model exist and before get_peft_model; then sets
model.config.pad_token_id = tokenizer.pad_token_id (and
generation_config.pad_token_id where the script has one). The script's own
pad lines that would undo it before training (also after get_peft_model)
are removed in the same fix.

| family (model id) | pad | resize |
| --- | --- | --- |
| Llama-3.1 / 3.2 / 3.3 | "<|finetune_right_pad_id|>" (128004) | no |
| Llama-3.0 | "<|reserved_special_token_250|>" (unused by the chat template) | no |
| Llama-1 / 2, Mistral, Mixtral | tokenizer.unk_token (<unk>, id 0) | no |
| Qwen1.5 / 2 / 2.5 / 3 (instruct) | their own "<|endoftext|>" | no |
| Qwen base models | pad == eos natively: a warning under a by-id collator | - |
| Qwen-1 (remote code, eod_id) | a warning under a by-id collator | - |
| Gemma 1 / 2 / 3 | their own "<pad>" (id 0) | no |
| other or known only at run time | a run-time block: keep a pad that exists and differs from eos (and is not <|eot_id|> or <|im_end|>); else unk if it differs from eos; else "<|finetune_right_pad_id|>" if the vocabulary has it; else add "<|pad|>" and resize (only if the embedding is smaller) | maybe |

## Which collator
The harm is in the labels: a collator that masks labels by pad id
(transformers' DataCollatorForLanguageModeling, TRL's SFT collator before
0.17, DataCollatorForCompletionOnlyLM, a script's own "== pad_token_id ->
-100") turns every EOS into -100 when pad = eos. Collators that mask by
position (TRL >= 0.17's SFT collator, DPO/KTO, DataCollatorForSeq2Seq) do
not: there it is an info note, not a fix. With no collator in view, Llama-3
is fixed (it has no pad at all; id 0 is "!"), other families get the fix as
unsafe, and so does a model known only at run time: the run-time block,
made with less knowledge, is never a safer fix than a family's own. The
pinned TRL version decides for SFTTrainer.

## Why
pad = eos under a by-id collator masks every EOS, so the model never learns
to stop; on Llama-3, pad id 0 drops every real "!" from the loss.

## Example
    tokenizer.pad_token = tokenizer.eos_token
becomes, for Llama-3.1, after the model load:
    tokenizer.pad_token = "<|finetune_right_pad_id|>"
    model.config.pad_token_id = tokenizer.pad_token_id

## When it stays away
A pad that is already dedicated (a literal token, add_special_tokens with
one, a resize helper that runs before training). Pad lines after training
(generation settings). Tokenizers of other models (embedding, reward,
reference). Packed training (packing=True, padding_free=True): nothing is
padded. A tokenizer or model bound only on some paths to where the lines
would go: a warning. A pad of its own added with add_special_tokens and
nothing that resizes the embedding: a warning to resize before
get_peft_model (the new id has no embedding row), never that id written
into the config. Where the load, its tokenizer and its pad lines all sit
in one branch of an if, the lines go in that branch. A fix that would span two notebook cells: a finding,
fixed by hand. Framework-managed padding (unsloth, trl.setup_chat_format, a
TRL trainer given no tokenizer): one finding saying what the framework
does. Remote code (trust_remote_code): the run-time block adds no token,
and where the id names a vocabulary with no spare pad (GPT-2, phi-1/1.5/2,
CodeGen, Pythia, StarCoder: unk is eos) it could change nothing, so it is a
warning that says what to do by hand.

## Cost
None with a pad the vocabulary has. A new "<|pad|>" adds one embedding row
before get_peft_model, saved by peft's save_embedding_layers="auto" (peft >=
0.7); a custom model.state_dict override or remote code (NormHead) makes
that unsafe or a warning.

## Evidence

| status | what was run |
| --- | --- |
| failure reproduced | in the labels, on transformers 5.17 (e2e/pad, 2026-12-01): pad = eos masked every EOS on six families, pad id 0 every "!" on Llama-3.1; after the fix every EOS stays |
| mechanism only | that a model trained so never learns to stop: not a run |`,
	Run: runDedicatedPadToken,
}

// padFamily is what the model id says about its tokenizer's pad.
type padFamily int

const (
	padDynamic       padFamily = iota // the id is known only at run time
	padOther                          // a literal id outside the table
	padLlama31                        // 3.1, 3.2, 3.3: a reserved pad
	padLlama30                        // 3.0: reserved tokens, no pad
	padSentencePiece                  // Llama-1/2, Mistral, Mixtral: <unk>
	padQwen2                          // Qwen1.5/2/2.5/3: their own <|endoftext|>
	padQwen1                          // Qwen-1: remote code, eod_id
	padGemma                          // their own <pad>
)

var padFamilies = []struct {
	fam padFamily
	id  *regexp.Regexp
}{
	{padLlama31, regexp.MustCompile(`(?i)llama-?3[._-][123]([^0-9]|$)`)},
	{padLlama30, regexp.MustCompile(`(?i)llama-?3([^.0-9]|$)`)},
	{padSentencePiece, regexp.MustCompile(`(?i)llama-?2([^0-9]|$)|llama-(7|13|30|33|65)b|m[ia]xtral|mistral`)},
	{padQwen2, regexp.MustCompile(`(?i)qwen[-_]?(1\.5|2|3)`)},
	{padQwen1, regexp.MustCompile(`(?i)qwen-(1_8|7|14|72)b`)},
	{padGemma, regexp.MustCompile(`(?i)gemma`)},
}

func padFamilyOf(l *semantic.Load) padFamily {
	if !l.IDKnown {
		return padDynamic
	}
	for _, pf := range padFamilies {
		if pf.id.MatchString(l.ModelID) {
			return pf.fam
		}
	}
	return padOther
}

func (fam padFamily) llama3() bool { return fam == padLlama31 || fam == padLlama30 }

// qwenInstruct: Qwen's chat models end turns with <|im_end|> (their eos);
// base models' eos is <|endoftext|>, the same token as their pad.
func qwenInstruct(id string) bool {
	low := strings.ToLower(id)
	if strings.Contains(low, "instruct") || strings.Contains(low, "chat") {
		return true
	}
	return qwen3ID.MatchString(low) && !strings.Contains(low, "base")
}

var qwen3ID = regexp.MustCompile(`qwen[-_]?3`)

// padValue classifies the value given to a pad.
type padValue int

const (
	padUnknown padValue = iota // computed, another number: not judged
	padEOS                     // eos_token, eos_token_id
	padUnk                     // unk_token, unk_token_id
	padZero                    // id 0
	padEOSLike                 // a turn or document end: <|eot_id|>, <|im_end|>, eod_id...
	padNamed                   // another literal token: "[PAD]", "<pad>"...
)

var eosLikeTokens = map[string]bool{"<|eot_id|>": true, "<|im_end|>": true, "<|end_of_text|>": true, "</s>": true, "<eos>": true, "<end_of_turn>": true}

// classifyPad reads a pad value, following a name to its literal (pad =
// "<|eot_id|>"; tok.pad_token = pad). lit is the literal token, if any.
func classifyPad(f *semantic.Facts, v *syntree.Node, scope *semantic.Func, depth int) (padValue, string) {
	text := f.Src.Text
	for v != nil && v.Type() == "parenthesized_expression" {
		var inner *syntree.Node
		for _, c := range v.NamedChildren() {
			if c.Type() != "comment" {
				inner = c
				break
			}
		}
		v = inner
	}
	if v == nil {
		return padUnknown, ""
	}
	switch v.Type() {
	case "integer":
		if v.Content(text) == "0" {
			return padZero, ""
		}
	case "attribute":
		switch v.ChildByFieldName("attribute").Content(text) {
		case "eos_token", "eos_token_id":
			return padEOS, ""
		case "unk_token", "unk_token_id":
			return padUnk, ""
		case "eod_id", "im_end_id":
			return padEOSLike, ""
		}
	case "string":
		if s, ok := semantic.StringValue(v, text); ok && s != "" {
			if eosLikeTokens[s] || s == "<|endoftext|>" {
				return padEOSLike, s
			}
			return padNamed, s
		}
	case "identifier":
		if depth < 3 {
			if def := f.SoleValue(v); def != nil && !def.Equal(v) {
				return classifyPad(f, def, scope, depth+1)
			}
		}
	}
	return padUnknown, ""
}

// hidesEOS reports a pad value that, for the family, masks EOS or a real
// token; ok reports a dedicated pad.
func hidesEOS(fam padFamily, v padValue, lit string) (bad, ok bool) {
	switch v {
	case padEOS:
		return true, false
	case padEOSLike:
		if lit == "<|endoftext|>" && fam == padQwen2 {
			return false, true // Qwen's own pad
		}
		return true, false
	case padUnk, padZero:
		// <unk> is id 0 and a fine pad for SentencePiece families; Gemma's
		// id 0 is <pad> itself. Llama-3 and Qwen have no unk, and their id
		// 0 is "!".
		if fam == padSentencePiece || fam == padGemma {
			return false, true
		}
		return true, false
	case padNamed:
		return false, true
	}
	return false, false
}

// padStmt is one place the script sets the trained tokenizer's pad.
type padStmt struct {
	stmt      *syntree.Node // what to remove: the statement, or its pad guard
	at        int           // where it runs, in the block's scope (a factory's lines run at its call)
	removable bool          // in the block's scope: the fix may remove it
	guarded   bool          // runs unconditionally or under "if tok.pad_token is None"
	bad, ok   bool
	named     bool // a literal token or an added one: the config does not know it
	added     bool // by add_special_tokens: a token the vocabulary may lack, a new id
	eos       bool // eos or an eos-like token (not unk, not id 0)
}

// runDedicatedPadToken reads as its steps: find the trained load and its
// tokenizer, collect the tokenizer's pad settings before training, judge
// them, then either set the config's pad id or give the family's pad.
func runDedicatedPadToken(p *Pass) {
	r, ok := trainedPadding(p)
	if !ok {
		return
	}
	r.collectPads()
	r.inBranch()
	r.judgePads()
	r.planBlock()
	r.warnResizeAfterAdapter()
	if r.good {
		r.setConfigPadID()
		return
	}
	if len(r.bad) == 0 && !r.fam.llama3() {
		return // the family's own pad, or nothing that hides EOS
	}
	r.fixPad()
}

// padRun is one LTF004 run over a file: the trained load, its tokenizer,
// and what the steps find.
type padRun struct {
	p       *Pass
	f       *semantic.Facts
	text    []byte
	load    *semantic.Load
	fam     padFamily
	tok     *semantic.PadTokenizer
	scope   *semantic.Func
	body    *syntree.Node // the block the lines go in: the scope's, or a branch's that holds the load, the tokenizer and its pads
	model   string
	trainAt *syntree.Node // the statement that starts training, or nil
	peft    *syntree.Node // get_peft_model in scope, or nil

	pads        []*padStmt // the tokenizer's pad settings before training, in order
	configAfter int        // where the script itself sets model.config.pad_token_id (-1: nowhere)

	good, named bool       // a pad distinct from eos surely runs last (and is a named token)
	goodPad     *padStmt   // that pad
	bad         []*padStmt // the pads that hide EOS after the last good one

	plan        padFix
	remote      bool          // remote code: the block adds no token, the script's pad stays
	anchor      *syntree.Node // the statement the new lines follow
	tokTop      *syntree.Node
	configSet   bool
	configLines []string
	at          *syntree.Node // where the finding is reported
}

// trainedPadding finds the load the rule is about (the first training load
// bound to a name), its pad family and the tokenizer that trains with it;
// ok is false when there is nothing more to do (having reported what the
// file shows instead: TRL's own tokenizer, a processor, no tokenizer).
func trainedPadding(p *Pass) (*padRun, bool) {
	f, text := p.Facts, p.Src.Text
	if frameworkManagedPad(p) || f.NoDecoderTrained() {
		return nil, false
	}
	// The first training load bound to a name, or, where several are, the
	// one whose own block sets a pad (if resume: ... else: ...; the pad
	// line belongs to the branch it stands in).
	var load *semantic.Load
	for _, l := range f.TrainingLoads() {
		if l.Target == "" || unslothLoad(f, l) { // unsloth pads its own tokenizer (frameworkManagedPad)
			continue
		}
		if load == nil {
			load = l
		}
		if setsPadBeside(f, l) {
			load = l
			break
		}
	}
	if load == nil {
		// A model TRL loads by name, with no tokenizer given: TRL's own.
		trlStringModels(p, func(t *trlLoad) {
			// A tokenizer made after the trainer (a generation cell) is
			// not the one it trains with.
			if !hasTokenizer(p.Facts, t.trainer.Node) {
				trlLoadsTokenizer(p, t.name())
			}
		})
		return nil, false
	}
	fam := padFamilyOf(load)
	if (fam == padDynamic || fam == padOther) && bytes.Contains(text, []byte(".eod_id")) {
		fam = padQwen1 // Qwen-1's tokenizer is the one with eod_id
	}
	if f.Packs() {
		return nil, false // packed sequences are not padded: the pad never reaches the labels
	}
	r := &padRun{p: p, f: f, text: text, load: load, fam: fam, scope: load.Func, model: load.Target, configAfter: -1}
	r.trainAt = trainingStart(f, r.scope)
	tok, why := f.TrainedTokenizer(load, r.trainAt)
	if tok == nil {
		switch {
		case why != "" && fileSetsPad(f):
			p.Report(Finding{Start: load.Node.Start(), End: load.Args.End(), Severity: SeverityWarning,
				Message: why + ": give the trained model's tokenizer a pad distinct from eos by hand, and set model.config.pad_token_id"})
		case fam.llama3() && !trlLoadsTokenizer(p, load.ModelID):
			p.Report(Finding{Start: load.Node.Start(), End: load.Args.End(), Severity: SeverityWarning,
				Message: "Llama-3 has no pad token (id 0 is \"!\"); this file creates no tokenizer: give it a dedicated pad before get_peft_model and set model.config.pad_token_id"})
		}
		return nil, false
	}
	if strings.HasSuffix(semantic.Last(strings.TrimSuffix(f.CalleeOf(tok.Call), ".from_pretrained")), "Processor") {
		// A processor holds its tokenizer (processor.tokenizer), whose pad
		// the processor's own config sets (Llama-3.2-Vision's pads with
		// <|finetune_right_pad_id|>); a processor need not have pad_token.
		for _, a := range f.Assigns {
			if a.Text == tok.Name+".pad_token" || a.Text == tok.Name+".pad_token_id" {
				p.Report(Finding{Start: a.Node.Start(), End: a.Node.End(), Severity: SeverityWarning,
					Message: fmt.Sprintf("%s is a processor: its tokenizer's pad is %s.tokenizer.pad_token; set a pad distinct from eos there (and model.config.pad_token_id from it), not on the processor", tok.Name, tok.Name)})
			}
		}
		return nil, false
	}
	r.tok = tok
	r.peft = peftPoint(f, r.scope)
	return r, true
}

// stmtIn is the statement holding n directly in the run's block (the
// scope's body, or the branch of inBranch), or nil.
func (r *padRun) stmtIn(n *syntree.Node) *syntree.Node {
	if r.body == nil {
		return r.f.StatementIn(n, r.scope)
	}
	for cur := n; cur != nil; cur = cur.Parent() {
		if p := cur.Parent(); p != nil && p.Equal(r.body) {
			return cur
		}
	}
	return nil
}

// inBranch narrows the run to the innermost block (an if's or else's
// branch) that holds the load, its tokenizer and every pad setting
// collectPads found: the lines then go in that branch, where its model and
// tokenizer are bound, and the other branches stay as they are (REPROS
// 13B). The pads are collected again against that block.
func (r *padRun) inBranch() {
	nodes := []*syntree.Node{r.load.Stmt, r.tok.Stmt}
	for _, ps := range r.pads {
		nodes = append(nodes, ps.stmt)
	}
	for _, a := range r.f.Assigns {
		if a.Func == r.scope && a.Text == r.model+".config.pad_token_id" && (r.trainAt == nil || a.Node.StartByte() < r.trainAt.StartByte()) {
			nodes = append(nodes, a.Node) // the script's own config pad id: in the branch too
		}
	}
	var block *syntree.Node
	for cur := r.load.Stmt.Parent(); cur != nil && block == nil; cur = cur.Parent() {
		if cur.Type() != "block" {
			continue
		}
		block = cur
		for _, n := range nodes {
			if !semantic.Within(n, cur) {
				block = nil
				break
			}
		}
	}
	if block == nil || r.f.StatementIn(block, r.scope) == nil {
		return // the scope's own body, or not inside the scope
	}
	if top := r.f.StatementIn(r.load.Stmt, r.scope); top != nil && top.Parent() != nil && top.Parent().Equal(block) {
		return // the block StatementIn already uses (the scope's body, a main guard)
	}
	if p := block.Parent(); p == nil || !slices.Contains([]string{"if_statement", "elif_clause", "else_clause"}, p.Type()) {
		return // a loop's or a with's body: the lines would run again, or in another context
	}
	r.body = block
	r.pads, r.configAfter = nil, -1
	r.collectPads()
	if r.peft != nil && semantic.Within(block, r.peft) {
		r.peft = nil // an adapter of another branch
	}
	for _, c := range r.f.Calls {
		if c.Func == r.scope && semantic.Within(c.Node, block) && (c.Method == "get_peft_model" || strings.HasSuffix(c.Qual, "PeftModel.from_pretrained")) {
			r.peft = r.stmtIn(c.Node)
			break
		}
	}
}

// collectPads gathers every pad setting of the tokenizer that runs before
// training: assignments to its pad_token(_id), a config pad id that hides
// EOS, pads set through calls, and a pad_token= given to the load.
func (r *padRun) collectPads() {
	f, text, tok := r.f, r.text, r.tok
	names := map[*semantic.Func]string{r.scope: tok.Name, f.Module: tok.Name}
	if tok.Factory != nil {
		names[tok.Factory] = tok.Inner
	}
	for _, a := range f.Assigns {
		name, mine := names[a.Func]
		if !mine || a.Func == f.Module && r.scope != f.Module && tok.Factory != a.Func {
			continue
		}
		inScope := a.Func == r.scope
		switch a.Text {
		case name + ".pad_token", name + ".pad_token_id":
			r.addPad(a.Node, a.Value, a.Func, inScope)
		case r.model + ".config.pad_token_id":
			if !inScope {
				continue
			}
			if kind, _ := classifyPad(f, a.Value, a.Func, 0); kind == padZero || kind == padEOS || kind == padEOSLike {
				r.addPad(a.Node, a.Value, a.Func, inScope)
			} else if top := r.stmtIn(a.Node); top != nil {
				r.configAfter = top.Start()
			}
		}
	}
	for _, c := range f.Calls {
		name, mine := names[c.Func]
		if !mine || c.Func == f.Module && r.scope != f.Module && tok.Factory != c.Func {
			continue
		}
		if v := padInCall(c, name, text); v != nil {
			r.addPad(c.Node, v, c.Func, c.Func == r.scope)
		}
	}
	if kw := semantic.KeywordValue(tok.Call.ChildByFieldName("arguments"), "pad_token", text); kw != nil {
		r.addPad(kw, kw, f.ScopeOf(kw), false)
	}
	sortPads(r.pads)
}

// addPad records one pad setting (v, set at at in fn), unless it runs
// once training has started (a generation setting).
func (r *padRun) addPad(at *syntree.Node, v *syntree.Node, fn *semantic.Func, inScope bool) {
	kind, lit := classifyPad(r.f, v, fn, 0)
	ps := &padStmt{stmt: padStatement(semantic.Statement(at), r.text), removable: inScope}
	if ps.stmt == nil {
		return
	}
	ps.bad, ps.ok = hidesEOS(r.fam, kind, lit)
	ps.named = kind == padNamed || kind == padEOSLike && ps.ok
	ps.eos = kind == padEOS || kind == padEOSLike
	if c := r.f.CallAt(at); c != nil && c.Method == "add_special_tokens" {
		if tok, literal := semantic.StringValue(v, r.text); literal && !r.fam.hasToken(tok) {
			ps.added = true // a token of its own, which may be new: a new id
		}
	}
	where := ps.stmt
	if !inScope {
		where = r.tok.Stmt
	}
	top := r.stmtIn(where)
	if top == nil {
		return
	}
	if r.trainAt != nil && top.StartByte() >= r.trainAt.StartByte() {
		return // after training: generation settings
	}
	ps.at = top.Start()
	ps.guarded = top.Equal(ps.stmt) || top.Equal(semantic.Statement(where)) || padGuard(top, r.text)
	if n := len(r.pads); n > 0 && r.pads[n-1].stmt.Equal(ps.stmt) {
		r.pads[n-1].bad = r.pads[n-1].bad || ps.bad
		r.pads[n-1].added = r.pads[n-1].added || ps.added
		r.pads[n-1].eos = r.pads[n-1].eos && ps.eos
		return
	}
	r.pads = append(r.pads, ps)
}

// judgePads: the last pad that surely runs decides, unless a bad one
// follows it.
func (r *padRun) judgePads() {
	lastOK := -1
	for i, ps := range r.pads {
		if ps.ok && ps.guarded {
			r.good, r.named, lastOK = true, ps.named, i
			r.goodPad = ps
		}
	}
	for i, ps := range r.pads {
		if ps.bad && i > lastOK {
			r.bad = append(r.bad, ps)
		}
	}
	if len(r.bad) > 0 {
		r.good = false
	}
}

// keep reports a bad pad line that stays as the fallback of remote code's
// block.
func (r *padRun) keep(ps *padStmt) bool {
	return r.remote && (r.peft == nil || ps.at < r.peft.Start())
}

// planBlock chooses the family's fix and where its lines go: after the
// tokenizer, the model and every pad line that stays, before training.
func (r *padRun) planBlock() {
	text := r.text
	r.plan = padPlan(r.fam, r.load, r.tok.Name, r.model)
	// Remote code may not add or resize tokens cleanly (NormHead, Qwen-1's
	// tokenizer): its block only picks a pad the vocabulary has, and the
	// script's own line before it stays as the fallback.
	if rc := r.load.Arg("trust_remote_code", text); r.plan.resize && rc != nil && rc.Content(text) != "False" {
		r.remote = true
		r.plan.lines = r.plan.lines[:len(r.plan.lines)-4]
		r.plan.resize = false
		r.plan.why += "; remote code (trust_remote_code) may not add or resize tokens cleanly (NormHead), so the block adds none and the script's own pad stays where the vocabulary has no other"
		if r.load.IDKnown && semantic.NoSparePad(r.load.ModelID) {
			// Neither arm left can fire (unk is eos, no reserved pad): the
			// block would change nothing and the finding would read as
			// fixed (corpus shape N19).
			r.plan = padFix{manual: true, why: fmt.Sprintf("%s: pad = eos masks every EOS, so the model never learns to stop; its tokenizer has no unk distinct from eos and no reserved pad, so a pad distinct from eos is a new token, which remote code (trust_remote_code) may not take cleanly: add one by hand (add_special_tokens), resize the embedding before get_peft_model and save its rows (modules_to_save)", r.load.ModelID)}
		}
	}
	r.anchor = r.stmtIn(r.load.Stmt)
	r.tokTop = r.stmtIn(r.tok.Stmt)
	later := func(n *syntree.Node) {
		if r.anchor != nil && n != nil && n.StartByte() > r.anchor.StartByte() {
			r.anchor = n
		}
	}
	later(r.tokTop)
	for _, ps := range r.pads {
		if !ps.bad || !ps.removable || r.keep(ps) {
			later(r.stmtIn(ps.stmt))
		}
	}
	r.configSet = r.configAfter >= 0 && r.anchor != nil && r.configAfter > r.anchor.Start()
	r.at = r.load.Node
	if len(r.bad) > 0 {
		r.at = r.bad[0].stmt
		if !r.bad[0].removable {
			r.at = r.tok.Stmt
		}
	}
	if !r.configSet {
		r.configLines = append(r.configLines, r.model+".config.pad_token_id = "+r.tok.Name+".pad_token_id")
		if bytes.Contains(text, []byte(r.model+".generation_config")) {
			r.configLines = append(r.configLines, r.model+".generation_config.pad_token_id = "+r.tok.Name+".pad_token_id")
		}
	}
}

func (r *padRun) report(sev Severity, msg string, fix *Fix) {
	r.p.Report(Finding{Start: r.at.Start(), End: r.at.End(), Severity: sev, Message: msg, Fix: fix})
}

// warnResizeAfterAdapter: new embedding rows made after get_peft_model are
// neither trained nor saved with the adapter.
func (r *padRun) warnResizeAfterAdapter() {
	for _, c := range r.f.Calls {
		if c.Func == r.scope && c.Method == "resize_token_embeddings" && r.peft != nil && c.Node.StartByte() > r.peft.EndByte() &&
			(r.trainAt == nil || c.Node.StartByte() < r.trainAt.StartByte()) {
			r.p.Report(Finding{Start: c.Node.Start(), End: c.Node.End(), Severity: SeverityWarning,
				Message: "resize_token_embeddings after get_peft_model: the new rows are neither trained nor saved with the adapter; resize before get_peft_model"})
		}
	}
}

// unbound is the first of names that some path reaches where (the
// statement the new lines run before; nil: the end of the block) without
// binding: the binding guard.
func (r *padRun) unbound(where *syntree.Node, names ...string) string {
	for _, name := range names {
		if where == nil {
			return name
		}
		if reach := r.f.ReachingBefore(name, where); reach.MaybeUnbound || len(reach.Defs) == 0 {
			return name
		}
	}
	return ""
}

// setConfigPadID: the tokenizer has a dedicated pad; the config's pad id
// is set after it, unless the script does.
func (r *padRun) setConfigPadID() {
	if ps := r.goodPad; ps != nil && ps.added && !r.resizes() {
		// The new pad's id is one past the embedding unless the vocabulary
		// had it: written into the config, it would make the first padded
		// batch index past the matrix (corpus shape N4).
		r.p.Report(Finding{Start: ps.stmt.Start(), End: ps.stmt.End(), Severity: SeverityWarning,
			Message: fmt.Sprintf("%s.add_special_tokens adds a pad the vocabulary may not have, and nothing resizes the embedding: a new id has no embedding row, so the first padded batch fails with an index error; resize before get_peft_model (%s.resize_token_embeddings(len(%s)), and save the new rows), or pad with a token the vocabulary has", r.tok.Name, r.model, r.tok.Name)})
		return
	}
	if !r.named || r.configSet || r.anchor == nil || r.trainAt != nil && r.anchor.StartByte() > r.trainAt.StartByte() {
		return
	}
	msg := "the tokenizer has a dedicated pad but model.config.pad_token_id is not set: generation and loss masking read it from the config"
	if name := r.unbound(nextStatement(r.anchor), r.model, r.tok.Name); name != "" {
		r.report(SeverityWarning, msg+fmt.Sprintf("; %s is bound only on some paths: set it by hand where both exist", name), nil)
		return
	}
	e, ok := pyedit.InsertAfter(r.p.Src, r.anchor, r.configLines)
	var fix *Fix
	if ok {
		fix = &Fix{Message: "set model.config.pad_token_id", Edits: []Edit{e}}
	}
	r.report(SeverityWarning, msg, fix)
}

// hasToken reports a token that the family's vocabulary is known to hold
// (its reserved or own pad, unk and the like): adding it as the pad makes
// no new id.
func (fam padFamily) hasToken(tok string) bool {
	switch fam {
	case padLlama31, padLlama30:
		return tok == reservedPad || strings.HasPrefix(tok, "<|reserved_special_token_")
	case padSentencePiece:
		return tok == "<unk>" || tok == "<s>" || tok == "</s>"
	case padQwen2:
		return tok == "<|endoftext|>" || tok == "<|fim_pad|>"
	case padGemma:
		return tok == "<pad>" || tok == "<unk>"
	}
	return false
}

// resizes reports a call that may resize the embedding anywhere in the
// file (resize_token_embeddings, a helper named for it).
func (r *padRun) resizes() bool {
	for _, c := range r.f.Calls {
		if strings.Contains(c.Method, "resize") {
			return true
		}
	}
	return false
}

// fixPad gives the family's pad: severity and applicability by what the
// collator does with the pad, then the block in place of the last bad
// line, or after the anchor (the tokenizer moved above get_peft_model
// where the block resizes).
func (r *padRun) fixPad() {
	p, f, text, fam, tok := r.p, r.f, r.text, r.fam, r.tok
	coll := padCollator(p)
	// Llama-3's id 0 is "!" whatever the collator (and generation reads
	// the pad too): it is fixed everywhere. A model known only at run time
	// may be one, so it gets the block too, never safer than a family's own
	// fix would be with the same evidence (REPROS 22): unsafe unless a
	// collator is seen to mask by pad id.
	onlyEOS := true // every bad pad is eos-like: under a collator that masks by position, harmless whatever the family (N2)
	for _, b := range r.bad {
		onlyEOS = onlyEOS && b.eos
	}
	if coll.kind == collatorByPosition && !fam.llama3() && (fam != padOther || onlyEOS && len(r.bad) > 0) {
		r.report(SeverityInfo, fmt.Sprintf("%s masks labels by position, so this pad does not hide EOS there; a pad distinct from eos is still the cleaner choice", coll.name), nil)
		return
	}
	msg := r.plan.why
	sev, applicability := SeverityError, Safe
	switch {
	case coll.kind == collatorByID:
		msg += fmt.Sprintf(" (%s masks labels by pad id)", coll.name)
	case fam == padDynamic:
		sev, applicability = SeverityWarning, Unsafe
		if coll.kind == collatorByPosition {
			msg += fmt.Sprintf("; %s masks labels by position, so the pad hides no EOS there, but id 0 is a real token (\"!\") if the model is Llama-3", coll.name)
		} else {
			msg += "; whether EOS is masked depends on the collator (transformers' DataCollatorForLanguageModeling and TRL's SFT collator before 0.17 mask by pad id)"
		}
	case !fam.llama3():
		sev, applicability = SeverityWarning, Unsafe
		msg += "; whether EOS is masked depends on the collator (transformers' DataCollatorForLanguageModeling and TRL's SFT collator before 0.17 mask by pad id)"
		if coll.name != "" {
			msg += " (" + coll.name + ")"
		}
	}
	if r.plan.lines == nil {
		// No fix (Qwen base, Qwen-1): worth a warning only where a collator
		// is seen to mask by id (Qwen-1's own scripts mask with their own
		// ignore id).
		if coll.kind == collatorByID || r.plan.manual && coll.kind != collatorByPosition {
			r.report(SeverityWarning, msg, nil)
		}
		return
	}
	if r.anchor == nil {
		r.report(sev, msg+" (no place found after both the tokenizer and the model exist)", nil)
		return
	}
	if ref := refModelBeside(f); r.plan.resize && ref != "" {
		// The block may add a token and resize the trained model only: a
		// reference model given beside it keeps its embedding, and its
		// forward would index past it (corpus shape N17).
		r.report(SeverityWarning, msg+fmt.Sprintf("; the fix may add a pad token and resize %s only, while %s= keeps its embedding: set a pad the vocabulary has by hand, or resize both", r.model, ref), nil)
		return
	}
	anchor := r.anchor
	var moved []Edit
	if r.trainAt != nil && anchor.StartByte() > r.trainAt.StartByte() {
		r.report(sev, msg+"; the tokenizer is set up after training starts: set the pad before training", nil)
		return
	}
	if r.plan.resize && r.peft != nil && anchor.StartByte() > r.peft.StartByte() {
		var ok bool
		anchor, moved, ok = moveTokenizerUp(p, tok, r.tokTop, r.peft, anchor, r.stmtIn(r.load.Stmt), r.pads)
		if !ok {
			r.report(sev, msg+"; the tokenizer is created after get_peft_model and cannot move above it (a value it reads, or a line that uses it, comes in between): create it before get_peft_model", nil)
			return
		}
	}
	lines := append(r.plan.lines, r.configLines...)
	// The last bad line, where it stands after everything the block needs
	// (and before get_peft_model when the block may resize), is replaced by
	// the block: the diff then reads as the line's correction.
	var inPlace *syntree.Node
	if len(moved) == 0 {
		for _, b := range r.bad {
			if b.removable && !r.keep(b) && r.stmtIn(b.stmt) != nil && r.stmtIn(b.stmt).Equal(b.stmt) && b.stmt.StartByte() > anchor.StartByte() &&
				(!r.plan.resize || r.peft == nil || b.stmt.StartByte() < r.peft.StartByte()) {
				inPlace = b.stmt
			}
		}
	}
	// The binding guard: what the lines read is bound on every path to
	// where they run (the model, and the tokenizer unless moved there).
	where := inPlace
	if where == nil {
		where = nextStatement(anchor)
	}
	reads := []string{r.model}
	if len(moved) == 0 {
		reads = append(reads, tok.Name)
	}
	if name := r.unbound(where, reads...); name != "" {
		r.report(sev, msg+fmt.Sprintf("; %s is bound only on some paths to where the pad would go: set the pad by hand where the tokenizer and the model both exist", name), nil)
		return
	}
	var edits []Edit
	for _, b := range r.bad {
		if !b.removable || r.keep(b) {
			continue // in the tokenizer's factory or its call, or a fallback: the block after it overrides it
		}
		var block []string
		if inPlace != nil && inPlace.Equal(b.stmt) {
			block = lines
		}
		e, ok := pyedit.ReplaceStatement(p.Src, b.stmt, block)
		if !ok {
			r.report(sev, msg, nil)
			return
		}
		edits = append(edits, e)
	}
	switch {
	case inPlace != nil:
		// placed with the replacement above
	case len(moved) > 0:
		moved[len(moved)-1].NewText += pyedit.Template(p.Src, indentOf(p.Src, anchor), lines)
		edits = append(edits, moved...)
	default:
		e, ok := pyedit.InsertAfter(p.Src, anchor, lines)
		if !ok {
			r.report(sev, msg, nil)
			return
		}
		edits = append(edits, e)
	}
	fix := &Fix{Message: r.plan.title, Edits: edits, Applicability: applicability}
	if len(moved) > 0 {
		fix.Message += ", the tokenizer created before get_peft_model"
	}
	if r.plan.resize {
		switch {
		case stateDictOverride(f):
			fix.Applicability = Unsafe
			fix.Message += " (unsafe: the file overrides model.state_dict, which will not save a resized embedding row; save it with modules_to_save)"
		case p.Versions.Peft.MayBeBelow(0, 7):
			fix.Applicability = Unsafe
			fix.Message += fmt.Sprintf(" (unsafe: %s cannot save a resized embedding row; peft 0.7 added save_embedding_layers)", p.Versions.Peft.Describe("peft"))
		case bytes.Contains(text, []byte("save_embedding_layers=False")):
			fix.Applicability = Unsafe
			fix.Message += " (unsafe: save_embedding_layers=False drops a resized embedding row on save)"
		}
	}
	r.report(sev, msg, fix)
}

// padFix is what a family's fix writes.
type padFix struct {
	lines  []string // nil: a warning, no fix
	why    string
	title  string
	resize bool // the lines may resize the embeddings
	// manual: no fix can do it here (N19), so the warning is given
	// unless a collator is seen to mask by position.
	manual bool
}

func padPlan(fam padFamily, load *semantic.Load, tok, model string) padFix {
	id := load.ModelID
	if !load.IDKnown {
		id = "this model"
	}
	const hides = "pad = eos masks every EOS, so the model never learns to stop"
	switch fam {
	case padLlama31:
		return padFix{why: fmt.Sprintf("%s has no pad token: id 0 is the real token \"!\" and %s; use the reserved %s (no resize)", id, hides, reservedPad),
			title: "set a dedicated pad token and model.config.pad_token_id",
			lines: []string{`# loratune-fix LTF004: Llama-3.1+ reserves a pad token; id 0 is "!" and eos as pad hides the stop token`,
				fmt.Sprintf("%s.pad_token = %q", tok, reservedPad)}}
	case padLlama30:
		return padFix{why: fmt.Sprintf("%s has no pad token: id 0 is the real token \"!\" and %s; use the reserved %s, which the chat template never emits (no resize)", id, hides, llama30Pad),
			title: "set a dedicated pad token and model.config.pad_token_id",
			lines: []string{`# loratune-fix LTF004: Llama-3.0 has no pad token; a reserved token pads without a resize (id 0 is "!", eos as pad hides the stop token)`,
				fmt.Sprintf("%s.pad_token = %q", tok, llama30Pad)}}
	case padSentencePiece:
		return padFix{why: fmt.Sprintf("%s: %s; pad with its <unk> (id 0, rare in text; no resize)", id, hides),
			title: "pad with <unk> and set model.config.pad_token_id",
			lines: []string{`# loratune-fix LTF004: <unk> pads without hiding the stop token (eos as pad masks every EOS in the labels)`,
				fmt.Sprintf("%s.pad_token = %s.unk_token", tok, tok)}}
	case padQwen2:
		if !qwenInstruct(id) {
			return padFix{why: fmt.Sprintf("%s is a base model: its pad and eos are both <|endoftext|>, so a collator that masks labels by pad id masks every EOS; pad with another token the vocabulary has (Qwen2.5 and Qwen3: <|fim_pad|>; no resize)", id)}
		}
		return padFix{why: fmt.Sprintf("%s: pad = eos (<|im_end|>) masks the end of every turn, so the model never learns to stop; Qwen's own pad <|endoftext|> is distinct (no resize)", id),
			title: "restore Qwen's own pad and set model.config.pad_token_id",
			lines: []string{`# loratune-fix LTF004: Qwen's own pad; eos (<|im_end|>) as pad hides the end of every turn`,
				fmt.Sprintf("%s.pad_token = %q", tok, "<|endoftext|>")}}
	case padQwen1:
		return padFix{why: fmt.Sprintf("%s has Qwen-1's tokenizer (eod_id, remote code): pad = eod masks the end of every document, so the model never learns to stop; set tokenizer.pad_token_id to an unused special token such as <|extra_0|> (no resize)", id)}
	case padGemma:
		return padFix{why: fmt.Sprintf("%s: %s; Gemma's own <pad> (id 0) is distinct (no resize)", id, hides),
			title: "restore Gemma's own pad and set model.config.pad_token_id",
			lines: []string{`# loratune-fix LTF004: Gemma's own pad; eos as pad hides the stop token`,
				fmt.Sprintf("%s.pad_token = %q", tok, "<pad>")}}
	}
	why := "the model id is known only at run time"
	if fam == padOther {
		why = id + " is not in the pad table"
	}
	return padFix{why: why + ": pad = eos (or an eos-like token) masks every EOS, so the model never learns to stop; the block checks the tokenizer's own vocabulary at run time before get_peft_model",
		title:  "set a pad distinct from eos at run time and model.config.pad_token_id",
		resize: true,
		lines:  runtimePadBlock(tok, model)}
}

const (
	reservedPad = "<|finetune_right_pad_id|>"
	llama30Pad  = "<|reserved_special_token_250|>"
)

// runtimePadBlock keeps a pad that exists and is not an end token (nor
// id 0 in a vocabulary without unk: a real token there, "!"); else
// unk where it differs from eos; else Llama-3.1's reserved pad; else a new
// "<|pad|>", resizing only an embedding that is too small (Qwen's has
// spare rows).
func runtimePadBlock(tok, model string) []string {
	return []string{
		`# loratune-fix LTF004: a pad distinct from eos (pad = eos masks every EOS in the labels); the tokenizer's own vocabulary decides`,
		fmt.Sprintf(`if %[1]s.pad_token is None or %[1]s.pad_token_id == %[1]s.eos_token_id or %[1]s.pad_token in ("<|eot_id|>", "<|im_end|>") or %[1]s.pad_token_id == 0 and %[1]s.unk_token is None:`, tok),
		fmt.Sprintf(`	if %[1]s.unk_token is not None and %[1]s.unk_token_id != %[1]s.eos_token_id:`, tok),
		fmt.Sprintf(`		%[1]s.pad_token = %[1]s.unk_token`, tok),
		fmt.Sprintf(`	elif %q in %s.get_vocab():`, reservedPad, tok),
		fmt.Sprintf(`		%s.pad_token = %q`, tok, reservedPad),
		"\telse:",
		fmt.Sprintf(`		%s.add_special_tokens({"pad_token": "<|pad|>"})`, tok),
		fmt.Sprintf(`		if len(%s) > %s.get_input_embeddings().num_embeddings:`, tok, model),
		fmt.Sprintf(`			%s.resize_token_embeddings(len(%s))`, model, tok),
	}
}

// padInCall is the pad value a call gives the tokenizer name:
// name.add_special_tokens({"pad_token": v}), or a helper called with the
// tokenizer and a pad_token entry (smart_tokenizer_and_embedding_resize).
func padInCall(c *semantic.Call, name string, text []byte) *syntree.Node {
	if c.Method == "add_special_tokens" && c.Object() != name {
		return nil
	}
	if c.Method != "add_special_tokens" && !semantic.ContainsWord([]byte(c.Args.Content(text)), name) {
		return nil
	}
	var found *syntree.Node
	semantic.WalkNodes(c.Args, func(n *syntree.Node) bool {
		if found != nil {
			return false
		}
		switch n.Type() {
		case "pair":
			if k, ok := semantic.StringValue(n.ChildByFieldName("key"), text); ok && k == "pad_token" {
				found = n.ChildByFieldName("value")
			}
		case "keyword_argument":
			if n.ChildByFieldName("name").Content(text) == "pad_token" {
				found = n.ChildByFieldName("value")
			}
		case "call", "lambda":
			return n.Equal(c.Node) || n.Type() == "call" && semantic.DottedName(n.ChildByFieldName("function"), text) == "dict"
		}
		return true
	})
	return found
}

// padStatement is the statement to remove for a bad pad assignment: the
// assignment's statement, or a guard "if tok.pad_token is None:" whose only
// body it is.
func padStatement(stmt *syntree.Node, text []byte) *syntree.Node {
	if stmt == nil {
		return nil
	}
	if guard := pyedit.SoleGuard(stmt); guard != nil && padGuard(guard, text) {
		return guard
	}
	// The only statement of an else: the else goes with it (no "else: pass").
	if block := stmt.Parent(); block != nil && block.Type() == "block" && pyedit.SoleStatement(stmt) {
		if clause := block.Parent(); clause != nil && clause.Type() == "else_clause" && clause.Parent() != nil && clause.Parent().Type() == "if_statement" {
			return clause
		}
	}
	return stmt
}

// padGuard reports "if tok.pad_token is None:" (or "not tok.pad_token",
// "tok.pad_token_id is None"): its body sets a pad wherever one is missing.
func padGuard(n *syntree.Node, text []byte) bool {
	if n.Type() != "if_statement" || n.ChildByFieldName("alternative") != nil {
		return false
	}
	cond := n.ChildByFieldName("condition")
	return cond != nil && strings.Contains(cond.Content(text), "pad_token")
}

func sortPads(pads []*padStmt) {
	for i := 1; i < len(pads); i++ {
		for j := i; j > 0 && pads[j].at < pads[j-1].at; j-- {
			pads[j], pads[j-1] = pads[j-1], pads[j]
		}
	}
}

// hasTokenizer reports a tokenizer load anywhere in the file.
func hasTokenizer(f *semantic.Facts, before *syntree.Node) bool {
	for _, c := range f.Calls {
		if f.IsTokenizerLoad(c.Node) && (before == nil || c.Node.StartByte() < before.StartByte()) {
			return true
		}
	}
	return false
}

// fileSetsPad reports any pad assignment in the file.
func fileSetsPad(f *semantic.Facts) bool {
	for _, a := range f.Assigns {
		if strings.HasSuffix(a.Text, ".pad_token") || strings.HasSuffix(a.Text, ".pad_token_id") {
			return true
		}
	}
	return false
}

// stateDictOverride: a custom model.state_dict (alpaca-lora) saves only
// the adapter weights, so a resized embedding row would be lost on save.
func stateDictOverride(f *semantic.Facts) bool {
	for _, a := range f.Assigns {
		if strings.HasSuffix(a.Text, ".state_dict") {
			return true
		}
	}
	return false
}

// peftPoint is the statement of scope fn that wraps the model in an
// adapter (get_peft_model, PeftModel.from_pretrained), or nil. A resize
// after it is neither trained nor saved with the adapter.
func peftPoint(f *semantic.Facts, fn *semantic.Func) *syntree.Node {
	for _, c := range f.Calls {
		if c.Func == fn && (c.Method == "get_peft_model" || strings.HasSuffix(c.Qual, "PeftModel.from_pretrained")) {
			return f.StatementIn(c.Node, fn)
		}
	}
	return nil
}

// trainingStart is the statement of scope fn that starts training
// (trainer.train(), model.train()), or nil.
func trainingStart(f *semantic.Facts, fn *semantic.Func) *syntree.Node {
	for _, c := range f.Calls {
		if c.Func == fn && c.Method == "train" && c.Object() != "" {
			return f.StatementIn(c.Node, fn)
		}
	}
	return nil
}

// nextStatement is the statement after stmt in its block (comments
// skipped), or nil.
func nextStatement(stmt *syntree.Node) *syntree.Node {
	n := stmt.NextNamedSibling()
	for n != nil && n.Type() == "comment" {
		n = n.NextNamedSibling()
	}
	return n
}

// indentOf is the indentation of the line stmt starts on.
func indentOf(src *semantic.Source, stmt *syntree.Node) string {
	indent, _ := src.Indent(stmt.Start())
	return indent
}

// moveTokenizerUp moves a tokenizer created after get_peft_model to just
// before it, when nothing between them uses it and its arguments are bound
// before: the pad block then goes right after it. It returns the new
// anchor and the edits, whose last one is the insertion the block joins.
func moveTokenizerUp(p *Pass, tok *semantic.PadTokenizer, tokTop, peft, anchor, loadTop *syntree.Node, pads []*padStmt) (*syntree.Node, []Edit, bool) {
	src, text := p.Src, p.Src.Text
	if tokTop == nil || !tokTop.Equal(tok.Stmt) || tokTop.StartByte() < peft.StartByte() || !anchor.Equal(tokTop) {
		return nil, nil, false
	}
	if loadTop == nil || loadTop.StartByte() > peft.StartByte() {
		return nil, nil, false
	}
	between := text[peft.StartByte():tokTop.StartByte()]
	if semantic.ContainsWord(between, tok.Name) {
		return nil, nil, false
	}
	for _, n := range identifiersIn(tokTop.ChildByFieldName("right"), text) {
		for _, a := range p.Facts.Assigns {
			if a.Text == n && a.Node.StartByte() >= peft.StartByte() && a.Node.StartByte() < tokTop.StartByte() {
				return nil, nil, false
			}
		}
	}
	for _, ps := range pads {
		if !ps.bad && ps.removable && ps.at > tokTop.Start() {
			return nil, nil, false // a pad line of its own after it would run after the block
		}
	}
	// The statement before get_peft_model stands alone; the block joins the
	// moved lines there.
	prev := tokTop.PrevNamedSibling()
	for prev != nil && prev.Type() == "comment" {
		prev = prev.PrevNamedSibling()
	}
	before := peft.PrevNamedSibling()
	for before != nil && before.Type() == "comment" {
		before = before.PrevNamedSibling()
	}
	if before == nil || before.StartByte() < loadTop.StartByte() {
		return nil, nil, false
	}
	if _, ok := pyedit.StandsAlone(src, tokTop); !ok {
		return nil, nil, false
	}
	if _, ok := pyedit.StandsAlone(src, before); !ok {
		return nil, nil, false
	}
	from, to := src.LineStart(tokTop.Start()), src.LineEnd(tokTop.End())
	lines := string(text[from:to])
	if !strings.HasSuffix(lines, "\n") {
		lines += src.EOL
	}
	del := Edit{Start: from, End: to}
	if to == len(text) && (to == 0 || text[to-1] != '\n') && from > 0 {
		del.Start = from - len(src.EOL)
	}
	at := src.LineEnd(before.End())
	return before, []Edit{del, {Start: at, End: at, NewText: lines}}, true
}

// identifiersIn lists the plain names a node reads (not attribute or
// keyword names).
func identifiersIn(n *syntree.Node, text []byte) []string {
	var out []string
	semantic.WalkNodes(n, func(c *syntree.Node) bool {
		if c.Type() != "identifier" {
			return true
		}
		if p := c.Parent(); p != nil {
			if p.Type() == "attribute" && p.ChildByFieldName("attribute").Equal(c) || p.Type() == "keyword_argument" && p.ChildByFieldName("name").Equal(c) {
				return false
			}
		}
		out = append(out, c.Content(text))
		return false
	})
	return out
}

// setsPadBeside reports a pad assignment in the block that binds load l.
func setsPadBeside(f *semantic.Facts, l *semantic.Load) bool {
	if l.Stmt == nil || l.Stmt.Parent() == nil {
		return false
	}
	block := l.Stmt.Parent()
	for _, a := range f.Assigns {
		if strings.HasSuffix(a.Text, ".pad_token") || strings.HasSuffix(a.Text, ".pad_token_id") {
			if st := semantic.Statement(a.Node); st != nil && st.Parent() != nil && st.Parent().Equal(block) {
				return true
			}
		}
	}
	return false
}

// refModelBeside is the keyword of a separate model a TRL trainer is given
// beside the one it trains (ref_model=, not None), or "".
func refModelBeside(f *semantic.Facts) string {
	for _, c := range f.Calls {
		if !c.Is(semantic.TRLTrainer) {
			continue
		}
		for _, kw := range []string{"ref_model", "reward_model", "teacher_model"} {
			if v := semantic.KeywordValue(c.Args, kw, f.Src.Text); v != nil && v.Type() != "none" {
				return kw
			}
		}
		// DPOTrainer(model, ref_model, ...), KTOTrainer(model, ref_model, ...)
		if args := semantic.RealArgs(c.Args); len(args) > 1 && args[1].Type() != "keyword_argument" && args[1].Type() != "none" &&
			(strings.HasSuffix(c.Method, "DPOTrainer") || strings.HasSuffix(c.Method, "KTOTrainer")) {
			return "ref_model"
		}
	}
	return ""
}
