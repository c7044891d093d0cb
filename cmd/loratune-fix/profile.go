package main

import (
	"os"
	"runtime/pprof"
)

// startProfile writes a CPU profile of the whole run to the file named by
// LORATUNE_FIX_CPUPROFILE, for reports of slow runs and for bench/ work
// (`go tool pprof loratune-fix FILE`). It returns the function that ends
// the profile.
func startProfile() (stop func()) {
	path := os.Getenv("LORATUNE_FIX_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		printLine(os.Stderr, "error", "LORATUNE_FIX_CPUPROFILE:", err)
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}
