package main

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/report"
	"github.com/loratune/loratune-fix/rewrite"
)

func newCheckCmd() *cobra.Command {
	var rf ruleFlags
	var format, color string
	var fix, diff, exitZero, statistics, showFixes bool
	cmd := &cobra.Command{
		Use:   "check [flags] [PATH...]",
		Short: "List the findings; exit 1 when there is any (info notes aside)",
		Long: `Lists findings as path:line:col: severity: CODE name: message, with [*] on those
that have a fix. --output-format json prints one JSON array (schema in
docs/json-output.md), sarif a SARIF 2.1.0 log (code scanning), github workflow
annotations, json-lines one JSON object per file as each file is done, concise
one short line per finding as ruff's. PATH defaults to the current folder; - (or
--stdin-filename without PATH) reads stdin.

` + walkedFiles + `

--fix applies the fixes (as fix --write) and lists what remains; on stdin it
prints the fixed source on stdout and the findings left on stderr. --diff prints
the fixes as a unified diff instead of the findings and writes nothing;
--statistics prints a count per rule instead of the findings.

Exit 0 when nothing is found (or only info notes, or with --exit-zero), 1 when
something is (with --diff: when a file would change), 2 on usage or file errors.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			args = rf.paths(args)
			format = canonicalFormat(format)
			switch format {
			case "text", "concise", "json", "sarif", "github", "json-lines":
			default:
				return fmt.Errorf("--output-format %q: want text, concise, json, json-lines, sarif or github", format)
			}
			switch {
			case fix && diff:
				return errors.New("--fix writes and --diff only shows: give one")
			case diff && !textual(format) || statistics && !textual(format):
				return fmt.Errorf("--diff and --statistics print text: drop --output-format %s", format)
			}
			pal, err := diffPalette(color)
			if err != nil {
				return err
			}
			opts, err := rf.options(fix || diff, fix)
			if err != nil {
				return err
			}
			out, stderr := &reportWriter{w: cmd.OutOrStdout()}, cmd.ErrOrStderr()
			// --fix on stdin alone is a filter, as ruff's check --fix -:
			// the fixed source on stdout, the findings left on stderr.
			filter := fix && stdinOnly(args)
			source, listing := out, out
			if filter {
				listing = &reportWriter{w: stderr}
			}
			hushed, silent := rf.bulk.hushed(), rf.bulk.silent
			var js report.JSONArray
			sarif := report.NewSARIF(rewrite.Infos(opts.Engine.Rules()), toolVersion)
			t := newTally(rf.unsafeFixes)
			var fixed strings.Builder // --show-fixes
			errs := rf.each(opts, args, cmd.InOrStdin(), stderr, func(f *finding.FileResult) {
				if filter {
					if f.Err != nil {
						source.Write(f.Before) // what cannot be fixed passes through unchanged
					} else {
						source.Write(f.After)
					}
				}
				t.add(f)
				if showFixes {
					fixed.WriteString(fixedList(f))
				}
				if fix {
					if f.Written && !hushed {
						fmt.Fprintf(stderr, "fixed %s\n", finding.DisplayPath(f.Path))
					}
					f = remaining(f)
				}
				switch {
				case diff:
					fmt.Fprint(out, fileDiff(f, pal))
				case statistics, silent:
				case format == "json":
					js.Add(f)
				case format == "sarif":
					sarif.Add(f)
				case format == "github":
					report.GitHub(listing, f)
				case format == "json-lines":
					report.JSONLine(listing, f)
				case format == "concise":
					report.Concise(listing, f)
				default:
					report.Text(listing, f)
				}
			})
			switch {
			case silent:
			case statistics:
				t.statistics(listing)
			case format == "json":
				if err := js.Flush(listing); err != nil {
					return fmt.Errorf("writing the output: %w", err)
				}
			case format == "sarif":
				if err := sarif.Flush(listing); err != nil {
					return fmt.Errorf("writing the output: %w", err)
				}
			}
			if showFixes && fixed.Len() > 0 {
				head := "Fixed:"
				if !fix {
					head = "Fixed by " + t.fixCommand() + ":"
				}
				fmt.Fprint(stderr, head+"\n"+fixed.String())
			}
			if textual(format) && !hushed && !rf.nothing {
				if fix {
					t.printSummary(stderr, errs, t.writtenSummary())
				} else {
					t.printSummary(stderr, errs, t.summary())
				}
			}
			failing := t.failing
			switch {
			case diff:
				failing = t.changed
			case fix:
				failing = t.failingLeft
			}
			if err := listing.failed(); err != nil {
				return err
			}
			return runExit(out, errs, failing > 0 && !exitZero)
		},
	}
	rf.register(cmd)
	rf.bulk.register(cmd)
	rf.bulk.registerOutput(cmd)
	fs := cmd.Flags()
	fs.StringVar(&format, "output-format", "text", "text, concise (path:line:col: CODE message), json, json-lines (one object per file; also jsonl), sarif (SARIF 2.1.0) or github (workflow annotations)")
	fs.BoolVar(&fix, "fix", false, "apply the fixes, as fix --write, and list the findings that remain")
	fs.BoolVar(&diff, "diff", false, "print the fixes as a unified diff instead of the findings; write nothing (exit 1 when a file would change)")
	fs.BoolVar(&exitZero, "exit-zero", false, "exit 0 even when there are findings (2 on errors still)")
	fs.BoolVar(&statistics, "statistics", false, "print the number of findings per rule instead of the findings")
	fs.BoolVar(&showFixes, "show-fixes", false, "list on stderr, per file and rule, the findings the fixes resolve (with --fix: resolved)")
	fs.StringVar(&color, "color", "auto", "colour the --diff output: auto, always or never")
	return cmd
}

// remaining is f with only the findings that its written fixes did not
// resolve.
func remaining(f *finding.FileResult) *finding.FileResult {
	g := *f
	g.Diags = nil
	for _, d := range f.Diags {
		if d.Outcome != finding.OutcomeFixed {
			g.Diags = append(g.Diags, d)
		}
	}
	return &g
}

// fixedList is a file's findings that fix --write resolves, one line per
// rule: "- train.py:" then "    2 × LTF001 (fp32-master-weights)".
func fixedList(f *finding.FileResult) string {
	var codes []string
	count, name := map[string]int{}, map[string]string{}
	for _, d := range f.Diags {
		if d.Outcome != finding.OutcomeFixed {
			continue
		}
		if count[d.Code] == 0 {
			codes = append(codes, d.Code)
		}
		count[d.Code]++
		name[d.Code] = d.Name
	}
	if len(codes) == 0 {
		return ""
	}
	sort.Strings(codes)
	var b strings.Builder
	fmt.Fprintf(&b, "- %s:\n", finding.DisplayPath(f.Path))
	for _, c := range codes {
		fmt.Fprintf(&b, "    %d × %s (%s)\n", count[c], c, name[c])
	}
	return b.String()
}

// canonicalFormat is the format's one name: jsonl, the name before ruff's
// json-lines, stays an alias.
func canonicalFormat(f string) string {
	if f == "jsonl" {
		return "json-lines"
	}
	return f
}

// textual reports the formats that are read by people, with a summary.
func textual(format string) bool { return format == "text" || format == "concise" }
