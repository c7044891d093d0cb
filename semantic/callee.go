package semantic

import (
	"regexp"
	"slices"
	"strings"
)

// Role is what a resolved callee is to the rules. A callee can have
// several (SFTTrainer is a Trainer and a TRLTrainer).
type Role uint32

const (
	// AdapterWrap makes a model an adapter's base: peft's get_peft_model
	// (unsloth's FastLanguageModel.get_peft_model too), inject_adapter_in_model,
	// transformers' model.add_adapter.
	AdapterWrap Role = 1 << iota
	// KbitPrepare readies a quantized model for adapter training:
	// prepare_model_for_kbit_training (and the removed int8 spelling).
	KbitPrepare
	// AdapterCheckpoint loads an adapter onto a base: PeftModel.from_pretrained,
	// AutoPeftModelFor*.from_pretrained. Trained only with is_trainable=True.
	AdapterCheckpoint
	// ModelLoad builds a model: <model class>.from_pretrained / from_config.
	ModelLoad
	// TokenizerLoad: <tokenizer or processor class>.from_pretrained.
	TokenizerLoad
	// Trainer: a class whose name ends in Trainer (transformers.Trainer,
	// Seq2SeqTrainer, TRL's, a subclass).
	Trainer
	// TRLTrainer: one of TRL's trainer families (SFTTrainer, DPOTrainer...,
	// subclasses named after them too).
	TRLTrainer
	// TrainingArgs: *TrainingArguments, or a TRL config (SFTConfig...).
	TrainingArgs
	// TRLConfig: a TRL config, the only training arguments that take
	// model_init_kwargs.
	TRLConfig
	// Optimizer: torch.optim's and bitsandbytes' optimizer classes.
	Optimizer
	// AdapterConfig: peft's adapter configs (LoraConfig, AdaLoraConfig,
	// LoHaConfig, LoKrConfig, IA3Config): evidence that an adapter trains
	// the model it is given with.
	AdapterConfig
)

// Has reports whether r includes every role of want.
func (r Role) Has(want Role) bool { return r&want == want }

// trlKinds are TRL's trainer and config families.
var trlKinds = []string{"SFT", "DPO", "KTO", "ORPO", "CPO", "GRPO", "Reward", "PPO"}

// modelClass: the classes whose from_pretrained builds a model.
var modelClass = regexp.MustCompile(`^(AutoModel\w*|AutoPeftModel\w*|\w+For[A-Z]\w*|\w*Model)$`)

// optimizerClass: AdamW, AdamW8bit, PagedAdamW32bit, SGD, Adafactor, Lion...
var optimizerClass = regexp.MustCompile(`^\w*(Adam\w*|SGD|Adafactor|Lion\w*|RMSprop|Adagrad)$`)

// ModelClass reports a class name whose from_pretrained builds a model
// (not a tokenizer, a processor or an adapter checkpoint onto a base).
func ModelClass(class string) bool {
	return modelClass.MatchString(class) && class != "PeftModel" && !strings.Contains(class, "Tokenizer")
}

// Of gives the roles of a callee, resolved through the file's imports
// (Imports.Resolve). Only the resolved name is read, so that
// `from peft import get_peft_model as wrap; wrap(...)` and
// `peft.get_peft_model(...)` are the same call.
func Of(qual string) Role {
	name := Last(qual)
	var r Role
	switch name {
	case "get_peft_model", "inject_adapter_in_model", "add_adapter":
		r |= AdapterWrap
	case "prepare_model_for_kbit_training", "prepare_model_for_int8_training":
		r |= KbitPrepare
	case "from_pretrained", "from_config":
		class := ""
		if i := strings.LastIndexByte(qual, '.'); i > 0 {
			class = Last(qual[:i])
		}
		switch {
		case strings.Contains(class, "PeftModel") && name == "from_pretrained":
			r |= AdapterCheckpoint
			if strings.HasPrefix(class, "AutoPeftModel") {
				r |= ModelLoad // builds base and adapter in one call
			}
		case strings.Contains(class, "Tokenizer") || strings.HasSuffix(class, "Processor"):
			r |= TokenizerLoad
		case ModelClass(class) && !otherFramework(qual):
			r |= ModelLoad
		}
	}
	if kind, ok := strings.CutSuffix(name, "Trainer"); ok {
		r |= Trainer
		for _, k := range trlKinds {
			if strings.HasSuffix(kind, k) {
				r |= TRLTrainer
			}
		}
	}
	if strings.HasSuffix(name, "TrainingArguments") {
		r |= TrainingArgs
	}
	if kind, ok := strings.CutSuffix(name, "Config"); ok && slices.Contains(trlKinds, kind) {
		r |= TrainingArgs | TRLConfig
	}
	switch name {
	case "LoraConfig", "AdaLoraConfig", "LoHaConfig", "LoKrConfig", "IA3Config":
		r |= AdapterConfig
	}
	if optimizerWord(name) && optimizerClass.MatchString(name) {
		r |= Optimizer
	}
	return r
}

// optimizerWord reports a name that holds a word of optimizerClass: the
// regexp runs for every call of a file, and nearly none are optimizers.
func optimizerWord(name string) bool {
	if name == "" || name[0] < 'A' || name[0] > 'Z' {
		return false // a class: most calls are methods and functions
	}
	for _, w := range []string{"Adam", "SGD", "Adafactor", "Lion", "RMSprop", "Adagrad"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// otherFramework reports a callee of a library whose from_pretrained
// builds no transformers model (a diffusers UNet, a timm backbone): none of
// the rules' keywords or configs apply to it.
func otherFramework(qual string) bool {
	switch head, _, _ := strings.Cut(qual, "."); head {
	case "diffusers", "timm", "open_clip", "torchvision", "sentence_transformers":
		return true
	}
	return false
}
