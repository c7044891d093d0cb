package rewrite

import (
	"fmt"
	"strings"

	"github.com/loratune/loratune-fix/semantic"
)

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
None.

## Evidence

| status | what was run |
| --- | --- |
| mechanism only | transformers 5 removed these arguments (TypeError); not run |`,
	Run: runRemovedTrainingArguments,
}

func runRemovedTrainingArguments(p *Pass) {
	f, text := p.Facts, p.Src.Text
	tv := p.Versions.Transformers
	if !tv.AtLeast(5, 0) {
		return
	}
	rename := func(c *semantic.Call, old, repl, why string) {
		kw := semantic.Keyword(c.Args, old, text)
		if kw == nil {
			return
		}
		name := kw.ChildByFieldName("name")
		fd := Finding{Start: name.Start(), End: kw.End(),
			Message: fmt.Sprintf("%s(%s=...) was removed in transformers 5 and raises TypeError (%s); %s", c.Method, old, tv.Describe("transformers"), why)}
		if semantic.Keyword(c.Args, repl, text) == nil {
			fd.Fix = &Fix{Message: fmt.Sprintf("%s= becomes %s=", old, repl), Edits: []Edit{{Start: name.Start(), End: name.End(), NewText: repl}}}
		} else {
			fd.Message += fmt.Sprintf("; %s= is passed too: keep one", repl)
		}
		p.Report(fd)
	}
	for _, c := range f.Calls {
		switch {
		case c.Is(semantic.TrainingArgs):
			rename(c, "warmup_ratio", "warmup_steps", "warmup_steps takes the same ratio (a float below 1) from 5.0")
			rename(c, "evaluation_strategy", "eval_strategy", "eval_strategy is the same setting")
		case c.IsTrainerCall() && strings.HasPrefix(c.Qual, "transformers."):
			rename(c, "tokenizer", "processing_class", "processing_class takes the tokenizer")
		}
	}
}
