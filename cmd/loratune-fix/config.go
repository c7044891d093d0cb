package main

import (
	"sort"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/loratune/loratune-fix/config"
	"github.com/loratune/loratune-fix/rewrite"
)

// configFlags find the [tool.loratune-fix] table and remember which rule
// flags the command line set, since flags win over the file.
type configFlags struct {
	configPath string
	cmd        *cobra.Command
	args       []string
}

func (c *configFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.configPath, "config", "", "read [tool.loratune-fix] from this pyproject.toml (default: the nearest one above the first PATH)")
	c.cmd = cmd
	prev := cmd.PreRunE
	cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
		c.args = args
		if prev != nil {
			return prev(cmd, args)
		}
		return nil
	}
}

// load finds the configuration: --config, else the nearest pyproject.toml
// with the table above the first path argument (for stdin, above
// --stdin-filename, else the current folder).
func (c *configFlags) load(stdinName string) (*config.Config, error) {
	if c.cmd == nil {
		return nil, nil // a command without --config (demo) reads no file
	}
	if c.configPath != "" {
		return config.Load(c.configPath, configNames)
	}
	start := "."
	if len(c.args) == 0 && stdinName != "" {
		start = stdinName // --stdin-filename alone reads stdin
	}
	for _, a := range c.args {
		if a != "-" {
			start = a
			break
		}
		if stdinName != "" {
			start = stdinName
		}
	}
	return config.Find(start, configNames)
}

// configNames checks a table's names against the engine's rules and
// profiles.
var configNames = config.Names{Profile: rewrite.CheckProfile, Rule: rewrite.CheckRule}

func (c *configFlags) changed(flag string) bool {
	return c.cmd != nil && c.cmd.Flags().Changed(flag)
}

// merge fills what the command line left unset from cfg: profile, select
// (a --select replaces the file's select and extend-select, as in ruff),
// extend-select (the file's, then the command line's), ignore, and the
// target versions library by library.
func (c *configFlags) merge(ro *rewrite.Options, cfg *config.Config) {
	if cfg == nil {
		return
	}
	if !c.changed("profile") && cfg.Profile != "" {
		ro.Profile = cfg.Profile
	}
	if !c.changed("select") {
		if len(cfg.Select) > 0 {
			ro.Select = cfg.Select
		}
		ro.ExtendSelect = append(append([]string{}, cfg.ExtendSelect...), ro.ExtendSelect...)
	}
	if !c.changed("ignore") && len(cfg.Ignore) > 0 {
		ro.Ignore = cfg.Ignore
	}
	ro.Target = ro.Target.Merge(cfg.Target)
}

// perFileEngines returns the engine for a file that per-file-ignores
// touch (nil: the shared one), one engine per distinct set of ignores.
func perFileEngines(base rewrite.Options, cfg *config.Config) func(string) *rewrite.Engine {
	if cfg == nil || len(cfg.PerFileIgnores) == 0 {
		return nil
	}
	var mu sync.Mutex
	engines := map[string]*rewrite.Engine{}
	return func(path string) *rewrite.Engine {
		extra := cfg.IgnoresFor(path)
		if len(extra) == 0 {
			return nil
		}
		sort.Strings(extra)
		key := strings.Join(extra, ",")
		mu.Lock()
		defer mu.Unlock()
		if e, ok := engines[key]; ok {
			return e
		}
		ro := base
		ro.Ignore = append(append([]string{}, base.Ignore...), extra...)
		e, err := rewrite.New(ro) // the rules were checked when the file was read
		if err != nil {
			return nil
		}
		engines[key] = e
		return e
	}
}
