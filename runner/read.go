package runner

import (
	"errors"
	"io"
	"os"
	"syscall"
)

// readRegular reads path, which a Stat just found to be the regular file
// info. Opened without blocking and checked again on the open file: if it
// was replaced by a FIFO in between, opening it would otherwise wait for a
// writer forever.
func readRegular(path string, info os.FileInfo) ([]byte, error) {
	fh, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	now, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if !now.Mode().IsRegular() || !os.SameFile(now, info) {
		return nil, errors.New("replaced while being read; skipped")
	}
	return io.ReadAll(fh)
}
