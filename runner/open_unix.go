//go:build unix

package runner

import "syscall"

// openNonblock keeps open(2) from waiting for a writer on a FIFO.
const openNonblock = syscall.O_NONBLOCK
