package launch

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/rewrite"
)

func engine(t *testing.T, opts rewrite.Options) *rewrite.Engine {
	t.Helper()
	e, err := rewrite.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// The content decides, not the name: the same name holds a config or not.
func TestRecogniseByContent(t *testing.T) {
	tests := []struct {
		name, text string
		want       Kind
	}{
		{"config.yaml", "model_name_or_path: x\ndo_train: true\nfinetuning_type: lora\n", LlamaFactory},
		{"config.yaml", "base_model: x\nadapter: lora\nsequence_len: 512\n", Axolotl},
		{"config.yaml", "model_name_or_path: x\ndataset_name: y\nuse_peft: true\n", TRLConfig},
		{"config.yaml", "compute_environment: LOCAL_MACHINE\nmixed_precision: bf16\n", Accelerate},
		{"config.yaml", "zero_optimization:\n  stage: 2\n", DeepSpeed},
		{"config.json", `{"bf16": {"enabled": "auto"}}`, DeepSpeed},
		{"config.yaml", "name: CI\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n", ""},
		{"config.json", `{"name": "pkg", "version": "1.0.0", "enabled": true}`, ""},
		{"config.json", `{"zero_optimization": {"stage": 2},}`, ""}, // not JSON: left alone
		{"config.yaml", "---\nzero_optimization: {stage: 2}\n---\nzero_optimization: {stage: 3}\n", ""},
		{"run.sh", "#!/bin/sh\nCUDA_VISIBLE_DEVICES=0 python3 train.py --lr 1e-4\n", Shell},
		{"run.sh", "#!/bin/sh\naccelerate launch --num_processes 2 \\\n  sft.py --bf16\n", Shell},
		{"run.sh", "#!/bin/sh\nnohup deepspeed --num_gpus 8 main.py &\n", Shell},
		{"run.sh", "llamafactory-cli train cfg.yaml\n", Shell},
		{"run.sh", "axolotl train cfg.yml\n", Shell},
		{"run.sh", "trl sft --config cfg.yaml\n", Shell},
		{"run.sh", "#!/bin/sh\npython -c 'print(1)'\npip install torch\n", ""},
		{"run.sh", "#!/bin/sh\naccelerate config\n", ""},
		{"train.py", "model_name_or_path: x\ndo_train: true\nfinetuning_type: lora\n", ""},
	}
	for _, tt := range tests {
		if got := Recognise(tt.name, []byte(tt.text)); got != tt.want {
			t.Errorf("%s %q: %q, want %q", tt.name, tt.text, got, tt.want)
		}
	}
}

// Shell words: continuations, quotes, --flag=value, and variables set
// once earlier; a variable set twice, or after the use, is unknown.
func TestShellWords(t *testing.T) {
	script := `#!/bin/bash
A=bfloat16
B="sdpa"
C=x
C=y
torchrun --nproc_per_node 2 train.py \
  --one $A \
  --two="${B}" \
  --three 'q' \
  --four=plain \
  --five $C \
  --six ${LATER} \
  --switch
LATER=z
`
	f := read("run.sh", []byte(script))
	if f == nil {
		t.Fatal("not recognised")
	}
	defer f.close()
	c := f.sh.commands[0]
	if c.launcher != "torchrun" || c.script.text != "train.py" || getFlag(c.pre, "nproc_per_node") == nil {
		t.Fatalf("command %+v", c)
	}
	want := map[string]string{"one": "bfloat16", "two": "sdpa", "three": "q", "four": "plain"}
	for name, v := range want {
		fl := getFlag(c.flags, name)
		if fl == nil || fl.value == nil || !fl.value.known || fl.value.text != v {
			t.Errorf("--%s: %+v, want %q", name, fl, v)
			continue
		}
		if got := script[fl.value.start:fl.value.end]; got != v {
			t.Errorf("--%s: the value's bytes are %q", name, got)
		}
	}
	for _, name := range []string{"five", "six"} {
		if fl := getFlag(c.flags, name); fl == nil || fl.value == nil || fl.value.known {
			t.Errorf("--%s should be unknown: %+v", name, fl)
		}
	}
	if fl := getFlag(c.flags, "switch"); fl == nil || fl.value != nil {
		t.Errorf("--switch is a bare switch: %+v", fl)
	}
	if fl := getFlag(c.flags, "one"); fl.value.variable != "A" || fl.value.shared {
		t.Errorf("--one comes from $A alone: %+v", fl.value)
	}
}

// A byte order mark and CRLF line endings stay; offsets are the file's.
func TestBOMAndCRLF(t *testing.T) {
	text := []byte("\xef\xbb\xbfmodel_name_or_path: x\r\ndo_train: true\r\nfinetuning_type: lora\r\nflash_attn: sdpa\r\nlogging_nan_inf_filter: false\r\n")
	res, ok, err := Run(Options{Engine: engine(t, rewrite.Options{}), Fix: true}, "a.yaml", text)
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	want := "\xef\xbb\xbfmodel_name_or_path: x\r\ndo_train: true\r\nfinetuning_type: lora\r\nflash_attn: disabled\r\nlogging_nan_inf_filter: false\r\n"
	if string(res.Output) != want {
		t.Errorf("output %q", res.Output)
	}
	if len(res.Findings) != 1 || string(text[res.Findings[0].Start:res.Findings[0].End]) != "flash_attn: sdpa" {
		t.Errorf("findings %+v", res.Findings)
	}
}

// Rules run as the engine selects them, and comments silence them.
func TestSelectionAndSuppression(t *testing.T) {
	text := []byte("model_name_or_path: x\ndo_train: true\nfinetuning_type: lora\nflash_attn: sdpa  # noqa: LTF002\nlogging_nan_inf_filter: true\n")
	codes := func(opts rewrite.Options) string {
		res, _, err := Run(Options{Engine: engine(t, opts)}, "a.yaml", text)
		if err != nil {
			t.Fatal(err)
		}
		var cs []string
		for _, f := range res.Findings {
			cs = append(cs, f.Code)
		}
		return strings.Join(cs, ",")
	}
	if got := codes(rewrite.Options{}); got != "LTF009" {
		t.Errorf("default profile with LTF002 silenced: %s", got)
	}
	if got := codes(rewrite.Options{Ignore: []string{"LTF009"}}); got != "" {
		t.Errorf("LTF009 ignored: %s", got)
	}
	if got := codes(rewrite.Options{Profile: "lean"}); got != "LTF007,LTF009" {
		t.Errorf("lean profile: %s", got)
	}
}

// A launcher whose script takes its dtype from an option that leaves out
// float32 in its choices is not edited: the fixed command would crash.
func TestScriptChoices(t *testing.T) {
	script := []byte(`import argparse, torch
from transformers import AutoModelForCausalLM, Trainer
from peft import get_peft_model, LoraConfig
p = argparse.ArgumentParser()
p.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float16"])
p.add_argument("--torch_dtype", default="bfloat16")
args = p.parse_args()
model = AutoModelForCausalLM.from_pretrained("m", torch_dtype=getattr(torch, args.dtype))
model = get_peft_model(model, LoraConfig())
Trainer(model=model).train()
`)
	read := func(name string) ([]byte, error) {
		if name == "train.py" {
			return script, nil
		}
		return nil, os.ErrNotExist
	}
	run := func(launcher string) *rewrite.Result {
		res, ok, err := Run(Options{Engine: engine(t, rewrite.Options{Select: []string{"LTF001"}}), Fix: true, Read: read}, "run.sh", []byte(launcher))
		if !ok || err != nil {
			t.Fatal(ok, err)
		}
		return res
	}
	res := run("python train.py --dtype bfloat16 --bf16 True\n")
	if res.Changed || len(res.Findings) != 1 || res.Findings[0].Fix != nil || !strings.Contains(res.Findings[0].Message, "choices") {
		t.Errorf("--dtype outside the choices: %+v", res.Findings)
	}
	// --torch_dtype is accepted by the parser but the load does not read it.
	res = run("python train.py --torch_dtype bfloat16 --bf16 True\n")
	if res.Changed || len(res.Findings) != 1 || res.Findings[0].Fix != nil {
		t.Errorf("an option the load does not read: %+v", res.Findings)
	}
}

// The readers never panic and never call a broken file a launch config.
func TestHostileInputs(t *testing.T) {
	inputs := []string{"", "\x00\x01", "{", "[1,2", "a: [", "python train.py --x \"unclosed\n", "key: !!binary |\n  AAAA\n",
		"bf16: &a {enabled: true}\nfp16: *a\nzero_optimization: {}\n", strings.Repeat("[", 10000)}
	for _, in := range inputs {
		for _, name := range []string{"x.yaml", "x.json", "x.sh"} {
			res, ok, err := Run(Options{Engine: engine(t, rewrite.Options{}), Fix: true}, name, []byte(in))
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s %q: %v", name, in, err)
			}
			if ok && !bytes.Equal(res.Output, []byte(in)) && res.Changed == false {
				t.Errorf("%s %q: output differs without a change", name, in)
			}
		}
	}
}

// Every documented code is a rule's, and every code the launch rules
// report is documented.
func TestKeysDocumented(t *testing.T) {
	for code := range keys {
		if rewrite.Lookup(code) == nil {
			t.Errorf("keys documents %s, which is no rule", code)
		}
	}
	for _, name := range []string{"rules.go", "shellrules.go", "crossfile.go"} {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, part := range strings.Split(string(src), `p.report("`)[1:] {
			if code := part[:6]; Keys(code) == "" {
				t.Errorf("%s reports %s without a keys section", name, code)
			}
		}
	}
}

// stub is the launch front end of the fix loop with rules of a test's own:
// its outputs are verified as a launch file's.
type stub struct {
	front
	rules func(cur *file) []rewrite.Finding
}

func (s stub) Analyse(text []byte, f *file) ([]rewrite.Finding, *file, error) {
	if f == nil {
		f = s.Verify(nil, nil, text, nil, true)
	}
	return s.rules(f), f, nil
}

// loopOver runs the engine's fix loop over a LLaMA-Factory YAML with rules.
func loopOver(t *testing.T, src []byte, rules func(cur *file) []rewrite.Finding) *rewrite.Result {
	t.Helper()
	f := read("a.yaml", src)
	if f == nil {
		t.Fatal("not recognised")
	}
	opts := Options{Engine: engine(t, rewrite.Options{})}
	res, err := rewrite.FixLoop[*file](opts.Engine, stub{front{opts, f.name, f.kind}, rules}, src, f, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func adding(code, msg string, at int, line string) rewrite.Finding {
	return rewrite.Finding{Code: code, Name: "test", Message: msg,
		Fix: &rewrite.Fix{Applicability: rewrite.Safe, Edits: []rewrite.Edit{{Start: at, End: at, NewText: line}}}}
}

// A fix whose output would not read as the same kind of launch file (a
// YAML syntax error; a config of no kind, or of another) is dropped and
// named, its finding says why, and the other fixes go in.
func TestBrokenFixDropped(t *testing.T) {
	src := []byte("model_name_or_path: x\ndo_train: true\nfinetuning_type: lora\n")
	for _, bad := range []rewrite.Edit{
		{Start: 0, End: 0, NewText: "[unclosed\n"},
		{Start: 0, End: len(src), NewText: "model_name_or_path: x\n"}, // a config of no kind
		{Start: 0, End: len(src), NewText: "zero_optimization: {}\n"}, // a DeepSpeed config
	} {
		res := loopOver(t, src, func(cur *file) []rewrite.Finding {
			breaks := adding("LTF002", "breaks", 0, "")
			breaks.Fix.Edits = []rewrite.Edit{bad}
			if bytes.Contains(cur.text, []byte("good")) {
				return []rewrite.Finding{breaks}
			}
			return []rewrite.Finding{breaks, adding("LTF009", "good", len(cur.text), "good: 1\n")}
		})
		if want := string(src) + "good: 1\n"; string(res.Output) != want {
			t.Errorf("%q: output %q, want the good fix alone: %q", bad.NewText, res.Output, want)
		}
		if len(res.Dropped) != 1 || !strings.Contains(res.Dropped[0], "LTF002") || !strings.Contains(res.Dropped[0], "would not parse") {
			t.Errorf("%q: dropped %q, want the LTF002 fix named", bad.NewText, res.Dropped)
		}
		if len(res.Findings) != 2 || res.Findings[0].Fix != nil || !strings.Contains(res.Findings[0].Reason, "would not parse") || res.Findings[1].Outcome != finding.OutcomeFixed {
			t.Errorf("%q: findings %+v, want the broken fix's withdrawn with why, the good one fixed", bad.NewText, res.Findings)
		}
	}
}

// The fix loop is the engine's choice of fixes (rewrite.FixChoice): a fix
// whose own edits overlap is dropped as an internal error, and a later
// pass applies only fixes whose finding the input reported.
func TestFixLoopProtections(t *testing.T) {
	src := []byte("model_name_or_path: x\ndo_train: true\nfinetuning_type: lora\n")
	overlapping := loopOver(t, src, func(cur *file) []rewrite.Finding {
		return []rewrite.Finding{{Code: "LTF002", Name: "eager-attention", Message: "m",
			Fix: &rewrite.Fix{Applicability: rewrite.Safe, Edits: []rewrite.Edit{{Start: 0, End: 10, NewText: "a"}, {Start: 5, End: 6, NewText: "b"}}}}}
	})
	if !bytes.Equal(overlapping.Output, src) || len(overlapping.Dropped) != 1 || !strings.Contains(overlapping.Dropped[0], "overlapping edits") {
		t.Errorf("a fix with overlapping edits: out %q, dropped %q; want the text unchanged and the fix named as overlapping", overlapping.Output, overlapping.Dropped)
	}

	// The first fix's output has a finding of its own, which the input did
	// not report: it waits for the next run.
	later := loopOver(t, src, func(cur *file) []rewrite.Finding {
		if !bytes.Contains(cur.text, []byte("a_key")) {
			return []rewrite.Finding{adding("LTF009", "first", len(cur.text), "a_key: 1\n")}
		}
		if !bytes.Contains(cur.text, []byte("b_key")) {
			return []rewrite.Finding{adding("LTF009", "second", len(cur.text), "b_key: 2\n")}
		}
		return nil
	})
	if want := string(src) + "a_key: 1\n"; string(later.Output) != want || len(later.Dropped) != 0 {
		t.Errorf("a finding only the fixed text has: out %q (dropped %q), want %q", later.Output, later.Dropped, want)
	}
}

// Two fixes that each leave a LLaMA-Factory config but together leave a
// config of no kind: the first goes in, the second is dropped on the next
// pass, and the loop settles (launch's own loop, before the engine's, went
// round the same pair until it gave up and applied none).
func TestFixesThatBreakOnlyTogether(t *testing.T) {
	src := []byte("model_name_or_path: x\ndo_train: true\nfinetuning_type: lora\ncutoff_len: 512\n")
	deleting := func(code string, text []byte, line string) []rewrite.Finding {
		i := bytes.Index(text, []byte(line))
		if i < 0 {
			return nil
		}
		fd := adding(code, "delete "+line, i, "")
		fd.Fix.Edits[0].End = i + len(line)
		return []rewrite.Finding{fd}
	}
	res := loopOver(t, src, func(cur *file) []rewrite.Finding {
		return append(deleting("LTF002", cur.text, "finetuning_type: lora\n"), deleting("LTF009", cur.text, "cutoff_len: 512\n")...)
	})
	if want := "model_name_or_path: x\ndo_train: true\ncutoff_len: 512\n"; string(res.Output) != want {
		t.Errorf("output %q, want the first fix alone: %q", res.Output, want)
	}
	if len(res.Dropped) != 1 || !strings.Contains(res.Dropped[0], "LTF009") {
		t.Errorf("dropped %q, want the second fix named alone (and the loop settled)", res.Dropped)
	}
}
