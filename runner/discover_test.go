package runner

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// writeTree creates files (path -> content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func gitCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func walkAll(t *testing.T, paths []string, opts WalkOptions) []string {
	t.Helper()
	var out []string
	for p, err := range Walk(paths, opts) {
		if err != nil {
			t.Fatalf("walk: %v", err)
		}
		out = append(out, p)
	}
	return out
}

func relAll(t *testing.T, root string, paths []string) []string {
	var out []string
	for _, p := range paths {
		r, err := filepath.Rel(root, p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(r))
	}
	return out
}

// ignoreTree exercises the corners of gitignore(5).
var ignoreTree = map[string]string{
	".gitignore": "# a comment\n*.log.py\nbuild/\n/top_only.py\ndocs/**/gen_*.py\n**/cache/*.py\n" +
		"a**b.py\ndata/*\n!data/keep.py\n[!x]rare.py\n\\#hash.py\ntrailing.py   \nfoo/**\n!foo/bar/\n" +
		"**/z/**/end.py\n**/q/deep.py\n",
	"sub/.gitignore":       "local.py\n/anchored.py\n!*.log.py\n",
	"main.py":              "",
	"x.log.py":             "",
	"sub/x.log.py":         "",
	"sub/local.py":         "",
	"sub/deep/local.py":    "",
	"sub/anchored.py":      "",
	"sub/deep/anchored.py": "",
	"build/a.py":           "",
	"sub/build/a.py":       "",
	"build.py":             "",
	"top_only.py":          "",
	"sub/top_only.py":      "",
	"docs/gen_a.py":        "",
	"docs/x/y/gen_b.py":    "",
	"docs/x/other.py":      "",
	"cache/c.py":           "",
	"p/q/cache/c.py":       "",
	"p/q/cache/r/c.py":     "",
	"ab.py":                "",
	"aXXb.py":              "",
	"data/drop.py":         "",
	"data/keep.py":         "",
	"data/sub/keep.py":     "",
	"arare.py":             "",
	"q/x/q/deep.py":        "", // "**" must backtrack past the first q
	"q/x/deep.py":          "",
	"xrare.py":             "",
	"#hash.py":             "",
	"trailing.py":          "",
	"foo/a.py":             "",
	"foo/bar/b.py":         "",
	"a/z/end.py":           "",
	"a/z/x/y/end.py":       "",
	"a/x/z/q/end.py":       "",
	"z/end.py":             "",
	"secret_1.py":          "",
	"sub/secret_2.py":      "",
	"nb.ipynb":             "{}",
	"notes.txt":            "",
	"a.py/inner.py":        "",
	"a.pyc":                "",
}

func TestWalkMatchesGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	writeTree(t, dir, ignoreTree)
	gitCmd(t, dir, "init", "-q")
	if err := os.WriteFile(filepath.Join(dir, ".git", "info", "exclude"), []byte("secret_*.py\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, line := range strings.Split(gitCmd(t, dir, "ls-files", "--others", "--exclude-standard"), "\n") {
		if Sources(line) {
			want = append(want, line)
		}
	}
	sort.Strings(want)

	got := relAll(t, dir, walkAll(t, []string{dir}, WalkOptions{}))
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("walk and git disagree\nwalk:\n%s\n\ngit ls-files --others --exclude-standard:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !sort.StringsAreSorted(got) {
		t.Errorf("walk order is not sorted:\n%s", strings.Join(got, "\n"))
	}

	t.Run("a subfolder sees the patterns of the folders above it", func(t *testing.T) {
		sub := relAll(t, dir, walkAll(t, []string{filepath.Join(dir, "sub")}, WalkOptions{}))
		var wantSub []string
		for _, w := range want {
			if strings.HasPrefix(w, "sub/") {
				wantSub = append(wantSub, w)
			}
		}
		if strings.Join(sub, "\n") != strings.Join(wantSub, "\n") {
			t.Errorf("walk of sub/:\n%s\nwant:\n%s", strings.Join(sub, "\n"), strings.Join(wantSub, "\n"))
		}
	})

	t.Run("--no-ignore walks every source file", func(t *testing.T) {
		all := walkAll(t, []string{dir}, WalkOptions{NoIgnore: true})
		n := 0
		for name := range ignoreTree {
			if Sources(name) {
				n++
			}
		}
		if len(all) != n {
			t.Errorf("--no-ignore: %d files, want %d", len(all), n)
		}
	})
}

func TestWalkExclude(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"a.py": "", "tests/test_a.py": "", "src/tests/test_b.py": "", "src/gen/x_pb2.py": "",
		"src/m.py": "", "src/gen/keep.py": "",
	})
	cases := []struct {
		globs []string
		want  string
	}{
		{nil, "a.py src/gen/keep.py src/gen/x_pb2.py src/m.py src/tests/test_b.py tests/test_a.py"},
		{[]string{"tests"}, "a.py src/gen/keep.py src/gen/x_pb2.py src/m.py"},
		{[]string{"tests/"}, "a.py src/gen/keep.py src/gen/x_pb2.py src/m.py"},
		{[]string{"*_pb2.py", "test_*.py"}, "a.py src/gen/keep.py src/m.py"},
		{[]string{"src/**/*.py"}, "a.py tests/test_a.py"},
		{[]string{"src/gen"}, "a.py src/m.py src/tests/test_b.py tests/test_a.py"},
	}
	for _, c := range cases {
		got := strings.Join(relAll(t, dir, walkAll(t, []string{dir}, WalkOptions{Exclude: c.globs})), " ")
		if got != c.want {
			t.Errorf("--exclude %q:\n got %s\nwant %s", c.globs, got, c.want)
		}
	}
	if err := (WalkOptions{Exclude: []string{"[a"}}).Validate(); err == nil {
		t.Error("a malformed glob was accepted")
	}
}

func TestShard(t *testing.T) {
	if _, err := ParseShard("4/4"); err == nil {
		t.Error("4/4 accepted; shards count from 0")
	}
	if _, err := ParseShard("x"); err == nil {
		t.Error("x accepted")
	}
	s, err := ParseShard("1/3")
	if err != nil || s != (Shard{1, 3}) {
		t.Fatalf("ParseShard(1/3) = %v, %v", s, err)
	}
	// Every key lands in exactly one shard, and the shards are not empty.
	counts := make([]int, 3)
	for i := 0; i < 300; i++ {
		key := filepath.Join("repo", strings.Repeat("d/", i%5), "f"+string(rune('a'+i%26))+".py")
		key += string(rune('0' + i%10))
		in := 0
		for k := 0; k < 3; k++ {
			if (Shard{k, 3}).Has(key) {
				in++
				counts[k]++
			}
		}
		if in != 1 {
			t.Fatalf("%s is in %d shards", key, in)
		}
	}
	for k, c := range counts {
		if c < 50 {
			t.Errorf("shard %d/3 holds %d of 300 keys: the hash does not spread", k, c)
		}
	}
	// Stable: FNV-1a 64 of the path (values computed apart, in Python), the
	// same on every machine, so the shards of N machines cover everything.
	for _, c := range []struct {
		key  string
		n, k int
	}{{"train.py", 2, 0}, {"train.py", 4, 2}, {"github.com/org/repo", 4, 1}} {
		if !(Shard{c.k, c.n}).Has(c.key) {
			t.Errorf("%s is not in shard %d/%d", c.key, c.k, c.n)
		}
	}
}

func TestWalkSkipsVirtualenvs(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"app.py": "", "myenv/pyvenv.cfg": "home = /usr\n", "myenv/lib/site.py": "",
		"node_modules/x.py": "", "pkg/__pycache__/m.py": "", "pkg/m.py": "",
	})
	got := strings.Join(relAll(t, dir, walkAll(t, []string{dir}, WalkOptions{})), " ")
	if got != "app.py pkg/m.py" {
		t.Errorf("walk yielded %q, want app.py pkg/m.py", got)
	}
	// A virtualenv named as the argument is walked: naming it is asking.
	env := filepath.Join(dir, "myenv")
	if got := relAll(t, env, walkAll(t, []string{env}, WalkOptions{})); strings.Join(got, " ") != "lib/site.py" {
		t.Errorf("walk of the virtualenv itself: %q", got)
	}
}

// Folders listed ahead of the walk (more subfolders than listAhead, nested,
// files between them, a stop part-way) change nothing: every source file
// once, in byte order, and an early stop stops.
func TestWalkListsAheadInOrder(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	var want []string
	for i := range 3*listAhead + 5 {
		for _, name := range []string{
			fmt.Sprintf("d%02d/m.py", i),
			fmt.Sprintf("d%02d/sub%d/deep/x.py", i, i%3),
			fmt.Sprintf("d%02d.py", i),
			fmt.Sprintf("d%02d/z.ipynb", i),
		} {
			files[name] = ""
			want = append(want, name)
		}
	}
	files["d07/empty/.keep"] = ""
	writeTree(t, dir, files)
	sort.Strings(want)
	got := relAll(t, dir, walkAll(t, []string{dir}, WalkOptions{}))
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("walk:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	n := 0
	for range Walk([]string{dir}, WalkOptions{}) {
		if n++; n == 10 {
			break
		}
	}
	if n != 10 {
		t.Errorf("stopped after %d paths, want 10", n)
	}
}

// A file named twice, or named and inside a folder argument, or a folder
// inside another folder argument, is yielded once: under --write the
// second copy would find the file changed by the first.
func TestWalkYieldsEachFileOnce(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.py": "", "src/b.py": "", "src/sub/c.py": "", "src/sub/d.py": ""})
	a := filepath.Join(dir, "a.py")
	if err := os.Symlink(a, filepath.Join(dir, "link.py")); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "src")
	got := walkAll(t, []string{
		a, dir + "/./a.py", filepath.Join(dir, "link.py"), // one file, three names
		filepath.Join(src, "sub"), src, src + "/", // a folder inside another, and the other twice
		filepath.Join(src, "sub", "c.py"), // a file inside both
	}, WalkOptions{})
	want := []string{a, filepath.Join(src, "sub", "d.py"), filepath.Join(src, "b.py"), filepath.Join(src, "sub", "c.py")}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
