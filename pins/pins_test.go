package pins

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRequirementLines(t *testing.T) {
	tests := []struct {
		line, lib, want string
		ok              bool
	}{
		{"transformers==4.36.0", "transformers", "4.36.0", true},
		{"transformers[torch]>=4.40,<5 ; python_version >= '3.9'", "transformers", ">= 4.40.0, < 5.0", true},
		{"transformers<5", "transformers", "unknown", true},
		{"transformers", "transformers", "unknown", true},
		{"peft~=0.10.0", "peft", ">= 0.10.0, < 0.11", true},
		{"Peft == 0.7.*", "peft", ">= 0.7.0, < 0.8", true},
		{"trl>0.8,!=0.9.0", "trl", ">= 0.8.0", true},
		{"transformers>=4.56.2", "transformers", ">= 4.56.2", true},
		{"transformers~=4.36", "transformers", ">= 4.36.0, < 5.0", true},
		{"torch==2.1.0+cu118", "torch", "2.1.0", true},
		{"torchvision==0.16", "", "", false},
		{"git+https://github.com/huggingface/transformers@v4.36.0", "transformers", "4.36.0", true},
		{"git+https://github.com/huggingface/peft.git@main", "peft", "unknown", true},
		{"git+https://github.com/huggingface/peft.git@0123abc#egg=peft", "peft", "unknown (git commit 0123abc)", true},
		{"git+https://github.com/huggingface/peft.git", "peft", "unknown", true},
		{"transformers @ git+https://github.com/huggingface/transformers.git@v4.45.2", "transformers", "4.45.2", true},
		// A commit is no version: an old one is as likely as a new one.
		{"transformers @ git+https://github.com/huggingface/transformers.git@c612628045822f909020f7eb6784c79700813eda", "transformers", "unknown (git commit c612628)", true},
		{"peft @ git+https://github.com/huggingface/peft.git@v0.6.2", "peft", "0.6.2", true},
		{"git+https://github.com/huggingface/peft.git@fix-lora-init", "peft", "unknown (git ref fix-lora-init)", true},
		{"git+ssh://git@github.com/huggingface/peft.git", "peft", "unknown", true},
		{"# transformers==4.1", "", "", false},
		{"numpy>=1.20", "", "", false},
		{"accelerate>=0.30", "accelerate", ">= 0.30.0", true},
		{"transformers==4.41.2 --hash=sha256:abc \\", "transformers", "4.41.2", true},
	}
	for _, tt := range tests {
		lib, v, ok := requirement(tt.line)
		got := v.String()
		if v.Unreadable() {
			got += " (" + v.Ref + ")"
		}
		if ok != tt.ok || lib != tt.lib || ok && got != tt.want {
			t.Errorf("requirement(%q) = %q %s %v, want %q %s %v", tt.line, lib, got, ok, tt.lib, tt.want, tt.ok)
		}
	}
}

func TestPipInstall(t *testing.T) {
	got := PipInstall(`!pip install -q -U "transformers==4.38.2" peft>=0.9 'trl<0.9' accelerate`)
	if got["transformers"].String() != "4.38.2" || got["peft"].String() != ">= 0.9.0" || got["trl"].Known || len(got) != 4 {
		t.Errorf("PipInstall = %v", got)
	}
	if PipInstall("import pip") != nil || PipInstall("%pip list") != nil {
		t.Error("not an install line, yet pins came back")
	}
	if got := PipInstall("%pip install git+https://github.com/huggingface/transformers@v4.36.0"); got["transformers"].String() != "4.36.0" {
		t.Errorf("%%pip git form = %v", got)
	}
}

func write(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFinderWalksUpToTheRepositoryRoot(t *testing.T) {
	top := t.TempDir()
	// Above the repository: must not be read.
	write(t, filepath.Join(top, "requirements.txt"), "trl==0.7.0\n")
	repo := filepath.Join(top, "repo")
	write(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(repo, "pyproject.toml"), `[project]
name = "x"
dependencies = [
  "torch>=2.1",
  "peft>=0.12,<1",
]

[tool.poetry.dependencies]
transformers = "^4.30"
`)
	write(t, filepath.Join(repo, "sub", "requirements-train.txt"), "# training\ntransformers==5.17.0\n")
	script := filepath.Join(repo, "sub", "deep", "train.py")
	write(t, script, "")

	f := NewFinder()
	vs := f.For(script)
	if got := vs.Transformers.Describe("transformers"); got != "transformers 5.17.0 (../requirements-train.txt:2)" {
		t.Errorf("transformers: %s", got)
	}
	if got := vs.Peft.Describe("peft"); got != "peft >= 0.12.0, < 1.0 (../../pyproject.toml:5)" {
		t.Errorf("peft: %s", got)
	}
	if got := vs.Torch.Describe("torch"); got != "torch >= 2.1.0 (../../pyproject.toml:4)" {
		t.Errorf("torch: %s", got)
	}
	if vs.TRL.Known {
		t.Errorf("trl came from above the repository root: %s", vs.TRL.Describe("trl"))
	}
	// Cached: a change on disk is not seen by the same finder.
	write(t, filepath.Join(repo, "sub", "requirements-train.txt"), "transformers==4.0.0\n")
	if again := f.For(script); again.Transformers.String() != "5.17.0" {
		t.Errorf("second lookup re-read the directory: %s", again.Transformers)
	}
}

func TestPoetryAndOtherFormats(t *testing.T) {
	pp := Pyproject("pyproject.toml", []byte(`[tool.poetry.dependencies]
python = "^3.10"
peft = { version = "~0.7.1", extras = ["x"] }
transformers = { git = "https://github.com/huggingface/transformers.git", tag = "v4.36.2" }

[tool.poetry.group.train.dependencies]
trl = ">=0.8.1,<0.9"
`))
	if pp["peft"].Describe("peft") != "peft >= 0.7.1, < 0.8 (pyproject.toml:3)" || pp["transformers"].String() != "4.36.2" || pp["trl"].Describe("trl") != "trl >= 0.8.1, < 0.9 (pyproject.toml:7)" {
		t.Errorf("poetry: %v", pp)
	}
	cfg := SetupCfg("setup.cfg", []byte("[metadata]\nname = peft\n\n[options]\ninstall_requires =\n    torch>=1.13\n    transformers==4.31.0\n"))
	if cfg["transformers"].Describe("transformers") != "transformers 4.31.0 (setup.cfg:7)" || cfg["torch"].String() != ">= 1.13.0" || len(cfg) != 2 {
		t.Errorf("setup.cfg: %v", cfg)
	}
	py := SetupPy("setup.py", []byte("setup(\n    name=\"peft\",\n    install_requires=[\"transformers>=4.28\", 'peft==0.4.0'],\n)\n"))
	if py["transformers"].Describe("transformers") != "transformers >= 4.28.0 (setup.py:3)" || py["peft"].String() != "0.4.0" {
		t.Errorf("setup.py: %v", py)
	}
	env := Environment("environment.yml", []byte("dependencies:\n  - python=3.10\n  - pytorch::pytorch=2.0.1=py3.10_cuda11.8\n  - pip:\n    - transformers==4.33.0\n"))
	if env["torch"].Describe("torch") != "torch 2.0.1 (environment.yml:3)" || env["transformers"].String() != "4.33.0" {
		t.Errorf("environment.yml: %v", env)
	}
}

func TestDependencyGroups(t *testing.T) {
	got := Pyproject("pyproject.toml", []byte("[project]\nname = \"x\"\n\n[dependency-groups]\ntrain = [\"trl>=0.19\", {include-group = \"base\"}]\nbase = [\"torch==2.6.0\"]\n"))
	if got["trl"].Describe("trl") != "trl >= 0.19.0 (pyproject.toml:5)" || got["torch"].String() != "2.6.0" {
		t.Errorf("dependency-groups: %v", got)
	}
}

func TestRequirementsInclude(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "base.txt"), "peft==0.6.0\n")
	got := Requirements(dir, "requirements.txt", []byte("-r base.txt\ntransformers>=4.34\n"))
	if got["peft"].Describe("peft") != "peft 0.6.0 (base.txt:1)" || got["transformers"].String() != ">= 4.34.0" {
		t.Errorf("include: %v", got)
	}
}

// The line length comes from the nearest pyproject.toml, .ruff.toml or
// ruff.toml, as black and ruff find them: [tool.black] first, then ruff's
// (.ruff.toml, ruff.toml, [tool.ruff]); a nearer pyproject.toml without
// either means the default, and the walk stops at the repository root.
func TestLineLength(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("outer/pyproject.toml", "[tool.black]\nline-length = 100\n")
	write("outer/repo/.git/HEAD", "")
	write("outer/repo/pyproject.toml", "[tool.ruff]\nline-length = 120\n[tool.black]\nline-length = 79\n")
	write("outer/repo/ruff/pyproject.toml", "[tool.ruff]\nline-length = 120\n")
	write("outer/repo/plain/pyproject.toml", "[project]\nname = \"x\"\n")
	write("outer/repo/rufftoml/ruff.toml", "line-length = 100\n[format]\nquote-style = \"single\"\n")
	write("outer/repo/rufftoml/pyproject.toml", "[tool.ruff]\nline-length = 60\n")
	write("outer/repo/rufftoml/sub/train.py", "")
	write("outer/repo/dotruff/.ruff.toml", "line-length = 110\n")
	write("outer/repo/dotruff/ruff.toml", "line-length = 60\n")
	write("outer/repo/blackwins/ruff.toml", "line-length = 60\n")
	write("outer/repo/blackwins/pyproject.toml", "[tool.black]\nline-length = 99\n")
	write("outer/repo/ruffnone/ruff.toml", "[lint]\nselect = [\"E\"]\n")
	write("outer/repo/deep/a/train.py", "")
	write("outer/norepo/train.py", "")
	write("lone/.git/HEAD", "")
	f := NewFinder()
	for path, want := range map[string]int{
		"outer/repo/deep/a/train.py":       79,
		"outer/repo/ruff/train.py":         120,
		"outer/repo/plain/train.py":        DefaultLineLength,
		"outer/repo/rufftoml/sub/train.py": 100,
		"outer/repo/dotruff/train.py":      110,
		"outer/repo/blackwins/train.py":    99,
		"outer/repo/ruffnone/train.py":     DefaultLineLength,
		"outer/norepo/train.py":            100,
		"lone/train.py":                    DefaultLineLength,
	} {
		if got := f.LineLength(filepath.Join(root, path)); got != want {
			t.Errorf("%s: line length %d, want %d", path, got, want)
		}
	}
}

// A library's package beside the script is what the script imports: a
// vendored copy, not the version the pin files name. One further up is not
// on the script's path.
func TestVendoredPackageBesideTheScript(t *testing.T) {
	repo := t.TempDir()
	write(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(repo, "requirements.txt"), "peft==0.12.0\ntransformers==4.40.0\n")
	write(t, filepath.Join(repo, "train", "peft", "__init__.py"), "")
	write(t, filepath.Join(repo, "train", "transformers", "README.md"), "not a package\n")
	script := filepath.Join(repo, "train", "finetune.py")
	write(t, script, "")
	vs := NewFinder().For(script)
	if got := vs.Peft.Describe("peft"); got != "peft from a vendored copy (peft/), version unknown" {
		t.Errorf("peft: %s", got)
	}
	if got := vs.Transformers.String(); got != "4.40.0" {
		t.Errorf("transformers: %s", got)
	}
	below := filepath.Join(repo, "train", "sub", "run.py")
	write(t, below, "")
	if got := NewFinder().For(below).Peft.String(); got != "0.12.0" {
		t.Errorf("a package one folder up is not the script's: peft %s", got)
	}
}

func TestLockAndOwnPackage(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".git"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "uv.lock"), []byte("version = 1\n\n[[package]]\nname = \"transformers\"\nversion = \"4.57.1\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "requirements.txt"), []byte("transformers>=4.40\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "setup.py"), []byte("setup(\n    name=\"axolotl\",\n    version=\"0.4.1\",\n)\n"), 0o644)
	vs := NewFinder().For(filepath.Join(dir, "cfg.yml"))
	if vs.Transformers.String() != "4.57.1" || vs.Transformers.Source != "uv.lock:4" {
		t.Errorf("the lock file's exact version first: got %s (%s)", vs.Transformers, vs.Transformers.Source)
	}
	if vs.Axolotl.String() != "0.4.1" || vs.Axolotl.Source != "setup.py:3" {
		t.Errorf("the repository's own package: got %s (%s)", vs.Axolotl, vs.Axolotl.Source)
	}
}
