package rewrite

import (
	"sync"
	"testing"
	"time"
)

// Many bounded parses from several goroutines all succeed: a pooled parser
// is never left cancelled by an earlier bounded parse. (With ParseCtx and a
// context, about one parse in a few hundred poisoned its parser.)
func TestBoundedParsesReuseParsers(t *testing.T) {
	src := []byte("import torch\nmodel = f(torch_dtype=torch.bfloat16)\n")
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				tree, err := parse(src, 10*time.Second)
				if err != nil {
					errs <- err
					return
				}
				tree.Close()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("bounded parse failed: %v", err)
	}
}

// A syntax error is placed where CPython places it (the positions below
// are CPython 3's), not at the start of the statement tree-sitter could
// not parse.
func TestSyntaxErrorAtPythonsColumn(t *testing.T) {
	cases := []struct{ src, want string }{
		{"if x\n    pass\n", "syntax error at 1:5"},
		{"for i in range(3)\n    print(i)\n", "syntax error at 1:18"},
		{"x = (1, 2\ny = 3\n", "syntax error at 1:5: '(' was never closed"},
		{"model = AutoModelForCausalLM.from_pretrained(\n    BASE,\n", "syntax error at 1:45: '(' was never closed"},
		{"x = foo(1, 2]\n", "syntax error at 1:13: closing parenthesis ']' does not match opening parenthesis '('"},
		{"x = 1)\n", "syntax error at 1:6: unmatched ')'"},
		{"s = \"a(b\" + 'c[' + \"\"\"d{\n\"\"\"  # (\nif s\n    pass\n", "syntax error at 3:5"},
		{"a = 1\nb = = 2\nc = (\n", "syntax error at 2:5"},
		{"def f(:\n    pass\n", `syntax error at 1:7 (missing ")")`},
		{"model = AutoModelForCausalLM.from_pretrained(\"m\", torch_dtype=torch.bfloat16 device_map=\"auto\")\n", "syntax error at 1:63"},
	}
	for _, c := range cases {
		err := Parses([]byte(c.src))
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: %v, want %s", c.src, err, c.want)
		}
	}
}
