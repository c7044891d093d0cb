package rewrite

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

// What the libraries do with the keywords the rules add (DOMAIN.md §1, §2,
// §11): which loaders drop a keyword, which keyword spells the dtype, and
// when a load is flash attention.

// unslothLoad reports unsloth's FastLanguageModel / FastModel /
// FastVisionModel.from_pretrained: it pops attn_implementation and chooses
// the dtype and the device itself.
func unslothLoad(f *semantic.Facts, l *semantic.Load) bool {
	if strings.HasPrefix(l.Qual, "unsloth.") {
		return true
	}
	parts := strings.Split(l.Dotted, ".")
	if len(parts) < 2 {
		return false
	}
	switch parts[len(parts)-2] {
	case "FastLanguageModel", "FastModel", "FastVisionModel":
		return true
	}
	return false
}

// remoteCodeID is the id of a load through remote code
// (trust_remote_code=True): the literal id, or the default of the option
// that names it, or "".
func remoteCodeID(f *semantic.Facts, l *semantic.Load) string {
	v := l.Arg("trust_remote_code", f.Src.Text)
	if v == nil || v.Content(f.Src.Text) != "True" {
		return ""
	}
	if l.IDKnown {
		return l.ModelID
	}
	return l.DefaultID
}

// qwen1RemoteCode reports a Qwen-1 load through its remote code, which
// chooses its own attention (use_flash_attn in its config), ignores
// attn_implementation, and picks bf16 itself unless config.fp32 is set.
func qwen1RemoteCode(f *semantic.Facts, l *semantic.Load) bool {
	return semantic.Qwen1(remoteCodeID(f, l))
}

// ignoresAttention says why a loader ignores attn_implementation, or "".
func ignoresAttention(f *semantic.Facts, l *semantic.Load) string {
	id := remoteCodeID(f, l)
	if id != "" && !l.IDKnown {
		id += " (the default of its option)"
	}
	switch {
	case unslothLoad(f, l):
		return fmt.Sprintf("unsloth's %s drops attn_implementation and picks its own attention kernels", l.Dotted)
	case qwen1RemoteCode(f, l):
		return fmt.Sprintf("%s runs its own remote code (trust_remote_code=True), which ignores attn_implementation and chooses its attention through use_flash_attn in its config", id)
	case semantic.ChatGLM(remoteCodeID(f, l)):
		return fmt.Sprintf("%s runs its own remote code (trust_remote_code=True), which computes attention itself and ignores attn_implementation (before transformers 4.36 the keyword is a TypeError)", id)
	}
	return ""
}

// flashValues are the attn_implementation values that never reach cuDNN
// SDPA and run in half precision only (flex runs in fp32 too).
var flashValues = map[string]bool{"flash_attention_2": true, "flash_attention_3": true}

// noCuDNNValues are the attn_implementation values that never reach cuDNN
// SDPA: flash attention, and flex attention.
var noCuDNNValues = map[string]bool{"flash_attention_2": true, "flash_attention_3": true, "flex_attention": true}

// attnValues reads the values attn_implementation=v may hold here (a
// literal, a name's values on every path, a conditional on a literal
// flag): the "sdpa" literals among them, the last of those in named, and
// whether every value is a literal.
func attnValues(f *semantic.Facts, v *syntree.Node, named map[string]bool) (sdpa []*syntree.Node, other string, known bool) {
	vals, known := f.Values(v)
	for _, val := range vals {
		switch s, ok := semantic.StringValue(val, f.Src.Text); {
		case !ok:
			known = false
		case s == "sdpa":
			sdpa = append(sdpa, val)
		case named[s]:
			other = s
		}
	}
	return sdpa, other, known
}

// flashLoad names the flash attention a load asks for:
// attn_implementation="flash_attention_2"/"flash_attention_3" or the old
// use_flash_attention_2=True; "" otherwise.
func flashLoad(f *semantic.Facts, l *semantic.Load) string {
	text := f.Src.Text
	if s, ok := semantic.StringValue(l.Arg("attn_implementation", text), text); ok && flashValues[s] {
		return fmt.Sprintf("attn_implementation=%q", s)
	}
	if v := l.Arg("use_flash_attention_2", text); v != nil && v.Content(text) == "True" {
		return "use_flash_attention_2=True"
	}
	return ""
}

// eagerInPlaceOf is the edit that turns the old keyword whose value is
// old into attn_implementation="eager": the keyword argument
// (use_flash_attention_2=False) or the dict entry ("use_flash_attention_2":
// False, in its key's quotes); false when it is set some other way
// (kw["use_flash_attention_2"] = False).
func eagerInPlaceOf(old *syntree.Node, text []byte) (Edit, bool) {
	item := old.Parent()
	switch item.Type() {
	case "keyword_argument":
		return Edit{Start: item.Start(), End: item.End(), NewText: `attn_implementation="eager"`}, true
	case "pair":
		q := item.ChildByFieldName("key").Content(text)[:1]
		return Edit{Start: item.Start(), End: item.End(), NewText: q + "attn_implementation" + q + ": " + q + "eager" + q}, true
	}
	return Edit{}, false
}

// fileDtypeKeyword is the dtype keyword the file already spells on a load
// or in model_init_kwargs ("dtype" or "torch_dtype"), or "" when it spells
// neither. A file that spells both is read by its first use.
func fileDtypeKeyword(f *semantic.Facts) string {
	text := f.Src.Text
	first, kw := -1, ""
	see := func(n *syntree.Node, name string) {
		if n != nil && (first < 0 || n.Start() < first) {
			first, kw = n.Start(), name
		}
	}
	for _, l := range f.ModelLoads() {
		see(l.Arg("dtype", text), "dtype")
		see(l.Arg("torch_dtype", text), "torch_dtype")
	}
	for _, c := range f.Calls {
		v := semantic.KeywordValue(c.Args, "model_init_kwargs", text)
		if v == nil {
			continue
		}
		entries := map[string]*syntree.Node{}
		if def := f.SoleValue(v); def != nil && semantic.DictEntries(def, text, entries) {
			see(entries["dtype"], "dtype")
			see(entries["torch_dtype"], "torch_dtype")
		}
	}
	return kw
}

// dtypeKeyword is the keyword to add for a load's dtype: dtype= from
// transformers 4.56 (its name there; torch_dtype= is deprecated), never
// before it (it is not the load dtype before 4.56), nor under a pin whose
// version cannot be read (a commit); with no pin, the spelling the file
// already uses, else torch_dtype= (accepted by every version).
func dtypeKeyword(f *semantic.Facts, tv Version) string {
	switch {
	case tv.AtLeast(4, 56):
		return "dtype"
	case tv.Known || tv.Unreadable():
		return "torch_dtype"
	case fileDtypeKeyword(f) == "dtype":
		return "dtype"
	}
	return "torch_dtype"
}

// amp names the mixed precision the file trains under, as written:
// "TrainingArguments(bf16=True)", "SFTConfig's default bf16",
// "torch.autocast", "Accelerator(mixed_precision=...)"; "" when none is
// seen (none, or one decided at run time: bf16=args.bf16). fp32 masters
// keep bf16/fp16 compute only under it, and flash attention needs it
// (DOMAIN.md §8, §11).
func amp(f *semantic.Facts) string {
	text := f.Src.Text
	for _, c := range f.Calls {
		switch {
		case c.Is(semantic.TrainingArgs):
			for _, k := range []string{"bf16", "fp16"} {
				if v := semantic.KeywordValue(c.Args, k, text); v != nil && v.Content(text) == "True" {
					return fmt.Sprintf("%s(%s=True)", c.Method, k)
				}
			}
			// SFTConfig turns bf16 on unless told otherwise.
			if c.Method == "SFTConfig" && semantic.KeywordValue(c.Args, "bf16", text) == nil && semantic.KeywordValue(c.Args, "fp16", text) == nil && !semantic.HasSplat(c.Args) {
				return "SFTConfig's default bf16"
			}
		case c.Method == "autocast":
			return c.Dotted
		case c.Method == "Accelerator":
			if s, ok := semantic.StringValue(semantic.KeywordValue(c.Args, "mixed_precision", text), text); ok && (s == "bf16" || s == "fp16") {
				return fmt.Sprintf("Accelerator(mixed_precision=%q)", s)
			}
		}
	}
	return ""
}

// Model sizes (DOMAIN.md §1: fp32 masters are 4 bytes a parameter).

// tooBigForOneGPU is the size from which fp32 masters (4 bytes a
// parameter, before activations and optimizer state) outgrow one 80 GB
// GPU.
const tooBigForOneGPU = 20

// sizeOf is the size a model id names, with a label for messages
// ("meta-llama/Llama-3.1-70B, ~70B parameters"), or ok=false.
func sizeOf(id string, known bool) (billions float64, label string, ok bool) {
	if !known {
		return 0, "", false
	}
	b, ok := semantic.Params(id)
	if !ok {
		return 0, "", false
	}
	return b, fmt.Sprintf("%s (~%sB parameters)", id, strconv.FormatFloat(b, 'g', 3, 64)), true
}

// fp32CostOf is the cost of fp32 masters for a model id: the named
// model's weights where the id tells the size, else the 8B example.
func fp32CostOf(id string, known bool) string {
	if b, label, ok := sizeOf(id, known); ok {
		return fmt.Sprintf("costs 4 bytes a parameter: ~%s GB of fp32 weights for %s (measured peak 1.6-2.3x the bf16 run, 11-17%% slower)", strconv.FormatFloat(4*b, 'f', -1, 64), label)
	}
	return fp32Cost
}

// shardingMap is the sharding value ("auto", "balanced", ...) a load's
// device_map holds, or "".
func shardingMap(f *semantic.Facts, l *semantic.Load) string {
	vals, _ := f.StringValues(l.Arg("device_map", f.Src.Text))
	for _, s := range vals {
		if shardingMaps[s] {
			return s
		}
	}
	return ""
}

// modelParallel reports the old naive model-parallel hack
// (model.is_parallelizable = True; model.model_parallel = True): "auto"
// then shards on purpose.
func modelParallel(f *semantic.Facts) bool {
	text := f.Src.Text
	for _, a := range f.Assigns {
		if (strings.HasSuffix(a.Text, ".model_parallel") || strings.HasSuffix(a.Text, ".is_parallelizable")) && a.Value.Content(text) == "True" {
			return true
		}
	}
	return false
}

// severalGPUs reports CUDA_VISIBLE_DEVICES set in the file to more than
// one device ("0,1,2,3").
func severalGPUs(f *semantic.Facts) bool {
	text := f.Src.Text
	for _, a := range f.Assigns {
		if !strings.Contains(a.Text, "CUDA_VISIBLE_DEVICES") {
			continue
		}
		if s, ok := semantic.StringValue(a.Value, text); ok && strings.Contains(s, ",") {
			return true
		}
	}
	return false
}

// shardsOnPurpose says why a load's sharding device_map is deliberate
// (DOMAIN.md §3), or "": max_memory=, offload_folder=, the model-parallel
// hack, several GPUs made visible, or a model whose fp32 masters outgrow
// one GPU.
func shardsOnPurpose(f *semantic.Facts, l *semantic.Load) string {
	text := f.Src.Text
	switch {
	case l.Arg("max_memory", text) != nil:
		return "max_memory= spreads it over devices on purpose"
	case l.Arg("offload_folder", text) != nil:
		return "offload_folder= offloads part of it on purpose"
	case modelParallel(f):
		return "model_parallel = True shards it on purpose"
	case severalGPUs(f):
		return "CUDA_VISIBLE_DEVICES names several GPUs to shard it over"
	}
	return tooBig(l)
}

// tooBig says why a load's model outgrows one GPU in fp32, or "".
func tooBig(l *semantic.Load) string {
	if !l.IDKnown {
		return ""
	}
	return TooBig(l.ModelID)
}

// TooBig says why the model a literal id names outgrows one GPU in fp32
// masters, or "": LTF001's size gate, for every front end.
func TooBig(id string) string {
	if b, label, ok := sizeOf(id, true); ok && b >= tooBigForOneGPU {
		return fmt.Sprintf("%s needs ~%s GB for its fp32 weights alone, more than one 80 GB GPU holds", label, strconv.FormatFloat(4*b, 'f', -1, 64))
	}
	return ""
}

// placer names what moves a load's model onto its device after the load,
// as written in the file: a trainer ("SFTTrainer"), accelerator.prepare,
// deepspeed.initialize, fabric.setup, or .to(...)/.cuda() on the model, on
// its adapter, or chained on either call; "" when nothing does (a plain
// loop would then train wherever the load left it).
func placer(f *semantic.Facts, l *semantic.Load) string {
	text := f.Src.Text
	models, accelerators := map[string]bool{}, map[string]bool{}
	if l.Target != "" {
		models[l.Target] = true
	}
	for _, a := range f.Assigns {
		if a.Value.Type() != "call" {
			continue
		}
		switch callee := f.Resolve(semantic.DottedName(a.Value.ChildByFieldName("function"), text)); {
		case semantic.Of(callee).Has(semantic.AdapterWrap):
			models[a.Text] = true
		case strings.HasSuffix(callee, "Accelerator"):
			accelerators[a.Text] = true
		}
	}
	// onModel: the call's object is the model's variable, or the load or
	// an adapter call it is chained on.
	onModel := func(c *semantic.Call) (string, bool) {
		if models[c.Object()] {
			return c.Object(), true
		}
		fn := c.Node.ChildByFieldName("function")
		obj := fn.ChildByFieldName("object")
		if fn.Type() != "attribute" || obj == nil || obj.Type() != "call" {
			return "", false
		}
		if obj.Equal(l.Node) {
			return "", true
		}
		inner := obj.ChildByFieldName("function")
		if inner == nil || !semantic.Of(f.Resolve(semantic.DottedName(inner, text))).Has(semantic.AdapterWrap) {
			return "", false
		}
		// get_peft_model(<the load or its variable>, ...).to(device)
		args := semantic.RealArgs(obj.ChildByFieldName("arguments"))
		return "", semantic.Within(l.Node, obj) || len(args) > 0 && models[semantic.Compact(args[0].Content(text))]
	}
	for _, c := range f.Calls {
		obj := c.Object()
		switch {
		case c.IsTrainerCall():
			return c.Method // its model= is placed by it (flow11a's flow decides which)
		case c.Method == "prepare" && (accelerators[obj] || strings.Contains(strings.ToLower(obj), "accelerator")),
			c.Method == "setup" && strings.Contains(strings.ToLower(obj), "fabric"),
			c.Method == "initialize" && strings.HasSuffix(obj, "deepspeed"):
			return c.Dotted
		case c.Method == "cuda" || c.Method == "to":
			who, ok := onModel(c)
			if !ok {
				continue
			}
			if args := semantic.RealArgs(c.Args); c.Method == "cuda" {
				return who + ".cuda" + c.Args.Content(text)
			} else if len(args) == 1 && semantic.LowPrecision(f, args[0]) == "" {
				return who + ".to(" + args[0].Content(text) + ")"
			}
		}
	}
	return ""
}

// lastName is the last part of a dotted name.
func lastName(dotted string) string { return dotted[strings.LastIndexByte(dotted, '.')+1:] }

// trainerName is the class of the file's first trainer call
// ("SFTTrainer"), or "" in a file without one, for messages that name
// the script's own trainer.
func trainerName(f *semantic.Facts) string {
	for _, c := range f.Calls {
		if c.IsTrainerCall() {
			return c.Method
		}
	}
	return ""
}

// ddpWrapper names a DistributedDataParallel or FSDP wrapper of the
// file's own (torch's DDP expects the model on its process's GPU
// already), or "".
func ddpWrapper(f *semantic.Facts) string {
	for _, c := range f.Calls {
		switch c.Qual {
		case "torch.nn.parallel.DistributedDataParallel", "torch.distributed.fsdp.FullyShardedDataParallel":
			return c.Dotted
		}
		if c.Method == "DistributedDataParallel" || c.Method == "FullyShardedDataParallel" {
			return c.Dotted
		}
	}
	return ""
}

// setsConfigFP32 reports a file that sets some config's fp32 = True (what
// Qwen-1's remote code reads).
func setsConfigFP32(f *semantic.Facts) bool {
	for _, a := range f.Assigns {
		if strings.HasSuffix(a.Text, ".fp32") && a.Value.Type() == "true" {
			return true
		}
	}
	return false
}

// FP32CostOf is what fp32 masters cost for the model a literal id names
// (the 8B example where the id tells no size), for every front end.
func FP32CostOf(id string) string { return fp32CostOf(id, id != "") }
