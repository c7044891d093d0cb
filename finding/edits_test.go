package finding

import "testing"

func TestChangedEdit(t *testing.T) {
	for _, c := range []struct {
		old, text string
		want      Edit
	}{
		{"abc", "abc", Edit{Start: 3, End: 3}},
		{"abc", "abXc", Edit{Start: 2, End: 2, NewText: "X"}},
		{"aaa", "aa", Edit{Start: 2, End: 3}},
		{"", "x", Edit{Start: 0, End: 0, NewText: "x"}},
		{"hello world", "help world", Edit{Start: 3, End: 5, NewText: "p"}},
	} {
		if got := Changed([]byte(c.old), []byte(c.text)); got != c.want {
			t.Errorf("Changed(%q, %q) = %+v, want %+v", c.old, c.text, got, c.want)
		}
	}
}
