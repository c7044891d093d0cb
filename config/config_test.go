package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// names stands in for the engine's (the command passes rewrite's, tested
// in cmd/loratune-fix): profiles default and lean; codes LTF001-LTF009 and
// LTF101-LTF105 by code, prefix or ALL, and two names.
var names = Names{
	Profile: func(name string) error {
		if name != "default" && name != "lean" {
			return fmt.Errorf("unknown profile %q", name)
		}
		return nil
	},
	Rule: func(key string) error {
		k := strings.ToUpper(key)
		if k == "ALL" || key == "dora-o-proj" || key == "training-padding-side" || strings.HasPrefix("LTF00", k) || strings.HasPrefix("LTF10", k) ||
			len(k) == 6 && (k >= "LTF001" && k <= "LTF009" || k >= "LTF101" && k <= "LTF105") {
			return nil
		}
		return fmt.Errorf("unknown rule %q", key)
	},
}

func TestReadsEveryKey(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".git", "HEAD"), "")
	writeFile(t, filepath.Join(dir, "pyproject.toml"), `[project]
name = "x"

[tool.loratune-fix]
profile = "lean"
select = ["LTF00", "dora-o-proj"]
ignore = ["LTF006"]
target = { transformers = "5.17", trl = "0.27" }

[tool.loratune-fix.per-file-ignores]
"eval/*.py" = ["LTF003"]
"**/nb/*.ipynb" = ["training-padding-side"]
`)
	cfg, err := Find(filepath.Join(dir, "src", "train.py"), names)
	if err != nil || cfg == nil {
		t.Fatalf("Find: %v %v", cfg, err)
	}
	if cfg.Profile != "lean" || strings.Join(cfg.Select, ",") != "LTF00,dora-o-proj" || strings.Join(cfg.Ignore, ",") != "LTF006" {
		t.Errorf("config %+v", cfg)
	}
	if got := cfg.Target.Transformers.Describe("transformers"); got != "transformers 5.17.0 (pyproject.toml [tool.loratune-fix] target)" {
		t.Errorf("target: %s", got)
	}
	if got := cfg.IgnoresFor(filepath.Join(dir, "eval", "run.py")); strings.Join(got, ",") != "LTF003" {
		t.Errorf("eval/run.py ignores %v", got)
	}
	if got := cfg.IgnoresFor(filepath.Join(dir, "a", "b", "nb", "x.ipynb")); strings.Join(got, ",") != "training-padding-side" {
		t.Errorf("a/b/nb/x.ipynb ignores %v", got)
	}
	if got := cfg.IgnoresFor(filepath.Join(dir, "src", "eval", "run.py")); got != nil {
		t.Errorf("src/eval/run.py is not eval/*.py, yet ignores %v", got)
	}
}

func TestStringTargetAndNoTable(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".git", "HEAD"), "")
	writeFile(t, filepath.Join(dir, "pyproject.toml"), "[tool.loratune-fix]\ntarget = \"transformers=4.46, peft=0.13\"\n")
	// A nearer pyproject.toml without the table does not stop the search.
	writeFile(t, filepath.Join(dir, "pkg", "pyproject.toml"), "[tool.ruff]\nline-length = 100\n")
	cfg, err := Find(filepath.Join(dir, "pkg"), names)
	if err != nil || cfg == nil || cfg.Target.Peft.String() != "0.13.0" || cfg.Target.Transformers.String() != "4.46.0" {
		t.Fatalf("Find: %+v %v", cfg, err)
	}
	// Nothing above the repository root is read.
	inner := filepath.Join(dir, "sub")
	writeFile(t, filepath.Join(inner, ".git", "HEAD"), "")
	if cfg, err := Find(inner, names); cfg != nil || err != nil {
		t.Errorf("found %+v %v across a repository root", cfg, err)
	}
}

func TestErrorsNameTheFileAndTheKey(t *testing.T) {
	tests := []struct{ toml, want string }{
		{"selct = [\"LTF001\"]", `[tool.loratune-fix] selct: unknown key (want one of profile, select, extend-select, ignore, target, per-file-ignores)`},
		{"profile = \"fast\"", `[tool.loratune-fix] profile: unknown profile "fast"`},
		{"profile = 3", `[tool.loratune-fix] profile: want a string, got an integer`},
		{"select = \"LTF001\"", `[tool.loratune-fix] select: want a list of rule codes or names, got a string`},
		{"ignore = [\"LTF999\"]", `[tool.loratune-fix] ignore: unknown rule "LTF999"`},
		{"select = []", `[tool.loratune-fix] select: an empty list selects no rule`},
		{"target = { transformers = 5.17 }", `[tool.loratune-fix] target: transformers: want the version as a string`},
		{"target = \"jax=0.4\"", `[tool.loratune-fix] target: unknown library "jax"`},
		{"per-file-ignores = { \"a/[b.py\" = [\"LTF001\"] }", `[tool.loratune-fix] per-file-ignores: pattern "a/[b.py": unclosed [`},
		{"per-file-ignores = { \"*.py\" = [\"nope\"] }", `[tool.loratune-fix] per-file-ignores: "*.py": unknown rule "nope"`},
		{"profile = \"lean", `pyproject.toml:2:`},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		file := filepath.Join(dir, "pyproject.toml")
		writeFile(t, file, "[tool.loratune-fix]\n"+tt.toml+"\n")
		_, err := Load(file, names)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "pyproject.toml") {
			t.Errorf("%s: error %v, want it to contain %q", tt.toml, err, tt.want)
		}
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"*.ipynb", "a/b/c.ipynb", true},
		{"eval/*.py", "eval/x.py", true},
		{"eval/*.py", "eval/sub/x.py", false},
		{"**/eval/*.py", "eval/x.py", true},
		{"**/eval/*.py", "a/b/eval/x.py", true},
		{"scripts/**", "scripts/a/b.py", true},
		{"train_?.py", "x/train_1.py", true},
		{"[!t]*.py", "train.py", false},
	}
	for _, tt := range tests {
		if got := Match(tt.pattern, tt.name); got != tt.want {
			t.Errorf("Match(%q, %q) = %v", tt.pattern, tt.name, got)
		}
	}
}
