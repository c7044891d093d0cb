//go:build !linux

package runner

import (
	"errors"
	"io"
	"os"
)

// readSource reads a regular file of at most limit bytes with four system
// calls (open, fstat, read, close): bulk runs read every file of a tree.
// The bytes go into scratch when it has room.
// The file is opened without blocking, so a FIFO is refused, never waited
// on.
func readSource(path string, limit int64, scratch []byte) ([]byte, os.FileInfo, error) {
	fh, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, unwrapPathError(err)
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		return nil, nil, unwrapPathError(err)
	}
	if !info.Mode().IsRegular() {
		return nil, nil, errors.New("not a regular file; skipped")
	}
	if info.Size() > limit {
		return nil, nil, &tooLargeError{info.Size(), limit}
	}
	// One byte more than the size, so one read sees the end of a file
	// that did not grow; a file that grew is read to its end.
	data := scratch[:0]
	if int64(cap(data)) < info.Size()+1 {
		data = make([]byte, 0, info.Size()+1)
	}
	for {
		n, err := fh.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, unwrapPathError(err)
		}
		if len(data) < cap(data) {
			break // a short read: the end of a regular file
		}
		data = append(data, 0)[:len(data)] // it grew meanwhile: read on
	}
	return data, info, nil
}
