package finding

import "testing"

func TestTouchesFrozen(t *testing.T) {
	frozen := []Span{{10, 20}}
	tests := []struct {
		e    Edit
		want bool
	}{
		{Edit{Start: 10, End: 10, NewText: "x"}, false}, // insertion at the start
		{Edit{Start: 20, End: 20, NewText: "x"}, false}, // insertion at the end
		{Edit{Start: 15, End: 15, NewText: "x"}, true},
		{Edit{Start: 5, End: 11}, true},
		{Edit{Start: 19, End: 25}, true},
		{Edit{Start: 0, End: 10}, false},
		{Edit{Start: 20, End: 30}, false},
	}
	for _, tt := range tests {
		if got := TouchesFrozen(&Fix{Edits: []Edit{tt.e}}, frozen); got != tt.want {
			t.Errorf("%+v: %v, want %v", tt.e, got, tt.want)
		}
	}
	if TouchesFrozen(nil, frozen) {
		t.Error("no fix touches nothing")
	}
}
