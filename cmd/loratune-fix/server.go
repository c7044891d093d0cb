package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/spf13/cobra"

	"github.com/loratune/loratune-fix/config"
	"github.com/loratune/loratune-fix/lsp"
	"github.com/loratune/loratune-fix/pins"
	"github.com/loratune/loratune-fix/rewrite"
	"github.com/loratune/loratune-fix/runner"
)

func newServerCmd() *cobra.Command {
	var rf ruleFlags
	cmd := &cobra.Command{
		Use:   "server",
		Short: "Run the language server (LSP over stdio) for editors and notebooks",
		Long: `Runs a language server on stdin and stdout for an editor: diagnostics on open,
change and save of Python files, Jupyter notebooks (LSP 3.17 notebook
documents) and launch configs (YAML, JSON, shell), from the same engine and
configuration as check (the nearest pyproject.toml's [tool.loratune-fix],
the pins beside each file); code actions for a finding's fix, fix all safe
(source.fixAll.loratune-fix) and suppress on this line; hover for a rule's
why and cost. The rule flags below apply to every document and win over
pyproject.toml, as on the command line. README shows the editor set-ups.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ss, err := newServerSettings(&rf)
			if err != nil {
				return err
			}
			err = lsp.Serve(context.Background(), stdio{cmd.InOrStdin(), cmd.OutOrStdout()},
				lsp.Options{For: ss.For, Reset: ss.Reset, Version: toolVersion})
			if errors.Is(err, lsp.ErrExitWithoutShutdown) {
				return exitCode(1)
			}
			return err
		},
	}
	// Fix all is the safe fixes: no --unsafe-fixes here. Jobs, sizes and
	// stdin are the walk's.
	rf.register(cmd, "jobs", "max-file-size", "stdin-filename", "unsafe-fixes")
	return cmd
}

// stdio is the server's stream. Closing it closes stdin, which ends a
// read under way.
type stdio struct {
	io.Reader
	io.Writer
}

func (s stdio) Close() error {
	if f, ok := s.Reader.(*os.File); ok {
		return f.Close()
	}
	return nil
}

// serverSettings give each document the runner options that check would
// give its file: the flags over the nearest pyproject's table, one engine
// per configuration file, the pins and line length beside the file. What
// it reads is kept until Reset (a save).
type serverSettings struct {
	rf   *ruleFlags
	base rewrite.Options

	mu      sync.Mutex
	finder  *pins.Finder
	configs map[string]*config.Config  // by folder
	byFile  map[string]*runner.Options // by configuration file ("": none)
}

func newServerSettings(rf *ruleFlags) (*serverSettings, error) {
	target, err := parseTarget(rf.target)
	if err != nil {
		return nil, err
	}
	base := rewrite.Options{Profile: rf.profile, Select: rf.selectRules, ExtendSelect: rf.extendSelect,
		Ignore: rf.ignoreRules, Target: target, ParseTimeout: rf.parseTimeout}
	// The flags alone must make an engine: a typo fails here, not per file.
	if _, err := rewrite.New(base); err != nil {
		return nil, err
	}
	if rf.lineLength < 0 {
		return nil, fmt.Errorf("--line-length %d: want a positive number", rf.lineLength)
	}
	ss := &serverSettings{rf: rf, base: base}
	ss.Reset()
	return ss, nil
}

func (ss *serverSettings) Reset() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.finder = pins.NewFinder()
	ss.configs = map[string]*config.Config{}
	ss.byFile = map[string]*runner.Options{}
}

// For is lsp.Options.For.
func (ss *serverSettings) For(path string) (*runner.Options, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	dir := filepath.Dir(path)
	cfg, seen := ss.configs[dir]
	if !seen {
		var err error
		if ss.rf.cfg.configPath != "" {
			cfg, err = config.Load(ss.rf.cfg.configPath, configNames)
		} else {
			cfg, err = config.Find(path, configNames)
		}
		if err != nil {
			return nil, err // not kept: the next analysis reads the file again
		}
		ss.configs[dir] = cfg
	}
	key := ""
	if cfg != nil {
		key = cfg.Path
	}
	if o := ss.byFile[key]; o != nil {
		return o, nil
	}
	ro := ss.base
	ss.rf.cfg.merge(&ro, cfg)
	eng, err := rewrite.New(ro)
	if err != nil {
		return nil, err
	}
	lineLength := ss.finder.LineLength
	if n := ss.rf.lineLength; n > 0 {
		lineLength = func(string) int { return n }
	}
	o := &runner.Options{Engine: eng, Versions: ss.finder.For, LineLength: lineLength, EngineFor: perFileEngines(ro, cfg)}
	ss.byFile[key] = o
	return o, nil
}
