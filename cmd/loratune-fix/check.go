package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/report"
)

func newCheckCmd() *cobra.Command {
	var rf ruleFlags
	var format string
	cmd := &cobra.Command{
		Use:   "check [flags] PATH...",
		Short: "List the findings; exit 1 when there is any",
		Long: `Lists findings as path:line:col: CODE name: message, with [*] on those that have a
fix. --output-format json prints one JSON array (schema in docs/json-output.md),
sarif a SARIF 2.1.0 log (code scanning), github workflow annotations, jsonl one
JSON object per file as each file is done.
Exit 0 when nothing is found, 1 when something is, 2 on usage or file errors.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := rf.options(false, false)
			if err != nil {
				return err
			}
			switch format {
			case "text", "json", "sarif", "github", "jsonl":
			default:
				return fmt.Errorf("--output-format %q: want text, json, sarif, github or jsonl", format)
			}
			out, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
			var js report.JSONArray
			sarif := report.NewSARIF(opts.Engine.Rules())
			total, fixable := 0, 0
			errs := rf.each(opts, args, cmd.InOrStdin(), stderr, func(f *finding.FileResult) {
				total += len(f.Diags)
				for _, d := range f.Diags {
					if d.Fix != nil {
						fixable++
					}
				}
				switch format {
				case "json":
					js.Add(f)
				case "sarif":
					sarif.Add(f)
				case "github":
					report.GitHub(out, f)
				case "jsonl":
					report.JSONLine(out, f)
				default:
					report.Text(out, f)
				}
			})
			switch {
			case format == "json":
				if err := js.Flush(out); err != nil {
					return err
				}
			case format == "sarif":
				if err := sarif.Flush(out); err != nil {
					return err
				}
			case format == "text" && total > 0:
				fmt.Fprintf(stderr, "Found %d finding(s); %d fixable with `loratune-fix fix`.\n", total, fixable)
			}
			switch {
			case interrupted():
				return exitCode(exitInterrupted)
			case errs > 0:
				return exitCode(exitError)
			case total > 0:
				return exitCode(exitFindings)
			}
			return nil
		},
	}
	rf.register(cmd)
	rf.bulk.register(cmd)
	cmd.Flags().StringVar(&format, "output-format", "text", "text, json, sarif (SARIF 2.1.0), github (workflow annotations) or jsonl (one object per file)")
	return cmd
}
