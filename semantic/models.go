package semantic

import (
	"regexp"
	"strconv"
	"strings"
)

// Kind is the architecture a load builds, as far as its class and id tell.
type Kind int

const (
	KindUnknown Kind = iota
	// CausalLM: a decoder that generates left to right (Llama, Mistral,
	// Qwen, Gemma...), also when loaded with a classification head.
	CausalLM
	// EncoderOnly: bidirectional encoders (BERT, RoBERTa, DeBERTa...): they
	// pad on the right and have no KV cache.
	EncoderOnly
	// EncoderDecoder: seq2seq models (T5, BART, mT5, Pegasus...).
	EncoderDecoder
	// VisionLanguage: a decoder with an image encoder in front (LLaVA,
	// Mllama, Qwen2-VL, PaliGemma, Idefics).
	VisionLanguage
)

func (k Kind) String() string {
	return [...]string{"unknown", "causal LM", "encoder-only", "encoder-decoder", "vision-language"}[k]
}

// Decoder reports a kind the causal-LM rules apply to: left padding, the
// KV cache, a pad token distinct from EOS. An unknown kind is taken as one,
// as the rules did before kinds were known.
func (k Kind) Decoder() bool { return k == CausalLM || k == VisionLanguage || k == KindUnknown }

var (
	encoderID = regexp.MustCompile(`(?i)(^|[/_-])(bert|roberta|xlm-roberta|deberta(-v[23])?|distilbert|electra|albert|camembert|mpnet|ernie|e5|bge|minilm|modernbert)([/_.-]|$)`)
	seq2seqID = regexp.MustCompile(`(?i)(^|[/_-])(t5|mt5|mt0|flan-t5|byt5|t0|ul2|bart|mbart|pegasus|marian|opus-mt|led|longt5|nllb|m2m100|whisper)([/_.-]|$)`)
	visionID  = regexp.MustCompile(`(?i)(llava|vision|-vl\b|-vl-|paligemma|idefics|pixtral|qwen2(\.5)?-vl|smolvlm|florence)`)

	encoderClass = regexp.MustCompile(`^(Bert|Roberta|XLMRoberta|Deberta(V2)?|DistilBert|Electra|Albert|Camembert|MPNet|ModernBert)(Model|For\w+)$`)
	seq2seqClass = regexp.MustCompile(`^(AutoModelForSeq2SeqLM|AutoModelForSpeechSeq2Seq|T5\w*|MT5\w*|Bart\w*|MBart\w*|Pegasus\w*|Marian\w*|LED\w*|LongT5\w*|M2M100\w*|Whisper\w*|Speech2Text\w*)$`)
	visionClass  = regexp.MustCompile(`^(AutoModelForVision2Seq|AutoModelForImageTextToText|\w*(Llava|Mllama|Qwen2VL|Qwen2_5_VL|PaliGemma|Idefics\d?|Vision)\w*)$`)
)

// KindOf tells a load's architecture from its class ("AutoModelForSeq2SeqLM",
// "BertForSequenceClassification") and, where the class is generic, its
// model id (id "" when unknown). AutoModelForCausalLM is a causal LM
// whatever the id; AutoModelForSequenceClassification is what its id says.
func KindOf(class, id string) Kind {
	switch {
	case class == "AutoModelForCausalLM" || strings.HasSuffix(class, "ForCausalLM"):
		return CausalLM
	case seq2seqClass.MatchString(class):
		return EncoderDecoder
	case encoderClass.MatchString(class) || class == "AutoModelForMaskedLM":
		return EncoderOnly
	case visionClass.MatchString(class):
		return VisionLanguage
	}
	if id == "" {
		if strings.HasPrefix(class, "AutoModel") {
			return KindUnknown
		}
		return CausalLM // a decoder's own class: LlamaForSequenceClassification, MistralModel
	}
	name := id[strings.LastIndexByte(id, '/')+1:]
	switch {
	case seq2seqID.MatchString(name):
		return EncoderDecoder
	case encoderID.MatchString(name):
		return EncoderOnly
	case visionID.MatchString(name) && strings.HasPrefix(class, "AutoModel") && class != "AutoModelForSequenceClassification":
		return VisionLanguage
	}
	if strings.HasPrefix(class, "AutoModel") {
		return KindUnknown
	}
	return CausalLM // a decoder's own class: LlamaForSequenceClassification, MistralModel
}

var (
	// sizeInID: "8B", "0.5B", "7b1", "-135M", between separators; "A3B"
	// (active parameters) is not.
	sizeInID = regexp.MustCompile(`(?i)(?:^|[-_/.])(\d+(?:\.\d+)?)([bm])(\d)?(?:$|[-_/.])`)
	// moeInID: "8x7B", "8x22B" (experts x size).
	moeInID = regexp.MustCompile(`(?i)(?:^|[-_/.])(\d+)x(\d+(?:\.\d+)?)b(?:$|[-_/.])`)
)

// moeSizes are the total parameters of mixtures whose experts share
// layers (Mixtral-8x7B is 46.7B, not 56B), in billions.
var moeSizes = map[string]float64{"8x7": 46.7, "8x22": 141}

// sizeByName are ids that name no size, in billions.
var sizeByName = map[string]float64{"gpt2": 0.124, "gpt2-medium": 0.355, "gpt2-large": 0.774, "gpt2-xl": 1.5,
	"phi-2": 2.7, "phi-1_5": 1.4, "bert-base-uncased": 0.11, "bert-base-cased": 0.11, "bert-large-uncased": 0.34,
	"roberta-base": 0.125, "roberta-large": 0.355, "t5-small": 0.06, "t5-base": 0.22, "t5-large": 0.77,
	"flan-t5-small": 0.077, "flan-t5-base": 0.25, "flan-t5-large": 0.78, "flan-t5-xl": 2.85, "flan-t5-xxl": 11.3}

// Params reads a model's size in billions of parameters from its id
// (meta-llama/Llama-3.1-70B: 70; mistralai/Mixtral-8x7B-v0.1: 46.7).
func Params(id string) (float64, bool) {
	name := strings.ToLower(id[strings.LastIndexByte(id, '/')+1:])
	if b, ok := sizeByName[name]; ok {
		return b, true
	}
	if m := moeInID.FindStringSubmatch(name); m != nil {
		if b, ok := moeSizes[m[1]+"x"+m[2]]; ok {
			return b, true
		}
		n, _ := strconv.ParseFloat(m[1], 64)
		s, _ := strconv.ParseFloat(m[2], 64)
		return n * s, true // an upper bound: experts may share layers
	}
	m := sizeInID.FindStringSubmatch(name)
	if m == nil {
		return 0, false
	}
	num := m[1]
	if m[3] != "" && !strings.Contains(num, ".") {
		num += "." + m[3] // 7b1
	}
	b, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, false
	}
	if strings.EqualFold(m[2], "m") {
		b /= 1000
	}
	return b, true
}

// checkpointDtypes: the dtype a family's published checkpoints are stored
// in (their config's torch_dtype), for the families where it is uniform.
var checkpointDtypes = []struct {
	id    *regexp.Regexp
	dtype string
}{
	{regexp.MustCompile(`(?i)llama-?3|mistral|mixtral|qwen2|qwen3|phi-3|phi-4`), "bf16"},
	{regexp.MustCompile(`(?i)llama-?2`), "fp16"},
	{encoderID, "fp32"},
	{regexp.MustCompile(`(?i)(^|[/_-])(t5|mt5|mt0|flan-t5|bart|gpt2)([/_.-]|$)`), "fp32"},
}

// CheckpointDtype is the dtype a model id's checkpoint is stored in ("bf16",
// "fp16", "fp32"), or "" where the id does not tell.
func CheckpointDtype(id string) string {
	name := id[strings.LastIndexByte(id, '/')+1:]
	for _, c := range checkpointDtypes {
		if c.id.MatchString(name) {
			return c.dtype
		}
	}
	return ""
}

var (
	// bf16NativeID: ids of families trained in bf16 (Qwen2/2.5/3,
	// Gemma-2/3/4; gemma-2b is the first Gemma), whose activations pass
	// fp16's range.
	bf16NativeID = regexp.MustCompile(`(?i)qwen[-_]?(2|3)([^0-9]|$)|gemma[-_]?[234]([^0-9b.]|$)`)
	// bf16NativeClass: their classes (Qwen2ForCausalLM, Gemma3ForConditionalGeneration...).
	bf16NativeClass = regexp.MustCompile(`^(Qwen[23]|Gemma[234])`)
	// qwen1ID: a first-generation Qwen id (Qwen/Qwen-7B, Qwen-14B-Chat,
	// Qwen-1_8B): "Qwen-" then the size. Qwen1.5 and later spell no hyphen
	// after the name and run on transformers' own code.
	qwen1ID = regexp.MustCompile(`(?i)(^|/)qwen-`)
	// chatglmID: ChatGLM2/3 checkpoints, whose remote code computes
	// attention itself.
	chatglmID = regexp.MustCompile(`(?i)(^|/)chatglm`)
	bloomID   = regexp.MustCompile(`(?i)(^|/)bloomz?([-_.]|$)`)
	// byteBPEID: families with a GPT-2-style byte-level vocabulary whose
	// unk is eos (<|endoftext|>) or absent, and with no reserved pad.
	byteBPEID = regexp.MustCompile(`(?i)(^|/)(distil)?gpt2|(^|/)phi-(1|1_5|2)([^.0-9]|$)|codegen|gpt-neo|gpt-j-|pythia|starcoder|santacoder`)
)

// NoSparePad reports a model id whose tokenizer has no pad to fall back
// on: its unk is eos or absent and no reserved pad token exists (GPT-2,
// phi-1/1.5/2, CodeGen, GPT-Neo/J/NeoX, Pythia, StarCoder). A pad distinct
// from eos there is a new token, with a resize.
func NoSparePad(id string) bool { return byteBPEID.MatchString(id) }

// BF16Native reports a model id of a family trained in bf16 (Qwen2/2.5/3,
// Gemma-2/3/4): fp16 overflows in its activations.
func BF16Native(id string) bool { return bf16NativeID.MatchString(id) }

// BF16NativeClass reports a class of such a family (Qwen2ForCausalLM,
// Gemma3ForConditionalGeneration, Qwen2Config).
func BF16NativeClass(class string) bool { return bf16NativeClass.MatchString(class) }

// Qwen1 reports a first-generation Qwen id, whose remote code picks its
// attention and (unless config.fp32 and kin are set) bf16 itself.
func Qwen1(id string) bool { return qwen1ID.MatchString(id) }

// ChatGLM reports a ChatGLM2/3 id, whose remote code computes attention
// itself and ignores attn_implementation.
func ChatGLM(id string) bool { return chatglmID.MatchString(id) }

// EagerOnly reports a model whose transformers class computes attention
// in eager form only, never through SDPA (BLOOM, with its ALiBi biases):
// attn_implementation="eager" changes nothing there.
func EagerOnly(class, id string) bool {
	return strings.HasPrefix(class, "Bloom") || bloomID.MatchString(id)
}
