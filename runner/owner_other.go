//go:build !unix

package runner

import "os"

func links(os.FileInfo) uint64 { return 1 }

func keepOwner(*os.File, os.FileInfo) error { return nil }
