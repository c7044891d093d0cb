package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/loratune/loratune-fix/launch"
	"github.com/loratune/loratune-fix/rewrite"
)

func newRulesCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "rules [CODE|NAME]",
		Short: "List the rules, or print one rule's documentation",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if len(args) == 1 {
				r := rewrite.Lookup(args[0])
				if r == nil {
					return fmt.Errorf("no rule %q (see `loratune-fix rules`)", args[0])
				}
				fmt.Fprintf(out, "# %s %s\n\n%s\n\nSeverity: %s. Profiles: %s.\n\n%s\n", r.Code, r.Name, r.Summary, r.Severity, profilesOf(r), r.Doc)
				if k := launch.Keys(r.Code); k != "" {
					fmt.Fprintf(out, "\n%s\n", k)
				}
				return nil
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "CODE\tNAME\tPROFILES\tSUMMARY")
			for _, r := range rewrite.All() {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Code, r.Name, profilesOf(r), r.Summary)
			}
			tw.Flush()
			fmt.Fprintln(out, "\nProfiles (--profile):")
			for _, p := range rewrite.Profiles() {
				fmt.Fprintf(out, "  %-8s %s\n", p.Name, p.Doc)
			}
			fmt.Fprintln(out, "\nNot the cause (no rule):")
			for _, n := range rewrite.NotCauses() {
				fmt.Fprintf(out, "  - %s: %s\n", n.What, n.Why)
			}
			return nil
		},
	}
}

func profilesOf(r *rewrite.Rule) string {
	if len(r.Profiles) == 0 {
		return "(--select only)"
	}
	return strings.Join(r.Profiles, ",")
}
