package rewrite

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

var trainingPaddingSide = &Rule{
	Code:         "LTF008",
	Name:         "training-padding-side",
	Summary:      `tokenizer.padding_side = "left" in training code becomes "right"`,
	Severity:     SeverityError,
	Profiles:     []string{ProfileDefault, ProfileLean},
	Triggers:     []string{"padding_side"},
	TrainingOnly: true,
	Doc: `## What it does
In training code, tokenizer.padding_side = "left" (or padding_side="left"
passed to the tokenizer's from_pretrained) becomes "right".

## Why
Left padding is inference advice ("Allow batched inference" in alpaca-lora
and DoRA) copied into training. It puts pad queries at the front, whose
rows the causal mask leaves fully masked, and cuDNN SDPA's backward returns
NaN for those rows (reproduced on an H200). Training pads on the right;
TRL always does.

## Example
    tokenizer.padding_side = "left"  # Allow batched inference
becomes
    tokenizer.padding_side = "right"  # right padding for training; left is for batched inference
(a trailing remark about inference or left padding is reworded; other
comment bytes stay)

## When it stays away
Generation and evaluation code keep left padding, which generate() needs.

## Cost
None.`,
	Run: runTrainingPaddingSide,
}

func runTrainingPaddingSide(p *Pass) {
	f, text := p.Facts, p.Src.Text
	for _, a := range f.Assigns {
		if !strings.HasSuffix(a.Text, ".padding_side") || f.TrainingUse(a.Func) != Training {
			continue
		}
		reportLeft(p, a.Value, text)
	}
	for _, c := range f.Calls {
		if c.Method != "from_pretrained" || !strings.Contains(c.Qual, "Tokenizer") || f.TrainingUse(c.Func) != Training {
			continue
		}
		if v := KeywordValue(c.Args, "padding_side", text); v != nil {
			reportLeft(p, v, text)
		}
	}
}

func reportLeft(p *Pass, v *sitter.Node, text []byte) {
	if s, ok := StringValue(v, text); !ok || s != "left" {
		return
	}
	st, en := start(v), end(v)
	edits := []Edit{{Start: st + 1, End: en - 1, NewText: "right"}}
	if e, ok := staleLeftPaddingComment(p.Src, en); ok {
		edits = append(edits, e)
	}
	p.Report(Finding{Start: st, End: en,
		Message: `left padding in training makes fully masked query rows, whose cuDNN SDPA backward is NaN; training pads on the right (keep "left" for generation)`,
		Fix:     &Fix{Message: `padding_side = "right"`, Edits: edits}})
}

// staleLeftPaddingComment rewords the comment at the end of the line of
// offset at when it gives the reason for left padding ("# Allow batched
// inference"), which would then sit beside "right". Only that remark is
// replaced: what follows it in the comment (a "# noqa: E501") and every
// byte around it stay.
func staleLeftPaddingComment(src *Source, at int) (Edit, bool) {
	end := src.ContentEnd(at)
	for i := at; i < end; i++ {
		if src.Text[i] != '#' {
			continue
		}
		comment := commentAt(src, src.root, i)
		if comment == "" {
			continue // a '#' inside a string
		}
		remark := comment[1:]
		if j := strings.IndexByte(remark, '#'); j >= 0 {
			remark = remark[:j]
		}
		words := strings.ToLower(remark)
		if !strings.Contains(words, "inference") && !strings.Contains(words, "left") && !strings.Contains(words, "generat") {
			return Edit{}, false
		}
		from := i + 1 + len(remark) - len(strings.TrimLeft(remark, " \t"))
		to := i + 1 + len(strings.TrimRight(remark, " \t"))
		return Edit{Start: from, End: to, NewText: "right padding for training; left is for batched inference"}, true
	}
	return Edit{}, false
}
