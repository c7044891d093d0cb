package main

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/launch"
	"github.com/loratune/loratune-fix/report"
	"github.com/loratune/loratune-fix/rewrite"
)

var update = flag.Bool("update", false, "rewrite docs/rules.md from the rules")

const rulesDoc = "../../docs/rules.md"

// TestRulesDocIsInSync keeps docs/rules.md, which every rule link points
// at, equal to the rules' own docs. It lives with the command, which puts
// the rules and the formats together.
func TestRulesDocIsInSync(t *testing.T) {
	want := report.RulesMarkdown(launch.WithKeys(rewrite.Infos(rewrite.All())), rewrite.Profiles())
	if *update {
		if err := os.WriteFile(rulesDoc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(rulesDoc)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/loratune-fix -run TestRulesDoc -update)", err)
	}
	if string(got) != want {
		t.Fatalf("%s is stale: run go test ./cmd/loratune-fix -run TestRulesDoc -update", rulesDoc)
	}
	for _, r := range rewrite.All() {
		anchor := `<a id="` + strings.TrimPrefix(report.RuleURL(r.Code), report.DocsURL+"#") + `"></a>`
		if !strings.Contains(want, anchor) || !strings.Contains(want, r.Doc[:min(40, len(r.Doc))]) {
			t.Errorf("%s: no anchor %s or doc in docs/rules.md", r.Code, anchor)
		}
	}
}
