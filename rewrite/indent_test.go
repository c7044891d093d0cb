package rewrite

import "testing"

func TestOutputIndentation(t *testing.T) {
	cases := []struct {
		name string
		text string
		ok   bool
	}{
		{"even blocks", "def f():\n    if a:\n        m = 1\n    else:\n        m = 2\n    x = 3\n", true},
		{"comments may sit at any column", "def f():\n    x = 1\n        # a note\n  # another\n    y = 2\n", true},
		{"a statement indented deeper than its block, which tree-sitter accepts",
			"def f():\n    if a:\n        m = 1\n    else:\n        m = 2\n    x = 3\n        m.y = False\n    z = 4\n", false},
		{"at module level", "x = 1\n  y = 2\n", false},
		{"statements after a semicolon do not start their line", "def f():\n    x = 1; y = 2\n    z = 3\n", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The whole text as one insertion: every block is touched.
			// Read through tree-sitter's tree and through the Go copy.
			for _, whole := range []bool{false, true} {
				p := outputParses(nil, nil, []byte(c.text), []Edit{{NewText: c.text}}, 0, whole)
				if p != nil {
					p.Close()
				}
				if got := p != nil; got != c.ok {
					t.Errorf("Go copy %v: parses = %v, want %v", whole, got, c.ok)
				}
			}
		})
	}
}
