package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/pins"
	"github.com/loratune/loratune-fix/rewrite"
	"github.com/loratune/loratune-fix/runner"
	"github.com/loratune/loratune-fix/udiff"
	"github.com/loratune/loratune-fix/version"
)

// ruleFlags are the flags that choose rules and versions, shared by the
// commands that run the engine.
type ruleFlags struct {
	profile, target, stdinName string
	selectRules, extendSelect  []string
	ignoreRules                []string
	unsafeFixes                bool
	jobs, lineLength           int
	maxFileSize                int64
	parseTimeout               time.Duration
	cfg                        configFlags
	bulk                       bulkFlags // registered by the commands that walk folders
	cmd                        *cobra.Command
	// nothing is set by each when the paths held no file to read (the
	// warning said so; no summary follows).
	nothing bool
}

// register adds the rule flags to cmd, but those named in skip: a command
// lists only the flags that do something there.
func (r *ruleFlags) register(cmd *cobra.Command, skip ...string) {
	r.cmd = cmd
	fs := pflag.NewFlagSet(cmd.Name(), pflag.ContinueOnError)
	fs.StringVar(&r.profile, "profile", "", `rule set: "default" (the reported fixes) or "lean" (keeps bf16, fences cuDNN SDPA)`)
	fs.StringSliceVar(&r.selectRules, "select", nil, "run only these of the profile's rules (codes, prefixes or names, comma-separated; ALL); a rule the profile leaves out runs only when named by its code or name")
	fs.StringSliceVar(&r.extendSelect, "extend-select", nil, "run these rules too (codes, prefixes or names, comma-separated); the same rule for rules the profile leaves out")
	fs.StringSliceVar(&r.ignoreRules, "ignore", nil, "skip these rules (codes or names, comma-separated)")
	fs.BoolVar(&r.unsafeFixes, "unsafe-fixes", false, "also apply fixes marked unsafe")
	fs.StringVar(&r.target, "target", "", "library versions to assume, e.g. transformers=5.17,trl=0.27 (override the pins found)")
	fs.StringVar(&r.stdinName, "stdin-filename", "", "the name to report for source read from - (stdin); alone, without PATH, it reads stdin")
	fs.IntVar(&r.lineLength, "line-length", 0, "the formatter's line length that fixes keep within (default: the project's ruff or black setting, else 88)")
	fs.IntVarP(&r.jobs, "jobs", "j", 0, "parallel workers (default: the CPUs this process may use, or GOMAXPROCS where set)")
	fs.Int64Var(&r.maxFileSize, "max-file-size", runner.DefaultMaxFileSize, "skip files larger than this many bytes")
	fs.DurationVar(&r.parseTimeout, "parse-timeout", 10*time.Second, "give up on a file whose parse and analysis take longer")
	fs.VisitAll(func(f *pflag.Flag) {
		if !slices.Contains(skip, f.Name) {
			cmd.Flags().AddFlag(f)
		}
	})
	if !slices.Contains(skip, "config") {
		r.cfg.register(cmd)
	}
}

func parseTarget(s string) (version.Versions, error) {
	var vs version.Versions
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		lib, ver, ok := strings.Cut(item, "=")
		if !ok {
			return vs, fmt.Errorf("--target %q: want lib=version", item)
		}
		v, err := version.Parse(strings.TrimLeft(ver, "="))
		if err != nil {
			return vs, fmt.Errorf("--target: %w", err)
		}
		v.Source = "--target"
		if err := vs.Set(lib, v); err != nil {
			return vs, fmt.Errorf("--target: %w", err)
		}
	}
	return vs, nil
}

func (r *ruleFlags) options(fix, write bool) (*runner.Options, error) {
	target, err := parseTarget(r.target)
	if err != nil {
		return nil, err
	}
	ro := rewrite.Options{
		Profile: r.profile, Select: r.selectRules, ExtendSelect: r.extendSelect, Ignore: r.ignoreRules,
		UnsafeFixes: r.unsafeFixes, Target: target, ParseTimeout: r.parseTimeout,
	}
	cfg, err := r.cfg.load(r.stdinName)
	if err != nil {
		return nil, err
	}
	r.cfg.merge(&ro, cfg)
	eng, err := rewrite.New(ro)
	if err != nil {
		return nil, err
	}
	if !r.bulk.hushed() {
		for _, n := range eng.Notes() {
			printLine(r.cmd.ErrOrStderr(), "note", n)
		}
	}
	finder := pins.NewFinder()
	lineLength := finder.LineLength
	if r.lineLength < 0 {
		return nil, fmt.Errorf("--line-length %d: want a positive number", r.lineLength)
	}
	if n := r.lineLength; n > 0 {
		lineLength = func(string) int { return n }
	}
	return &runner.Options{Engine: eng, Fix: fix, Write: write, Jobs: r.jobs, MaxFileSize: r.maxFileSize,
		Versions: finder.For, LineLength: lineLength, EngineFor: perFileEngines(ro, cfg)}, nil
}

// paths is the paths to run on, as ruff takes them: stdin when none is
// given but --stdin-filename is, else the current folder when none is
// given.
func (r *ruleFlags) paths(args []string) []string {
	switch {
	case len(args) > 0:
		return args
	case r.stdinName != "":
		return []string{"-"}
	}
	return []string{"."}
}

// stdinOnly reports a run on stdin alone: a filter, whose stdout is the
// fixed source (or a diff of it), never a report.
func stdinOnly(paths []string) bool { return len(paths) == 1 && paths[0] == "-" }

// each runs opts over paths ("-" is stdin) and calls emit per file in path
// order. It returns the number of files with errors (already printed).
func (r *ruleFlags) each(opts *runner.Options, paths []string, stdin io.Reader, stderr io.Writer, emit func(*finding.FileResult)) int {
	errs, stdinRead := 0, false
	var files []string
	for _, p := range paths {
		if p != "-" {
			files = append(files, p)
			continue
		}
		stdinRead = true
		data, err := io.ReadAll(stdin)
		name := r.stdinName
		if name == "" {
			name = "-"
		}
		var f *finding.FileResult
		if err != nil {
			f = &finding.FileResult{Path: name, Err: &runner.FileError{Path: name, Err: err}}
		} else {
			f = runner.Process(opts, name, data)
		}
		if f.Err != nil {
			printLine(stderr, "error", f.Err)
			errs++
		}
		emit(f)
	}
	wo, err := r.bulk.walkOptions()
	if err != nil {
		printLine(stderr, "error", err)
		return errs + 1
	}
	prog := newProgress(stderr, r.bulk.hushed(), "files", func() int64 {
		var n int64
		for range runner.Walk(files, wo) {
			n++
		}
		return n
	})
	defer prog.finish()
	// The first Ctrl-C starts no new file, the second stops those in
	// flight; either way every file written is emitted (and reported).
	defer spareP(opts)()
	stoppable := *opts
	stoppable.Stop = cmdContext().Done()
	done, written := 0, 0
	runner.RunSeq(abortContext(), &stoppable, runner.Walk(files, wo), func(f *finding.FileResult) {
		done++
		if f.Written {
			written++
		}
		if f.Err != nil || len(f.Dropped) > 0 || f.Written {
			prog.clear() // a line for stderr follows
		}
		if f.Err != nil {
			printLine(stderr, "error", f.Err)
			errs++
		}
		for _, d := range f.Dropped {
			printLine(stderr, "error", finding.DisplayPath(f.Path)+": "+d)
		}
		prog.step(len(f.Diags))
		emit(f)
	})
	if interrupted() {
		prog.finish()
		total := 0
		for range runner.Walk(files, wo) {
			total++
		}
		msg := fmt.Sprintf("loratune-fix: interrupted: %d of %d file(s) done", done, total)
		if opts.Write {
			msg += fmt.Sprintf(" (%d written, each listed above)", written)
		}
		fmt.Fprintf(stderr, "%s, %d not started or stopped before any write.\n", msg, total-done)
	}
	r.nothing = done == 0 && !stdinRead && len(files) > 0 && !interrupted()
	if r.nothing && !r.bulk.hushed() {
		// As ruff: a warning, and the exit status of a run that found nothing.
		where := strings.Join(files, ", ")
		if r.bulk.shard != "" {
			where += " in shard " + r.bulk.shard
		}
		printLine(stderr, "warning", "no Python files, notebooks or launch configs found under "+where)
	}
	return errs
}

// diffPalette is the diff colouring that --color asks for on stdout.
func diffPalette(mode string) (udiff.Palette, error) {
	colored, err := useColor(mode, os.Stdout)
	if err != nil || !colored {
		return udiff.Palette{}, err
	}
	return udiff.ANSI, nil
}

// colorFlag decides colouring for --color auto|always|never.
func useColor(mode string, w *os.File) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto", "":
		if os.Getenv("NO_COLOR") != "" {
			return false, nil
		}
		info, err := w.Stat()
		return err == nil && info.Mode()&os.ModeCharDevice != 0 && os.Getenv("TERM") != "dumb", nil
	}
	return false, fmt.Errorf("--color %q: want auto, always or never", mode)
}
