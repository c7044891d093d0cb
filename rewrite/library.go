package rewrite

import (
	"fmt"
	"regexp"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// What the libraries do with the keywords the rules add (DOMAIN.md §1, §2,
// §11): which loaders drop a keyword, which keyword spells the dtype, and
// when a load is flash attention.

// unslothLoad reports unsloth's FastLanguageModel / FastModel /
// FastVisionModel.from_pretrained: it pops attn_implementation and chooses
// the dtype and the device itself.
func (f *Facts) unslothLoad(l *Load) bool {
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

// qwen1ID is a first-generation Qwen id (Qwen/Qwen-7B, Qwen-14B-Chat,
// Qwen-1_8B): "Qwen-" then the size. Qwen1.5, Qwen2 and later spell no
// hyphen after the name and run on transformers' own code.
var qwen1ID = regexp.MustCompile(`(?i)(^|/)qwen-`)

// qwen1RemoteCode reports a Qwen-1 load through its remote code, which
// chooses its own attention (use_flash_attn in its config) and ignores
// attn_implementation.
func (f *Facts) qwen1RemoteCode(l *Load) bool {
	if !l.IDKnown || !qwen1ID.MatchString(l.ModelID) {
		return false
	}
	v := l.Arg("trust_remote_code", f.Src.Text)
	return v != nil && v.Content(f.Src.Text) == "True"
}

// ignoresAttention says why a loader ignores attn_implementation, or "".
func (f *Facts) ignoresAttention(l *Load) string {
	switch {
	case f.unslothLoad(l):
		return fmt.Sprintf("unsloth's %s drops attn_implementation and picks its own attention kernels", l.Dotted)
	case f.qwen1RemoteCode(l):
		return fmt.Sprintf("%s runs its own remote code (trust_remote_code=True), which ignores attn_implementation and chooses its attention through use_flash_attn in its config", l.ModelID)
	}
	return ""
}

// flashValues are the attn_implementation values that never reach cuDNN
// SDPA and run in half precision only (flex runs in fp32 too).
var flashValues = map[string]bool{"flash_attention_2": true, "flash_attention_3": true}

// flashLoad names the flash attention a load asks for:
// attn_implementation="flash_attention_2"/"flash_attention_3" or the old
// use_flash_attention_2=True; "" otherwise.
func (f *Facts) flashLoad(l *Load) string {
	text := f.Src.Text
	if s, ok := StringValue(l.Arg("attn_implementation", text), text); ok && flashValues[s] {
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
func eagerInPlaceOf(old *sitter.Node, text []byte) (Edit, bool) {
	item := old.Parent()
	switch item.Type() {
	case "keyword_argument":
		return Edit{Start: start(item), End: end(item), NewText: `attn_implementation="eager"`}, true
	case "pair":
		q := item.ChildByFieldName("key").Content(text)[:1]
		return Edit{Start: start(item), End: end(item), NewText: q + "attn_implementation" + q + ": " + q + "eager" + q}, true
	}
	return Edit{}, false
}

// fileDtypeKeyword is the dtype keyword the file already spells on a load
// or in model_init_kwargs ("dtype" or "torch_dtype"), or "" when it spells
// neither. A file that spells both is read by its first use.
func (f *Facts) fileDtypeKeyword() string {
	text := f.Src.Text
	first, kw := -1, ""
	see := func(n *sitter.Node, name string) {
		if n != nil && (first < 0 || start(n) < first) {
			first, kw = start(n), name
		}
	}
	for _, l := range f.ModelLoads() {
		see(l.Arg("dtype", text), "dtype")
		see(l.Arg("torch_dtype", text), "torch_dtype")
	}
	for _, c := range f.Calls {
		v := KeywordValue(c.Args, "model_init_kwargs", text)
		if v == nil {
			continue
		}
		entries := map[string]*sitter.Node{}
		if def := f.SoleValue(v); def != nil && dictEntries(def, text, entries) {
			see(entries["dtype"], "dtype")
			see(entries["torch_dtype"], "torch_dtype")
		}
	}
	return kw
}

// dtypeKeyword is the keyword to add for a load's dtype: dtype= from
// transformers 4.56 (its name there; torch_dtype= is deprecated), never
// before it (it is not the load dtype before 4.56); with no pin, the
// spelling the file already uses, else torch_dtype= (accepted by every
// version).
func (f *Facts) dtypeKeyword(tv Version) string {
	switch {
	case tv.AtLeast(4, 56):
		return "dtype"
	case tv.Known:
		return "torch_dtype"
	case f.fileDtypeKeyword() == "dtype":
		return "dtype"
	}
	return "torch_dtype"
}
