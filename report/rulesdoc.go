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

func profilesOf(r finding.RuleInfo) string {
	if len(r.Profiles) == 0 {
		return "none (`--select` only)"
	}
	return strings.Join(r.Profiles, ", ")
}
