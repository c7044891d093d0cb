// Package pins finds the library versions that govern a training script:
// the nearest requirements*.txt, pyproject.toml (PEP 621 and Poetry),
// setup.cfg, setup.py and environment.yml, walking up from the script to
// the repository root. Each version says where it was found, for messages.
// The same walk finds the formatter's line length (LineLength).
package pins

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"

	"github.com/loratune/loratune-fix/version"
)

// Libraries are the libraries whose versions the rules read.
var Libraries = []string{"transformers", "peft", "trl", "torch", "axolotl", "accelerate"}

// Finder looks up pins, caching what each directory holds: a bulk run over
// thousands of scripts reads each pin file once. Safe for concurrent use.
type Finder struct {
	mu   sync.Mutex
	dirs map[string]*dirPins
}

// NewFinder returns an empty finder.
func NewFinder() *Finder { return &Finder{dirs: map[string]*dirPins{}} }

// dirPins is what one directory's pin files say, with Source relative to
// that directory ("requirements.txt:3").
type dirPins struct {
	pins     map[string]version.Version
	root     bool     // a repository root: the walk stops here
	vendored []string // libraries whose package lies here (peft/__init__.py)
	// formatter: the directory has a pyproject.toml, ruff.toml or
	// .ruff.toml, whose formatter line length is lineLength (0: none set).
	formatter  bool
	lineLength int
}

// DefaultLineLength is black's and ruff's line length.
const DefaultLineLength = 88

// LineLength is the formatter line length of the project that holds path:
// that of the nearest folder (from the script's folder up to the
// repository root) with a pyproject.toml, .ruff.toml or ruff.toml, as
// black and ruff find their settings: [tool.black] line-length, else
// .ruff.toml's, ruff.toml's or [tool.ruff]'s line-length, else
// DefaultLineLength. It walks the same folders, through the same cache,
// as For.
func (f *Finder) LineLength(path string) int {
	abs, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return DefaultLineLength
	}
	for dir := abs; ; {
		d := f.dir(dir)
		if d.formatter {
			if d.lineLength > 0 {
				return d.lineLength
			}
			return DefaultLineLength
		}
		parent := filepath.Dir(dir)
		if d.root || parent == dir {
			return DefaultLineLength
		}
		dir = parent
	}
}

// RuffLineLength is the line-length of a ruff.toml or .ruff.toml (0:
// none, or not TOML).
func RuffLineLength(data []byte) int {
	var doc struct {
		LineLength int `toml:"line-length"`
	}
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return 0
	}
	return max(doc.LineLength, 0)
}

// PyprojectLineLength is the line length a pyproject.toml sets for its
// formatter: [tool.black] line-length, else [tool.ruff] line-length (0:
// none, or not TOML).
func PyprojectLineLength(data []byte) int {
	black, ruff := pyprojectLineLengths(data)
	if black > 0 {
		return black
	}
	return ruff
}

// pyprojectLineLengths are [tool.black]'s and [tool.ruff]'s line-length.
func pyprojectLineLengths(data []byte) (black, ruff int) {
	var doc struct {
		Tool struct {
			Black struct {
				LineLength int `toml:"line-length"`
			} `toml:"black"`
			Ruff struct {
				LineLength int `toml:"line-length"`
			} `toml:"ruff"`
		} `toml:"tool"`
	}
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return 0, 0
	}
	return max(doc.Tool.Black.LineLength, 0), max(doc.Tool.Ruff.LineLength, 0)
}

// For returns the versions that govern the script at path: for each
// library, the nearest directory (from the script's own up to the
// repository root) whose pin files name it. Source is the pin file relative
// to the script's directory, with its line: "../requirements.txt:3". A
// library whose package (peft/__init__.py) lies beside the script is the
// one `python script.py` imports: a vendored copy, whatever the pins say.
func (f *Finder) For(path string) version.Versions {
	var vs version.Versions
	abs, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return vs
	}
	found := map[string]bool{}
	for _, lib := range f.dir(abs).vendored {
		found[lib] = true
		vs.Set(lib, version.Version{Ref: "a vendored copy", Source: lib + "/"})
	}
	rel := ""
	for dir := abs; ; {
		d := f.dir(dir)
		for lib, v := range d.pins {
			if found[lib] {
				continue
			}
			found[lib] = true
			if rel != "" {
				v.Source = filepath.ToSlash(filepath.Join(rel, v.Source))
			}
			vs.Set(lib, v)
		}
		parent := filepath.Dir(dir)
		if d.root || parent == dir || len(found) == len(Libraries) {
			return vs
		}
		dir = parent
		rel = filepath.Join(rel, "..")
	}
}

func (f *Finder) dir(dir string) *dirPins {
	f.mu.Lock()
	d, ok := f.dirs[dir]
	f.mu.Unlock()
	if ok {
		return d
	}
	d = readDir(dir)
	f.mu.Lock()
	f.dirs[dir] = d
	f.mu.Unlock()
	return d
}

// readDir reads the pin files of one directory. Within a directory the
// order is requirements.txt, other requirements*.txt (sorted),
// pyproject.toml, setup.cfg, setup.py, environment.yml: the first that
// names a library pins it.
func readDir(dir string) *dirPins {
	d := &dirPins{pins: map[string]version.Version{}}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		d.root = true
	}
	for _, lib := range Libraries {
		if _, err := os.Stat(filepath.Join(dir, lib, "__init__.py")); err == nil {
			d.vendored = append(d.vendored, lib)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return d
	}
	var reqs []string
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, "requirements") && strings.HasSuffix(n, ".txt") && n != "requirements.txt" && !e.IsDir() {
			reqs = append(reqs, n)
		}
	}
	sort.Strings(reqs)
	// The formatter's line length: black's, else that of the file ruff
	// reads first (.ruff.toml, ruff.toml, then pyproject.toml's [tool.ruff]).
	var black, ruff int
	for _, name := range []string{".ruff.toml", "ruff.toml"} {
		if data, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			d.formatter, ruff = true, RuffLineLength(data)
			break
		}
	}
	// A lock file says what is installed: it comes first.
	names := append([]string{"uv.lock", "poetry.lock", "pdm.lock", "requirements.txt"}, reqs...)
	names = append(names, "pyproject.toml", "setup.cfg", "setup.py", "environment.yml", "environment.yaml")
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		var got map[string]version.Version
		switch {
		case strings.HasSuffix(name, ".lock"):
			got = Lock(name, data)
		case strings.HasSuffix(name, ".txt"):
			got = Requirements(dir, name, data)
		case name == "pyproject.toml":
			got = Pyproject(name, data)
			b, r := pyprojectLineLengths(data)
			if black = b; !d.formatter {
				ruff = r
			}
			d.formatter = true
		case name == "setup.cfg":
			got = SetupCfg(name, data)
		case name == "setup.py":
			got = SetupPy(name, data)
		default:
			got = Environment(name, data)
		}
		for lib, v := range got {
			if _, ok := d.pins[lib]; !ok {
				d.pins[lib] = v
			}
		}
	}
	d.lineLength = black
	if black == 0 {
		d.lineLength = ruff
	}
	// The repository of a library itself (axolotl's examples): its own
	// version governs the configs it ships.
	if lib, v, ok := ownPackage(dir); ok {
		if _, had := d.pins[lib]; !had {
			d.pins[lib] = v
		}
	}
	return d
}

// Lock reads a TOML lock file (uv.lock, poetry.lock, pdm.lock): each
// [[package]]'s exact version.
func Lock(name string, data []byte) map[string]version.Version {
	out := map[string]version.Version{}
	var doc struct {
		Package []struct {
			Name    string `toml:"name"`
			Version string `toml:"version"`
		} `toml:"package"`
	}
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return out
	}
	text := string(data)
	for _, p := range doc.Package {
		lib, ok := libraries[normalize(p.Name)]
		if !ok {
			continue
		}
		v, err := version.Parse(p.Version)
		if err != nil {
			continue
		}
		addPin(out, lib, v, at(name, lineOf(text, `name = "`+p.Name+`"`)))
	}
	return out
}

var (
	setupName    = regexp.MustCompile(`\bname\s*=\s*["']([A-Za-z0-9._-]+)["']`)
	setupVersion = regexp.MustCompile(`\bversion\s*=\s*["']([0-9][0-9A-Za-z.+-]*)["']`)
)

// ownPackage reads the name and version of the package a folder builds
// (pyproject's [project], its version file, or setup.py's name= and
// version=), where that package is one of the libraries.
func ownPackage(dir string) (string, version.Version, bool) {
	if data, err := os.ReadFile(filepath.Join(dir, "pyproject.toml")); err == nil {
		var doc struct {
			Project struct {
				Name    string `toml:"name"`
				Version string `toml:"version"`
			} `toml:"project"`
			Tool struct {
				Setuptools struct {
					Dynamic struct {
						Version struct {
							File string `toml:"file"`
						} `toml:"version"`
					} `toml:"dynamic"`
				} `toml:"setuptools"`
			} `toml:"tool"`
		}
		if _, err := toml.Decode(string(data), &doc); err == nil {
			if lib, ok := libraries[normalize(doc.Project.Name)]; ok {
				src, raw := at("pyproject.toml", lineOfKey(string(data), "version")), doc.Project.Version
				if f := doc.Tool.Setuptools.Dynamic.Version.File; raw == "" && f != "" {
					b, err := os.ReadFile(filepath.Join(dir, f))
					src, raw = f, strings.TrimSpace(string(b))
					if err != nil {
						raw = ""
					}
				}
				if v, err := version.Parse(raw); err == nil {
					v.Source = src
					return lib, v, true
				}
			}
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "setup.py"))
	if err != nil {
		return "", version.Version{}, false
	}
	text := string(data)
	n, ver := setupName.FindStringSubmatch(text), setupVersion.FindStringSubmatchIndex(text)
	if n == nil || ver == nil {
		return "", version.Version{}, false
	}
	lib, ok := libraries[normalize(n[1])]
	if !ok {
		return "", version.Version{}, false
	}
	v, err := version.Parse(text[ver[2]:ver[3]])
	if err != nil {
		return "", version.Version{}, false
	}
	v.Source = at("setup.py", strings.Count(text[:ver[0]], "\n")+1)
	return lib, v, true
}

func at(name string, line int) string { return name + ":" + strconv.Itoa(line) }

// addPin keeps the first mention of each library.
func addPin(out map[string]version.Version, lib string, v version.Version, source string) {
	if _, ok := out[lib]; ok {
		return
	}
	v.Source = source
	out[lib] = v
}

// Requirements reads a pip requirements file, following -r includes in
// the same directory tree (up to a small depth).
func Requirements(dir, name string, data []byte) map[string]version.Version {
	out := map[string]version.Version{}
	readRequirements(dir, name, data, out, 0)
	return out
}

func readRequirements(dir, name string, data []byte, out map[string]version.Version, depth int) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		for _, flag := range []string{"-r ", "--requirement ", "--requirement=", "-c ", "--constraint ", "--constraint="} {
			if strings.HasPrefix(line, flag) && depth < 3 {
				inc := strings.TrimSpace(strings.TrimPrefix(line, flag))
				if b, err := os.ReadFile(filepath.Join(dir, inc)); err == nil {
					readRequirements(dir, filepath.ToSlash(filepath.Join(filepath.Dir(name), inc)), b, out, depth+1)
				}
			}
		}
		if strings.HasPrefix(line, "-e ") || strings.HasPrefix(line, "--editable ") {
			line = strings.TrimSpace(line[strings.IndexByte(line, ' '):])
		}
		if strings.HasPrefix(line, "-") {
			continue
		}
		if lib, v, ok := requirement(line); ok {
			addPin(out, lib, v, at(name, n))
		}
	}
}

// Pyproject reads PEP 621 dependencies (and optional dependencies) and
// Poetry's dependency tables.
func Pyproject(name string, data []byte) map[string]version.Version {
	out := map[string]version.Version{}
	var doc struct {
		Project struct {
			Dependencies         []string            `toml:"dependencies"`
			OptionalDependencies map[string][]string `toml:"optional-dependencies"`
		} `toml:"project"`
		// PEP 735 dependency groups: strings, or {include-group = ...}.
		DependencyGroups map[string][]any `toml:"dependency-groups"`
		Tool             struct {
			Poetry struct {
				Dependencies    map[string]any `toml:"dependencies"`
				DevDependencies map[string]any `toml:"dev-dependencies"`
				Group           map[string]struct {
					Dependencies map[string]any `toml:"dependencies"`
				} `toml:"group"`
			} `toml:"poetry"`
		} `toml:"tool"`
	}
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return out // a broken pyproject pins nothing; the config reader reports it
	}
	text := string(data)
	reqs := doc.Project.Dependencies
	var extras []string
	for k := range doc.Project.OptionalDependencies {
		extras = append(extras, k)
	}
	sort.Strings(extras)
	for _, k := range extras {
		reqs = append(reqs, doc.Project.OptionalDependencies[k]...)
	}
	var groupNames []string
	for g := range doc.DependencyGroups {
		groupNames = append(groupNames, g)
	}
	sort.Strings(groupNames)
	for _, g := range groupNames {
		for _, item := range doc.DependencyGroups[g] {
			if r, ok := item.(string); ok {
				reqs = append(reqs, r)
			}
		}
	}
	for _, r := range reqs {
		if lib, v, ok := requirement(r); ok {
			addPin(out, lib, v, at(name, lineOf(text, strconv.Quote(r)[1:len(strconv.Quote(r))-1])))
		}
	}
	poetry := []map[string]any{doc.Tool.Poetry.Dependencies}
	var groups []string
	for g := range doc.Tool.Poetry.Group {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	for _, g := range groups {
		poetry = append(poetry, doc.Tool.Poetry.Group[g].Dependencies)
	}
	poetry = append(poetry, doc.Tool.Poetry.DevDependencies)
	for _, deps := range poetry {
		var keys []string
		for k := range deps {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			lib, ok := libraries[normalize(k)]
			if !ok {
				continue
			}
			addPin(out, lib, poetryVersion(deps[k]), at(name, lineOfKey(text, k)))
		}
	}
	return out
}

// poetryVersion reads "^4.36", {version = ">=4.36"}, {git = ..., tag =
// "v4.36.0"} and a list of such tables (per-platform pins: the lowest).
func poetryVersion(v any) version.Version {
	switch t := v.(type) {
	case string:
		return lowerBound(t)
	case map[string]any:
		if s, ok := t["version"].(string); ok {
			return lowerBound(s)
		}
		for _, k := range []string{"tag", "rev", "branch"} {
			if s, ok := t[k].(string); ok {
				return urlVersion("x@" + s)
			}
		}
	case []map[string]any:
		var best version.Version
		for _, m := range t {
			if v := poetryVersion(m); v.Known && (!best.Known || less(v, best)) {
				best = v
			}
		}
		return best
	}
	return version.Version{}
}

// lineOf is the 1-based line of the first occurrence of needle (1 when
// it is not found).
func lineOf(text, needle string) int {
	i := strings.Index(text, needle)
	if i < 0 {
		return 1
	}
	return strings.Count(text[:i], "\n") + 1
}

func lineOfKey(text, key string) int {
	re := regexp.MustCompile(`(?m)^\s*"?` + regexp.QuoteMeta(key) + `"?\s*=`)
	if loc := re.FindStringIndex(text); loc != nil {
		return strings.Count(text[:loc[0]], "\n") + 1
	}
	return 1
}

// SetupCfg reads install_requires and extras_require of setup.cfg.
func SetupCfg(name string, data []byte) map[string]version.Version {
	out := map[string]version.Version{}
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		raw := sc.Text()
		line := strings.TrimSpace(raw)
		if strings.HasPrefix(line, "[") {
			section = strings.Trim(line, "[] ")
			continue
		}
		if section != "options" && section != "options.extras_require" {
			continue
		}
		if k, rest, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(raw, " ") && !strings.HasPrefix(raw, "\t") {
			if section == "options" && strings.TrimSpace(k) != "install_requires" {
				continue
			}
			line = rest
		} else if raw == line {
			continue // a key line that is not a dependency list
		}
		if lib, v, ok := requirement(line); ok {
			addPin(out, lib, v, at(name, n))
		}
	}
	return out
}

var quoted = regexp.MustCompile(`["']([^"'\n]+)["']`)

// SetupPy reads the quoted requirement strings of setup.py (those with a
// version operator or a URL: a bare name pins nothing and may be the
// package's own name).
func SetupPy(name string, data []byte) map[string]version.Version {
	out := map[string]version.Version{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		for _, m := range quoted.FindAllStringSubmatch(sc.Text(), -1) {
			s := m[1]
			if !strings.ContainsAny(s, "=<>~@") {
				continue
			}
			if lib, v, ok := requirement(s); ok {
				addPin(out, lib, v, at(name, n))
			}
		}
	}
	return out
}

var condaPin = regexp.MustCompile(`^([A-Za-z0-9._-]+)\s*=\s*([0-9][^=\s]*)(=.*)?$`)

// Environment reads a conda environment.yml: conda pins ("pytorch=2.1",
// "transformers=4.36.0=pyhd8ed1ab_0") and its pip section.
func Environment(name string, data []byte) map[string]version.Version {
	out := map[string]version.Version{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "- ") {
			continue
		}
		line = strings.Trim(strings.TrimSpace(line[2:]), `"'`)
		if i := strings.Index(line, "::"); i >= 0 {
			line = line[i+2:] // channel::name
		}
		if m := condaPin.FindStringSubmatch(line); m != nil {
			line = m[1] + "==" + m[2]
		}
		if lib, v, ok := requirement(line); ok {
			addPin(out, lib, v, at(name, n))
		}
	}
	return out
}
