// Command loratune-fix finds and fixes the settings that make LoRA/DoRA
// fine-tuning of Llama-3-class models go NaN in bf16. This package is wiring
// only: flags in, engine call, exit code out.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// Exit codes, as ruff and black use them.
const (
	exitOK       = 0
	exitFindings = 1
	exitError    = 2
)

// exitCode carries a command's exit status through cobra.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit %d", int(e)) }

func main() {
	root := newRoot()
	stopProfile := startProfile()
	err := root.Execute()
	stopProfile()
	var code exitCode
	switch {
	case err == nil:
		os.Exit(exitOK)
	case errors.As(err, &code):
		os.Exit(int(code))
	default:
		fmt.Fprintln(os.Stderr, "loratune-fix:", err)
		os.Exit(exitError)
	}
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "loratune-fix",
		Short: "Fix the settings that make LoRA/DoRA fine-tuning go NaN in bf16",
		Long: `loratune-fix reads Python training scripts (Hugging Face transformers + peft,
TRL) and fixes what makes bf16 LoRA/DoRA training show grad_norm nan and loss 0.0:
bf16 master weights, cuDNN SDPA attention, device_map="auto", a missing pad token,
use_cache and torch.compile. It shows a diff first and writes only with --write.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newFixCmd(), newCheckCmd(), newRulesCmd(), newDemoCmd())
	root.AddCommand(newReviewCmd())
	root.AddCommand(newMigrateCmd())
	return root
}
