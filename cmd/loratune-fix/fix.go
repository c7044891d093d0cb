package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/report"
	"github.com/loratune/loratune-fix/udiff"
)

func newFixCmd() *cobra.Command {
	var rf ruleFlags
	var write, check bool
	var color, format string
	cmd := &cobra.Command{
		Use:   "fix [flags] PATH...",
		Short: "Show the fixes as a unified diff; --write applies them",
		Long: `Shows the fixes as a unified diff (git apply / patch -p1 accept it) and changes
nothing. --write applies them atomically, one line per changed file on stderr.
--check exits 1 when anything would change. PATH is a file, a directory
(recursive over *.py and *.ipynb) or - for stdin, whose fixed source goes to stdout.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			pal, err := diffPalette(color)
			if err != nil {
				return err
			}
			if format != "diff" && format != "json" && format != "jsonl" {
				return fmt.Errorf("--output-format %q: want diff, json or jsonl", format)
			}
			opts, err := rf.options(true, write)
			if err != nil {
				return err
			}
			out, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
			var js report.JSONArray
			changed, fixes, unfixed, hidden := 0, 0, 0, 0
			errs := rf.each(opts, args, cmd.InOrStdin(), stderr, func(f *finding.FileResult) {
				if format == "jsonl" {
					report.JSONLine(out, f)
				}
				if f.Err != nil {
					if args[0] == "-" && len(args) == 1 && format == "diff" {
						out.Write(f.Before) // a filter passes what it cannot fix through unchanged
					}
					return
				}
				for _, d := range f.Diags {
					switch {
					case d.Fix == nil:
						unfixed++
					case d.Fix.Applicability == finding.Unsafe && !rf.unsafeFixes:
						hidden++
					default:
						fixes++
					}
				}
				if f.Changed {
					changed++
				}
				switch {
				case format == "json":
					js.Add(f)
				case format == "jsonl":
				case args[0] == "-" && len(args) == 1:
					out.Write(f.After)
				case write:
					if f.Written {
						fmt.Fprintf(stderr, "fixed %s\n", finding.DisplayPath(f.Path))
					}
				default:
					fmt.Fprint(out, fileDiff(f, pal))
				}
			})
			if format == "json" {
				if err := js.Flush(out); err != nil {
					return err
				}
			}
			if !write && args[0] != "-" && format == "diff" {
				summary(stderr, changed, fixes, unfixed, hidden)
			}
			switch {
			case interrupted():
				return exitCode(exitInterrupted)
			case errs > 0:
				return exitCode(exitError)
			case check && changed > 0:
				return exitCode(exitFindings)
			}
			return nil
		},
	}
	rf.register(cmd)
	rf.bulk.register(cmd)
	cmd.Flags().BoolVarP(&write, "write", "w", false, "write the fixed files")
	cmd.Flags().BoolVar(&check, "check", false, "exit 1 when any file would change (the diff is printed too)")
	cmd.Flags().StringVar(&color, "color", "auto", "colour the diff: auto, always or never")
	cmd.Flags().StringVar(&format, "output-format", "diff", "diff, json (the findings with their fixes) or jsonl (one object per file)")
	return cmd
}

func summary(w interface{ Write([]byte) (int, error) }, changed, fixes, unfixed, hidden int) {
	if changed == 0 && unfixed == 0 && hidden == 0 {
		fmt.Fprintln(w, "Nothing to fix.")
		return
	}
	msg := fmt.Sprintf("%d fix(es) in %d file(s); run with --write to apply.", fixes, changed)
	if hidden > 0 {
		msg += fmt.Sprintf(" %d unsafe fix(es) not shown: --unsafe-fixes applies them.", hidden)
	}
	if unfixed > 0 {
		msg += fmt.Sprintf(" %d finding(s) need a look by hand: see `loratune-fix check`.", unfixed)
	}
	fmt.Fprintln(w, msg)
}

// fileDiff is the unified diff of a file; a notebook gets one diff per
// changed cell, named "path:cell N", showing the cell's Python source rather
// than its JSON encoding (--write applies it to the JSON).
func fileDiff(f *finding.FileResult, pal udiff.Palette) string {
	if len(f.Cells) == 0 {
		return udiff.Unified(f.Path, string(f.Before), string(f.After), pal)
	}
	var b strings.Builder
	for _, c := range f.Cells {
		b.WriteString(udiff.Unified(fmt.Sprintf("%s:cell %d", f.Path, c.Cell), c.Before, c.After, pal))
	}
	return b.String()
}
