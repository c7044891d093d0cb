package rewrite

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/loratune/loratune-fix/semantic"
)

// How the script's collator masks labels decides whether pad = eos hides
// EOS (DOMAIN.md §5).
type collatorKind int

const (
	collatorUnknown    collatorKind = iota
	collatorByID                    // every label equal to the pad id becomes -100
	collatorByPosition              // only padded positions become -100
)

type padCollatorUse struct {
	kind collatorKind
	name string // for messages: "transformers' DataCollatorForLanguageModeling"
}

// ownLabelMask reports a script's own "labels[labels == pad_token_id] =
// -100": a line comparing with pad_token_id that writes -100.
func ownLabelMask(text []byte) bool {
	// The lines that hold pad_token_id, found by it (no copy of the
	// text's lines).
	for at := 0; ; {
		i := bytes.Index(text[at:], []byte("pad_token_id"))
		if i < 0 {
			return false
		}
		i += at
		start, end := bytes.LastIndexByte(text[:i], '\n')+1, len(text)
		if j := bytes.IndexByte(text[i:], '\n'); j >= 0 {
			end = i + j
		}
		if line := text[start:end]; bytes.Contains(line, []byte("-100")) &&
			(bytes.Contains(line, []byte("==")) || bytes.Contains(line, []byte("!="))) {
			return true
		}
		at = end
	}
}

// padCollator reads the collators of the file: one that masks by id wins
// (it hides EOS on its path); the pinned TRL version decides for an
// SFTTrainer given no collator.
func padCollator(p *Pass) padCollatorUse {
	f, text := p.Facts, p.Src.Text
	var byID, byPos string
	for _, c := range f.Calls {
		switch {
		case c.Method == "DataCollatorForLanguageModeling":
			if strings.HasPrefix(c.Qual, "trl.") {
				byPos = "TRL's DataCollatorForLanguageModeling"
			} else {
				byID = "transformers' DataCollatorForLanguageModeling"
			}
		case c.Method == "DataCollatorForCompletionOnlyLM":
			byID = "DataCollatorForCompletionOnlyLM"
		case c.Method == "DataCollatorForSeq2Seq":
			byPos = "DataCollatorForSeq2Seq"
		case c.Is(semantic.TRLTrainer) && semantic.KeywordValue(c.Args, "data_collator", text) == nil:
			kind := strings.TrimSuffix(c.Method, "Trainer")
			if !strings.HasSuffix(kind, "SFT") {
				byPos = fmt.Sprintf("TRL's %s collator", c.Method)
				continue
			}
			switch tv := p.Versions.TRL; {
			case tv.Known && tv.MayBeBelow(0, 17): // a range reaching below 0.17 may mask by id
				byID = fmt.Sprintf("TRL's SFT collator before 0.17 (%s)", tv.Describe("trl"))
			case tv.Known:
				byPos = fmt.Sprintf("TRL's SFT collator (%s)", tv.Describe("trl"))
			}
		}
	}
	if byID == "" && ownLabelMask(text) {
		byID = "the script's own label masking (== pad_token_id -> -100)"
	}
	if byID == "" && byPos == "" && f.OwnPositionalMask() != nil {
		byPos = "the script, which sets its labels to -100 itself,"
	}
	switch {
	case byID != "":
		return padCollatorUse{collatorByID, byID}
	case byPos != "":
		return padCollatorUse{collatorByPosition, byPos}
	}
	if tv := p.Versions.TRL; !tv.Known && sftWithoutCollator(p) {
		return padCollatorUse{collatorUnknown, "SFTTrainer: TRL >= 0.17 masks by position; trl version unknown"}
	}
	return padCollatorUse{}
}

func sftWithoutCollator(p *Pass) bool {
	for _, c := range p.Facts.Calls {
		if strings.HasSuffix(c.Method, "SFTTrainer") && semantic.KeywordValue(c.Args, "data_collator", p.Src.Text) == nil {
			return true
		}
	}
	return false
}

// frameworkManagedPad reports, once, padding that a framework sets up
// itself: unsloth's loader (a note, or a warning where the script's own
// pad = eos line undoes it) and trl.setup_chat_format (after which the rule
// stays away from the file).
func frameworkManagedPad(p *Pass) bool {
	f := p.Facts
	for _, c := range f.Calls {
		unsloth := c.Method == "from_pretrained" && (strings.HasPrefix(c.Qual, "unsloth.") || strings.Contains(c.Dotted, "FastLanguageModel") || strings.Contains(c.Dotted, "FastModel"))
		if !unsloth && c.Method != "setup_chat_format" {
			continue // (asked first: cheaper than the training use)
		}
		if f.TrainingUse(c.Func) == semantic.NotTraining && c.Func != f.Module {
			continue
		}
		switch {
		case unsloth:
			fd := Finding{Start: c.Node.Start(), End: c.Node.End(), Severity: SeverityInfo,
				Message: fmt.Sprintf("unsloth's %s sets the tokenizer's pad itself, distinct from eos (a reserved token, or a new one with a resize)", c.Dotted)}
			for _, a := range f.Assigns {
				if a.Func != c.Func || a.Node.StartByte() < c.Node.EndByte() || !strings.HasSuffix(a.Text, ".pad_token") && !strings.HasSuffix(a.Text, ".pad_token_id") {
					continue
				}
				if kind, _ := classifyPad(f, a.Value, a.Func, 0); kind == padEOS || kind == padEOSLike {
					fd.Severity = SeverityWarning
					fd.Message += fmt.Sprintf(": the script's own pad line (line %d) undoes that", p.Src.Position(a.Node.Start()).Line)
					break
				}
			}
			p.Report(fd)
			return false
		case c.Method == "setup_chat_format":
			p.Report(Finding{Start: c.Node.Start(), End: c.Node.End(), Severity: SeverityWarning,
				Message: "trl's setup_chat_format adds the ChatML tokens, resizes the embeddings and sets pad = eos = <|im_end|>: a collator that masks labels by pad id then masks the end of every turn (TRL >= 0.17's SFT collator masks by position and keeps it); set a distinct pad after it for other collators"})
			return true
		}
	}
	return false
}

// trlLoadsTokenizer reports, with one warning, a TRL trainer given no
// tokenizer: TRL loads the model's own.
func trlLoadsTokenizer(p *Pass, id string) bool {
	f, text := p.Facts, p.Src.Text
	for _, c := range f.Calls {
		if !c.Is(semantic.TRLTrainer) || semantic.KeywordValue(c.Args, "processing_class", text) != nil || semantic.KeywordValue(c.Args, "tokenizer", text) != nil {
			continue
		}
		if id == "" {
			id = "the model"
		}
		fd := Finding{Start: c.Node.Start(), End: c.Node.Start(), Severity: SeverityWarning,
			Message: fmt.Sprintf("%s gets no tokenizer: TRL loads %s's own and pads with its pad token, or with eos where it has none; TRL >= 0.17 masks labels by position, so EOS is kept (before 0.17 every EOS is masked: pass processing_class= a tokenizer with a distinct pad) (%s)", c.Method, id, p.Versions.TRL.Describe("trl"))}
		if p.Versions.TRL.AtLeast(0, 17) {
			fd.Severity = SeverityInfo
			fd.Message = fmt.Sprintf("%s gets no tokenizer: TRL loads %s's own and pads with its pad token, or with eos where it has none; its collator masks labels by position, so EOS is kept (%s)", c.Method, id, p.Versions.TRL.Describe("trl"))
		}
		p.Report(fd)
		return true
	}
	return false
}
