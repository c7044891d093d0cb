package main

import (
	"os"
	"runtime/pprof"
	"runtime/trace"
)

// startProfile writes a CPU profile of the whole run to the file named by
// LORATUNE_FIX_CPUPROFILE (`go tool pprof loratune-fix FILE`), and an
// execution trace to the file named by LORATUNE_FIX_TRACE (`go tool trace
// FILE`; `-pprof=sync` gives the channel and lock waits, `-pprof=sched`
// the waits for a CPU), for reports of slow runs and for bench/ work. It
// returns the function that ends them.
func startProfile() (stop func()) {
	var stops []func()
	if path := os.Getenv("LORATUNE_FIX_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			printLine(os.Stderr, "error", "LORATUNE_FIX_CPUPROFILE:", err)
		} else {
			stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
		}
	}
	if path := os.Getenv("LORATUNE_FIX_TRACE"); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = trace.Start(f)
		}
		if err != nil {
			printLine(os.Stderr, "error", "LORATUNE_FIX_TRACE:", err)
		} else {
			stops = append(stops, func() { trace.Stop(); f.Close() })
		}
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}
