package version

import "testing"

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string
	}{
		{"5", "5.0.0"}, {"4.56", "4.56.0"}, {"4.56.1", "4.56.1"}, {"v0.27.0", "0.27.0"},
		{"5.0.0rc1", "5.0.0"}, {" 4.36.2 ", "4.36.2"}, {"2.1.0.post1", "2.1.0"},
	} {
		v, err := Parse(tt.in)
		if err != nil || v.String() != tt.want {
			t.Errorf("Parse(%q) = %v, %v; want %s", tt.in, v, err, tt.want)
		}
	}
	for _, bad := range []string{"", "v", "rc1", "x.1"} {
		if v, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) = %v, want an error", bad, v)
		}
	}
}

func TestAtLeastAndBelow(t *testing.T) {
	v, _ := Parse("4.56.1")
	if !v.AtLeast(4, 56) || v.AtLeast(4, 57) || v.AtLeast(5, 0) || !v.AtLeast(3, 99) {
		t.Errorf("AtLeast wrong for %v", v)
	}
	if v.Below(4, 56) || !v.Below(5, 0) {
		t.Errorf("Below wrong for %v", v)
	}
	var unknown Version
	if unknown.AtLeast(0, 0) || unknown.Below(99, 0) {
		t.Error("an unknown version is neither at least nor below anything")
	}
}

func TestSetAndMerge(t *testing.T) {
	var vs Versions
	five, _ := Parse("5.17")
	if err := vs.Set("Transformers", five); err != nil || vs.Transformers != five {
		t.Fatalf("Set: %v, %+v", err, vs)
	}
	if err := vs.Set("jax", five); err == nil {
		t.Error("Set(jax) should fail")
	}
	old, _ := Parse("4.36")
	peft, _ := Parse("0.10")
	got := vs.Merge(Versions{Transformers: old, Peft: peft})
	if got.Transformers != five || got.Peft != peft {
		t.Errorf("Merge kept %+v, want own transformers and other's peft", got)
	}
}

// A pin to a commit (or a vendored copy) names no version: it is not the
// newest, as no pin is, but may be older than anything a rule needs.
func TestUnreadable(t *testing.T) {
	commit := Version{Ref: "git commit 13e53fc", Source: "requirements.txt:2"}
	v436, _ := Parse("4.36.0")
	v435, _ := Parse("4.35.2")
	for _, tt := range []struct {
		v    Version
		want bool
	}{{commit, true}, {Version{}, false}, {v436, false}, {v435, true}} {
		if got := tt.v.MayBeBelow(4, 36); got != tt.want {
			t.Errorf("%v MayBeBelow(4, 36) = %v, want %v", tt.v.Describe("transformers"), got, tt.want)
		}
	}
	if got := commit.Describe("peft"); got != "peft from git commit 13e53fc (requirements.txt:2), version unknown" {
		t.Errorf("Describe = %q", got)
	}
	// Merge keeps an unreadable pin over a version found further away.
	if got := (Versions{Peft: commit}).Merge(Versions{Peft: v436}); got.Peft != commit {
		t.Errorf("Merge replaced the commit pin by %v", got.Peft)
	}
}

// A range pin decides a version-dependent fix by every version it admits:
// ">= 4.56" may be 5.x (so it is not "below 5"), may be below 4.60 (a
// keyword added in 4.60 may be missing), and is at least 4.50.
func TestRangeAdmitsEveryVersionAboveItsFloor(t *testing.T) {
	floor := Version{Major: 4, Minor: 56, Patch: 2, Known: true, Floor: true}
	if floor.Below(5, 0) || !floor.MayBeBelow(4, 60) || !floor.AtLeast(4, 50) || floor.AtLeast(5, 0) {
		t.Errorf(">= 4.56.2: Below(5.0) %v, MayBeBelow(4.60) %v, AtLeast(4.50) %v, AtLeast(5.0) %v",
			floor.Below(5, 0), floor.MayBeBelow(4, 60), floor.AtLeast(4, 50), floor.AtLeast(5, 0))
	}
	capped := floor
	capped.HasCeil, capped.CeilMajor, capped.CeilMinor = true, 5, 0
	if !capped.Below(5, 0) || capped.Below(4, 60) {
		t.Errorf(">= 4.56.2, < 5.0: Below(5.0) %v, Below(4.60) %v", capped.Below(5, 0), capped.Below(4, 60))
	}
	if got := capped.Describe("transformers"); got != "transformers >= 4.56.2, < 5.0" {
		t.Errorf("Describe = %q", got)
	}
	exact := Version{Major: 4, Minor: 56, Patch: 2, Known: true}
	if !exact.Below(5, 0) || !exact.MayBeBelow(5, 0) {
		t.Error("an exact 4.56.2 is below 5.0")
	}
}
