// Package version holds library versions as pins tell them: a value type
// that the engine, the pin finder and the configuration share, with no
// dependency of its own.
package version

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a library version as far as a pin tells it. The zero value is
// "unknown".
type Version struct {
	Major, Minor, Patch int
	Known               bool
	// Source says where the version came from ("requirements.txt:3",
	// "--target"), for messages.
	Source string
	// Ref, for a library whose pin names no version, says what is
	// installed instead: "git commit 13e53fc" (a pin to a commit or a
	// branch) or "a vendored copy" (its source beside the script or on
	// sys.path). Known is false: an old version is as likely as a new one.
	Ref string
	// Floor: the pin is a range (">=4.56.2"): Major.Minor.Patch is the
	// lowest version it admits, and the one installed may be any newer one
	// (below CeilMajor.CeilMinor where HasCeil: ">=4.36,<5").
	Floor                bool
	HasCeil              bool
	CeilMajor, CeilMinor int
}

// Unreadable reports a library pinned to something that names no version
// (Ref): unlike an unpinned one, it is not taken for the newest.
func (v Version) Unreadable() bool { return !v.Known && v.Ref != "" }

// MayBeBelow reports whether the version may be older than major.minor:
// known to be, a range that admits one, or unreadable. A rule that needs
// major.minor stays away.
func (v Version) MayBeBelow(major, minor int) bool {
	return v.Known && !v.AtLeast(major, minor) || v.Unreadable()
}

// Parse reads "5", "4.56", "4.56.1", "v0.27.0", "5.0.0rc1".
func Parse(s string) (Version, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	parts := strings.SplitN(s, ".", 4)
	var nums [3]int
	for i := 0; i < len(parts) && i < 3; i++ {
		digits := parts[i]
		if j := strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }); j >= 0 {
			digits = digits[:j]
		}
		if digits == "" {
			if i == 0 {
				return Version{}, fmt.Errorf("version %q: no number", s)
			}
			break
		}
		n, err := strconv.Atoi(digits)
		if err != nil {
			return Version{}, fmt.Errorf("version %q: %w", s, err)
		}
		nums[i] = n
		if digits != parts[i] {
			break // "0rc1": stop after the number
		}
	}
	return Version{Major: nums[0], Minor: nums[1], Patch: nums[2], Known: true}, nil
}

// AtLeast reports whether a known version is >= major.minor (for a
// range: every version it admits).
func (v Version) AtLeast(major, minor int) bool {
	return v.Known && (v.Major > major || v.Major == major && v.Minor >= minor)
}

// Below reports whether a known version is < major.minor (for a range:
// every version it admits, so only where its ceiling says so).
func (v Version) Below(major, minor int) bool {
	if v.Floor {
		return v.Known && v.HasCeil && (v.CeilMajor < major || v.CeilMajor == major && v.CeilMinor <= minor)
	}
	return v.Known && !v.AtLeast(major, minor)
}

func (v Version) String() string {
	if !v.Known {
		return "unknown"
	}
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if v.Floor {
		s = ">= " + s
		if v.HasCeil {
			s += fmt.Sprintf(", < %d.%d", v.CeilMajor, v.CeilMinor)
		}
	}
	return s
}

// Describe is "transformers 5.17.0 (requirements.txt:3)", "peft from git
// commit 13e53fc (requirements.txt:2), version unknown" or "transformers
// version unknown".
func (v Version) Describe(lib string) string {
	if v.Unreadable() {
		if v.Source == "" {
			return fmt.Sprintf("%s from %s, version unknown", lib, v.Ref)
		}
		return fmt.Sprintf("%s from %s (%s), version unknown", lib, v.Ref, v.Source)
	}
	if !v.Known {
		return lib + " version unknown"
	}
	if v.Source == "" {
		return lib + " " + v.String()
	}
	return fmt.Sprintf("%s %s (%s)", lib, v.String(), v.Source)
}

// Versions are the pins that govern one script.
type Versions struct {
	Transformers, Peft, TRL, Torch Version
	// Axolotl decides which attention key an axolotl config takes;
	// Accelerate whether FSDP upcasts trainable parameters (0.30).
	Axolotl, Accelerate Version
}

// Set sets one library by name; it is how --target and pin files fill it.
func (vs *Versions) Set(lib string, v Version) error {
	switch strings.ToLower(lib) {
	case "transformers":
		vs.Transformers = v
	case "peft":
		vs.Peft = v
	case "trl":
		vs.TRL = v
	case "torch", "pytorch":
		vs.Torch = v
	case "axolotl":
		vs.Axolotl = v
	case "accelerate":
		vs.Accelerate = v
	default:
		return fmt.Errorf("unknown library %q (want transformers, peft, trl, torch, axolotl or accelerate)", lib)
	}
	return nil
}

// Merge fills the versions vs lacks (neither known nor unreadable) from
// other.
func (vs Versions) Merge(other Versions) Versions {
	pick := func(a, b Version) Version {
		if a.Known || a.Unreadable() {
			return a
		}
		return b
	}
	return Versions{pick(vs.Transformers, other.Transformers), pick(vs.Peft, other.Peft), pick(vs.TRL, other.TRL), pick(vs.Torch, other.Torch), pick(vs.Axolotl, other.Axolotl), pick(vs.Accelerate, other.Accelerate)}
}
