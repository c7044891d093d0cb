package report

import (
	"fmt"
	"strings"

	"github.com/loratune/loratune-fix/finding"
)

// RulesMarkdown renders docs/rules.md: every rule's documentation under an
// anchor of its lower-case code, which RuleURL links to, and the profiles.
func RulesMarkdown(rules []finding.RuleInfo, profiles []finding.ProfileInfo) string {
	var b strings.Builder
	b.WriteString("# Rules\n\n")
	b.WriteString("<!-- Generated from the rules' docs (rewrite.All()); edit the rule, then run\n")
	b.WriteString("     go test ./cmd/loratune-fix -run TestRulesDoc -update. -->\n\n")
	b.WriteString("| code | name | severity | profiles | summary |\n| --- | --- | --- | --- | --- |\n")
	for _, r := range rules {
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %s | %s | %s |\n", r.Code, strings.ToLower(r.Code), r.Name, r.Severity, profilesOf(r), strings.ReplaceAll(r.Summary, "|", `\|`))
	}
	b.WriteString("\nProfiles (`--profile`):\n\n")
	for _, p := range profiles {
		fmt.Fprintf(&b, "- `%s`: %s\n", p.Name, p.Doc)
	}
	b.WriteString(modelFlowDoc)
	for _, r := range rules {
		fmt.Fprintf(&b, "\n<a id=\"%s\"></a>\n\n## %s %s\n\n%s\n\nSeverity: %s. Profiles: %s.\n\n",
			strings.ToLower(r.Code), r.Code, r.Name, r.Summary, r.Severity, profilesOf(r))
		for _, line := range strings.Split(strings.TrimSpace(r.Doc), "\n") {
			if strings.HasPrefix(line, "## ") {
				line = "###" + line[2:] // the rule's sections sit under its heading
			}
			b.WriteString(strings.TrimRight(line, " ") + "\n")
		}
	}
	return b.String()
}

// modelFlowDoc says, for every rule, which loads are edited and what no
// fix may do.
const modelFlowDoc = `
Which model is trained, and what no fix may do:

- A load is edited as a training load when its value reaches training:
  get_peft_model, prepare_model_for_kbit_training,
  PeftModel.from_pretrained(..., is_trainable=True), a trainer's model,
  accelerator.prepare, an optimizer over its parameters, .train(), or a call
  where backward() runs. The value is followed through assignments, chained
  .to()/.cuda(), tuples, returns to the file's callers, parameters, self.x,
  keyword dicts and notebook cells in order. A load that reaches only
  generate, pipeline, .eval(), a merge, ref_model= or an embedding's use is
  left alone; one whose value goes where the flow cannot see (a helper of
  another module) gets a warning, no edit. A loader shared by training and
  inference callers gets a warning. Messages quote why.
- Adapter scope, from the semantic model: names are read through the
  file's imports (an aliased get_peft_model is get_peft_model). A training
  load is edited only when its value reaches an adapter (get_peft_model, a
  trainer's peft_config=, an adapter loaded with is_trainable=True); a file
  with no adapter in sight, or a load trained whole beside a LoRA load,
  keeps its findings as notes without fixes, and an adapter applied under a
  run-time flag leaves warnings without fixes (the fix would change the
  full fine-tune too). Code that a module constant makes dead is neither
  reported nor edited. Encoder-only and encoder-decoder loads (BERT, T5) get
  none of the causal-LM rules (LTF002, LTF004, LTF005, LTF008).
- The binding guard: every name a fix's line reads must be bound on every
  path that reaches it (if/elif/else, loops, try, with, match, del, early
  return), hold an object where an attribute is read (not the model id
  string, not a class), and the line must not come after the training it is
  for. A fix that fails is not applied; check shows why. Inserted lines go
  right after the statement that binds the model, inside its branch.
- The keyword guard: a keyword a fix writes into a call of TrainingArguments,
  Trainer, a TRL config or trainer, or a PEFT config must be one that class
  takes at the pinned version of its library (the newest where nothing is
  pinned; a TRL config also takes TrainingArguments' keywords at the pinned
  transformers), by a table read from the libraries' released sources
  (signatures/). A fix that fails is not applied; check shows why.
`

func profilesOf(r finding.RuleInfo) string {
	if len(r.Profiles) == 0 {
		return "none (`--select` only)"
	}
	return strings.Join(r.Profiles, ", ")
}
