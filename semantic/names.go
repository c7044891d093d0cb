package semantic

import "strings"

// Imports is a file's import table: each local name and what it was
// imported as. The zero value is empty and ready to use.
type Imports struct {
	local map[string]string // "th" -> "torch", "wrap" -> "peft.get_peft_model"
}

// Bind records `import qual as local` or `from pkg import name as local`
// (qual "pkg.name"). A later binding of the same local name wins, as it
// does at run time for straight-line imports.
func (im *Imports) Bind(local, qual string) {
	if im.local == nil {
		im.local = map[string]string{}
	}
	im.local[local] = qual
}

// Resolve replaces the first name of a dotted name by what it was imported
// as: "tf.AutoModelForCausalLM.from_pretrained" ->
// "transformers.AutoModelForCausalLM.from_pretrained". A name the file did
// not import is returned as it is.
func (im *Imports) Resolve(dotted string) string {
	head, rest, _ := strings.Cut(dotted, ".")
	q, ok := im.local[head]
	if !ok {
		return dotted
	}
	if rest == "" {
		return q
	}
	return q + "." + rest
}

// Imported reports whether local is bound by an import.
func (im *Imports) Imported(local string) bool {
	_, ok := im.local[local]
	return ok
}

// Local is the name under which the file reaches qual ("torch" -> "th"
// after `import torch as th`), and whether it does at all. Where several
// names bind it, the module's own name wins, then the alphabetically first,
// so that the answer does not depend on map order.
func (im *Imports) Local(qual string) (string, bool) {
	best := ""
	for local, q := range im.local {
		if q == qual && (best == "" || local == qual || (best != qual && local < best)) {
			best = local
		}
	}
	return best, best != ""
}

// Last is the last part of a dotted name: "peft.get_peft_model" ->
// "get_peft_model".
func Last(dotted string) string { return dotted[strings.LastIndexByte(dotted, '.')+1:] }
