package rewrite_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/loratune/loratune-fix/rewrite"
)

const hostileLoad = `AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.bfloat16, device_map="auto")`

func hostileEngine(t *testing.T) *rewrite.Engine {
	t.Helper()
	eng, err := rewrite.New(rewrite.Options{ParseTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// Nesting deeper than Python allows is refused at once with a message; it
// used to cost minutes (Node.Parent walks down from the root on each step
// of a rule's climb). Nesting Python accepts is still processed.
func TestDeepNestingRefused(t *testing.T) {
	eng := hostileEngine(t)
	deep := map[string]string{
		"calls":         "x = " + strings.Repeat("f(", 20000) + hostileLoad + strings.Repeat(")", 20000) + "\n",
		"parens":        "x = " + strings.Repeat("(", 20000) + hostileLoad + strings.Repeat(")", 20000) + "\n",
		"lists":         "x = " + strings.Repeat("[", 20000) + hostileLoad + strings.Repeat("]", 20000) + "\n",
		"attr chain":    "x = " + hostileLoad + strings.Repeat(".to(d)", 5000) + "\n",
		"operators":     "x = " + hostileLoad + strings.Repeat(" + a", 5000) + "\n",
		"in a function": "def main():\n    model = " + hostileLoad + "\n    y = " + strings.Repeat("[", 1200) + strings.Repeat("]", 1200) + "\n    return y\n",
	}
	for name, src := range deep {
		t.Run(name, func(t *testing.T) {
			for _, run := range []func([]byte, rewrite.Versions) (*rewrite.Result, error){eng.Check, eng.Fix} {
				_, err := run([]byte("import torch\n"+src), rewrite.Versions{})
				if !errors.Is(err, rewrite.ErrTooDeep) {
					t.Fatalf("want ErrTooDeep, got %v", err)
				}
			}
		})
	}
	// 190 nested calls: legal Python, and the load inside is still seen.
	legal := "import torch\nmodel = " + strings.Repeat("f(", 190) + hostileLoad + strings.Repeat(")", 190) + "\n"
	if _, err := eng.Check([]byte(legal), rewrite.Versions{}); err != nil {
		t.Fatalf("legal nesting refused: %v", err)
	}
}

// A 280 KB line (a long list literal on the load's line) is processed and
// the finding's column counts characters on that line.
func TestVeryLongLine(t *testing.T) {
	eng := hostileEngine(t)
	src := "import torch\nfrom peft import get_peft_model\nx = [" + strings.Repeat("'é', ", 40000) + "]; model = " + hostileLoad + "\nmodel = get_peft_model(model, cfg)\n"
	res, err := eng.Fix([]byte(src), rewrite.Versions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || len(res.Findings) == 0 {
		t.Fatalf("the load on the long line was not fixed (%d findings)", len(res.Findings))
	}
	for _, fd := range res.Findings {
		if fd.StartPos.Line == 3 && fd.StartPos.Column < 40000*5 {
			t.Errorf("%s at column %d: want a column past the list (characters, not bytes)", fd.Code, fd.StartPos.Column)
		}
	}
	if err := rewrite.Parses(res.Output); err != nil {
		t.Fatal(err)
	}
}

// UTF-16 is named as such; NUL bytes and invalid UTF-8 are refused.
func TestEncodingsRefusedWithAReason(t *testing.T) {
	eng := hostileEngine(t)
	utf16 := []byte{0xff, 0xfe}
	for _, r := range "import torch\nmodel = " + hostileLoad + "\n" {
		utf16 = append(utf16, byte(r), byte(r>>8))
	}
	cases := []struct {
		name string
		src  []byte
		want error
	}{
		{"UTF-16LE with BOM", utf16, rewrite.ErrUTF16},
		{"UTF-16BE with BOM", append([]byte{0xfe, 0xff}, 0, 'x'), rewrite.ErrUTF16},
		{"NUL byte", []byte("import torch\nmodel = " + hostileLoad + "\x00\n"), rewrite.ErrBinary},
		{"Latin-1", []byte("# caf\xe9\nimport torch\nmodel = " + hostileLoad + "\n"), rewrite.ErrNotUTF8},
	}
	for _, c := range cases {
		_, err := eng.Fix(c.src, rewrite.Versions{})
		if !errors.Is(err, c.want) {
			t.Errorf("%s: want %v, got %v", c.name, c.want, err)
		}
	}
	if res, err := eng.Fix(nil, rewrite.Versions{}); err != nil || res.Changed || len(res.Findings) != 0 {
		t.Errorf("empty input: %v, %+v", err, res)
	}
}

// Mixed CRLF and LF endings: every line the fixes do not touch keeps its
// own ending, and inserted lines follow the majority.
func TestMixedLineEndingsKept(t *testing.T) {
	eng := hostileEngine(t)
	lines := []string{
		"import torch\r\n",
		"from peft import get_peft_model\n",
		"from transformers import AutoModelForCausalLM\r\n",
		"\r\n",
		"model = " + hostileLoad + "\r\n",
		"# a comment with LF\n",
		"model = get_peft_model(model, cfg)\r\n",
		"x = 1\n",
	}
	src := []byte(strings.Join(lines, ""))
	res, err := eng.Fix(src, rewrite.Versions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed {
		t.Fatal("nothing fixed")
	}
	for _, l := range lines {
		if strings.Contains(l, "from_pretrained") {
			continue
		}
		if !bytes.Contains(res.Output, []byte(l)) {
			t.Errorf("line %q lost its ending", l)
		}
	}
	again, err := eng.Fix(res.Output, rewrite.Versions{})
	if err != nil || !bytes.Equal(again.Output, res.Output) {
		t.Errorf("second fix changed the output (err %v)", err)
	}
}

// Two rules inserting a keyword into the same empty argument list clash;
// the second waits a pass instead of being dropped, and the import both
// need is added once. (Found by FuzzFix: the fallback used to apply fixes
// one by one on shifted offsets and wrote a corrupted call that parsed.)
// A line length of 200 keeps the call on one line.
func TestFixesClashingAtOnePlace(t *testing.T) {
	eng, err := rewrite.New(rewrite.Options{Select: []string{"ALL"}, LineLength: 200})
	if err != nil {
		t.Fatal(err)
	}
	src := "from peft import get_peft_model\nfrom transformers import AutoModelForCausalLM, Trainer\nmodel = AutoModelForCausalLM.from_pretrained()\nTrainer(model=get_peft_model(model, None))\n"
	res, err := eng.Fix([]byte(src), rewrite.Versions{})
	if err != nil {
		t.Fatal(err)
	}
	out := string(res.Output)
	if !strings.Contains(out, "from_pretrained(torch_dtype=torch.float32, attn_implementation=\"eager\")") {
		t.Errorf("both keywords not inserted in one call:\n%s", out)
	}
	if n := strings.Count(out, "import torch\n"); n != 1 {
		t.Errorf("import torch added %d times:\n%s", n, out)
	}
	if len(res.Dropped) != 0 {
		t.Errorf("dropped: %v", res.Dropped)
	}
	again, err := eng.Fix(res.Output, rewrite.Versions{})
	if err != nil || again.Changed {
		t.Errorf("not a fixed point (err %v):\n%s", err, again.Output)
	}
}
