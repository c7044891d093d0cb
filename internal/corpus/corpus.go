// Package corpus generates deterministic trees of Python files for the
// benchmarks: LoRA/DoRA training scripts in the shapes seen in real
// repositories (DOMAIN.md section 10, the fixtures) and ordinary Python
// that mentions none of the trigger words. The same seed gives the same
// bytes on every machine.
package corpus

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// Training returns the i-th training script of the seed's corpus.
func Training(seed uint64, i int) []byte {
	r := rand.New(rand.NewPCG(seed, uint64(i)*2+1))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }

	model := pick("meta-llama/Llama-3.1-8B", "meta-llama/Meta-Llama-3-8B-Instruct", "mistralai/Mistral-7B-v0.3", "Qwen/Qwen2.5-7B")
	torchName := pick("torch", "torch", "th")
	w("\"\"\"LoRA fine-tuning script %d (generated).\"\"\"\n", i)
	w("import argparse\nimport json\nimport os\n\n")
	if torchName == "th" {
		w("import torch as th\n")
	} else {
		w("import torch\n")
	}
	loader := pick("AutoModelForCausalLM", "AutoModelForCausalLM", "LlamaForCausalLM", "Qwen2ForCausalLM", "AMC")
	if loader == "AMC" {
		w("from transformers import AutoModelForCausalLM as AMC, AutoTokenizer\n")
	} else {
		w("from transformers import %s, AutoTokenizer\n", loader)
	}
	trl := r.IntN(3) == 0
	quantized := r.IntN(6) == 0
	if trl {
		w("from trl import SFTConfig, SFTTrainer\n")
	} else {
		w("from transformers import Trainer, TrainingArguments, DataCollatorForSeq2Seq\n")
	}
	if quantized {
		w("from transformers import BitsAndBytesConfig\n")
	}
	dora := r.IntN(4) == 0
	w("from peft import LoraConfig, get_peft_model\n\n")
	w("BASE_MODEL = %q\n", model)
	w("CUTOFF_LEN = %d\n\n\n", 256*(1+r.IntN(8)))

	// A helper or two that have nothing to do with the rules.
	w("def load_records(path):\n    with open(path) as f:\n        if path.endswith(\".jsonl\"):\n")
	w("            return [json.loads(line) for line in f if line.strip()]\n        return json.load(f)\n\n\n")
	w("def tokenize(tokenizer, example):\n    text = example[%q] + \"\\n\" + example[%q]\n", pick("instruction", "prompt", "input"), pick("output", "response", "completion"))
	w("    out = tokenizer(text, truncation=True, max_length=CUTOFF_LEN)\n    out[\"labels\"] = out[\"input_ids\"].copy()\n    return out\n\n\n")

	w("def main():\n    parser = argparse.ArgumentParser()\n")
	w("    parser.add_argument(\"--data\", default=%q)\n", pick("data.json", "train.jsonl", "alpaca.json"))
	w("    parser.add_argument(\"--output_dir\", default=\"out-%d\")\n    args = parser.parse_args()\n\n", i)
	w("    tokenizer = AutoTokenizer.from_pretrained(BASE_MODEL)\n")
	switch r.IntN(4) {
	case 0:
		w("    tokenizer.pad_token = tokenizer.eos_token\n")
	case 1:
		w("    tokenizer.pad_token_id = 0\n")
	case 2:
		w("    tokenizer.pad_token = tokenizer.eos_token\n    tokenizer.padding_side = \"left\"\n")
	}

	dtype := pick(torchName+".bfloat16", torchName+".bfloat16", torchName+".float16", "\"auto\"", torchName+".float32")
	dm := pick("\"auto\"", "\"auto\"", "None", "{\"\": 0}")
	attn := pick("", "", "sdpa", "flash_attention_2")
	style := r.IntN(3)
	if quantized {
		w("    bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=%s.bfloat16)\n", torchName)
	}
	switch style {
	case 0: // keywords in the call
		w("    model = %s.from_pretrained(\n        BASE_MODEL,\n        torch_dtype=%s,\n        device_map=%s,\n", loader, dtype, dm)
		if attn != "" {
			w("        attn_implementation=%q,\n", attn)
		}
		if quantized {
			w("        quantization_config=bnb,\n")
		}
		w("    )\n")
	case 1: // a kwargs dict built earlier
		w("    model_kwargs = dict(torch_dtype=%s, device_map=%s", dtype, dm)
		if attn != "" {
			w(", attn_implementation=%q", attn)
		}
		if quantized {
			w(", quantization_config=bnb")
		}
		w(")\n    model = %s.from_pretrained(BASE_MODEL, **model_kwargs)\n", loader)
	default: // a dtype held in a variable
		w("    dtype = %s\n    model = %s.from_pretrained(BASE_MODEL, torch_dtype=dtype, device_map=%s", dtype, loader, dm)
		if quantized {
			w(", quantization_config=bnb")
		}
		w(")\n")
	}
	w("\n    config = LoraConfig(\n        r=%d,\n        lora_alpha=%d,\n        lora_dropout=0.05,\n", 8<<r.IntN(3), 16<<r.IntN(3))
	w("        target_modules=[\"q_proj\", \"k_proj\", \"v_proj\", \"o_proj\"],\n        task_type=\"CAUSAL_LM\",\n")
	if dora {
		w("        use_dora=True,\n")
	}
	w("    )\n    model = get_peft_model(model, config)\n    model.print_trainable_parameters()\n\n")
	w("    records = [tokenize(tokenizer, r) for r in load_records(args.data)]\n")
	compileBefore := r.IntN(5) == 0
	if compileBefore {
		w("    model = %s.compile(model)\n", torchName)
	}
	if trl {
		w("    trainer = SFTTrainer(\n        model=model,\n        train_dataset=records,\n        args=SFTConfig(\n")
		w("            output_dir=args.output_dir,\n            learning_rate=%.0e,\n            bf16=True,\n", 1e-5*float64(1+r.IntN(9)))
		w("            per_device_train_batch_size=%d,\n            logging_steps=10,\n        ),\n    )\n", 1+r.IntN(8))
	} else {
		w("    trainer = Trainer(\n        model=model,\n        train_dataset=records,\n        args=TrainingArguments(\n")
		w("            output_dir=args.output_dir,\n            learning_rate=%.0e,\n            bf16=True,\n", 1e-5*float64(1+r.IntN(9)))
		w("            gradient_accumulation_steps=%d,\n            num_train_epochs=%d,\n", 1<<r.IntN(4), 1+r.IntN(3))
		if r.IntN(3) == 0 {
			w("            torch_compile=True,\n")
		}
		w("        ),\n        data_collator=DataCollatorForSeq2Seq(tokenizer, padding=True),\n    )\n")
	}
	if r.IntN(3) == 0 {
		w("    if %s.__version__ >= \"2\":\n        model = %s.compile(model)\n", torchName, torchName)
	}
	w("    trainer.train()\n    model.save_pretrained(args.output_dir)\n\n\n")
	if r.IntN(2) == 0 { // inference code keeps its half precision
		w("def generate(prompt):\n    model = %s.from_pretrained(BASE_MODEL, torch_dtype=%s.bfloat16, device_map=\"auto\")\n", loader, torchName)
		w("    tok = AutoTokenizer.from_pretrained(BASE_MODEL)\n    ids = tok(prompt, return_tensors=\"pt\").input_ids\n")
		w("    return tok.decode(model.generate(ids, max_new_tokens=64)[0])\n\n\n")
	}
	w("if __name__ == \"__main__\":\n    main()\n")
	return []byte(b.String())
}

// Plain returns the i-th ordinary Python module: classes, functions and
// docstrings, about size bytes, with none of the rules' trigger words.
func Plain(seed uint64, i, size int) []byte {
	r := rand.New(rand.NewPCG(seed, uint64(i)*2))
	words := []string{"record", "buffer", "value", "item", "node", "entry", "path", "count", "index", "name", "total", "cache", "result", "payload"}
	pick := func() string { return words[r.IntN(len(words))] }
	var b strings.Builder
	fmt.Fprintf(&b, "\"\"\"Module %d: helpers for %ss (generated).\"\"\"\nimport os\nimport re\nfrom dataclasses import dataclass\n\n", i, pick())
	fmt.Fprintf(&b, "PATTERN = re.escape(%q)\n\n", pick())
	for n := 0; b.Len() < size; n++ {
		a, c := pick(), pick()
		switch r.IntN(3) {
		case 0:
			fmt.Fprintf(&b, "\n@dataclass\nclass %s%d:\n    \"\"\"A %s with its %s.\"\"\"\n\n    %s: int = %d\n    %s: str = %q\n\n", title(a), n, a, c, a, r.IntN(100), c, pick())
			fmt.Fprintf(&b, "    def with_%s(self, %s):\n        return %s%d(self.%s + %s, self.%s)\n\n", c, c, title(a), n, a, "len("+c+")", c)
		case 1:
			fmt.Fprintf(&b, "\ndef %s_%s_%d(%ss, limit=%d):\n    out = []\n    for %s in %ss:\n", a, c, n, a, r.IntN(1000), a, a)
			fmt.Fprintf(&b, "        if len(out) >= limit:\n            break\n        if os.path.basename(str(%s)).startswith(%q):\n            out.append(%s)\n    return out\n\n", a, c, a)
		default:
			fmt.Fprintf(&b, "\ndef parse_%s_%d(text):\n    \"\"\"Split text into %ss; empty parts are dropped.\"\"\"\n", a, n, a)
			fmt.Fprintf(&b, "    parts = [p.strip() for p in text.split(%q)]\n    return {i: p for i, p in enumerate(parts) if p}\n\n", ",;: "[r.IntN(4):][:1])
		}
	}
	return []byte(b.String())
}

// Tree writes a repository-like tree under dir: training scripts (one in
// every trainingEvery files, 0 for none) among ordinary modules of about
// size bytes, spread over nested packages. It returns the files written.
func Tree(dir string, seed uint64, files, trainingEvery, size int) ([]string, error) {
	var out []string
	for i := 0; i < files; i++ {
		var name string
		var data []byte
		if trainingEvery > 0 && i%trainingEvery == 0 {
			name = filepath.Join("scripts", fmt.Sprintf("g%02d", i/trainingEvery%50), fmt.Sprintf("train_%05d.py", i))
			data = Training(seed, i)
		} else {
			name = filepath.Join("src", fmt.Sprintf("pkg%02d", i%37), fmt.Sprintf("sub%d", i%5), fmt.Sprintf("mod_%05d.py", i))
			data = Plain(seed, i, size)
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// title capitalises the first letter (names here are ASCII).
func title(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
