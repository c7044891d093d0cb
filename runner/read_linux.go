package runner

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// readSource reads a regular file of at most limit bytes with four system
// calls (open, fstat, read, close) on a bare descriptor: bulk runs read
// every file of a tree, and an *os.File would add a poller registration
// and fcntl calls to each. The file is opened without blocking, so a FIFO
// is refused, never waited on. The bytes go into scratch when it has room.
func readSource(path string, limit int64, scratch []byte) ([]byte, os.FileInfo, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, nil, err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, nil, err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, nil, errors.New("not a regular file; skipped")
	}
	if st.Size > limit {
		return nil, nil, &tooLargeError{st.Size, limit}
	}
	// One byte more than the size, so one read sees the end of a file
	// that did not grow; a file that grew is read to its end.
	data := scratch[:0]
	if int64(cap(data)) < st.Size+1 {
		data = make([]byte, 0, st.Size+1)
	}
	for {
		n, err := syscall.Read(fd, data[len(data):cap(data)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		data = data[:len(data)+n]
		if n == 0 || len(data) < cap(data) {
			break // the end of a regular file
		}
		data = append(data, 0)[:len(data)] // it grew meanwhile: read on
	}
	return data, &statInfo{name: filepath.Base(path), st: st}, nil
}

// statInfo is the os.FileInfo of a regular file from its fstat.
type statInfo struct {
	name string
	st   syscall.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.st.Size }
func (s *statInfo) Mode() fs.FileMode  { return fs.FileMode(s.st.Mode & 0o777) }
func (s *statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Unix()) }
func (s *statInfo) IsDir() bool        { return false }
func (s *statInfo) Sys() any           { return &s.st }
