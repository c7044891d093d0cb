package rewrite

import (
	"fmt"
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

// fileOf parses src and builds its File, for tests of the program model.
func fileOf(t *testing.T, src string) *semantic.Facts {
	t.Helper()
	tree, err := parse([]byte(src), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tree.Close)
	q, err := semantic.LoadQueries()
	if err != nil {
		t.Fatal(err)
	}
	s := semantic.NewSource([]byte(src))
	s.Root = goTree(tree).Root()
	return semantic.BuildFacts(s, goTree(tree), q)
}

const modelHead = "from transformers import AutoModelForCausalLM as AM, AutoTokenizer, Trainer, pipeline\nfrom peft import get_peft_model, PeftModel, LoraConfig\nfrom trl import DPOTrainer\nimport torch\n"

// Each load's verdict, in source order, follows where its value goes.
func TestTrainingLoadsByFlow(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []semantic.Use
	}{
		{"peft", "model = AM.from_pretrained('m')\nmodel = get_peft_model(model, LoraConfig())\n", []semantic.Use{semantic.Training}},
		{"chained to and trainer", "model = AM.from_pretrained('m').to('cuda')\nTrainer(model=model).train()\n", []semantic.Use{semantic.Training}},
		{"notebook merge after training",
			"model = AM.from_pretrained('m')\nmodel = get_peft_model(model, LoraConfig())\nTrainer(model=model).train()\n" +
				"base = AM.from_pretrained('m', torch_dtype=torch.float16)\nmerged = PeftModel.from_pretrained(base, 'out').merge_and_unload()\nmerged.push_to_hub('me/x')\n",
			[]semantic.Use{semantic.Training, semantic.NotTraining}},
		{"same name reloaded for inference",
			"model = AM.from_pretrained('m')\nTrainer(model=model).train()\nmodel = AM.from_pretrained('out')\nmodel.eval()\nmodel.generate()\n",
			[]semantic.Use{semantic.Training, semantic.NotTraining}},
		{"returned to a training caller",
			"def load(n):\n    m = AM.from_pretrained(n)\n    return m\n\ndef main():\n    model = load('m')\n    Trainer(model=model).train()\n",
			[]semantic.Use{semantic.Training}},
		{"returned to training and chat callers",
			"def load(n):\n    return AM.from_pretrained(n)\n\ndef train():\n    Trainer(model=get_peft_model(load('m'), LoraConfig())).train()\n\ndef chat():\n    load('out').generate()\n",
			[]semantic.Use{semantic.Shared}},
		{"library loader nobody calls (never edited)",
			"def load(n):\n    return AM.from_pretrained(n)\n\ndef train(m):\n    Trainer(model=m).train()\n",
			[]semantic.Use{semantic.NotTraining}},
		{"returned to nobody from a training scope",
			"def train(n):\n    m = AM.from_pretrained(n)\n    m.gradient_checkpointing_enable()\n    Trainer(model=other).train()\n    return m\n",
			[]semantic.Use{semantic.Unseen}},
		{"loader in a file that trains nothing",
			"def load(n):\n    return AM.from_pretrained(n)\n",
			[]semantic.Use{semantic.NotTraining}},
		{"self attribute and an optimizer",
			"class Runner:\n    def __init__(self):\n        self.model = AM.from_pretrained('m')\n\n    def fit(self):\n        opt = torch.optim.AdamW(self.model.parameters())\n        opt.step()\n",
			[]semantic.Use{semantic.Training}},
		{"kwargs dict to the trainer",
			"model = AM.from_pretrained('m')\nkw = dict(model=model, args=None)\nTrainer(**kw).train()\n",
			[]semantic.Use{semantic.Training}},
		{"dict literal entry",
			"model = AM.from_pretrained('m')\nkw = {'model': model}\nTrainer(**kw).train()\n",
			[]semantic.Use{semantic.Training}},
		{"tuple return unpacked",
			"def load():\n    m = AM.from_pretrained('m')\n    tok = AutoTokenizer.from_pretrained('m')\n    return m, tok\n\nmodel, tok = load()\nmodel = get_peft_model(model, LoraConfig())\n",
			[]semantic.Use{semantic.Training}},
		{"reference model of DPO",
			"model = AM.from_pretrained('m')\nref = AM.from_pretrained('m')\nDPOTrainer(model=model, ref_model=ref).train()\n",
			[]semantic.Use{semantic.Training, semantic.NotTraining}},
		{"accelerate",
			"from accelerate import Accelerator\naccelerator = Accelerator()\nmodel = AM.from_pretrained('m')\nmodel, opt = accelerator.prepare(model, opt)\n",
			[]semantic.Use{semantic.Training}},
		{"plain loop with backward",
			"model = AM.from_pretrained('m')\nfor b in data:\n    out = model(**b)\n    out.loss.backward()\n",
			[]semantic.Use{semantic.Training}},
		{"frozen teacher under no_grad",
			"teacher = AM.from_pretrained('t')\nstudent = AM.from_pretrained('s')\nfor b in data:\n    with torch.no_grad():\n        t = teacher(**b)\n    loss = student(**b).loss\n    loss.backward()\n",
			[]semantic.Use{semantic.NotTraining, semantic.Training}},
		{"parameter of a training function",
			"def train(m):\n    Trainer(model=m).train()\n\nmodel = AM.from_pretrained('m')\ntrain(model)\n",
			[]semantic.Use{semantic.Training}},
		{"pipeline",
			"model = AM.from_pretrained('m')\npipe = pipeline('text-generation', model=model)\nTrainer(model=other).train()\n",
			[]semantic.Use{semantic.NotTraining}},
		{"into an imported trainer factory",
			"from mylib import make_trainer\nmodel = AM.from_pretrained('m')\ntrainer = make_trainer(model)\nTrainer(model=other).train()\n",
			[]semantic.Use{semantic.Unseen}},
		{"rebound by an imported patch",
			"from mylib import patch\nmodel = AM.from_pretrained('m')\nmodel = patch(model, 'x')\nTrainer(model=model).train()\n",
			[]semantic.Use{semantic.Training}},
		{"peft reload trainable",
			"base = AM.from_pretrained('m')\nmodel = PeftModel.from_pretrained(base, 'a', is_trainable=True)\nTrainer(model=model).train()\n",
			[]semantic.Use{semantic.Training}},
		{"module global read by the training function",
			"model = AM.from_pretrained('m')\n\ndef train():\n    Trainer(model=model).train()\n\ntrain()\n",
			[]semantic.Use{semantic.Training}},
		{"bound in one branch, trained after",
			"if big:\n    res_model = AM.from_pretrained('m')\nelif small:\n    res_model = AM.from_pretrained('s')\nelse:\n    res_model = None\nTrainer(model=res_model).train()\n",
			[]semantic.Use{semantic.Training, semantic.Training}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := fileOf(t, modelHead+c.src)
			loads := f.ModelLoads()
			var got []semantic.Use
			var why []string
			for _, l := range loads {
				got = append(got, l.Use)
				why = append(why, l.Why)
			}
			if len(got) != len(c.want) {
				t.Fatalf("%d loads, want %d (%v)", len(got), len(c.want), why)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("load %d: use %d (%s), want %d", i, got[i], why[i], c.want[i])
				}
				if why[i] == "" {
					t.Errorf("load %d: no reason given", i)
				}
			}
		})
	}
}

// Reasons name the sink and its line, for messages.
func TestTrainingLoadReason(t *testing.T) {
	f := fileOf(t, modelHead+"model = AM.from_pretrained('m')\nmodel = get_peft_model(model, LoraConfig())\n")
	if why := f.ModelLoads()[0].Why; why != "passed to get_peft_model at line 6" {
		t.Errorf("reason %q", why)
	}
}

// Values give every value a name may hold here, whatever the order of the
// branches, and only user choices count as decided at run time.
func TestValues(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      string // the values joined by " | ", then "?" when not all known
	}{
		{"if else either order", "if a:\n    d = torch.bfloat16\nelse:\n    d = torch.float32\nuse(d)\n", "torch.bfloat16 | torch.float32"},
		{"if else reversed", "if a:\n    d = torch.float32\nelse:\n    d = torch.bfloat16\nuse(d)\n", "torch.float32 | torch.bfloat16"},
		{"literal attribute", "cfg.use_fast_kernels = True\nuse(\"sdpa\" if cfg.use_fast_kernels else None)\n", `"sdpa"`},
		{"hardware check", "d = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float32\nuse(d)\n", "torch.bfloat16 | torch.float32"},
		{"user choice", "d = torch.bfloat16 if args.bf16 else torch.float32\nuse(d)\n", "torch.bfloat16 if args.bf16 else torch.float32 ?"},
		{"tuple return", "def pick():\n    return torch.bfloat16, 3\n\nd, n = pick()\nuse(d)\n", "torch.bfloat16"},
		{"later assignment does not count", "d = 'a'\nuse(d)\nd = 'b'\n", "'a'"},
		{"only one branch", "if a:\n    d = 'x'\nuse(d)\n", "'x' ?"},
		{"deleted on one path", "d = 'x'\nif a:\n    del d\nuse(d)\n", "'x' ?"},
		{"function reads the module", "D = 'x'\n\ndef f():\n    use(D)\n\nf()\n", "'x'"},
		{"parameter", "def f(d='x'):\n    use(d)\n", "?"},
		{"loop rebinding", "d = 'a'\nfor i in r:\n    use(d)\n    d = 'b'\n", "'a' | 'b'"},
		{"try", "try:\n    d = 'a'\nexcept E:\n    d = 'b'\nuse(d)\n", "'a' | 'b'"},
		{"return in a branch", "def f():\n    if a:\n        d = 'a'\n    else:\n        return\n    use(d)\n", "'a'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := fileOf(t, "import torch\n"+c.src)
			var use *semantic.Call
			for _, call := range f.Calls {
				if call.Dotted == "use" {
					use = call
				}
			}
			vals, ok := f.Values(semantic.RealArgs(use.Args)[0])
			var parts []string
			for _, v := range vals {
				parts = append(parts, v.Content(f.Src.Text))
			}
			got := strings.Join(parts, " | ")
			if !ok {
				got = strings.TrimSpace(got + " ?")
			}
			if got != c.want {
				t.Errorf("values %q, want %q", got, c.want)
			}
		})
	}
}

// Definite assignment: a read reached on some path with the name unbound.
func TestMaybeUnbound(t *testing.T) {
	for _, c := range []struct {
		name, src string
		unbound   bool
	}{
		{"all branches", "if a:\n    m = 1\nelif b:\n    m = 2\nelse:\n    m = 3\nm.x\n", false},
		{"one branch", "if a:\n    m = 1\nelif b:\n    m = 2\nm.x\n", true},
		{"deleted", "m = 1\nif a:\n    del m\nm.x\n", true},
		{"raise in the other", "if a:\n    m = 1\nelse:\n    raise E\nm.x\n", false},
		{"continue in a loop", "for i in r:\n    if a:\n        continue\n    m = 1\n    m.x\n", false},
		{"loop body may not run", "for i in r:\n    m = 1\nm.x\n", true},
		{"while true with break", "while True:\n    m = 1\n    break\nm.x\n", false},
		{"try body in handler", "try:\n    m = 1\nexcept E:\n    m.x\n", true},
		{"try finally re-raises", "try:\n    m = 1\nfinally:\n    pass\nm.x\n", false},
		{"with", "with open(p) as m:\n    pass\nm.x\n", false},
		{"match without wildcard", "match a:\n    case 1:\n        m = 1\nm.x\n", true},
		{"match with wildcard", "match a:\n    case 1:\n        m = 1\n    case _:\n        m = 2\nm.x\n", false},
		{"main guard", "if __name__ == \"__main__\":\n    m = 1\nm.x\n", false},
		{"global in function", "m = 1\n\ndef f():\n    m.x\n\nf()\n", false},
		{"local shadows", "m = 1\n\ndef f():\n    m.x\n    m = 2\n\nf()\n", true},
		{"for else", "for i in r:\n    if a:\n        m = 1\n        break\nelse:\n    m = 2\nm.x\n", false},
		{"comprehension", "[m for m in r]\nm.x\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := fileOf(t, c.src)
			var read semantic.Reach
			found := false
			var walk func(n *syntree.Node)
			walk = func(n *syntree.Node) {
				if n.Type() == "attribute" && n.Content(f.Src.Text) == "m.x" {
					read = f.ReachingAt(n.ChildByFieldName("object"))
					found = true
				}
				for i := 0; i < int(n.NamedChildCount()); i++ {
					walk(n.NamedChild(i))
				}
			}
			walk(f.Root)
			if !found {
				t.Fatal("no read of m.x")
			}
			if read.MaybeUnbound != c.unbound {
				t.Errorf("maybe unbound %v, want %v", read.MaybeUnbound, c.unbound)
			}
		})
	}
}

// The tokenizer of a model is never the tokenizer of another model.
func TestTokenizerFor(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"passed to the trainer",
			"tok = AutoTokenizer.from_pretrained(a)\nother = AutoTokenizer.from_pretrained(b)\nmodel = AM.from_pretrained(c)\nTrainer(model=model, processing_class=other).train()\n", "other"},
		{"same id variable",
			"emb_tok = AutoTokenizer.from_pretrained(EMB)\ntok = AutoTokenizer.from_pretrained(BASE)\nmodel = AM.from_pretrained(BASE)\nemb = AM.from_pretrained(EMB)\nTrainer(model=model).train()\n", "tok"},
		{"same literal through a name",
			"NAME = 'meta-llama/Llama-3.1-8B'\ntok = AutoTokenizer.from_pretrained('meta-llama/Llama-3.1-8B')\nmodel = AM.from_pretrained(NAME)\nTrainer(model=model).train()\n", "tok"},
		{"an embedding model's tokenizer is not ours",
			"emb_tok = AutoTokenizer.from_pretrained(EMB)\nemb = AM.from_pretrained(EMB)\nmodel = AM.from_pretrained(BASE)\nTrainer(model=model).train()\n", ""},
		{"the only one",
			"tok = AutoTokenizer.from_pretrained(path)\nmodel = AM.from_pretrained(BASE)\nTrainer(model=model).train()\n", "tok"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := fileOf(t, modelHead+c.src)
			var trained *semantic.Load
			for _, l := range f.ModelLoads() {
				if l.Use == semantic.Training {
					trained = l
				}
			}
			if trained == nil {
				t.Fatal("no training load")
			}
			tok, why := f.TokenizerFor(trained)
			got := ""
			if tok != nil {
				got = tok.Text
			}
			if got != c.want || why == "" {
				t.Errorf("tokenizer %q (%s), want %q", got, why, c.want)
			}
		})
	}
}

// unsloth's loader returns (model, tokenizer): the model is the first.
func TestTrainingLoadUnslothTuple(t *testing.T) {
	f := fileOf(t, "from unsloth import FastLanguageModel\nmodel, tok = FastLanguageModel.from_pretrained(model_name='m')\nmodel = FastLanguageModel.get_peft_model(model, r=8)\n")
	if l := f.ModelLoads(); len(l) != 1 || l[0].Use != semantic.Training {
		t.Fatalf("loads %v", l)
	}
}

// A scope's training use is worked out once per depth: in a test file
// where twenty classes each define the same five helpers, each calling
// the one below, asking level by level made 20^4 evaluations (minutes
// on peft's test files).
func TestTrainingUseIsWorkedOutOncePerScope(t *testing.T) {
	var b strings.Builder
	b.WriteString(modelHead)
	for c := range 20 {
		fmt.Fprintf(&b, "class Case%d:\n    def l0(self):\n        return AM.from_pretrained('m')\n", c)
		for k := 1; k < 5; k++ {
			fmt.Fprintf(&b, "    def l%d(self):\n        return self.l%d()\n", k, k-1)
		}
		b.WriteString("    def test_train(self):\n        Trainer(model=self.l4()).train()\n")
	}
	f := fileOf(t, b.String())
	for _, fn := range f.Funcs {
		f.TrainingUse(fn)
	}
	if got := f.TrainingUse(f.Funcs[0]); got != semantic.Training {
		t.Errorf("l0 of the first class: %v, want training (its callers' callers train)", got)
	}
	if limit := 5 * len(f.Funcs); f.UseEvals > limit {
		t.Errorf("%d evaluations of training use for %d scopes, want at most %d", f.UseEvals, len(f.Funcs), limit)
	}
}

// The central verdict: any training sink trains; else a path the flow
// cannot see leaves the load undecided; else it is not trained; a load
// whose value reaches nothing at all is undecided. Each order swapped
// fails a row.
func TestVerdictOrder(t *testing.T) {
	s := func(uses ...semantic.Use) []semantic.Sink {
		var out []semantic.Sink
		for _, u := range uses {
			out = append(out, semantic.Sink{Use: u, Why: fmt.Sprint(u)})
		}
		return out
	}
	for _, c := range []struct {
		sinks []semantic.Sink
		want  semantic.Use
	}{
		{s(semantic.NotTraining, semantic.Training), semantic.Training},
		{s(semantic.Unseen, semantic.Training), semantic.Training},
		{s(semantic.Training, semantic.Shared), semantic.Shared},
		{s(semantic.NotTraining, semantic.Unseen), semantic.Unseen},
		{s(semantic.Unseen, semantic.NotTraining), semantic.Unseen},
		{s(semantic.NotTraining), semantic.NotTraining},
		{nil, semantic.Unseen},
	} {
		if got, _ := semantic.Verdict(c.sinks); got != c.want {
			t.Errorf("verdict(%v) = %v, want %v", c.sinks, got, c.want)
		}
	}
}

// An AutoPeftModel checkpoint trains only with is_trainable=True: without
// it the load is an inference or merge load whatever its value reaches;
// with it the load carries its adapter.
func TestAutoPeftModelTrainsOnlyWithIsTrainable(t *testing.T) {
	const tmpl = `from peft import AutoPeftModelForCausalLM
from transformers import Trainer, TrainingArguments

model = AutoPeftModelForCausalLM.from_pretrained("out/adapter"%s)
Trainer(model=model, args=TrainingArguments("o")).train()
`
	for _, c := range []struct {
		kw      string
		use     semantic.Use
		adapter bool
	}{
		{"", semantic.NotTraining, false},
		{", is_trainable=False", semantic.NotTraining, false},
		{", is_trainable=True", semantic.Training, true},
	} {
		loads := fileOf(t, fmt.Sprintf(tmpl, c.kw)).ModelLoads()
		if len(loads) != 1 {
			t.Fatalf("%q: %d loads", c.kw, len(loads))
		}
		if l := loads[0]; l.Use != c.use || l.Adapter != c.adapter {
			t.Errorf("AutoPeftModel load with %q: use %v adapter %v, want %v %v (%s)", c.kw, l.Use, l.Adapter, c.use, c.adapter, l.Why)
		}
	}
}
