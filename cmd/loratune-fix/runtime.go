package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"

	"github.com/loratune/loratune-fix/runner"
)

// The collector's pacing. By default Go collects when the heap has
// doubled since the last collection, at 4 MB at least; a run keeps little
// alive (the results waiting for their turn in the output and the files
// being parsed: 1-3 MB at -j 1, about 10 MB at -j 16) and allocates about
// 120 kB a script, so that it would collect 150 times on 5,000 scripts,
// each collection stopping every worker twice and marking the live heap.
// A fixed floor does not scale either: the heap counts the memory each P
// (scheduler slot) holds for its next allocations as allocated, and with
// a 32 MB floor -j 16 collected 1,137-1,201 times on 5,000 scripts, a
// third of its CPU (issue 27).
//
// So the heap may grow by gcHeadroom between two collections, and by the
// live heap at least (GOGC=100): gcBase, plus gcPerWorker for each worker.
// The live heap and the headroom both grow with the workers, so the
// collector's share of the CPU stays what it is at -j 1. Measured on the
// H200 host (16 CPUs), fix --write on 5,000 scripts, -j 16: 1,137-1,201
// collections, 29-34 CPU s and 3.3-3.7 s with the fixed floor; 17 with
// 2 MB a worker, 15.4-16.6 CPU s, 1.17-1.23 s, 97-98 MB peak RSS (1 MB a
// worker: 30-32, 1.18-1.37 s, 84-88 MB; 4 MB: 8, 1.26-1.31 s, 133 MB;
// GOGC=400: 1.19-1.40 s, 137-146 MB); -j 8: 217 against 23 collections,
// 3.07 against 2.10 s (bench/results-2026-12-02-h200-scaling/; those
// runs had a gcBase of 16 MB). 12 MB keeps check on 10 copies of the
// haystack within a fifth of its memory on one (-j 2: +10-13%, 16 MB
// +17-24%, main +8-10%); a run of one worker then collects 54 times on
// the 5,000 scripts instead of 39, each in about a millisecond.
const (
	gcBase      = 12 << 20
	gcPerWorker = 2 << 20
)

// gcHeadroom is the growth of the heap allowed between two collections.
var gcHeadroom atomic.Int64

// userGC says that GOGC is set: the user's pacing, left alone.
var userGC = os.Getenv("GOGC") != ""

// paceGC sets the pacing of a process with one worker; paceWorkers raises
// it for a run's workers. GOGC in the environment wins; GOMEMLIMIT in the
// environment stays the ceiling (the runtime reads it) under this pacing.
func paceGC() {
	if userGC {
		return
	}
	gcHeadroom.Store(gcBase + gcPerWorker)
	debug.SetGCPercent(gcPercent(0))
	runtime.SetFinalizer(&gcCycle{}, afterGC)
}

// paceWorkers sets the headroom for a run of jobs workers.
func paceWorkers(jobs int) {
	if userGC {
		return
	}
	gcHeadroom.Store(gcBase + gcPerWorker*int64(jobs))
	debug.SetGCPercent(gcPercent(liveBytes()))
}

// gcPercent is the GOGC that lets the heap grow by gcHeadroom over live.
// Go's goal is the live heap times 1+GOGC/100, and 4 MB times GOGC/100 at
// least (for a tiny live heap): below 4 MB the live heap is taken as 4 MB,
// so that the goal stays about gcHeadroom.
func gcPercent(live int64) int {
	const heapMinimum = 4 << 20
	return int(max(100, 100*gcHeadroom.Load()/max(live, heapMinimum)))
}

// gcCycle is an unreachable object whose finalizer runs after each
// collection and sets it again for the next one. (A pointer field keeps
// it out of the tiny allocator, whose blocks are freed together.)
type gcCycle struct{ _ *byte }

// liveBytes is the live heap that the last collection measured.
func liveBytes() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// afterGC sets GOGC for the heap that the collection just measured, then
// waits for the next collection.
func afterGC(c *gcCycle) {
	debug.SetGCPercent(gcPercent(liveBytes()))
	runtime.SetFinalizer(c, afterGC)
}

// spareP sets a run's workers and gives the run one P (Go scheduler slot)
// more than it has workers, and returns the function that takes it back.
// The workers spend much of their time in C (parse, tree copy); with every
// P busy, the runtime hands a worker's P to another goroutine (output, the
// walk, a writer, the collector) during a longer C call, and the worker's
// thread then waits to get one back. On 2 CPUs, on the 500 scripts
// (medians of 5-7): check -j 2 0.68 s to 0.63 s, fix --write -j 2 0.61 s
// to 0.58 s. Without --jobs a run has a worker per P (runner.DefaultJobs:
// the CPUs it may use, or GOMAXPROCS); GOMAXPROCS set by the user is kept
// as it is.
func spareP(opts *runner.Options) (restore func()) {
	if opts.Jobs <= 0 {
		opts.Jobs = runner.DefaultJobs()
	}
	paceWorkers(opts.Jobs)
	p := runtime.GOMAXPROCS(0)
	if os.Getenv("GOMAXPROCS") != "" || p > opts.Jobs {
		return func() {}
	}
	runtime.GOMAXPROCS(opts.Jobs + 1)
	return func() { runtime.GOMAXPROCS(p) }
}
