package pins

import (
	"regexp"
	"strings"

	"github.com/loratune/loratune-fix/version"
)

// libraries maps a normalized distribution name to the library it pins.
var libraries = map[string]string{
	"transformers": "transformers",
	"peft":         "peft",
	"trl":          "trl",
	"torch":        "torch",
	"pytorch":      "torch", // conda's name
	"axolotl":      "axolotl",
	"accelerate":   "accelerate",
}

// normalize is PEP 503's name normalization.
func normalize(name string) string {
	return strings.ToLower(strings.NewReplacer("_", "-", ".", "-").Replace(name))
}

var (
	reqName  = regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$`)
	clause   = regexp.MustCompile(`^\s*(===|==|~=|>=|<=|!=|>|<|=|\^|~)?\s*v?([0-9][0-9A-Za-z.*+!-]*)\s*$`)
	versionL = regexp.MustCompile(`^v?[0-9]+(\.[0-9]+)+`)
	eggName  = regexp.MustCompile(`[#&]egg=([A-Za-z0-9._-]+)`)
	sha      = regexp.MustCompile(`^[0-9a-fA-F]{7,40}$`)
)

// requirement reads one dependency line (PEP 508, pip, conda or Poetry
// spelling) and returns the library it pins and the conservative version:
// the exact pin, or a range's lower bound. ok is false when the line names
// none of the libraries; a line that names one without a usable version
// returns ok with an unknown version.
func requirement(line string) (lib string, v version.Version, ok bool) {
	line = strings.TrimSpace(line)
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	if i := strings.IndexByte(line, ';'); i >= 0 {
		line = line[:i] // environment marker
	}
	if i := strings.Index(line, " --"); i >= 0 {
		line = line[:i] // per-requirement options: --hash=..., --config-settings
	}
	line = strings.TrimSuffix(strings.TrimSpace(line), "\\")
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return "", v, false
	}
	// A bare VCS URL: git+https://github.com/huggingface/transformers@v4.36.0
	if isURL(line) {
		name := urlName(line)
		lib, ok = libraries[normalize(name)]
		if !ok {
			return "", v, false
		}
		return lib, urlVersion(line), true
	}
	m := reqName.FindStringSubmatch(line)
	if m == nil {
		return "", v, false
	}
	lib, ok = libraries[normalize(m[1])]
	if !ok {
		return "", v, false
	}
	spec := strings.TrimSpace(m[3])
	if strings.HasPrefix(spec, "@") { // name @ url
		return lib, urlVersion(strings.TrimSpace(spec[1:])), true
	}
	return lib, lowerBound(spec), true
}

// lowerBound returns the smallest version a constraint allows, or unknown
// when it has no lower bound ("<5", "*", "!=4.0").
func lowerBound(spec string) version.Version {
	spec = strings.Trim(strings.TrimSpace(spec), `"'`)
	if strings.HasPrefix(spec, "(") && strings.HasSuffix(spec, ")") {
		spec = spec[1 : len(spec)-1]
	}
	var best, ceil version.Version
	exact := true
	for _, part := range strings.FieldsFunc(spec, func(r rune) bool { return r == ',' || r == '|' }) {
		m := clause.FindStringSubmatch(part)
		if m == nil {
			continue
		}
		v, err := version.Parse(strings.TrimSuffix(strings.TrimSuffix(m[2], "*"), "."))
		if err != nil {
			continue
		}
		switch m[1] {
		case "<", "<=":
			// "<5" ends the range; "<=4.57" admits 4.57.x, so 4.58 ends it.
			if m[1] == "<=" {
				v.Minor++
			}
			if !ceil.Known || less(v, ceil) {
				ceil = v
			}
			continue
		case "!=":
			continue
		case ">=", ">":
			exact = false
		case "~=", "^", "~":
			// Compatible releases: ~=0.10.0 and ~0.10 below 0.11, ~=4.36 and
			// ^4.36 below 5, ^0.8 below 0.9.
			exact = false
			up := v
			switch {
			case m[1] == "~=" && strings.Count(m[2], ".") == 1, m[1] == "^" && v.Major > 0:
				up.Major, up.Minor = v.Major+1, 0
			default:
				up.Minor = v.Minor + 1
			}
			if !ceil.Known || less(up, ceil) {
				ceil = up
			}
		}
		if strings.Contains(m[2], "*") {
			exact = false // 4.36.*: below 4.37
			up := v
			up.Minor++
			if !ceil.Known || less(up, ceil) {
				ceil = up
			}
		}
		if !best.Known || less(v, best) {
			best = v
		}
	}
	if best.Known && (!exact || strings.ContainsAny(spec, "|")) {
		best.Floor = true
		if ceil.Known {
			best.HasCeil, best.CeilMajor, best.CeilMinor = true, ceil.Major, ceil.Minor
		}
	}
	return best
}

func less(a, b version.Version) bool {
	if a.Major != b.Major {
		return a.Major < b.Major
	}
	if a.Minor != b.Minor {
		return a.Minor < b.Minor
	}
	return a.Patch < b.Patch
}

func isURL(s string) bool {
	for _, p := range []string{"git+", "hg+", "https://", "http://", "file:"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// urlName is the distribution a URL installs: #egg=name, or the last path
// segment of the repository.
func urlName(u string) string {
	if m := eggName.FindStringSubmatch(u); m != nil {
		return m[1]
	}
	u = strings.SplitN(u, "#", 2)[0]
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	}
	if i := strings.LastIndexByte(u, '@'); i > strings.IndexByte(u, '/') {
		u = u[:i] // the ref
	}
	u = strings.TrimSuffix(strings.TrimRight(u, "/"), ".git")
	return u[strings.LastIndexByte(u, '/')+1:]
}

// urlVersion is the version a git ref names (@v4.36.0, @4.36.0). No ref,
// or the default branch, is the newest: unknown. A commit or another
// branch names no version: unreadable (an old commit is likely).
func urlVersion(u string) version.Version {
	u = strings.SplitN(u, "#", 2)[0]
	slash := strings.IndexByte(u, '/')
	i := strings.LastIndexByte(u, '@')
	if i < 0 || i < slash {
		return version.Version{}
	}
	ref := u[i+1:]
	if strings.ContainsAny(ref, "/:") {
		return version.Version{} // user@host of an ssh URL, not a ref
	}
	if !versionL.MatchString(ref) {
		switch {
		case ref == "" || ref == "main" || ref == "master" || ref == "HEAD":
			return version.Version{}
		case sha.MatchString(ref):
			return version.Version{Ref: "git commit " + ref[:7]}
		}
		return version.Version{Ref: "git ref " + ref}
	}
	v, err := version.Parse(ref)
	if err != nil {
		return version.Version{}
	}
	return v
}

// pipInstall matches an install command in a notebook cell or a shell line:
// "!pip install -q transformers==4.36", "%pip install ...",
// "!python -m pip install ...", "!uv pip install ...".
var pipInstall = regexp.MustCompile(`^\s*[!%]\s*(?:python3?\s+-m\s+)?(?:uv\s+)?pip3?\s+install\s+(.*)$`)

// PipInstall returns the pins of one `pip install` line of a notebook cell,
// keyed by library; nil when the line is not one.
func PipInstall(line string) map[string]version.Version {
	m := pipInstall.FindStringSubmatch(line)
	if m == nil {
		return nil
	}
	out := map[string]version.Version{}
	for _, word := range shellWords(m[1]) {
		if strings.HasPrefix(word, "-") {
			continue
		}
		if lib, v, ok := requirement(word); ok {
			out[lib] = v
		}
	}
	return out
}

// shellWords splits a command line on spaces, honouring simple quotes.
func shellWords(s string) []string {
	var out []string
	var cur strings.Builder
	quote := rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '"' || r == '\''):
			quote = r
		case quote == 0 && (r == ' ' || r == '\t'):
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}
