package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/report"
	"github.com/loratune/loratune-fix/udiff"
)

// walkedFiles names the files a folder argument yields (runner.Sources);
// the help texts quote it, and the pre-commit hooks and the example
// workflow select the same (TestHooksAndWorkflowTakeWhatTheWalkReads).
const walkedFiles = `A directory is walked recursively for *.py and *.ipynb files, and for the
launch configs among the *.yaml, *.yml, *.json (LLaMA-Factory, axolotl and TRL
recipes, DeepSpeed and accelerate configs), *.sh and *.bash files (torchrun,
accelerate, deepspeed and llamafactory-cli launchers), told by their content.`

func newFixCmd() *cobra.Command {
	var rf ruleFlags
	var write, check, diff bool
	var color, format string
	cmd := &cobra.Command{
		Use:   "fix [flags] [PATH...]",
		Short: "Show the fixes as a unified diff; --write applies them",
		Long: `Shows the fixes as a unified diff (git apply / patch -p1 accept it) and changes
nothing (--diff says so explicitly, and exits 1 when a file would change, as
ruff). --write applies them atomically, one line per changed file on stderr.
--check exits 1 when anything would change. PATH is a file, a directory
(default: the current folder) or - for stdin (also --stdin-filename without
PATH), whose fixed source goes to stdout; with --diff or --check, its diff.

` + walkedFiles,
		RunE: func(cmd *cobra.Command, args []string) error {
			args = rf.paths(args)
			pal, err := diffPalette(color)
			if err != nil {
				return err
			}
			format = canonicalFormat(format)
			if format != "diff" && format != "json" && format != "json-lines" {
				return fmt.Errorf("--output-format %q: want diff, json or json-lines", format)
			}
			if diff && write {
				return errors.New("--diff only shows and --write writes: give one")
			}
			opts, err := rf.options(true, write)
			if err != nil {
				return err
			}
			out, stderr := &reportWriter{w: cmd.OutOrStdout()}, cmd.ErrOrStderr()
			// On stdin alone, fix is a filter: the fixed source on stdout
			// (--write changes nothing else there), or its diff with --diff
			// or --check, as ruff's check --fix - and --diff -.
			filter := stdinOnly(args) && format == "diff" && !diff && !check
			hushed := rf.bulk.hushed()
			var js report.JSONArray
			t := newTally(rf.unsafeFixes)
			errs := rf.each(opts, args, cmd.InOrStdin(), stderr, func(f *finding.FileResult) {
				if format == "json-lines" && !rf.bulk.silent {
					report.JSONLine(out, f)
				}
				if f.Err != nil {
					if filter {
						out.Write(f.Before) // a filter passes what it cannot fix through unchanged
					}
					return
				}
				t.add(f)
				switch {
				case format == "json":
					js.Add(f)
				case format == "json-lines":
				case filter:
					out.Write(f.After)
				case write:
					if f.Written && !hushed {
						fmt.Fprintf(stderr, "fixed %s\n", finding.DisplayPath(f.Path))
					}
				default:
					fmt.Fprint(out, fileDiff(f, pal))
				}
			})
			if format == "json" && !rf.bulk.silent {
				if err := js.Flush(out); err != nil {
					return fmt.Errorf("writing the output: %w", err)
				}
			}
			if !filter && format == "diff" && !hushed && !rf.nothing {
				if write {
					t.printSummary(stderr, errs, t.writtenSummary())
				} else {
					t.printSummary(stderr, errs, t.summary())
				}
			}
			// --check, and --diff as ruff's: exit 1 when a file would change.
			return runExit(out, errs, (check || diff) && t.changed > 0)
		},
	}
	rf.register(cmd)
	rf.bulk.register(cmd)
	rf.bulk.registerOutput(cmd)
	cmd.Flags().BoolVarP(&write, "write", "w", false, "write the fixed files")
	cmd.Flags().BoolVar(&diff, "diff", false, "show the fixes as a unified diff and write nothing (the default without --write, and for - too); exit 1 when a file would change")
	cmd.Flags().BoolVar(&check, "check", false, "exit 1 when any file would change (the diff is printed too)")
	cmd.Flags().StringVar(&color, "color", "auto", "colour the diff: auto, always or never")
	cmd.Flags().StringVar(&format, "output-format", "diff", "diff, json (the findings with their fixes) or json-lines (one object per file; also jsonl)")
	return cmd
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
