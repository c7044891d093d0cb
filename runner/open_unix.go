//go:build unix && !linux

package runner

import "syscall"

// openNonblock keeps open(2) from waiting for a writer on a FIFO (Linux
// reads through read_linux.go, which needs none).
const openNonblock = syscall.O_NONBLOCK
