package rewrite

import (
	"context"
	"strings"
	"testing"
)

func TestFixFrozenLeavesFrozenBytesAndMovesTheSpans(t *testing.T) {
	src := `import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments

model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B", torch_dtype=torch.bfloat16, device_map="auto", attn_implementation="eager")
model = get_peft_model(model, LoraConfig(r=8))
trainer = Trainer(model=model, args=TrainingArguments(output_dir="o", logging_nan_inf_filter=False))
trainer.train()
`
	e, err := New(Options{Select: []string{"LTF001", "LTF003"}})
	if err != nil {
		t.Fatal(err)
	}
	auto := strings.Index(src, `"auto"`)
	tail := strings.Index(src, "trainer.train()")
	frozen := []Span{{Start: auto, End: auto + len(`"auto"`)}, {Start: tail, End: tail + len("trainer.train()")}}
	res, err := e.FixFrozen(context.Background(), []byte(src), Versions{}, frozen)
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Output)
	if !strings.Contains(out, "torch_dtype=torch.float32") {
		t.Errorf("the fix outside the frozen spans was not applied:\n%s", out)
	}
	if !strings.Contains(out, `device_map="auto"`) {
		t.Errorf("a frozen span was edited:\n%s", out)
	}
	for i, s := range res.Frozen {
		if got, want := out[s.Start:s.End], src[frozen[i].Start:frozen[i].End]; got != want {
			t.Errorf("span %d lies on %q in the output, want %q", i, got, want)
		}
	}
	// Plain Fix edits it.
	res, _ = e.Fix([]byte(src), Versions{})
	if !strings.Contains(string(res.Output), "device_map=None") {
		t.Error("Fix without frozen spans left device_map alone")
	}
}

func TestShiftSpans(t *testing.T) {
	frozen := []Span{{Start: 10, End: 20}}
	moved := shiftSpans(frozen, []Edit{{Start: 10, End: 10, NewText: "ab"}, {Start: 20, End: 20, NewText: "cd"}, {Start: 0, End: 3}})
	if moved[0] != (Span{Start: 9, End: 19}) {
		t.Errorf("shiftSpans: %v, want {9 19}", moved[0])
	}
}

// A wall (a notebook's cell boundary) keeps every fix on one side of it,
// with its finding: a fix that spans it, or lies past it from its finding,
// is not applied (no finding could report it in one cell), and the others
// are.
func TestFixesDoNotReachAcrossAWall(t *testing.T) {
	src := "a = 1\nb = 2\n\nc = 3\n" // cells "a = 1\nb = 2\n" and "c = 3\n"
	wall := strings.Index(src, "\n\n") + 1
	report := func(code string, at int, edits ...Edit) *Rule {
		return &Rule{Code: code, Name: code, Severity: SeverityInfo, Run: func(p *Pass) {
			if strings.Contains(string(p.Src.Text), "x = 0") {
				return
			}
			p.Report(Finding{Start: at, End: at + 1, Message: code, Fix: &Fix{Edits: edits}})
		}}
	}
	c := strings.Index(src, "c = 3")
	e := &Engine{rules: []*Rule{
		report("LTF901", 0, Edit{Start: 0, End: 6}, Edit{Start: c, End: c, NewText: "a = 1\n"}), // spans the wall
		report("LTF902", 0, Edit{Start: c + 6, End: c + 6, NewText: "y = 0\n"}),                 // past the wall from its finding
		report("LTF903", c, Edit{Start: c + 6, End: c + 6, NewText: "x = 0\n"}),                 // in its finding's cell
	}}
	res, err := e.FixFrozen(context.Background(), []byte(src), Versions{}, []Span{{Start: wall, End: wall + 1, Wall: true}})
	if err != nil {
		t.Fatal(err)
	}
	if want := src + "x = 0\n"; string(res.Output) != want {
		t.Errorf("output %q, want %q", res.Output, want)
	}
}
