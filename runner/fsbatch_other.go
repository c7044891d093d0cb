//go:build !linux

package runner

// fsBatch takes no file system outside Linux: each temporary file is
// synced on its own (see fsbatch_linux.go).
type fsBatch struct{}

func newFSBatch() *fsBatch          { return nil }
func (b *fsBatch) join(string) bool { return false }
func (b *fsBatch) sync()            {}
func (b *fsBatch) err(string) error { return nil }
func (b *fsBatch) close()           {}
