package udiff

import (
	"fmt"
	"strings"
	"testing"
)

// 200,000 distinct lines: line numbers past 55,295 used to map to the
// surrogate range and panic. One changed line near the end gives one hunk
// at the right place.
func TestManyDistinctLines(t *testing.T) {
	var a, b strings.Builder
	for i := 1; i <= 200000; i++ {
		fmt.Fprintf(&a, "x_%d = %d\n", i, i)
		if i == 199990 {
			b.WriteString("changed = True\n")
			continue
		}
		fmt.Fprintf(&b, "x_%d = %d\n", i, i)
	}
	hunks := Hunks(a.String(), b.String())
	if len(hunks) != 1 {
		t.Fatalf("want 1 hunk, got %d", len(hunks))
	}
	h := hunks[0]
	if h.OldStart != 199987 || h.OldLines != 7 || h.NewStart != 199987 || h.NewLines != 7 {
		t.Errorf("hunk @@ -%d,%d +%d,%d @@, want -199987,7 +199987,7", h.OldStart, h.OldLines, h.NewStart, h.NewLines)
	}
	if h.Lines[3] != "-x_199990 = 199990\n" || h.Lines[4] != "+changed = True\n" {
		t.Errorf("hunk lines: %q", h.Lines)
	}
}
