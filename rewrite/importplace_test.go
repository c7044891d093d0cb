package rewrite

import (
	"testing"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/pyedit"
)

// An added import goes where isort (black profile) and ruff's I001 put
// it: sorted into the third-party block, plain imports before from-imports;
// a new block after the standard library's when there is no third-party
// one; a from-import name sorted into its statement, which is laid out
// one name a line when the joined line would be too long.
func TestAddedImportsGoWhereIsortPutsThem(t *testing.T) {
	for _, c := range []struct {
		name, src, want string
		from            bool // EnsureFromImport(transformers, BitsAndBytesConfig), else EnsureImport(torch)
	}{
		{"before the from-imports", "from peft import LoraConfig\nfrom trl import SFTTrainer\n\nx = 1\n",
			"import torch\nfrom peft import LoraConfig\nfrom trl import SFTTrainer\n\nx = 1\n", false},
		{"after the stdlib block", "import os\nimport sys\n\nfrom peft import LoraConfig\n",
			"import os\nimport sys\n\nimport torch\nfrom peft import LoraConfig\n", false},
		{"sorted among plain imports", "import numpy as np\nimport transformers\nfrom peft import LoraConfig\n",
			"import numpy as np\nimport torch\nimport transformers\nfrom peft import LoraConfig\n", false},
		{"after the last plain import", "import accelerate\nimport numpy\nfrom peft import LoraConfig\n",
			"import accelerate\nimport numpy\nimport torch\nfrom peft import LoraConfig\n", false},
		{"with the comment above its neighbour", "import os\n\n# adapters\nfrom peft import LoraConfig\n",
			"import os\n\nimport torch\n# adapters\nfrom peft import LoraConfig\n", false},
		{"first-party block after", "import os\n\nfrom transformers import Trainer\n\nfrom .data import load\n",
			"import os\n\nimport torch\nfrom transformers import Trainer\n\nfrom .data import load\n", false},
		{"a block of its own", "import os\nimport sys\n\nfrom .data import load\n",
			"import os\nimport sys\n\nimport torch\n\nfrom .data import load\n", false},
		{"no imports: first", "x = 1\n", "import torch\nx = 1\n", false},
		{"joined, sorted", "from transformers import AutoModelForCausalLM, Trainer\n",
			"from transformers import AutoModelForCausalLM, BitsAndBytesConfig, Trainer\n", true},
		{"joined, last", "from transformers import AutoModelForCausalLM as M\n",
			"from transformers import AutoModelForCausalLM as M, BitsAndBytesConfig\n", true},
		{"too long joined: one a line", "from transformers import AutoModelForCausalLM, AutoTokenizer, Trainer, TrainingArguments\n",
			"from transformers import (\n    AutoModelForCausalLM,\n    AutoTokenizer,\n    BitsAndBytesConfig,\n    Trainer,\n    TrainingArguments,\n)\n", true},
		{"a from-import of its own", "import os\n\nfrom peft import LoraConfig\nfrom trl import SFTTrainer\n",
			"import os\n\nfrom peft import LoraConfig\nfrom transformers import BitsAndBytesConfig\nfrom trl import SFTTrainer\n", true},
	} {
		f := fileOf(t, c.src)
		var edits []Edit
		if c.from {
			_, edits = pyedit.EnsureFromImport(f, "transformers", "BitsAndBytesConfig")
		} else {
			_, edits = pyedit.EnsureImport(f, "torch")
		}
		out, err := finding.ApplyEdits([]byte(c.src), edits)
		if err != nil || string(out) != c.want {
			t.Errorf("%s: %v\ngot:\n%s\nwant:\n%s", c.name, err, out, c.want)
		}
	}
}
