// Package config reads loratune-fix's settings from the [tool.loratune-fix]
// table of the nearest pyproject.toml:
//
//	[tool.loratune-fix]
//	profile = "lean"
//	select = ["LTF00", "LTF101"]      # the profile's rules among these
//	extend-select = ["LTF104"]       # and these
//	ignore = ["LTF006"]
//	target = { transformers = "5.17", trl = "0.27" }   # or "transformers=5.17,trl=0.27"
//
//	[tool.loratune-fix.per-file-ignores]
//	"eval/*.py" = ["LTF003"]
//	"**/notebooks/*.ipynb" = ["training-padding-side"]
//
// A key or value it does not know is an error that names the file and the
// key: a typo must not silently turn a setting off.
package config

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/loratune/loratune-fix/version"
)

// Config is the [tool.loratune-fix] table of one pyproject.toml.
type Config struct {
	Path string // the pyproject.toml it came from
	Dir  string // its directory: per-file-ignores patterns are relative to it

	Profile                      string
	Select, ExtendSelect, Ignore []string
	Target                       version.Versions
	PerFileIgnores               []PerFileIgnore
}

// PerFileIgnore silences rules for the files a pattern matches.
type PerFileIgnore struct {
	Pattern string   // a glob relative to Config.Dir; "**/" matches any folders
	Rules   []string // codes or names
}

// Keys are the keys the table accepts.
var Keys = []string{"profile", "select", "extend-select", "ignore", "target", "per-file-ignores"}

// Names checks the profile and rule names a table uses: each returns an
// error naming what is wrong. The command passes the engine's
// (rewrite.CheckProfile, rewrite.CheckRule), so that this package reads
// the file without the engine.
type Names struct {
	Profile func(name string) error
	Rule    func(key string) error // a code, a code prefix, a name or ALL
}

// Find returns the configuration that governs start (a file or a folder):
// the nearest pyproject.toml with a [tool.loratune-fix] table, looking in
// start's folder and up to the repository root (a folder holding .git).
// It returns nil, nil when there is none.
func Find(start string, names Names) (*Config, error) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return nil, err
	}
	if info, err := os.Stat(dir); err == nil && !info.IsDir() || os.IsNotExist(err) {
		dir = filepath.Dir(dir)
	}
	for {
		p := filepath.Join(dir, "pyproject.toml")
		if data, err := os.ReadFile(p); err == nil {
			cfg, err := parse(p, data, names)
			if err != nil || cfg != nil {
				return cfg, err
			}
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return nil, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, nil
		}
		dir = parent
	}
}

// Load reads the table from a given pyproject.toml (--config); a file
// without the table is an error there.
func Load(file string, names Names) (*Config, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	cfg, err := parse(file, data, names)
	if err == nil && cfg == nil {
		err = fmt.Errorf("%s: no [tool.loratune-fix] table", file)
	}
	return cfg, err
}

// parse returns nil, nil when the file has no [tool.loratune-fix] table.
func parse(file string, data []byte, names Names) (*Config, error) {
	var doc struct {
		Tool map[string]toml.Primitive `toml:"tool"`
	}
	md, err := toml.Decode(string(data), &doc)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: %s", file, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	prim, ok := doc.Tool["loratune-fix"]
	if !ok {
		return nil, nil
	}
	var table map[string]any
	if err := md.PrimitiveDecode(prim, &table); err != nil {
		return nil, fmt.Errorf("%s: [tool.loratune-fix] must be a table: %v", file, err)
	}
	abs, _ := filepath.Abs(file)
	cfg := &Config{Path: file, Dir: filepath.Dir(abs)}
	bad := func(key, format string, args ...any) error {
		return fmt.Errorf("%s: [tool.loratune-fix] %s: %s", file, key, fmt.Sprintf(format, args...))
	}
	var keys []string
	for k := range table {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		val := table[key]
		switch key {
		case "profile":
			s, ok := val.(string)
			if !ok {
				return nil, bad(key, "want a string, got %s", typeName(val))
			}
			if err := names.Profile(s); err != nil {
				return nil, bad(key, "%v", err)
			}
			cfg.Profile = s
		case "select", "extend-select", "ignore":
			list, err := ruleList(val, names)
			if err != nil {
				return nil, bad(key, "%v", err)
			}
			switch key {
			case "select":
				if len(list) == 0 {
					return nil, bad(key, "an empty list selects no rule; leave select out to run the profile's rules")
				}
				cfg.Select = list
			case "extend-select":
				cfg.ExtendSelect = list
			default:
				cfg.Ignore = list
			}
		case "target":
			vs, err := target(file, val)
			if err != nil {
				return nil, bad(key, "%v", err)
			}
			cfg.Target = vs
		case "per-file-ignores":
			m, ok := val.(map[string]any)
			if !ok {
				return nil, bad(key, "want a table of glob = [rules], got %s", typeName(val))
			}
			var pats []string
			for p := range m {
				pats = append(pats, p)
			}
			sort.Strings(pats)
			for _, p := range pats {
				if _, err := globRegexp(p); err != nil {
					return nil, bad(key, "pattern %q: %v", p, err)
				}
				list, err := ruleList(m[p], names)
				if err != nil {
					return nil, bad(key, "%q: %v", p, err)
				}
				cfg.PerFileIgnores = append(cfg.PerFileIgnores, PerFileIgnore{Pattern: p, Rules: list})
			}
		default:
			return nil, bad(key, "unknown key (want one of %s)", strings.Join(Keys, ", "))
		}
	}
	return cfg, nil
}

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("%T", v)
}

// ruleList reads a list of rule codes or names and checks each names a
// rule.
func ruleList(v any, names Names) ([]string, error) {
	items, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want a list of rule codes or names, got %s", typeName(v))
	}
	var out []string
	for _, it := range items {
		s, ok := it.(string)
		if !ok {
			return nil, fmt.Errorf("want rule codes or names as strings, got %s", typeName(it))
		}
		if err := names.Rule(s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// target reads { transformers = "5.17" } or "transformers=5.17,trl=0.27".
func target(file string, v any) (version.Versions, error) {
	var vs version.Versions
	pairs := map[string]string{}
	switch t := v.(type) {
	case string:
		for _, item := range strings.Split(t, ",") {
			if item = strings.TrimSpace(item); item == "" {
				continue
			}
			lib, ver, ok := strings.Cut(item, "=")
			if !ok {
				return vs, fmt.Errorf("%q: want lib=version", item)
			}
			pairs[strings.TrimSpace(lib)] = strings.TrimLeft(strings.TrimSpace(ver), "=")
		}
	case map[string]any:
		for lib, ver := range t {
			s, ok := ver.(string)
			if !ok {
				return vs, fmt.Errorf("%s: want the version as a string (\"5.17\"), got %s", lib, typeName(ver))
			}
			pairs[lib] = s
		}
	default:
		return vs, fmt.Errorf("want a table (transformers = \"5.17\") or a string (\"transformers=5.17\"), got %s", typeName(v))
	}
	for lib, ver := range pairs {
		parsed, err := version.Parse(ver)
		if err != nil {
			return vs, err
		}
		parsed.Source = filepath.Base(file) + " [tool.loratune-fix] target"
		if err := vs.Set(lib, parsed); err != nil {
			return vs, err
		}
	}
	return vs, nil
}

// IgnoresFor returns the rules per-file-ignores silences for file.
func (c *Config) IgnoresFor(file string) []string {
	if c == nil || len(c.PerFileIgnores) == 0 {
		return nil
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil
	}
	rel, err := filepath.Rel(c.Dir, abs)
	if err != nil {
		return nil
	}
	rel = filepath.ToSlash(rel)
	var out []string
	for _, p := range c.PerFileIgnores {
		if Match(p.Pattern, rel) {
			out = append(out, p.Rules...)
		}
	}
	return out
}

// Match reports whether a slash path matches a glob where "**/" stands for
// any number of folders, "*" and "?" stay inside one folder, and a pattern
// without "/" matches the base name in any folder (as in ruff).
func Match(pattern, name string) bool {
	re, err := globRegexp(pattern)
	if err != nil {
		return false
	}
	if !strings.Contains(pattern, "/") {
		name = path.Base(name)
	}
	return re.MatchString(name)
}

func globRegexp(pattern string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case strings.HasPrefix(pattern[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(pattern[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			j := strings.IndexByte(pattern[i:], ']')
			if j < 0 {
				return nil, fmt.Errorf("unclosed [ in %q", pattern)
			}
			cls := pattern[i+1 : i+j]
			if strings.HasPrefix(cls, "!") {
				cls = "^" + cls[1:]
			}
			b.WriteString("[" + cls + "]")
			i += j
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}
