//go:build !unix

package runner

const openNonblock = 0
