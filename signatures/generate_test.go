package signatures

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// tools/signatures.py, run on three small repositories with release tags,
// reads what each release's classes take: dataclass fields with their
// bases' (ClassVar and field(init=False) left out), an __init__'s
// parameters, **kwargs as open, a base in another library named, and the
// clone's head as a development version.
func TestGenerator(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("python3 is needed in CI to test tools/signatures.py")
		}
		t.Skip("no python3")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	repo := func(name string, releases ...map[string]string) string {
		r := filepath.Join(dir, name)
		run := func(args ...string) {
			t.Helper()
			cmd := exec.Command("git", append([]string{"-C", r, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"}, args...)...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
		os.MkdirAll(r, 0o755)
		run("init", "-q")
		for _, files := range releases {
			for path, text := range files {
				if path == "tag" {
					continue
				}
				os.MkdirAll(filepath.Dir(filepath.Join(r, path)), 0o755)
				if err := os.WriteFile(filepath.Join(r, path), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			run("add", "-A")
			run("commit", "-q", "-m", "release")
			if files["tag"] != "" {
				run("tag", files["tag"])
			}
		}
		return r
	}
	const args = "from dataclasses import dataclass, field\nfrom typing import ClassVar\n\n@dataclass\nclass TrainingArguments:\n    framework: ClassVar[str] = 'pt'\n    output_dir: str = None\n    seed: int = 42\n    distributed_state: object = field(default=None, init=False)\n"
	transformers := repo("transformers",
		map[string]string{"tag": "v4.30.0", "src/transformers/__init__.py": "", "src/transformers/training_args.py": args,
			"src/transformers/trainer.py":                "class Trainer:\n    def __init__(self, model=None, args=None, tokenizer=None):\n        pass\n",
			"src/transformers/utils/dummy_pt_objects.py": "class Trainer:\n    def __init__(self, *args, **kwargs):\n        pass\n"},
		map[string]string{"tag": "v4.30.2", "src/transformers/training_args.py": args + "    warmup_ratio: float = 0.0\n"},
		map[string]string{"tag": "v4.46.0", "src/transformers/training_args.py": args + "    eval_strategy: str = 'no'\n",
			"src/transformers/trainer.py": "class Trainer:\n    @deprecate_kwarg('tokenizer', new_name='processing_class')\n    def __init__(self, model=None, args=None, processing_class=None):\n        pass\n"})
	trl := repo("trl",
		map[string]string{"tag": "v0.9.0", "VERSION": "0.9.0\n", "trl/__init__.py": "", "trl/trainer/sft_config.py": "from dataclasses import dataclass\nfrom transformers import TrainingArguments\n\n@dataclass\nclass SFTConfig(TrainingArguments):\n    model_init_kwargs: dict = None\n"},
		map[string]string{"VERSION": "1.0.0.dev0\n", "trl/trainer/sft_trainer.py": "class SFTTrainer:\n    def __init__(self, model, args=None, **kwargs):\n        pass\n"})
	peft := repo("peft",
		map[string]string{"tag": "v0.5.0", "src/peft/__init__.py": "__version__ = '0.5.0'\nfrom .tuners.lora import LoraConfig\n",
			"src/peft/config.py":      "from dataclasses import dataclass\n\n@dataclass\nclass PeftConfig:\n    task_type: str = None\n",
			"src/peft/tuners/lora.py": "from dataclasses import dataclass\nfrom ..config import PeftConfig\n\n@dataclass\nclass LoraConfig(PeftConfig):\n    r: int = 8\n"})
	out := filepath.Join(dir, "table.json")
	cmd := exec.Command(py, "../tools/signatures.py", "--git", "transformers="+transformers, "--git", "trl="+trl, "--git", "peft="+peft, "-o", out)
	if log, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got table
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if want := []string{"4.30.2", "4.46.0"}; !slices.Equal(got.Releases["transformers"], want) {
		t.Errorf("transformers releases %v, want %v (the newest patch of each minor)", got.Releases["transformers"], want)
	}
	if want := []string{"0.9.0", "1.0.0.dev0"}; !slices.Equal(got.Releases["trl"], want) {
		t.Errorf("trl releases %v, want %v (with the head)", got.Releases["trl"], want)
	}
	ta := got.Classes["transformers.TrainingArguments"].Keywords
	keys := slices.Sorted(maps.Keys(ta))
	if want := []string{"eval_strategy", "output_dir", "seed", "warmup_ratio"}; !slices.Equal(keys, want) {
		t.Errorf("TrainingArguments keywords %v, want %v", keys, want)
	}
	if r := ta["warmup_ratio"]; len(r) != 1 || r[0] != [2]string{"4.30.2", "4.30.2"} {
		t.Errorf("warmup_ratio in %v, want 4.30.2 only", r)
	}
	tr := got.Classes["transformers.Trainer"]
	if len(tr.Open) != 0 || tr.Keywords["tokenizer"] == nil || tr.Keywords["processing_class"] == nil {
		t.Errorf("Trainer %+v: want closed (the dummy object left out), tokenizer kept through its deprecation", tr)
	}
	sft := got.Classes["trl.SFTConfig"]
	if sft.Base["transformers.TrainingArguments"] == nil || sft.Keywords["model_init_kwargs"] == nil || sft.Keywords["seed"] != nil {
		t.Errorf("SFTConfig %+v: want its own field, and TrainingArguments named as its base", sft)
	}
	if st := got.Classes["trl.SFTTrainer"]; len(st.Open) != 1 || st.Open[0] != [2]string{"1.0.0.dev0", "1.0.0.dev0"} {
		t.Errorf("SFTTrainer %+v: want open (**kwargs) in the head", st)
	}
	if lc := got.Classes["peft.LoraConfig"].Keywords; lc["r"] == nil || lc["task_type"] == nil {
		t.Errorf("LoraConfig %v: want its field and its base's", lc)
	}
}
