package main

import (
	"fmt"
	"io"
)

// reportWriter is a command's standard output. It keeps the first write
// error: a report that could not be written (a full disk, a closed file)
// ends the run with exit 2 and one line naming the error, never as a
// silently truncated report.
type reportWriter struct {
	w   io.Writer
	err error
}

func (r *reportWriter) Write(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.w.Write(p)
	if err != nil {
		r.err = err
	}
	return n, err
}

// failed returns the write error, worded for the run's last line, or nil.
func (r *reportWriter) failed() error {
	if r.err != nil {
		return fmt.Errorf("writing the output: %w", r.err)
	}
	return nil
}

// runExit ends a run over files: a write error of the output first, then
// Ctrl-C (130), a file that could not be processed (2), findings that fail
// the run (1), else success.
func runExit(out *reportWriter, errs int, findingsFail bool) error {
	if err := out.failed(); err != nil {
		return err
	}
	switch {
	case interrupted():
		return exitCode(exitInterrupted)
	case errs > 0:
		return exitCode(exitError)
	case findingsFail:
		return exitCode(exitFindings)
	}
	return nil
}
