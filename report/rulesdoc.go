package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/loratune/loratune-fix/rewrite"
)

// RulesMarkdown renders docs/rules.md: every rule's documentation under an
// anchor of its lower-case code, which RuleURL links to.
func RulesMarkdown(rules []*rewrite.Rule) string {
	var b strings.Builder
	b.WriteString("# Rules\n\n")
	b.WriteString("<!-- Generated from the rules' docs (rewrite.All()); edit the rule, then run\n")
	b.WriteString("     go test ./report -run TestRulesDoc -update. -->\n\n")
	b.WriteString("| code | name | severity | profiles | summary |\n| --- | --- | --- | --- | --- |\n")
	for _, r := range rules {
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %s | %s | %s |\n", r.Code, strings.ToLower(r.Code), r.Name, r.Severity, profiles(r), strings.ReplaceAll(r.Summary, "|", `\|`))
	}
	var names []string
	for n := range rewrite.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	b.WriteString("\nProfiles (`--profile`):\n\n")
	for _, n := range names {
		fmt.Fprintf(&b, "- `%s`: %s\n", n, rewrite.Profiles[n])
	}
	for _, r := range rules {
		fmt.Fprintf(&b, "\n<a id=\"%s\"></a>\n\n## %s %s\n\n%s\n\nSeverity: %s. Profiles: %s.\n\n",
			strings.ToLower(r.Code), r.Code, r.Name, r.Summary, r.Severity, profiles(r))
		for _, line := range strings.Split(strings.TrimSpace(r.Doc), "\n") {
			if strings.HasPrefix(line, "## ") {
				line = "###" + line[2:] // the rule's sections sit under its heading
			}
			b.WriteString(strings.TrimRight(line, " ") + "\n")
		}
	}
	return b.String()
}

func profiles(r *rewrite.Rule) string {
	if len(r.Profiles) == 0 {
		return "none (`--select` only)"
	}
	return strings.Join(r.Profiles, ", ")
}
