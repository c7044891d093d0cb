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
