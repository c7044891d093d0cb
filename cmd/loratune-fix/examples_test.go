package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/config"
	"github.com/loratune/loratune-fix/rewrite"
)

// The examples under examples/ call `loratune-fix migrate` with flags that
// exist: a renamed flag breaks this test, not a user's fleet run.
func TestExamplesUseRealFlags(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*/*")
	if len(files) < 2 {
		t.Fatalf("examples: %v, want the GitHub Actions and Kubernetes ones", files)
	}
	flags := newMigrateCmd().Flags()
	flagRE := regexp.MustCompile(`(^|\s)--([a-z][a-z-]*)`)
	commandRE := regexp.MustCompile(`(?m)^\s*(exec\s+)?loratune-fix migrate`)
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		// The command runs from "loratune-fix migrate" over the lines
		// that end in a backslash.
		text := string(data)
		loc := commandRE.FindStringIndex(text)
		if loc == nil {
			t.Errorf("%s: no loratune-fix migrate command", file)
			continue
		}
		var cmd []string
		for _, line := range strings.Split(text[loc[0]:], "\n") {
			cmd = append(cmd, line)
			if !strings.HasSuffix(strings.TrimSpace(line), `\`) {
				break
			}
		}
		seen := 0
		for _, m := range flagRE.FindAllStringSubmatch(strings.Join(cmd, " "), -1) {
			seen++
			if flags.Lookup(m[2]) == nil {
				t.Errorf("%s: loratune-fix migrate has no flag --%s", file, m[2])
			}
		}
		if seen < 3 {
			t.Errorf("%s: the migrate command has %d flags; the test read it wrong", file, seen)
		}
		if !strings.Contains(strings.Join(cmd, " "), "--shard") {
			t.Errorf("%s: the example does not shard", file)
		}
	}
}

// readmeBlock returns the first fenced block of language lang after the
// heading in README.md.
func readmeBlock(t *testing.T, heading, lang string) string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	at := strings.Index(text, "\n"+heading+"\n")
	if at < 0 {
		t.Fatalf("README has no %q", heading)
	}
	open := "```" + lang + "\n"
	start := strings.Index(text[at:], open)
	if start < 0 {
		t.Fatalf("README: no %s block after %q", lang, heading)
	}
	block := text[at+start+len(open):]
	return block[:strings.Index(block, "```")]
}

// README's configuration example, loaded as it is printed: a prefix in
// select must not bring back what the lean profile leaves out.
func TestReadmeConfigExample(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pyproject.toml")
	if err := os.WriteFile(path, []byte(readmeBlock(t, "## Configuration", "toml")), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path, configNames)
	if err != nil {
		t.Fatal(err)
	}
	var ro rewrite.Options
	(&configFlags{}).merge(&ro, cfg)
	eng, err := rewrite.New(ro)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range eng.Rules() {
		got = append(got, r.Code)
	}
	if want := "LTF003,LTF004,LTF005,LTF007,LTF008,LTF009,LTF101,LTF104"; strings.Join(got, ",") != want {
		t.Errorf("README's configuration runs %s, want %s (as README says)", strings.Join(got, ","), want)
	}
	if len(eng.Notes()) != 0 {
		t.Errorf("notes %q, want none: the example names no rule outside lean", eng.Notes())
	}
}

// A rule the profile leaves out runs when named, and the run says so.
func TestNamedRuleOutsideTheProfileIsNoted(t *testing.T) {
	_, path := writeDemo(t)
	out, errOut, _ := run(t, "", "check", "--profile", "lean", "--select", "LTF00", "--extend-select", "LTF001", path)
	if got := codes(out); got["LTF001"] == 0 || got["LTF002"] != 0 || got["LTF007"] == 0 {
		t.Errorf("lean, LTF00 and LTF001 named: codes %v, want LTF001 and LTF007, no LTF002\n%s", got, out)
	}
	if want := "loratune-fix: note: LTF001 fp32-master-weights is not in the lean profile; it runs because extend-select names it"; !strings.Contains(errOut, want) {
		t.Errorf("stderr lacks %q:\n%s", want, errOut)
	}
}

// readmeCommands returns every loratune-fix command line README shows:
// from "loratune-fix SUBCOMMAND" up to a comment, a pipe, a redirection or
// a closing quote.
func readmeCommands(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	start := regexp.MustCompile(`loratune-fix (fix|check|rules|review|migrate|demo|--version)\b`)
	var cmds []string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "    ") && !strings.HasPrefix(line, "loratune-fix ") {
			continue // prose and tables; code is indented or fenced
		}
		loc := start.FindStringIndex(line)
		if loc == nil {
			continue
		}
		cmd := line[loc[0]:]
		if i := strings.IndexAny(cmd, "#|>\"`"); i >= 0 {
			cmd = cmd[:i]
		}
		cmds = append(cmds, strings.TrimSpace(cmd))
	}
	return cmds
}

// README's command lines use flags that exist, with values they accept;
// those that need no network, git or other repositories are run on the
// demo script in a scratch folder and must not end in a usage or file
// error.
func TestReadmeCommandsRun(t *testing.T) {
	cmds := readmeCommands(t)
	parsed, ran := 0, 0
	for _, line := range cmds {
		args := strings.Fields(line)[1:]
		root := newRoot()
		root.InitDefaultVersionFlag() // Execute adds --version
		c, rest, err := root.Find(args)
		if err != nil {
			t.Errorf("README: %q: %v", line, err)
			continue
		}
		if err := c.ParseFlags(rest); err != nil {
			t.Errorf("README: %q: %v", line, err)
			continue
		}
		parsed++
		switch c.Name() {
		case "review", "migrate":
			continue // git, GitHub and other repositories
		}
		dir := t.TempDir()
		for _, p := range []string{"train.py", "src/train.py", "monorepo/train.py"} {
			os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
			if err := os.WriteFile(filepath.Join(dir, p), demoScript, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		runnable := true
		for _, a := range c.Flags().Args() {
			if _, err := os.Stat(filepath.Join(dir, a)); a != "-" && err != nil {
				runnable = false
			}
		}
		if !runnable {
			continue
		}
		t.Chdir(dir)
		_, stderr, code := run(t, string(demoScript), args...)
		if code != exitOK && code != exitFindings {
			t.Errorf("README: %q: exit %d\n%s", line, code, stderr)
		}
		ran++
	}
	t.Logf("parsed %d, ran %d of %d", parsed, ran, len(cmds))
	if parsed < 25 || ran < 15 {
		t.Errorf("parsed %d and ran %d of README's %d commands; the test read README wrong", parsed, ran, len(cmds))
	}
}
