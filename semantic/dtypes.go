package semantic

import (
	"strings"

	"github.com/loratune/loratune-fix/syntree"
)

// dtypeStrings are the dtypes a string may name (torch_dtype="bf16" is not
// one), as LowPrecision classifies them.
var dtypeStrings = map[string]string{
	"bfloat16": "bfloat16", "float16": "float16", "half": "float16", "auto": "auto",
	"float32": "float32", "float": "float32",
}

// LowPrecision classifies a dtype expression: "bfloat16", "float16",
// "auto", "float32", or "" when it is not a literal dtype.
func LowPrecision(f *Facts, v *syntree.Node) string {
	text := f.Src.Text
	if s, ok := StringValue(v, text); ok {
		return dtypeStrings[s]
	}
	if v.Type() != "attribute" && v.Type() != "identifier" {
		return ""
	}
	switch f.Resolve(DottedName(v, text)) {
	case "torch.bfloat16":
		return "bfloat16"
	case "torch.float16", "torch.half":
		return "float16"
	case "torch.float32", "torch.float":
		return "float32"
	}
	return ""
}

// StringDtypes reports dtypes all written as string literals naming a
// dtype ("bfloat16", 'float16'; not "auto", which transformers took as its
// only string before it took dtype names), and a quote for a new one in
// the first one's quotes.
func StringDtypes(vals []*syntree.Node, text []byte) (quote func(string) string, ok bool) {
	for _, v := range vals {
		if s, isStr := StringValue(v, text); !isStr || s == "auto" || dtypeStrings[s] == "" {
			return nil, false
		}
	}
	if len(vals) == 0 {
		return nil, false
	}
	q := `"`
	if strings.HasPrefix(vals[0].Content(text), "'") {
		q = "'"
	}
	return func(s string) string { return q + s + q }, true
}
