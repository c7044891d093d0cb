package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/notebook"
	"github.com/loratune/loratune-fix/pins"
	"github.com/loratune/loratune-fix/rewrite"
	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/version"
)

// processNotebook runs the engine over the code cells of a notebook, joined
// into one Python source, and writes the fixed cell sources back into the
// JSON text in place. Findings carry their cell; positions and fix edits
// are within the cell's source.
func processNotebook(ctx context.Context, opts *Options, f *finding.FileResult) {
	nb, err := notebook.Parse(f.Before)
	if err != nil {
		f.Err = &FileError{f.Path, err}
		return
	}
	f.Versions = notebookPins(nb, filepath.Base(f.Path)).Merge(f.Versions)
	skip := map[int]bool{}
	for {
		v := notebook.Build(nb, skip)
		res := &rewrite.Result{}
		switch {
		case !opts.Engine.MayMatch(v.Text):
			// Nothing for the rules in the notebook's own code; a script
			// it writes may still have something.
			f.Skipped = true
		default:
			// check runs the fix loop too: each finding's outcome is what
			// fix does. The output is used only when fixing.
			res, err = opts.Engine.FixIncremental(ctx, v.Text, f.Versions, v.Frozen, opts.Incremental)
		}
		var se *rewrite.SyntaxError
		if errors.As(err, &se) {
			// Leave out the cells that do not parse on their own (another
			// language, a half-written cell) and reason over the rest.
			bad := 0
			for _, c := range v.Cells() {
				if rewrite.Parses(v.CellText(c)) != nil {
					skip[c.Index] = true
					bad++
				}
			}
			if bad > 0 {
				continue
			}
		}
		if err != nil {
			f.Err = &FileError{f.Path, err}
			return
		}
		f.Diags = notebookDiags(v, res.Findings)
		f.Dropped = res.Dropped
		sources := map[int]string{}
		if opts.Fix && res.Changed {
			sources = v.Split(res.Output, res.Frozen)
		}
		ran, ok := scriptCells(ctx, opts, f, nb, sources)
		if !ok {
			return
		}
		f.Skipped = f.Skipped && !ran
		sortDiags(f.Diags)
		if len(sources) > 0 {
			f.After = nb.Render(sources)
			f.Changed = !bytes.Equal(f.After, f.Before)
			for _, c := range nb.Cells {
				if src, ok := sources[c.Index]; ok {
					f.Cells = append(f.Cells, finding.CellChange{Cell: c.Index, Before: c.Source, After: src})
				}
			}
		}
		return
	}
}

// scriptCells runs the engine over each %%writefile *.py cell as a file of
// its own (the notebook writes its training script and runs it with
// !python), adding its findings and fixed source. ran says whether any
// was parsed; ok is false when it set f.Err.
func scriptCells(ctx context.Context, opts *Options, f *finding.FileResult, nb *notebook.Notebook, sources map[int]string) (ran, ok bool) {
	for _, c := range nb.Code() {
		body, header, name, isScript := notebook.ScriptCell(c)
		if !isScript || !opts.Engine.MayMatch([]byte(body)) {
			continue
		}
		ran = true
		var res *rewrite.Result
		var err error
		if opts.Fix {
			res, err = opts.Engine.FixContext(ctx, []byte(body), f.Versions)
		} else {
			res, err = opts.Engine.CheckContext(ctx, []byte(body), f.Versions)
		}
		if err != nil {
			var se *rewrite.SyntaxError
			if errors.As(err, &se) {
				continue // not Python after all: the cell is left alone
			}
			f.Err = &FileError{f.Path, fmt.Errorf("cell %d (%s): %w", c.Index, name, err)}
			return ran, false
		}
		src := semantic.NewSource([]byte(c.Source))
		for _, fd := range res.Findings {
			fd = shiftFinding(fd, header)
			fd.StartPos, fd.EndPos = src.Position(fd.Start), src.Position(fd.End)
			f.Diags = append(f.Diags, finding.Diag{Finding: fd, Cell: c.Index})
		}
		f.Dropped = append(f.Dropped, res.Dropped...)
		if opts.Fix && res.Changed {
			sources[c.Index] = c.Source[:header] + string(res.Output)
		}
	}
	return ran, true
}

// sortDiags orders a notebook's findings by cell, then position.
func sortDiags(ds []finding.Diag) {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].Cell != ds[j].Cell {
			return ds[i].Cell < ds[j].Cell
		}
		return ds[i].Start < ds[j].Start
	})
}

// notebookDiags moves findings from the virtual source into their cells.
// A fix that would touch a magic line, span two cells or lie in another
// cell than its finding is not applied (FixFrozen refuses it); its finding
// is kept without the fix.
func notebookDiags(v *notebook.Virtual, findings []finding.Finding) []finding.Diag {
	sources := map[*notebook.Cell]*semantic.Source{}
	pos := func(c *notebook.Cell, at int) finding.Position {
		s, ok := sources[c]
		if !ok {
			s = semantic.NewSource([]byte(c.Source))
			sources[c] = s
		}
		return s.Position(at)
	}
	var out []finding.Diag
	for _, fd := range findings {
		cell, start, ok := v.Locate(fd.Start)
		if !ok {
			continue // on a separator: cannot happen for a real finding
		}
		end := len(cell.Source)
		if c2, e, ok := v.Locate(fd.End); ok && c2 == cell {
			end = e
		}
		if fd.Fix != nil {
			if c, edits, ok := v.MapFix(&fd); ok && c == cell {
				fx := *fd.Fix
				fx.Edits = edits
				fd.Fix = &fx
			} else {
				fd.Message += fmt.Sprintf(" (not fixed: the fix would touch an IPython magic line or span two cells; fix %q by hand)", fd.Fix.Message)
				fd.Fix = nil
				fd.Outcome, fd.Reason = finding.OutcomeNotFixed, "its fix would touch an IPython magic line or span two cells"
			}
		}
		fd.Start, fd.End = start, end
		fd.StartPos, fd.EndPos = pos(cell, start), pos(cell, end)
		out = append(out, finding.Diag{Finding: fd, Cell: cell.Index})
	}
	return out
}

// notebookPins reads the `pip install` commands of the code cells (their
// backslash continuations joined, as IPython runs them): the notebook's
// own installs govern its kernel, so they win over the pin files around it.
// A later install of a library wins over an earlier one.
func notebookPins(nb *notebook.Notebook, name string) version.Versions {
	var vs version.Versions
	for _, c := range nb.Code() {
		for _, line := range notebook.Commands(c.Source) {
			for lib, v := range pins.PipInstall(line) {
				v.Source = fmt.Sprintf("%s:cell %d", name, c.Index)
				vs.Set(lib, v)
			}
		}
	}
	return vs
}
