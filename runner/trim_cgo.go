//go:build linux && cgo

package runner

/*
#include <stddef.h>
// glibc's malloc_trim, weak so that a libc without it (musl) still links.
extern int malloc_trim(size_t) __attribute__((weak));
static void loratune_trim(void) { if (malloc_trim) malloc_trim(0); }
*/
import "C"

// releaseCMemory hands the C heap's free pages back to the system. A big
// parse leaves its tree-sitter memory free but resident in the malloc
// arena; without this the resident peak crept up with every big file.
func releaseCMemory() { C.loratune_trim() }
