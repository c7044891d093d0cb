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
