package udiff

import (
	"strings"
	"testing"
)

// Headers name files as git does: an absolute path loses its leading
// slash (git diff --no-index writes a/tmp/x.py), "./" goes.
func TestHeaderNames(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"train.py", "a/train.py"},
		{"./train.py", "a/train.py"},
		{"/tmp/job/train.py", "a/tmp/job/train.py"},
		{"src//train.py", "a/src/train.py"},
		{"nb.ipynb:cell 3", "a/nb.ipynb:cell 3"},
	} {
		got := Unified(c.path, "x = 1\n", "x = 2\n", Palette{})
		if first := strings.SplitN(got, "\n", 2)[0]; first != "--- "+c.want {
			t.Errorf("%q: header %q, want %q", c.path, first, "--- "+c.want)
		}
	}
}
