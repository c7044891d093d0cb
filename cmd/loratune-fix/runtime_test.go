package main

import (
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/loratune/loratune-fix/runner"
)

// gcPercentNow reads GOGC as the runtime has it.
func gcPercentNow() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// inOwnProcess runs the test in a process of its own (the collector's and
// the scheduler's settings are the process's), with env added; it returns
// true in that process.
func inOwnProcess(t *testing.T, env ...string) bool {
	if os.Getenv("LORATUNE_FIX_RUNTIME_TEST") == "1" {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v")
	cmd.Env = append(append(os.Environ(), "LORATUNE_FIX_RUNTIME_TEST=1"), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return false
}

// TestPaceGC checks the collector's pacing: the heap may grow by the
// headroom of one worker, then of a run's workers, over a small live heap;
// by the live heap itself (GOGC=100) over a large one, and by the headroom
// again once that is freed.
func TestPaceGC(t *testing.T) {
	if !inOwnProcess(t, "GOGC=", "GOMEMLIMIT=") {
		return
	}
	os.Unsetenv("GOGC")
	paceGC()
	if got, want := gcPercent(0), 100*(gcBase+gcPerWorker)/(4<<20); got != want {
		t.Fatalf("one worker: GOGC %d, want %d (the headroom over the 4 MB minimum)", got, want)
	}
	paceWorkers(16)
	headroom := gcBase + 16*gcPerWorker
	// settle collects until GOGC satisfies ok: the finalizer that sets it
	// runs shortly after a collection, on its own goroutine.
	settle := func(ok func(int) bool) int {
		deadline := time.Now().Add(10 * time.Second)
		for {
			runtime.GC()
			time.Sleep(10 * time.Millisecond)
			if p := gcPercentNow(); ok(p) || time.Now().After(deadline) {
				return p
			}
		}
	}
	small := 100 * headroom / (4 << 20)
	if got := settle(func(p int) bool { return p == small }); got != small {
		t.Fatalf("16 workers, small live heap: GOGC %d, want %d", got, small)
	}
	big := 4 * headroom
	live := make([][]byte, 0, big>>20)
	for range big >> 20 {
		live = append(live, make([]byte, 1<<20))
	}
	if got := settle(func(p int) bool { return p == 100 }); got != 100 {
		t.Errorf("live heap of %d bytes, 4 times the headroom: GOGC %d, want 100", big, got)
	}
	runtime.KeepAlive(live)
	live = nil
	if got := settle(func(p int) bool { return p == small }); got != small {
		t.Errorf("heap freed: GOGC %d, want %d", got, small)
	}
}

// GOGC set by the user is left as it is, whatever the workers.
func TestPaceGCUserGOGC(t *testing.T) {
	if !inOwnProcess(t, "GOGC=150") {
		return
	}
	paceGC()
	paceWorkers(16)
	if got := gcPercentNow(); got != 150 {
		t.Errorf("GOGC=150 in the environment: GOGC %d during a run", got)
	}
}

// A run gets one P more than its workers for its duration; one with Ps
// to spare already keeps GOMAXPROCS as it is; without --jobs it has a
// worker a P.
func TestSpareP(t *testing.T) {
	if !inOwnProcess(t, "GOMAXPROCS=") {
		return
	}
	os.Unsetenv("GOMAXPROCS")
	const before = 4
	runtime.GOMAXPROCS(before)
	restore := spareP(&runner.Options{Jobs: before, Write: true})
	if got := runtime.GOMAXPROCS(0); got != before+1 {
		t.Errorf("%d workers: GOMAXPROCS %d, want %d", before, got, before+1)
	}
	restore()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("after the run: GOMAXPROCS %d, want %d back", got, before)
	}
	restore = spareP(&runner.Options{Jobs: before - 1})
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("%d workers: GOMAXPROCS %d during the run, want %d as it was", before-1, got, before)
	}
	restore()
	opts := &runner.Options{}
	restore = spareP(opts)
	if opts.Jobs != before || runtime.GOMAXPROCS(0) != before+1 {
		t.Errorf("no --jobs: %d workers and GOMAXPROCS %d, want %d and %d", opts.Jobs, runtime.GOMAXPROCS(0), before, before+1)
	}
	restore()
}

// GOMAXPROCS set by the user is kept, and sets the workers of a run
// without --jobs.
func TestSparePUserGOMAXPROCS(t *testing.T) {
	if !inOwnProcess(t, "GOMAXPROCS=3") {
		return
	}
	opts := &runner.Options{}
	restore := spareP(opts)
	defer restore()
	if got := runtime.GOMAXPROCS(0); got != 3 || opts.Jobs != 3 {
		t.Errorf("GOMAXPROCS=3 in the environment: GOMAXPROCS %d and %d workers during a run, want 3 and 3", got, opts.Jobs)
	}
}
