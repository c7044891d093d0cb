package rewrite

import (
	"regexp"
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/pyedit"
)

// LaidOut keeps a line that fits, splits a long comment at words and wraps
// a long condition as black does; every line it writes fits unless one
// word or operand alone is longer.
func TestLaidOut(t *testing.T) {
	tests := []struct {
		line  string
		limit int
		want  []string
	}{
		{"    # short", 88, []string{"    # short"}},
		{"    # one two three four", 16, []string{"    # one two", "    # three four"}},
		{"# averyveryverylongword tail", 10, []string{"# averyveryverylongword", "# tail"}},
		{"# éé ff gg", 7, []string{"# éé ff", "# gg"}}, // characters, not bytes
		{"x = 'a' + 'b' + 'c' + 'd'", 10, []string{"x = 'a' + 'b' + 'c' + 'd'"}},
		{"elif aaaa and bbbb:", 18, []string{"elif (", "    aaaa and bbbb", "):"}},
		{"if aaaa and bbbb:", 16, []string{"if (", "    aaaa", "    and bbbb", "):"}},
		{"  elif aaaa and bbbb or cccc:", 16, []string{"  elif (", "      aaaa", "      and bbbb", "      or cccc", "  ):"}},
		{`if "a and b" in v and f(x or y):`, 20, []string{"if (", `    "a and b" in v`, "    and f(x or y)", "):"}},
		{"if aaaa and (bbbb or cccc):", 16, []string{"if (", "    aaaa", "    and (", "        bbbb", "        or cccc", "    )", "):"}},
		{"if x:  # aaaa bbbb cccc", 10, []string{"if x:  # aaaa bbbb cccc"}},
	}
	for _, tc := range tests {
		got := pyedit.LaidOut(tc.line, "    ", tc.limit)
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("laidOut(%q, %d):\n got %q\nwant %q", tc.line, tc.limit, got, tc.want)
		}
	}
}

// An edit that keeps to its own line of a one-item-a-line list does not
// claim the list: another fix's addition goes in in the same pass, where
// a second pass would have put it. Where the addition would land next to
// the edit (the last item without a comma after it), the addition waits
// for the next pass, so that the comment stays on its item's line.
func TestLineLocalEditLeavesTheListToAnAddition(t *testing.T) {
	head := "from transformers import TrainingArguments, Trainer\n\ndef main(model, data):\n    args = TrainingArguments(\n        output_dir=\"out\",\n        bf16=True,\n"
	tail := "    Trainer(model=get_peft_model(model, lora), args=args, train_dataset=data).train()\n"
	for _, c := range []struct {
		name, last, want string
		passes           int
	}{
		{"comma after the last item", "        torch_compile=True,\n    )\n",
			"        torch_compile=False,  # loratune-fix LTF006: set True again once training is stable\n        logging_nan_inf_filter=False,\n    )\n", 1},
		{"no comma after the last item", "        torch_compile=True\n    )\n",
			"        torch_compile=False,  # loratune-fix LTF006: set True again once training is stable\n        logging_nan_inf_filter=False\n    )\n", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, err := New(Options{Select: []string{"LTF006", "LTF009"}})
			if err != nil {
				t.Fatal(err)
			}
			res, err := e.Fix([]byte(head+c.last+tail), Versions{})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := string(res.Output), head+c.want+tail; got != want {
				t.Errorf("output:\n%s\nwant:\n%s", got, want)
			}
			if res.Passes != c.passes {
				t.Errorf("%d passes, want %d", res.Passes, c.passes)
			}
		})
	}
}

// A call laid out again for an added keyword (LTF002) and a value replaced
// inside another of its arguments (LTF001) go in together in one pass: the
// layout's edits lie between the arguments, around the one replaced.
func TestRelayoutAndAValueInsideComposeInOnePass(t *testing.T) {
	e, err := New(Options{Select: []string{"LTF001", "LTF002"}})
	if err != nil {
		t.Fatal(err)
	}
	head := "import torch\nimport transformers\nfrom peft import get_peft_model\n\n"
	src := head + "model = transformers.Phi3ForCausalLM.from_pretrained(name_or_path, low_cpu_mem_usage=True, torch_dtype=torch.bfloat16)\nmodel = get_peft_model(model, cfg)\n"
	res, err := e.Fix([]byte(src), Versions{})
	if err != nil {
		t.Fatal(err)
	}
	want := head + "model = transformers.Phi3ForCausalLM.from_pretrained(\n    name_or_path,\n    low_cpu_mem_usage=True,\n    torch_dtype=torch.float32,\n    attn_implementation=\"eager\",\n)\nmodel = get_peft_model(model, cfg)\n"
	if string(res.Output) != want {
		t.Errorf("output:\n%s\nwant:\n%s", res.Output, want)
	}
	if res.Passes != 1 || len(res.Findings) != 2 {
		t.Errorf("%d passes, findings %v: want both fixed in one pass", res.Passes, res.Findings)
	}
	if again, err := e.Fix(res.Output, Versions{}); err != nil || again.Changed {
		t.Errorf("the output is not a fixed point: %v %v", err, again.Findings)
	}
}

// ConditionOf reads what the regexp ^(if|elif|while) (.+):$ reads, on
// every line of every fixture (indentation dropped) and on lines at the
// edges of the pattern.
func TestConditionOfEqualsRegexp(t *testing.T) {
	re := regexp.MustCompile(`^(if|elif|while) (.+):$`)
	lines := []string{"if x:", "if :", "if  :", "if x:y:", "elif a == b:", "while True:", "while\tx:", "if x:\n", "if x: ", "ifx:",
		"if x", "if", "if ", "whilex:", "if \xff:", "if a\nb:", "elif  :", "else:", "if (a and\n", "if x::"}
	for _, text := range fixtureTexts(t) {
		for _, line := range strings.Split(string(text), "\n") {
			lines = append(lines, strings.TrimLeft(line, " \t"))
		}
	}
	matched := 0
	for _, line := range lines {
		keyword, cond, ok := pyedit.ConditionOf(line)
		m := re.FindStringSubmatch(line)
		if ok != (m != nil) || ok && (keyword != m[1] || cond != m[2]) {
			t.Errorf("%q: conditionOf %q %q %v, regexp %q", line, keyword, cond, ok, m)
		}
		if ok {
			matched++
		}
	}
	if matched < 50 {
		t.Fatalf("only %d conditions read", matched)
	}
}
