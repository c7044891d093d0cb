package runner

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/loratune/loratune-fix/finding"
)

// ErrChanged means the file changed on disk after it was read.
var ErrChanged = errors.New("changed on disk since it was read; not overwritten")

// ErrReadOnly means the file lacks its owner's write permission: it is
// left as it is, mode included.
var ErrReadOnly = errors.New("read-only file; not written (its mode is left as it is)")

// ErrHardLinked means the file has other names (hard links). It is not
// written: the atomic rename would give this name a new file and leave
// the other names on the old text, and writing in place would change
// every name at once, including a backup made with `cp -al` or a snapshot
// tree. Neither is what a codemod should do unasked; `cp` the file over
// itself to break the link, then fix it.
var ErrHardLinked = errors.New("hard-linked file (other names share it); not written: a rename would split the names, an in-place write would change them all")

// ErrOwner means the replacement could not be given the file's owner and
// group (another user's file, writable through its group or folder): a
// rename would hand the file to whoever runs loratune-fix.
var ErrOwner = errors.New("owned by another user; not written: the replacement could not keep its owner and group")

// sync flushes a file or a folder to disk; tests count its calls.
var syncFile = (*os.File).Sync

// WriteAtomic replaces path with data: a temporary file in the same folder
// given the original's owner, group and mode, synced, then renamed over it,
// and the folder synced so that the rename itself survives a power cut.
// If the file on disk no longer holds orig (someone saved it meanwhile),
// nothing is written. A failed write leaves no temporary file behind.
func WriteAtomic(path string, orig, data []byte, info os.FileInfo) error {
	dir, err := replace(path, orig, data, info)
	if err == nil {
		syncDir(dir)
	}
	return err
}

// replace is WriteAtomic but for the folder's sync: it returns the folder
// for the caller to sync, once for all the files it renamed there.
func replace(path string, orig, data []byte, info os.FileInfo) (dir string, err error) {
	s, err := stage(path, orig, data, info, nil)
	if err != nil {
		return "", err
	}
	return s.commit()
}

// staged is a replacement written to a temporary file in its target's
// folder, durable but not yet renamed over the target.
type staged struct {
	path, tmp, dir string
	orig           []byte
	info           os.FileInfo
	batched        bool // not synced yet: the batch syncs its file system (fsBatch)
}

// stage writes data to a temporary file next to path with the original's
// owner, group and mode. The file is synced unless batch takes its file
// system, to sync once for all the files it holds before any is renamed.
func stage(path string, orig, data []byte, info os.FileInfo, batch *fsBatch) (*staged, error) {
	if info.Mode().Perm()&0o200 == 0 {
		return nil, ErrReadOnly
	}
	if links(info) > 1 {
		return nil, ErrHardLinked
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
	// The batch looks at the folder before the temporary file exists: a
	// file system sync then reports any write error from this point on.
	batched := batch.join(dir)
	tmp, err := os.CreateTemp(dir, "."+base+".loratune-*")
	if err != nil {
		return nil, fmt.Errorf("cannot write in the folder %s: %w", finding.DisplayPath(filepath.Clean(dir)), unwrapPathError(err))
	}
	name := tmp.Name()
	fail := func(err error) (*staged, error) {
		tmp.Close()
		os.Remove(name)
		return nil, err
	}
	if err := keepOwner(tmp, info); err != nil {
		return fail(err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(fmt.Errorf("write: %w", err))
	}
	// The mode after the owner: chown clears set-id bits.
	if err := tmp.Chmod(info.Mode().Perm()); err != nil {
		return fail(fmt.Errorf("write: %w", err))
	}
	if !batched {
		if err := syncFile(tmp); err != nil {
			return fail(fmt.Errorf("write: %w", err))
		}
	}
	if err := tmp.Close(); err != nil {
		return fail(fmt.Errorf("write: %w", err))
	}
	return &staged{path: path, tmp: name, dir: dir, orig: orig, info: info, batched: batched}, nil
}

// commit renames the replacement over its target, if the target still
// holds what was read, and returns the folder to sync.
func (s *staged) commit() (dir string, err error) {
	// Last look before the rename: same size, time and content as read
	// (one open: readSource refuses a file grown past the size read).
	cur, now, err := readSource(s.path, s.info.Size(), nil)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s.discard()
		return "", fmt.Errorf("write: %w", err)
	case err != nil || now.Size() != s.info.Size() || !now.ModTime().Equal(s.info.ModTime()) || !bytes.Equal(cur, s.orig):
		s.discard()
		return "", ErrChanged
	}
	if err := os.Rename(s.tmp, s.path); err != nil {
		s.discard()
		return "", fmt.Errorf("write: %w", unwrapPathError(err))
	}
	return s.dir, nil
}

// discard removes the temporary file: the target is left as it was.
func (s *staged) discard() { os.Remove(s.tmp) }

// syncDirs syncs each folder of dirs once ("" is none), all at the same
// time: the file system commits them together, where one after the other
// each waits for its own commit.
func syncDirs(dirs []string) {
	var wg sync.WaitGroup
	seen := map[string]bool{"": true}
	for _, d := range dirs {
		if !seen[d] {
			seen[d] = true
			wg.Go(func() { syncDir(d) })
		}
	}
	wg.Wait()
}

// syncDir makes a rename in dir durable. Its error is not returned: the
// rename is done and the file whole either way, there is nothing left to
// undo, and some systems cannot sync a folder at all.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	syncFile(d)
	d.Close()
}
