package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"

	"github.com/loratune/loratune-fix/runner"
)

// gcFloor is the Go memory under which the garbage collector leaves a
// run alone. With the default pacing (a 4 MB heap, the live heap being
// 1-3 MB) fix --write on 500 scripts ran 300 collections; on two CPUs
// their pauses and mark work took a tenth of the wall time from both
// workers, while one worker alone hides them on the idle CPU, so that
// -j 2 gained 1.4x over -j 1 instead of 1.6x. Above the floor the
// collector paces as by default (GOGC=100: twice the live heap).
const gcFloor = 32 << 20

// paceGC makes the collector run when the Go memory reaches twice the
// live heap or gcFloor, whichever is larger, instead of twice the live
// heap alone: a run over many small files then collects a few dozen
// times, not hundreds, for about 15 MB more memory, and a run over one
// large file collects as it did. A fixed limit alone would not do: with
// a live heap above it the collector runs back to back (measured on a
// 2 MB module: 138 collections and a quarter of the CPU, against 14).
// GOGC or GOMEMLIMIT in the environment are the user's choice and win.
func paceGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(gcFloor)
	runtime.SetFinalizer(&gcCycle{}, afterGC)
}

// gcCycle is an unreachable object whose finalizer runs after each
// collection and sets it again for the next one. (A pointer field keeps
// it out of the tiny allocator, whose blocks are freed together.)
type gcCycle struct{ _ *byte }

// liveHeap is the metric that afterGC reads.
var liveHeap = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}

// afterGC sets the limit to twice the live heap that the collection just
// measured (at least gcFloor), then waits for the next collection.
func afterGC(c *gcCycle) {
	metrics.Read(liveHeap)
	if liveHeap[0].Value.Kind() == metrics.KindUint64 {
		debug.SetMemoryLimit(max(gcFloor, 2*int64(liveHeap[0].Value.Uint64())))
	}
	runtime.SetFinalizer(c, afterGC)
}

// spareP gives a run one P (Go scheduler slot) more than it has workers,
// and returns the function that takes it back. The workers spend much of
// their time in C (parse, tree copy); with every P busy, the runtime
// hands a worker's P to another goroutine (output, the walk, a writer,
// the collector) during a longer C call, and the worker's thread then
// waits to get one back. On 2 CPUs, on the 500 scripts (medians of 5-7):
// check -j 2 0.68 s to 0.63 s, fix --write -j 2 0.61 s to 0.58 s.
func spareP(opts *runner.Options) (restore func()) {
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	p := runtime.GOMAXPROCS(0)
	if p > jobs {
		return func() {}
	}
	runtime.GOMAXPROCS(jobs + 1)
	return func() { runtime.GOMAXPROCS(p) }
}
