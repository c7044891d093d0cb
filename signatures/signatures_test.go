package signatures

import (
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/version"
)

func pin(lib, v string) version.Versions {
	var vs version.Versions
	p, err := version.Parse(v)
	if err != nil {
		panic(err)
	}
	vs.Set(lib, p)
	return vs
}

func TestTableLoads(t *testing.T) {
	if err := Err(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"transformers.TrainingArguments", "transformers.Trainer", "trl.SFTConfig", "trl.SFTTrainer", "peft.LoraConfig"} {
		if Class(want) != want {
			t.Errorf("the table lacks %s (classes: %v)", want, Classes())
		}
	}
}

func TestClass(t *testing.T) {
	for qual, want := range map[string]string{
		"transformers.training_args.TrainingArguments": "transformers.TrainingArguments",
		"peft.tuners.lora.LoraConfig":                  "peft.LoraConfig",
		"trl.SFTConfig":                                "trl.SFTConfig",
		"TrainingArguments":                            "", // not resolved to a library
		"mylib.TrainingArguments":                      "",
		"transformers.AutoModelForCausalLM":            "",
	} {
		if got := Class(qual); got != want {
			t.Errorf("Class(%q) = %q, want %q", qual, got, want)
		}
	}
}

// What each pin reads: the release of its major.minor, the newest for no
// pin, every release for a pin that names no version.
func TestRefuses(t *testing.T) {
	commit := version.Versions{Transformers: version.Version{Ref: "git commit 13e53fc", Source: "requirements.txt:1"}}
	for _, c := range []struct {
		name, class, kw string
		vs              version.Versions
		want            string // "" accepted, else a part of the reason
	}{
		{"the crash of REPROS 1A", "transformers.TrainingArguments", "model_init_kwargs", version.Versions{}, "in transformers 5.15.0, the newest release read (no version pinned)"},
		{"no release has it, whatever the commit", "transformers.TrainingArguments", "model_init_kwargs", commit, "any transformers release from 4.30.2 to 5.15.0"},
		{"TRL's configs have it", "trl.SFTConfig", "model_init_kwargs", version.Versions{}, ""},
		{"and TrainingArguments' keywords", "trl.SFTConfig", "logging_nan_inf_filter", version.Versions{}, ""},
		{"eval_strategy came in 4.41", "transformers.TrainingArguments", "eval_strategy", pin("transformers", "4.40.1"), "in transformers 4.40.1"},
		{"so 4.41.0 has it", "transformers.TrainingArguments", "eval_strategy", pin("transformers", "4.41.0"), ""},
		{"a pin older than the table reads the oldest", "transformers.TrainingArguments", "eval_strategy", pin("transformers", "4.20"), "(read as 4.30.2)"},
		{"a commit: some release has it", "transformers.TrainingArguments", "eval_strategy", commit, ""},
		{"warmup_ratio went in 5.15", "transformers.TrainingArguments", "warmup_ratio", pin("transformers", "5.15.0"), "in transformers 5.15.0"},
		{"processing_class came in 4.46", "transformers.Trainer", "processing_class", pin("transformers", "4.45.2"), "in transformers 4.45.2"},
		{"tokenizer= is still taken, deprecated, in 4.57", "transformers.Trainer", "tokenizer", pin("transformers", "4.57.1"), ""},
		{"BitsAndBytesConfig takes **kwargs: not known", "transformers.BitsAndBytesConfig", "anything", version.Versions{}, ""},
		{"SFTConfig before TRL had it: not known", "trl.SFTConfig", "bogus", pin("trl", "0.8.6"), ""},
		{"use_dora came in PEFT 0.9", "peft.LoraConfig", "use_dora", pin("peft", "0.8.2"), "in peft 0.8.2"},
		{"a class not in the table", "transformers.AutoConfig", "anything", version.Versions{}, ""},
	} {
		got := Refuses(c.class, c.kw, c.vs)
		if (got == "") != (c.want == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: Refuses(%s, %s) = %q, want %q", c.name, c.class, c.kw, got, c.want)
		}
	}
}
