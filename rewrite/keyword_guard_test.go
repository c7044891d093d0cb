package rewrite

import (
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/version"
)

// repro1A is REPROS class 1A: an old-TRL trainer builds the model from a
// name with model_init_kwargs=, and its args= is transformers'
// TrainingArguments, which has no such field.
const repro1A = `import torch
from transformers import TrainingArguments, BitsAndBytesConfig, AutoTokenizer
from trl import SFTTrainer
from peft import LoraConfig

name = "mistralai/Mistral-7B-v0.1"
tok = AutoTokenizer.from_pretrained(name)
init = dict(
    torch_dtype="auto",
    attn_implementation="flash_attention_2",
    quantization_config=BitsAndBytesConfig(load_in_4bit=True),
)
args = TrainingArguments(output_dir="out", fp16=True)
trainer = SFTTrainer(
    model=name,
    model_init_kwargs=init,
    args=args,
    tokenizer=tok,
    train_dataset=None,
    dataset_text_field="text",
    peft_config=LoraConfig(r=8, task_type="CAUSAL_LM"),
)
trainer.train()
`

// keywordRule adds keyword=value to the first call whose text starts with
// callee, as a rule that misreads which class takes it would.
func keywordRule(callee, keyword string) *Rule {
	return &Rule{Code: "LTF999", Name: "test-keyword", Severity: SeverityWarning, Run: func(p *Pass) {
		text := string(p.Src.Text)
		at := strings.Index(text, callee+"(")
		if at < 0 || strings.HasPrefix(text[at+len(callee)+1:], keyword+"=") {
			return
		}
		at += len(callee) + 1
		p.Report(Finding{Start: at, End: at, Message: "test", Fix: &Fix{Message: "add " + keyword,
			Edits: []Edit{{Start: at, End: at, NewText: keyword + "={}, "}}}})
	}}
}

// A fix that adds model_init_kwargs= to transformers.TrainingArguments is
// refused, pinned or not, with the class, the keyword and the release read
// in its reason; the same keyword on TRL's SFTConfig goes in.
func TestKeywordGuardRefusesUnknownKeyword(t *testing.T) {
	for _, c := range []struct {
		name, src, callee, keyword, why string
		vs                              Versions
		applied                         bool
	}{
		{"1A, nothing pinned", repro1A, "TrainingArguments", "model_init_kwargs",
			"transformers.TrainingArguments takes no keyword model_init_kwargs in transformers 5.15.0, the newest release read (no version pinned)", Versions{}, false},
		{"1A, transformers 4.46 pinned", repro1A, "TrainingArguments", "model_init_kwargs",
			"in transformers 4.46.0 (requirements.txt:1)", pinned("transformers", "4.46.0"), false},
		{"aliased module", "import transformers as tf\nargs = tf.TrainingArguments(output_dir='o')\n", "tf.TrainingArguments", "model_init_kwargs",
			"transformers.TrainingArguments takes no keyword model_init_kwargs", Versions{}, false},
		{"TRL's SFTConfig takes it", "from trl import SFTConfig\nargs = SFTConfig(output_dir='o')\n", "SFTConfig", "model_init_kwargs", "", Versions{}, true},
		{"and TrainingArguments' keywords, at the transformers pinned", "from trl import SFTConfig\nargs = SFTConfig(output_dir='o')\n", "SFTConfig", "eval_strategy",
			"trl.SFTConfig takes no keyword eval_strategy in trl 1.10.0.dev0, the newest release read (no version pinned), nor does transformers.TrainingArguments in transformers 4.40.2 (requirements.txt:1)", pinned("transformers", "4.40.2"), false},
		{"LoraConfig before PEFT had use_dora", "import peft\ncfg = peft.LoraConfig(r=8)\n", "peft.LoraConfig", "use_dora",
			"peft.LoraConfig takes no keyword use_dora in peft 0.8.2 (requirements.txt:1)", pinned("peft", "0.8.2"), false},
		{"and once it had", "import peft\ncfg = peft.LoraConfig(r=8)\n", "peft.LoraConfig", "use_dora", "", pinned("peft", "0.9.0"), true},
		{"unsloth patches TRL's configs: not checked", "import unsloth\nfrom trl import SFTConfig\nargs = SFTConfig(output_dir='o')\n", "SFTConfig", "unsloth_num_chunks", "", Versions{}, true},
		{"but a bogus keyword on TRL's config is refused", "from trl import SFTConfig\nargs = SFTConfig(output_dir='o')\n", "SFTConfig", "unsloth_num_chunks",
			"trl.SFTConfig takes no keyword unsloth_num_chunks", Versions{}, false},
		{"a class of the file's own", "from transformers import TrainingArguments\nclass Args(TrainingArguments):\n    pass\nargs = Args(output_dir='o')\n", "Args", "model_init_kwargs", "", Versions{}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			eng, err := New(Options{})
			if err != nil {
				t.Fatal(err)
			}
			eng.rules = []*Rule{keywordRule(c.callee, c.keyword)}
			res, err := eng.Fix([]byte(c.src), c.vs)
			if err != nil {
				t.Fatal(err)
			}
			if res.Changed != c.applied {
				t.Fatalf("applied %v, want %v:\n%s", res.Changed, c.applied, res.Output)
			}
			if len(res.Findings) != 1 {
				t.Fatalf("findings %v", res.Findings)
			}
			r := res.Findings[0].Reason
			if c.applied {
				if Refused(r) {
					t.Errorf("refused: %s", r)
				}
				return
			}
			if !strings.HasPrefix(r, KeywordGuardPrefix) || !strings.Contains(r, c.why) || !Refused(r) || res.Findings[0].Fix != nil {
				t.Errorf("reason %q, want the keyword guard saying %q (and no fix offered)", r, c.why)
			}
		})
	}
}

// The engine's own rules never write model_init_kwargs= into
// TrainingArguments on repro 1A: the rule does not, or the guard drops it.
func TestRepro1AKeepsTrainingArgumentsCallable(t *testing.T) {
	eng, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := eng.Fix([]byte(repro1A), Versions{})
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Output)
	line := out[strings.Index(out, "args = TrainingArguments("):]
	if line = line[:strings.Index(line, "\ntrainer")]; strings.Contains(line, "model_init_kwargs") {
		t.Errorf("TrainingArguments got model_init_kwargs:\n%s", line)
	}
}

func pinned(lib, v string) Versions {
	var vs Versions
	ver, err := version.Parse(v)
	if err != nil {
		panic(err)
	}
	ver.Source = "requirements.txt:1"
	vs.Set(lib, ver)
	return vs
}

// A fix that writes a call anew (one keyword a line) is not blamed for a
// keyword the call already passed, only for one it adds.
func TestKeywordGuardBlamesOnlyAddedKeywords(t *testing.T) {
	const src = "from transformers import TrainingArguments\nargs = TrainingArguments(output_dir='o', model_init_kwargs={})\n"
	for _, c := range []struct {
		add     string
		applied bool
	}{{"seed=1", true}, {"attn_implementation='eager'", false}} {
		eng, err := New(Options{})
		if err != nil {
			t.Fatal(err)
		}
		eng.rules = []*Rule{{Code: "LTF999", Name: "test-relayout", Severity: SeverityWarning, Run: func(p *Pass) {
			text := string(p.Src.Text)
			from, to := strings.Index(text, "(")+1, strings.LastIndex(text, ")")
			if strings.Contains(text, "\n    ") {
				return
			}
			p.Report(Finding{Start: from, End: to, Message: "test", Fix: &Fix{Message: "relayout",
				Edits: []Edit{{Start: from, End: to, NewText: "\n    output_dir='o',\n    model_init_kwargs={},\n    " + c.add + ",\n"}}}})
		}}}
		res, err := eng.Fix([]byte(src), Versions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Changed != c.applied {
			t.Errorf("adding %s: applied %v, want %v (%s)", c.add, res.Changed, c.applied, res.Findings[0].Reason)
		}
	}
}
