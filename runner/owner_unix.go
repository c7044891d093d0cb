//go:build unix

package runner

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// links is the number of names the file has.
func links(info os.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// keepOwner gives tmp the owner and group of the file it replaces: as root
// (CI, migrate) a new file would otherwise belong to root.
func keepOwner(tmp *os.File, info os.FileInfo) error {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if err := tmp.Chown(int(st.Uid), int(st.Gid)); err != nil {
		if errors.Is(err, syscall.EPERM) {
			return ErrOwner
		}
		return fmt.Errorf("write: %w", unwrapPathError(err))
	}
	return nil
}
