package notebook

import (
	"slices"
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/rewrite"
)

// IPython's help lines are not Python, and neither is any byte of a
// magic's continuation lines, their indent included: a re-laid-out call
// must not take its indent unit from them.
func TestMaskHelpLinesAndWholeContinuations(t *testing.T) {
	body := `%pip install --upgrade \
  "transformers==4.34.0" \
  peft
model.generate?
??Trainer
%timeit??
if x:
    obj.attr??
print(x != y)
`
	masked, spans := maskMagics(body)
	want := "pass#                   \n" +
		"#                         \n" +
		"#     \n" +
		"pass#          \n" +
		"pass#    \n" +
		"pass#    \n" +
		"if x:\n" +
		"    pass#     \n" +
		"print(x != y)\n"
	if masked != want {
		t.Errorf("masked:\n%q\nwant\n%q", masked, want)
	}
	if len(spans) != 7 || spans[1].Start != strings.Index(body, `  "transformers`) {
		t.Errorf("spans %v: the continuation's span must start at its line's start", spans)
	}
	if err := rewrite.Parses([]byte(masked)); err != nil {
		t.Error(err)
	}
	for _, line := range []string{"print(x)?", "x = y?", "# why?", "  s = 'a?'", "a ? b", "?"} {
		if helpLine.MatchString(line) {
			t.Errorf("%q taken for a help line", line)
		}
	}
}

// Commands joins continued magic and shell lines as IPython runs them,
// reads the body of %%capture and %%bash cells, and nothing of %%writefile.
func TestCommands(t *testing.T) {
	for _, c := range []struct {
		src  string
		want []string
	}{
		{"%pip install --upgrade \\\n  \"transformers==4.34.0\" \\\n  \"peft==0.6.0\"\nimport torch\n",
			[]string{`%pip install --upgrade  "transformers==4.34.0"  "peft==0.6.0"`}},
		{"import os\n!pip install -q \\\n    trl==0.7.4\nx = 1 + \\\n  2\n", []string{"!pip install -q  trl==0.7.4"}},
		{"%%capture\n!pip install peft==0.6.0\n%pip install \\\n  trl\n", []string{"!pip install peft==0.6.0", "%pip install  trl"}},
		{"%%bash\npip install \\\n  peft==0.6.0\necho done\n", []string{"!pip install  peft==0.6.0", "!echo done"}},
		{"%%writefile setup.sh\n!pip install peft==0.6.0\n", nil},
		{"!pip install a \\", []string{"!pip install a "}},
	} {
		if got := Commands(c.src); !slices.Equal(got, c.want) {
			t.Errorf("Commands(%q) = %q, want %q", c.src, got, c.want)
		}
	}
}
