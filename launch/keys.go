package launch

import (
	"strings"

	"github.com/loratune/loratune-fix/finding"
)

// keys documents, for `loratune-fix rules CODE` and docs/rules.md, which
// keys and options of launch configs each rule reads.
var keys = map[string]string{
	"LTF001": `- LLaMA-Factory YAML: pure_bf16: true (bf16 weights, no autocast) on a LoRA run
  becomes bf16: true (or pure_bf16: false beside bf16: true); read with
  finetuning_type, quantization_bit, use_unsloth (a warning, no edit), bf16, fp16.
  bf16 and fp16 both true: a finding.
- axolotl YAML: bfloat16: true / float16: true on adapter: lora becomes bf16: true /
  fp16: true (or false beside bf16: true|auto); read with adapter, load_in_4bit,
  load_in_8bit, gptq.
- TRL CLI YAML: dtype / torch_dtype bfloat16|float16|auto with use_peft: true
  becomes float32; read with load_in_4bit, load_in_8bit.
- Shell launchers (python, torchrun, accelerate launch, deepspeed, trl sft):
  --torch_dtype / --dtype on an adapter run (--use_peft, --lora_r, --finetuning_type
  lora, or a script that calls get_peft_model and reads that option) becomes float32,
  where it is written: the literal, or the one assignment of its variable;
  --bf16 with --fp16: a finding.
- DeepSpeed JSON: bf16.enabled / fp16.enabled true|false become "auto" where the
  file already uses "auto" (the Trainer fills it in); both true: a finding.
- Across files: --bf16/--fp16 against the --deepspeed file's enabled values,
  accelerate's mixed_precision (--mixed_precision, --config_file) against the
  DeepSpeed file (deepspeed_config.deepspeed_config_file): findings.
- Quantized runs (quantization_bit, adapter: qlora, load_in_4bit/8bit; a script that
  quantizes only for --load_in_kbits 4|8 is plain at 16) keep their dtype.
- Under DeepSpeed (--deepspeed, a deepspeed: key) with bf16/fp16 the dtype edit is
  moot (DeepSpeed casts the model, its optimizer keeps fp32 masters): a note. So under
  FSDP with mixed precision (--fsdp, an fsdp: key, accelerate launch --use_fsdp or an
  FSDP config), where accelerate 0.30+ upcasts trainable parameters to fp32 (a
  pinned older accelerate keeps the edit).
- Beside use_flash_attention_2: true (or --use_flash_attention_2) the dtype stays (a
  warning): FlashAttention-2 refuses a float32 load.
- TRL recipes read model_name_or_path for the size gate (an unsafe fix from 20B).
- ms-swift (swift sft|rlhf|pt): --torch_dtype bfloat16|float16 on an adapter run
  (--tuner_type / --train_type other than full, no --quant_bits): a warning, no edit;
  a full fine-tune gets nothing.
- Full fine-tunes (LLaMA-Factory finetuning_type full/freeze, axolotl without adapter,
  TRL without use_peft, --finetuning_type full) get notes without fixes, as in Python.`,
	"LTF002": `- LLaMA-Factory YAML: flash_attn: auto|sdpa, or no flash_attn (default auto),
  becomes flash_attn: disabled (eager); with use_unsloth: true a warning (unsloth
  ignores it).
- axolotl YAML: attn_implementation: sdpa becomes eager, sdp_attention: true becomes
  eager_attention: true; sample_packing: true keeps them (a warning); no attention
  key at all: eager_attention: true on a pinned axolotl 0.5-0.11, attn_implementation:
  eager from 0.12, a warning on older or unknown versions.
- TRL CLI YAML: attn_implementation: sdpa becomes eager; none with use_peft:
  true gets attn_implementation: eager (an unsafe fix: a script with its own
  argument dataclass rejects the key); packing / padding_free keep it (a warning).
- Shell launchers: --attn_implementation sdpa becomes eager; --packing /
  --padding_free keep it; none given, --attn_implementation eager is added where the
  script's training load takes it from an option it declares (argparse, a dataclass
  field, TRL's ModelConfig) defaulting to SDPA; a script that takes no such option
  and loads with the default SDPA: a note pointing at the script's own fix.
  llamafactory-cli train with options and no YAML: --flash_attn disabled is added.
  swift sft|rlhf|pt without --attn_impl, or with --attn_impl sdpa: a warning, no edit.
  use_flash_attention_2: true is flash attention: a note, nothing added beside it. llamafactory-cli train CONFIG flash_attn=auto|sdpa (an
  override of the YAML) becomes flash_attn=disabled, unless the YAML has
  use_unsloth: true.`,
	"LTF004": `- axolotl YAML: special_tokens.pad_token equal to special_tokens.eos_token (or a
  known eos such as <|end_of_text|>, <|eot_id|>, <|im_end|>, </s>): a note, no edit:
  axolotl's collator pads labels by position.`,
	"LTF006": `- axolotl, LLaMA-Factory and TRL CLI YAML: torch_compile: true|auto becomes false;
  torch_compile_mode / torch_compile_backend (which turn compile on in
  TrainingArguments): a warning.
- Shell launchers: --torch_compile True becomes False; --torch_compile_mode /
  --torch_compile_backend: a warning.`,
	"LTF007": `- The same keys as LTF002 (flash_attn, attn_implementation, sdp_attention,
  --attn_implementation): a config or a command line has no setting for the cuDNN
  fence, so the lean profile reports, and the fence goes in the training script.`,
	"LTF009": `- LLaMA-Factory and TRL CLI YAML: logging_nan_inf_filter: true becomes false;
  absent, logging_nan_inf_filter: false is added (in TRL CLI YAML an unsafe fix).
- Shell launchers: --logging_nan_inf_filter True becomes False, and the override
  logging_nan_inf_filter=true after a llamafactory-cli train config becomes false.`,
	"LTF011": `- LLaMA-Factory, axolotl and TRL CLI YAML: fp16: true where the model
  (model_name_or_path, base_model) is Qwen2/2.5/3 or Gemma-2/3/4 becomes bf16: true,
  an unsafe fix (GPUs without bf16 cannot run it); not fixed beside a bf16 key or a
  deepspeed config, whose fp16 block must change too.
- Shell launchers: --fp16 with --model_name_or_path of those families becomes
  --bf16 (unsafe), unless --bf16 or --deepspeed is given too.`,
	"LTF102": `- LLaMA-Factory and TRL CLI YAML: the keys warmup_ratio and evaluation_strategy
  become warmup_steps and eval_strategy; shell launchers: the options
  --warmup_ratio and --evaluation_strategy (as written, - or _). Only where the pins
  say transformers 5; in TRL CLI YAML an unsafe fix.`,
}

// Keys says which launch-config keys and options the rule of this code
// reads, as a documentation section; "" for a rule that reads none.
func Keys(code string) string {
	k, ok := keys[code]
	if !ok {
		return ""
	}
	return "## In launch configs\n" + k
}

// WithKeys adds each rule's launch-config section to its documentation.
func WithKeys(rules []finding.RuleInfo) []finding.RuleInfo {
	out := make([]finding.RuleInfo, len(rules))
	for i, r := range rules {
		if k := Keys(r.Code); k != "" {
			r.Doc = strings.TrimSpace(r.Doc) + "\n\n" + k
		}
		out[i] = r
	}
	return out
}
