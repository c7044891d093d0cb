package runner

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrChanged means the file changed on disk after it was read.
var ErrChanged = errors.New("changed on disk since it was read; not overwritten")

// ErrReadOnly means the file lacks its owner's write permission: it is
// left as it is, mode included.
var ErrReadOnly = errors.New("read-only file; not written (its mode is left as it is)")

// WriteAtomic replaces path with data: a temporary file in the same folder,
// synced, given the original's mode, then renamed over it. If the file on
// disk no longer holds orig (someone saved it meanwhile), nothing is
// written. A failed write leaves no temporary file behind.
func WriteAtomic(path string, orig, data []byte, info os.FileInfo) error {
	if info.Mode().Perm()&0o200 == 0 {
		return ErrReadOnly
	}
	// Through a symlink, the file it points to is replaced and the link
	// stays a link. (One lstat answers for the files a walk yields, which
	// are never links.)
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real
		}
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".loratune-*")
	if err != nil {
		return fmt.Errorf("write: %w", unwrapPathError(err))
	}
	name := tmp.Name()
	fail := func(err error) error {
		tmp.Close()
		os.Remove(name)
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(fmt.Errorf("write: %w", err))
	}
	if err := tmp.Sync(); err != nil {
		return fail(fmt.Errorf("write: %w", err))
	}
	if err := tmp.Chmod(info.Mode().Perm()); err != nil {
		return fail(fmt.Errorf("write: %w", err))
	}
	if err := tmp.Close(); err != nil {
		return fail(fmt.Errorf("write: %w", err))
	}
	// Last look before the rename: same size, time and content as read.
	now, err := os.Stat(path)
	if err != nil {
		os.Remove(name)
		return fmt.Errorf("write: %w", unwrapPathError(err))
	}
	if now.Size() != info.Size() || !now.ModTime().Equal(info.ModTime()) {
		os.Remove(name)
		return ErrChanged
	}
	if cur, err := os.ReadFile(path); err != nil || !bytes.Equal(cur, orig) {
		os.Remove(name)
		return ErrChanged
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return fmt.Errorf("write: %w", unwrapPathError(err))
	}
	return nil
}
