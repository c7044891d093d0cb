package main

import (
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/loratune/loratune-fix/runner"
	"github.com/loratune/loratune-fix/udiff"
)

// demoScript is the training script of the bf16 NaN report; its expected
// fix and findings are beside it, checked as a golden case by ./fixtures.
//
//go:embed demo/train.py
var demoScript []byte

// demoNext says, after the demo's diff, that nothing was written and what
// to run on one's own script, with the command as it can be typed here.
func demoNext(self string) string {
	return fmt.Sprintf(`
Nothing was written: the script above is built in (the training script of the
bf16 NaN report), fixed in memory. On your own training script:

  %[1]s check train.py          # the findings: what, why, what each fix costs
  %[1]s fix train.py            # this diff for your file; nothing written
  %[1]s fix --write train.py    # apply it
  %[1]s rules LTF002            # one rule's documentation
`, self)
}

// selfCommand is how to run this binary again: "loratune-fix" when that is
// on the PATH, "go run ./cmd/loratune-fix" under go run (a temporary
// binary), else the path it was started by.
func selfCommand(arg0 string) string {
	switch {
	case strings.Contains(filepath.ToSlash(arg0), "/go-build"):
		return "go run ./cmd/loratune-fix"
	case filepath.Base(arg0) == "loratune-fix" && !strings.ContainsRune(arg0, filepath.Separator):
		return "loratune-fix" // found on the PATH by the shell
	}
	if p, err := exec.LookPath("loratune-fix"); err == nil {
		if self, err := os.Executable(); err == nil && sameFile(p, self) {
			return "loratune-fix"
		}
	}
	return arg0
}

func sameFile(a, b string) bool {
	ia, err1 := os.Stat(a)
	ib, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ia, ib)
}

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
			fmt.Fprint(cmd.ErrOrStderr(), demoNext(selfCommand(os.Args[0])))
			return nil
		},
	}
	rf.register(cmd, "stdin-filename", "jobs", "max-file-size", "config")
	cmd.Flags().StringVar(&color, "color", "auto", "colour the diff: auto, always or never")
	return cmd
}
