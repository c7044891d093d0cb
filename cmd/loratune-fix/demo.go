package main

import (
	_ "embed"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/loratune/loratune-fix/runner"
	"github.com/loratune/loratune-fix/udiff"
)

// demoScript is the training script of the bf16 NaN report; its expected
// fix and findings are beside it, checked as a golden case by ./fixtures.
//
//go:embed demo/train.py
var demoScript []byte

func newDemoCmd() *cobra.Command {
	var rf ruleFlags
	var color string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Show the fix of the built-in demo: the training script of the bf16 NaN report",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			pal, err := diffPalette(color)
			if err != nil {
				return err
			}
			opts, err := rf.options(true, false)
			if err != nil {
				return err
			}
			f := runner.Process(opts, "train.py", demoScript)
			if f.Err != nil {
				return f.Err
			}
			if _, err := fmt.Fprint(cmd.OutOrStdout(), udiff.Unified(f.Path, string(f.Before), string(f.After), pal)); err != nil {
				return fmt.Errorf("writing the output: %w", err)
			}
			fmt.Fprintln(cmd.ErrOrStderr(), "\nThe demo is cmd/loratune-fix/demo/train.py; try `loratune-fix check cmd/loratune-fix/demo/train.py` and `loratune-fix rules LTF002`.")
			return nil
		},
	}
	rf.register(cmd, "stdin-filename", "jobs", "max-file-size", "config")
	cmd.Flags().StringVar(&color, "color", "auto", "colour the diff: auto, always or never")
	return cmd
}
