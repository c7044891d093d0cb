// Command loratune-fix finds and fixes the settings that make LoRA/DoRA
// fine-tuning of Llama-3-class models go NaN in bf16. This package is wiring
// only: flags in, engine call, exit code out.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

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
	paceGC()
	root := newRoot()
	stopProfile := startProfile()
	err := root.Execute()
	stopProfile()
	os.Exit(exitStatus(err, os.Stderr))
}

// exitStatus turns a command's error into its exit code, printing the
// error when it is not only a code.
func exitStatus(err error, stderr io.Writer) int {
	var code exitCode
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &code):
		return int(code)
	}
	printLine(stderr, "error", err)
	return exitError
}

// printLine writes a message about the run on stderr. Every such line
// starts with the same prefix, "loratune-fix: LEVEL:" (error, warning or
// note), whichever part of the tool it comes from.
func printLine(w io.Writer, level string, a ...any) {
	fmt.Fprintln(w, append([]any{"loratune-fix: " + level + ":"}, a...)...)
}

// toolVersion is what --version prints and SARIF logs carry.
var toolVersion = buildVersion(debug.ReadBuildInfo())

// releaseVersion is the release tag (v0.4.0) of a released binary, set at
// link time (-ldflags "-X main.releaseVersion=v0.4.0", packaging/wheel.sh):
// archives, wheels and sdists are built where the Go toolchain cannot read
// the tag (no checkout, or -buildvcs=false).
var releaseVersion string

// buildVersion is the module version with the commit it was built from, as the
// Go toolchain records them: "v1.2.0 (go1.26.8)" for go install of a tag,
// "(devel) 1a2b3c4d5e6f 2026-12-01T10:00:00Z, modified (go1.26.8)" for a
// build from a checkout.
func buildVersion(info *debug.BuildInfo, ok bool) string {
	if !ok {
		return "unknown (no build information)"
	}
	v := info.Main.Version
	if releaseVersion != "" {
		v = releaseVersion
	}
	if v == "" {
		v = "(devel)"
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	// A tagged version names its commit already.
	if rev := settings["vcs.revision"]; rev != "" && v == "(devel)" {
		v += " " + rev[:min(12, len(rev))]
		if t := settings["vcs.time"]; t != "" {
			v += " " + t
		}
		if settings["vcs.modified"] == "true" {
			v += ", modified"
		}
	}
	return v + " (" + info.GoVersion + ")"
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "loratune-fix",
		Short: "Fix the settings that make LoRA/DoRA fine-tuning go NaN in bf16",
		Long: `loratune-fix reads Python training scripts (Hugging Face transformers + peft,
TRL) and fixes what makes bf16 LoRA/DoRA training show grad_norm nan and loss 0.0:
bf16 master weights, cuDNN SDPA attention, device_map="auto", a missing pad token,
use_cache and torch.compile. It shows a diff first and writes only with --write.`,
		Version:       toolVersion,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("loratune-fix {{.Version}}\n")
	root.AddCommand(newFixCmd(), newCheckCmd(), newRulesCmd(), newDemoCmd())
	root.AddCommand(newReviewCmd())
	root.AddCommand(newMigrateCmd())
	root.AddCommand(newServerCmd())
	return root
}
