package rewrite

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

// A parse bounded by a timeout must leave the pooled parser usable whether
// or not the deadline struck, including a deadline that strikes just as
// the parse ends.
func TestParseTimeoutLeavesParserUsable(t *testing.T) {
	src := bytes.Repeat([]byte("model = AutoModelForCausalLM.from_pretrained(name, device_map=\"auto\")\n"), 50)
	timeouts := 0
	for i := 0; i < 500; i++ {
		limit := time.Duration(1+i) * time.Microsecond // both sides of the parse time
		tree, err := parse(src, limit)
		switch {
		case err == nil:
			tree.Close()
		case errors.Is(err, ErrParseTimeout):
			timeouts++
		default:
			t.Fatalf("parse %d (limit %v): %v", i, limit, err)
		}
		if err := Parses(src); err != nil {
			t.Fatalf("parse without a limit after parse %d (limit %v): %v", i, limit, err)
		}
	}
	t.Logf("%d of 500 parses timed out", timeouts)
}
