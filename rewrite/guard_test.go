package rewrite

import (
	"slices"
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/pyedit"
	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

// insertingRule is a rule that inserts line after the first top-level
// statement whose text holds marker: the placement the binding guard must
// refuse in the shapes below (the old "after the whole statement").
func insertingRule(marker, line string) *Rule {
	return &Rule{Code: "LTF999", Name: "test-insertion", Severity: SeverityWarning, Run: func(p *Pass) {
		if strings.Contains(string(p.Src.Text), line) {
			return // done
		}
		root := p.Facts.Root
		for i := 0; i < int(root.NamedChildCount()); i++ {
			stmt := root.NamedChild(i)
			if !strings.Contains(stmt.Content(p.Src.Text), marker) {
				continue
			}
			e, ok := pyedit.InsertAfter(p.Src, stmt, []string{line})
			if !ok {
				return
			}
			p.Report(Finding{Start: stmt.Start(), End: stmt.End(), Message: "test", Fix: &Fix{Message: "insert", Edits: []Edit{e}}})
			return
		}
	}}
}

// The binding guard drops a fix whose line reads a name that some path
// leaves unbound, that may hold a string id, or that comes after training;
// the finding says why, and the file is left as it was.
func TestBindingGuardDrops(t *testing.T) {
	const head = "import torch\nfrom transformers import AutoModelForCausalLM as AM, Trainer\nfrom peft import PeftModel, get_peft_model\n"
	for _, c := range []struct {
		name, src, marker, line, why string
	}{
		{"bound in one branch",
			"if mode == 'train':\n    res_model = AM.from_pretrained('m')\n    Trainer(model=res_model).train()\nelif mode == 'eval':\n    pass\n",
			"if mode", "res_model.config.use_cache = False", "res_model may be unbound where line 9 reads it"},
		{"deleted in its branch",
			"if resume:\n    base = AM.from_pretrained('m')\n    model = PeftModel.from_pretrained(base, resume, is_trainable=True)\n    del base\nelse:\n    model = get_peft_model(AM.from_pretrained('m'), cfg)\n",
			"if resume", "base.config.use_cache = False", "base is not bound where line 10 reads it"},
		{"still the id string",
			"model = args.model_name_or_path\nif args.lora:\n    model = AM.from_pretrained(model)\n",
			"if args.lora", "model.config.use_cache = False", "model may hold a model id (args.model_name_or_path, line 4)"},
		{"after training",
			"model = AM.from_pretrained('m')\ntrainer = Trainer(model=model)\ntrainer.train()\n",
			"trainer.train()", "model.config.use_cache = False", "comes after the training at line 6"},
	} {
		t.Run(c.name, func(t *testing.T) {
			eng, err := New(Options{Select: []string{"LTF005"}})
			if err != nil {
				t.Fatal(err)
			}
			eng.rules = []*Rule{insertingRule(c.marker, c.line)}
			src := head + c.src
			res, err := eng.Fix([]byte(src), Versions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Changed {
				t.Errorf("the fix was applied:\n%s", res.Output)
			}
			if len(res.Findings) != 1 {
				t.Fatalf("findings %v", res.Findings)
			}
			if r := res.Findings[0].Reason; !strings.HasPrefix(r, GuardPrefix) || !strings.Contains(r, c.why) {
				t.Errorf("reason %q, want the guard saying %q", r, c.why)
			}
		})
	}
}

// The same insertion where everything it reads is bound is applied: the
// guard is no blanket refusal.
func TestBindingGuardKeepsBoundInsertion(t *testing.T) {
	eng, err := New(Options{Select: []string{"LTF005"}})
	if err != nil {
		t.Fatal(err)
	}
	eng.rules = []*Rule{insertingRule("res_model = ", "res_model.config.use_cache = False")}
	src := "from transformers import AutoModelForCausalLM as AM\nres_model = AM.from_pretrained('m')\nres_model.train()\n"
	res, err := eng.Fix([]byte(src), Versions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || !strings.Contains(string(res.Output), "res_model.config.use_cache = False\nres_model.train()") {
		t.Errorf("not applied: %q (%v)", res.Output, res.Findings)
	}
}

// A line after one training and before a second model's training still
// counts: only a line after the last training of its scope is refused.
func TestBindingGuardSecondTraining(t *testing.T) {
	eng, err := New(Options{Select: []string{"LTF005"}})
	if err != nil {
		t.Fatal(err)
	}
	eng.rules = []*Rule{insertingRule("critic = ", "critic.config.use_cache = False")}
	src := "from transformers import AutoModelForCausalLM as AM, Trainer\nTrainer(model=AM.from_pretrained('a')).train()\ncritic = AM.from_pretrained('b')\ncritic_trainer = Trainer(model=critic)\ncritic_trainer.train()\n"
	res, err := eng.Fix([]byte(src), Versions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed {
		t.Errorf("not applied: %v", res.Findings[0].Reason)
	}
}

// A fix the guard refuses leaves the text as it was, so the pass is chosen
// again without it from the findings it had: the rules do not run again
// on the same text. The other fix goes in, and (a fix having been
// refused) a pass over the output confirms it.
func TestBindingGuardChoosesAgainWithoutRunningTheRules(t *testing.T) {
	eng, err := New(Options{Select: []string{"LTF005"}})
	if err != nil {
		t.Fatal(err)
	}
	runs := 0
	refused := insertingRule("if mode", "res_model.config.use_cache = False")
	counted := refused.Run
	refused.Run = func(p *Pass) { runs++; counted(p) }
	fine := &Rule{Code: "LTF998", Name: "fine", Severity: SeverityInfo, Run: func(p *Pass) {
		if !strings.HasPrefix(string(p.Src.Text), "done = True\n") {
			p.Report(Finding{Message: "add done", Fix: &Fix{Edits: []Edit{{Start: 0, End: 0, NewText: "done = True\n"}}}})
		}
	}}
	eng.rules = []*Rule{refused, fine}
	src := "from transformers import AutoModelForCausalLM as AM, Trainer\nif mode == 'train':\n    res_model = AM.from_pretrained('m')\n    Trainer(model=res_model).train()\nelif mode == 'eval':\n    pass\n"
	res, err := eng.Fix([]byte(src), Versions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "done = True\n" + src; string(res.Output) != want {
		t.Errorf("output %q, want %q", res.Output, want)
	}
	if runs != 2 {
		t.Errorf("the rules ran %d times, want 2 (the first pass and the confirming one)", runs)
	}
	if len(res.Findings) != 2 || res.Findings[0].Outcome != finding.OutcomeFixed || !strings.HasPrefix(res.Findings[1].Reason, GuardPrefix) {
		t.Errorf("findings %v: want the added line fixed, the guard's refusal kept", res.Findings)
	}
}

// readsIn, which finds the children over the range by a binary search,
// lists what the walk of every child lists, on every fixture, for the
// range of each line and of a few lines.
func TestReadsInEqualsFullWalk(t *testing.T) {
	var plain func(n *syntree.Node, from, to int, reads []*syntree.Node) []*syntree.Node
	plain = func(n *syntree.Node, from, to int, reads []*syntree.Node) []*syntree.Node {
		if int(n.EndByte()) <= from || int(n.StartByte()) >= to {
			return reads
		}
		switch n.Type() {
		case "identifier":
			if int(n.StartByte()) >= from && isRead(n) {
				reads = append(reads, n)
			}
			return reads
		case "comment", "string":
			return reads
		}
		for _, c := range n.NamedChildren() {
			reads = plain(c, from, to, reads)
		}
		return reads
	}
	ranges, found := 0, 0
	for _, text := range fixtureTexts(t) {
		tree, err := parse(text, 0)
		if err != nil {
			t.Fatal(err)
		}
		root := goTree(tree).Root()
		starts := semantic.NewSource(text).LineStarts
		for i, from := range starts {
			for _, k := range []int{1, 3} {
				to := len(text)
				if i+k < len(starts) {
					to = starts[i+k]
				}
				want := plain(root, from, to, nil)
				got := readsIn(root, from, to)
				if !slices.Equal(got, want) {
					t.Errorf("[%d, %d) of %.40q: %d reads, the full walk %d", from, to, text, len(got), len(want))
				}
				ranges++
				found += len(got)
			}
		}
		tree.Close()
	}
	if ranges < 1000 || found < 1000 {
		t.Fatalf("only %d ranges, %d reads compared", ranges, found)
	}
}
