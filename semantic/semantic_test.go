package semantic

import "testing"

func TestImportsResolveAndLocal(t *testing.T) {
	var im Imports
	im.Bind("th", "torch")
	im.Bind("wrap", "peft.get_peft_model")
	im.Bind("tf", "transformers")
	im.Bind("torch", "torch")
	for in, want := range map[string]string{
		"wrap": "peft.get_peft_model",
		"tf.AutoModelForCausalLM.from_pretrained": "transformers.AutoModelForCausalLM.from_pretrained",
		"th.float32":  "torch.float32",
		"model.train": "model.train", // not imported: as written
		"thx.float32": "thx.float32", // a longer name is not the alias
	} {
		if got := im.Resolve(in); got != want {
			t.Errorf("Resolve(%q) = %q, want %q", in, got, want)
		}
	}
	if l, ok := im.Local("torch"); !ok || l != "torch" {
		t.Errorf("Local(torch) = %q %v: the module's own name wins over an alias", l, ok)
	}
	if l, ok := im.Local("peft.get_peft_model"); !ok || l != "wrap" {
		t.Errorf("Local(peft.get_peft_model) = %q %v", l, ok)
	}
	if _, ok := im.Local("trl"); ok {
		t.Error("Local(trl) found a module the file never imports")
	}
}

func TestRolesOfResolvedCallees(t *testing.T) {
	for _, c := range []struct {
		qual string
		want Role
		not  Role
	}{
		{"peft.get_peft_model", AdapterWrap, Trainer},
		{"unsloth.FastLanguageModel.get_peft_model", AdapterWrap, ModelLoad},
		{"model.add_adapter", AdapterWrap, 0},
		{"peft.prepare_model_for_kbit_training", KbitPrepare, AdapterWrap},
		{"peft.PeftModel.from_pretrained", AdapterCheckpoint, ModelLoad},
		{"peft.AutoPeftModelForCausalLM.from_pretrained", AdapterCheckpoint | ModelLoad, 0},
		{"transformers.AutoModelForCausalLM.from_pretrained", ModelLoad, TokenizerLoad},
		{"transformers.AutoModelForCausalLM.from_config", ModelLoad, 0},
		{"transformers.AutoTokenizer.from_pretrained", TokenizerLoad, ModelLoad},
		{"transformers.AutoProcessor.from_pretrained", TokenizerLoad, ModelLoad},
		{"diffusers.UNet2DConditionModel.from_pretrained", 0, ModelLoad},
		{"transformers.Trainer", Trainer, TRLTrainer},
		{"trl.SFTTrainer", Trainer | TRLTrainer, TrainingArgs},
		{"CustomDPOTrainer", Trainer | TRLTrainer, 0},
		{"transformers.Seq2SeqTrainingArguments", TrainingArgs, TRLConfig},
		{"trl.SFTConfig", TrainingArgs | TRLConfig, Trainer},
		{"peft.LoraConfig", AdapterConfig, TrainingArgs},
		{"peft.AdaLoraConfig", AdapterConfig, 0},
		{"transformers.AutoConfig", 0, AdapterConfig},
		{"torch.optim.AdamW", Optimizer, 0},
		{"bnb.optim.PagedAdamW32bit", Optimizer, 0},
		{"transformers.Adafactor", Optimizer, 0},
		{"model.adam_step", 0, Optimizer}, // a method, not an optimizer class
	} {
		r := Of(c.qual)
		if !r.Has(c.want) {
			t.Errorf("Of(%q) = %b, want the roles %b", c.qual, r, c.want)
		}
		if c.not != 0 && r&c.not != 0 {
			t.Errorf("Of(%q) = %b, has roles of %b it must not", c.qual, r, c.not)
		}
	}
	if Of("peft.get_peft_model") != Of(Last("peft.get_peft_model")) {
		t.Error("a callee's roles must come from its resolved name alone")
	}
}

func TestKindOf(t *testing.T) {
	for _, c := range []struct {
		class, id string
		want      Kind
	}{
		{"AutoModelForCausalLM", "bert-base-uncased", CausalLM}, // the class decides
		{"LlamaForCausalLM", "", CausalLM},
		{"AutoModelForSequenceClassification", "bert-base-uncased", EncoderOnly},
		{"AutoModelForSequenceClassification", "FacebookAI/roberta-large", EncoderOnly},
		{"AutoModelForSequenceClassification", "meta-llama/Llama-3.1-8B", KindUnknown},
		{"AutoModelForSeq2SeqLM", "google/flan-t5-base", EncoderDecoder},
		{"AutoModelForSeq2SeqLM", "bigscience/mt0-large", EncoderDecoder},
		{"T5ForConditionalGeneration", "", EncoderDecoder},
		{"WhisperForConditionalGeneration", "", EncoderDecoder},
		{"AutoModelForSpeechSeq2Seq", "openai/whisper-large-v3", EncoderDecoder},
		{"BertForTokenClassification", "", EncoderOnly},
		{"AutoModelForMaskedLM", "", EncoderOnly},
		{"MllamaForConditionalGeneration", "", VisionLanguage},
		{"AutoModelForImageTextToText", "", VisionLanguage},
		{"AutoModel", "THUDM/chatglm2-6b", KindUnknown},
		{"LlamaForSequenceClassification", "", CausalLM},
	} {
		if got := KindOf(c.class, c.id); got != c.want {
			t.Errorf("KindOf(%q, %q) = %v, want %v", c.class, c.id, got, c.want)
		}
	}
	for k, decoder := range map[Kind]bool{CausalLM: true, VisionLanguage: true, KindUnknown: true, EncoderOnly: false, EncoderDecoder: false} {
		if k.Decoder() != decoder {
			t.Errorf("%v.Decoder() = %v", k, !decoder)
		}
	}
}

func TestParamsAndCheckpointDtype(t *testing.T) {
	for id, want := range map[string]float64{
		"meta-llama/Llama-3.1-70B":             70,
		"mistralai/Mixtral-8x22B-v0.1":         141,
		"mistral-community/Mixtral-8x22B-v0.1": 141,
		"Qwen/Qwen2.5-0.5B":                    0.5,
		"HuggingFaceTB/SmolLM2-135M":           0.135,
		"Qwen/Qwen3-30B-A3B":                   30, // A3B: active parameters, not the size
		"bert-base-uncased":                    0.11,
	} {
		if got, ok := Params(id); !ok || got != want {
			t.Errorf("Params(%q) = %v %v, want %v", id, got, ok, want)
		}
	}
	if _, ok := Params("acme/model"); ok {
		t.Error("Params read a size from an id that names none")
	}
	for id, want := range map[string]string{
		"meta-llama/Meta-Llama-3-8B": "bf16", "meta-llama/Llama-2-7b-hf": "fp16", "Qwen/Qwen2.5-0.5B": "bf16",
		"bert-base-uncased": "fp32", "google/flan-t5-base": "fp32", "bigscience/mt0-large": "fp32", "acme/model-7b": "", "google/gemma-2-2b": "",
	} {
		if got := CheckpointDtype(id); got != want {
			t.Errorf("CheckpointDtype(%q) = %q, want %q", id, got, want)
		}
	}
}

func TestFamilies(t *testing.T) {
	for id, want := range map[string][3]bool{ // BF16Native, Qwen1, ChatGLM
		"Qwen/Qwen2.5-7B-Instruct": {true, false, false},
		"Qwen/Qwen3-8B":            {true, false, false},
		"google/gemma-2-9b":        {true, false, false},
		"google/gemma-2b":          {false, false, false}, // the first Gemma
		"Qwen/Qwen-7B":             {false, true, false},
		"Qwen/Qwen1.5-7B":          {false, false, false},
		"THUDM/chatglm2-6b":        {false, false, true},
		"meta-llama/Llama-3.1-8B":  {false, false, false},
	} {
		if got := [3]bool{BF16Native(id), Qwen1(id), ChatGLM(id)}; got != want {
			t.Errorf("%s: BF16Native, Qwen1, ChatGLM = %v, want %v", id, got, want)
		}
	}
	if !BF16NativeClass("Qwen2ForCausalLM") || !BF16NativeClass("Gemma3ForConditionalGeneration") || BF16NativeClass("LlamaForCausalLM") {
		t.Error("BF16NativeClass")
	}
}

func TestNoSparePad(t *testing.T) {
	for id, want := range map[string]bool{
		"microsoft/phi-2": true, "microsoft/phi-1_5": true, "gpt2": true, "openai-community/gpt2-xl": true,
		"EleutherAI/pythia-1b": true, "bigcode/starcoder": true, "Salesforce/codegen-2B-mono": true,
		"microsoft/Phi-3-mini-4k-instruct": false, "microsoft/phi-4": false, "meta-llama/Llama-2-7b-hf": false,
		"Qwen/Qwen2.5-7B": false, "google/gemma-2-2b": false,
	} {
		if NoSparePad(id) != want {
			t.Errorf("NoSparePad(%q) = %v, want %v", id, !want, want)
		}
	}
}

func TestEagerOnly(t *testing.T) {
	for _, c := range []struct {
		class, id string
		want      bool
	}{
		{"BloomForCausalLM", "", true},
		{"AutoModelForCausalLM", "bigscience/bloomz-7b1", true},
		{"AutoModelForCausalLM", "bigscience/bloom-560m", true},
		{"AutoModelForCausalLM", "acme/bloomberg-gpt", false},
		{"AutoModelForCausalLM", "meta-llama/Llama-3.1-8B", false},
	} {
		if got := EagerOnly(c.class, c.id); got != c.want {
			t.Errorf("EagerOnly(%q, %q) = %v, want %v", c.class, c.id, got, c.want)
		}
	}
}
