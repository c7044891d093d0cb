package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A project folder with the demo script in two places and a pyproject.toml.
func configProject(t *testing.T, table string) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	os.MkdirAll(filepath.Join(dir, "eval"), 0o755)
	for _, p := range []string{"train.py", "eval/train.py"} {
		if err := os.WriteFile(filepath.Join(dir, p), demoScript, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "pyproject.toml"), []byte("[project]\nname = \"x\"\n\n"+table), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func codes(out string) map[string]int {
	got := map[string]int{}
	for _, l := range strings.Split(out, "\n") {
		for _, f := range strings.Fields(l) {
			if strings.HasPrefix(f, "LTF") {
				got[f]++
				break
			}
		}
	}
	return got
}

func TestConfigSelectsAndFlagsWin(t *testing.T) {
	dir := configProject(t, "[tool.loratune-fix]\nselect = [\"LTF003\", \"training-padding-side\"]\n")
	out, _, code := run(t, "", "check", filepath.Join(dir, "train.py"))
	if got := codes(out); code != 1 || len(got) != 2 || got["LTF003"] != 1 || got["LTF008"] != 1 {
		t.Errorf("config select: exit %d, codes %v\n%s", code, got, out)
	}
	out, _, _ = run(t, "", "check", "--select", "LTF002", filepath.Join(dir, "train.py"))
	if got := codes(out); len(got) != 1 || got["LTF002"] != 1 {
		t.Errorf("--select did not win over the config: %v", got)
	}
}

func TestConfigProfileAndPerFileIgnores(t *testing.T) {
	dir := configProject(t, `[tool.loratune-fix]
profile = "lean"

[tool.loratune-fix.per-file-ignores]
"eval/*.py" = ["LTF003", "training-padding-side"]
`)
	out, _, _ := run(t, "", "check", dir)
	var top, eval []string
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.Contains(l, filepath.Join("eval", "train.py")):
			eval = append(eval, l)
		case l != "":
			top = append(top, l)
		}
	}
	topCodes, evalCodes := codes(strings.Join(top, "\n")), codes(strings.Join(eval, "\n"))
	if topCodes["LTF007"] == 0 || topCodes["LTF001"] != 0 {
		t.Errorf("profile lean from the config not applied: %v", topCodes)
	}
	if topCodes["LTF003"] == 0 || evalCodes["LTF003"] != 0 || evalCodes["LTF008"] != 0 || evalCodes["LTF007"] == 0 {
		t.Errorf("per-file-ignores: top %v, eval %v", topCodes, evalCodes)
	}
	// An ignored rule's fix is not applied either.
	if _, _, code := run(t, "", "fix", "--write", dir); code != 0 {
		t.Fatalf("fix --write: exit %d", code)
	}
	fixed, _ := os.ReadFile(filepath.Join(dir, "eval", "train.py"))
	if !strings.Contains(string(fixed), `device_map="auto"`) || !strings.Contains(string(fixed), `padding_side = "left"`) {
		t.Errorf("eval/train.py got the ignored fixes:\n%s", fixed)
	}
	fixed, _ = os.ReadFile(filepath.Join(dir, "train.py"))
	if strings.Contains(string(fixed), `device_map="auto"`) {
		t.Error("train.py did not get LTF003's fix")
	}
}

func TestConfigErrorNamesFileAndKey(t *testing.T) {
	dir := configProject(t, "[tool.loratune-fix]\nprofil = \"lean\"\n")
	_, stderr, code := run(t, "", "check", dir)
	if code != 2 || !strings.Contains(stderr, "pyproject.toml: [tool.loratune-fix] profil: unknown key") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	// The names are checked against the engine's rules and profiles.
	for table, want := range map[string]string{
		"profile = \"fast\"":                           `profile: unknown profile "fast"`,
		"ignore = [\"LTF999\"]":                        `ignore: unknown rule "LTF999"`,
		"per-file-ignores = { \"*.py\" = [\"nope\"] }": `per-file-ignores: "*.py": unknown rule "nope"`,
	} {
		dir := configProject(t, "[tool.loratune-fix]\n"+table+"\n")
		if _, stderr, code := run(t, "", "check", dir); code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, stderr %q", table, code, stderr)
		}
	}
	dir = configProject(t, "[tool.loratune-fix]\nprofile = \"lean\"\nselect = [\"LTF00\", \"dora-o-proj\", \"ALL\"]\n")
	if _, stderr, code := run(t, "", "check", dir); code == 2 {
		t.Errorf("known names refused: %s", stderr)
	}
	// --config names the file to read.
	other := filepath.Join(t.TempDir(), "pyproject.toml")
	os.WriteFile(other, []byte("[tool.loratune-fix]\nselect = [\"LTF003\"]\n"), 0o644)
	out, _, _ := run(t, "", "check", "--config", other, filepath.Join(dir, "train.py"))
	if got := codes(out); len(got) != 1 || got["LTF003"] != 1 {
		t.Errorf("--config: %v", got)
	}
}
