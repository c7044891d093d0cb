package report

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/launch"
	"github.com/loratune/loratune-fix/rewrite"
)

var update = flag.Bool("update", false, "rewrite docs/rules.md from the rules")

const rulesDoc = "../docs/rules.md"

// TestRulesDocIsInSync keeps docs/rules.md, which every rule link points
// at, equal to the rules' own docs.
func TestRulesDocIsInSync(t *testing.T) {
	want := RulesMarkdown(launch.WithKeys(rewrite.Infos(rewrite.All())), rewrite.Profiles())
	if *update {
		if err := os.WriteFile(rulesDoc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(rulesDoc)
	if err != nil {
		t.Fatalf("%v (run go test ./report -run TestRulesDoc -update)", err)
	}
	if string(got) != want {
		t.Fatalf("%s is stale: run go test ./report -run TestRulesDoc -update", rulesDoc)
	}
	for _, r := range rewrite.All() {
		anchor := `<a id="` + strings.TrimPrefix(RuleURL(r.Code), DocsURL+"#") + `"></a>`
		if !strings.Contains(want, anchor) || !strings.Contains(want, r.Doc[:min(40, len(r.Doc))]) {
			t.Errorf("%s: no anchor %s or doc in docs/rules.md", r.Code, anchor)
		}
	}
}
