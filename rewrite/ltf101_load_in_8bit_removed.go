package rewrite

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/loratune/loratune-fix/pyedit"
	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

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
None: the same quantized load.

## Evidence

| status | what was run |
| --- | --- |
| mechanism only | transformers 5 removed load_in_8bit/load_in_4bit from from_pretrained (TypeError); not run |`,
	Run: runLoadIn8bitRemoved,
}

var bnbKeyword = regexp.MustCompile(`^(llm_int8_\w+|bnb_4bit_\w+)$`)

func runLoadIn8bitRemoved(p *Pass) {
	f, text := p.Facts, p.Src.Text
	tv := p.Versions.Transformers
	if !tv.AtLeast(5, 0) {
		return
	}
	// Flags inside a **kwargs dict built in view: reported at the entry;
	// no fix (the key and the value would both change).
	for _, l := range f.ModelLoads() {
		for _, k := range []string{"load_in_8bit", "load_in_4bit"} {
			if semantic.KeywordValue(l.Args, k, text) != nil {
				continue // the call's own keyword: below
			}
			if v := l.Arg(k, text); v != nil {
				p.Report(Finding{Start: v.Start(), End: v.End(),
					Message: fmt.Sprintf("%s in the kwargs of %s() was removed in transformers 5 and raises TypeError, even =False (%s); put quantization_config=BitsAndBytesConfig(%s=...) in the dict instead", k, l.Method, tv.Describe("transformers"), k)})
			}
		}
	}
	for _, c := range f.Calls {
		if c.Method != "from_pretrained" {
			continue
		}
		var flags []*syntree.Node
		for _, k := range []string{"load_in_8bit", "load_in_4bit"} {
			if kw := semantic.Keyword(c.Args, k, text); kw != nil {
				flags = append(flags, kw)
			}
		}
		for _, kw := range flags {
			name := kw.ChildByFieldName("name").Content(text)
			val := kw.ChildByFieldName("value")
			fd := Finding{Start: kw.Start(), End: kw.End(),
				Message: fmt.Sprintf("from_pretrained(%s=...) was removed in transformers 5 and raises TypeError, even =False (%s)", name, tv.Describe("transformers"))}
			switch val.Content(text) {
			case "False", "None":
				fd.Message += "; it asks for no quantization: drop it"
				if edits, ok := pyedit.DropKeywordArg(p.Src, c.Args, kw); ok {
					fd.Fix = &Fix{Message: "remove " + name + "=" + val.Content(text), Edits: edits}
				}
			case "True":
				bits := strings.TrimPrefix(name, "load_in_")
				fd.Message += fmt.Sprintf("; pass quantization_config=BitsAndBytesConfig(%s=True)", name)
				if exactQuantRewrite(c, flags, text) {
					class, imp := pyedit.EnsureFromImport(f, "transformers", "BitsAndBytesConfig")
					fd.Fix = &Fix{Message: fmt.Sprintf("quantization_config=%s(%s=True) (%s)", class, name, bits),
						Edits: append([]Edit{{Start: kw.Start(), End: kw.End(), NewText: fmt.Sprintf("quantization_config=%s(%s=True)", class, name)}}, imp...)}
				}
			default:
				fd.Message += fmt.Sprintf("; pass quantization_config=BitsAndBytesConfig(%s=%s)", name, val.Content(text))
			}
			p.Report(fd)
		}
	}
}

// exactQuantRewrite: the one True flag is the whole quantization request.
func exactQuantRewrite(c *semantic.Call, flags []*syntree.Node, text []byte) bool {
	if len(flags) != 1 || semantic.HasSplat(c.Args) || semantic.Keyword(c.Args, "quantization_config", text) != nil {
		return false
	}
	for _, a := range semantic.RealArgs(c.Args) {
		if a.Type() == "keyword_argument" && bnbKeyword.MatchString(a.ChildByFieldName("name").Content(text)) {
			return false
		}
	}
	return true
}
