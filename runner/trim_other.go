//go:build !(linux && cgo)

package runner

func releaseCMemory() {}
