package runner

import (
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// fsBatch syncs the file systems of a batch's replacements once each
// before any is renamed, instead of each temporary file on its own: one
// journal commit and one disk flush a batch instead of one a file. It
// takes only the file systems where that is as safe as a sync per file:
// syncfs(2) reports write errors there (Linux 5.8 and later) and flushes
// the data to the disk (local disk file systems, and tmpfs, which has
// none to flush). Others (network, FUSE, overlay) keep a sync per file.
// A nil *fsBatch takes none.
type fsBatch struct {
	dirs map[string]*fsDir // each folder joined; nil where not batched
	devs []*fsDir          // the first folder opened on each device
}

type fsDir struct {
	f   *os.File // open from before the first temporary file in it
	dev uint64
	err error // the sync's, once synced
}

func newFSBatch() *fsBatch {
	if !syncfsReportsErrors() {
		return nil
	}
	return &fsBatch{dirs: map[string]*fsDir{}}
}

// join reports whether the batch syncs dir's file system. The folder is
// opened the first time: a sync through it reports the errors since.
func (b *fsBatch) join(dir string) bool {
	if b == nil {
		return false
	}
	if d, ok := b.dirs[dir]; ok {
		return d != nil
	}
	var d *fsDir
	if f, err := os.Open(dir); err == nil {
		var st unix.Stat_t
		if batchableFS(f) && unix.Fstat(int(f.Fd()), &st) == nil {
			d = &fsDir{f: f, dev: uint64(st.Dev)}
			if !b.hasDev(d.dev) {
				b.devs = append(b.devs, d)
			}
		} else {
			f.Close()
		}
	}
	b.dirs[dir] = d
	return d != nil
}

func (b *fsBatch) hasDev(dev uint64) bool {
	for _, d := range b.devs {
		if d.dev == dev {
			return true
		}
	}
	return false
}

// sync syncs each file system joined, once, through the folder first
// opened on it.
func (b *fsBatch) sync() {
	if b == nil {
		return
	}
	for _, d := range b.devs {
		d.err = syncFS(d.f)
	}
}

// err is the error of the sync that covered dir's file system.
func (b *fsBatch) err(dir string) error {
	d := b.dirs[dir]
	for _, first := range b.devs {
		if first.dev == d.dev {
			return first.err
		}
	}
	return nil
}

func (b *fsBatch) close() {
	if b == nil {
		return
	}
	for _, d := range b.dirs {
		if d != nil {
			d.f.Close()
		}
	}
}

// syncFS and batchableFS are variables for the tests.
var (
	syncFS      = func(f *os.File) error { return unix.Syncfs(int(f.Fd())) }
	batchableFS = func(f *os.File) bool {
		var st unix.Statfs_t
		if unix.Fstatfs(int(f.Fd()), &st) != nil {
			return false
		}
		switch st.Type {
		case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.F2FS_SUPER_MAGIC, unix.TMPFS_MAGIC:
			return true
		}
		return false
	}
)

// syncfsReportsErrors reports whether the kernel's syncfs(2) returns the
// write errors of the file system (Linux 5.8 and later); before, it
// returned 0 after a failed write-back.
var syncfsReportsErrors = sync.OnceValue(func() bool {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return false
	}
	return kernelAtLeast(unix.ByteSliceToString(u.Release[:]), 5, 8)
})

// kernelAtLeast reports whether a release such as "6.1.0-18-amd64" or
// "5.10-rc1" is major.minor or later.
func kernelAtLeast(release string, major, minor int) bool {
	ma, rest, _ := strings.Cut(release, ".")
	mi := rest
	if n := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' }); n >= 0 {
		mi = rest[:n]
	}
	a, err1 := strconv.Atoi(ma)
	b, err2 := strconv.Atoi(mi)
	if err1 != nil || err2 != nil {
		return false
	}
	return a > major || a == major && b >= minor
}
