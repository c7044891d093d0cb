package main

import (
	"math"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/loratune/loratune-fix/runner"
)

// TestPaceGC checks the collector's pacing in a process of its own (the
// settings are the process's): the limit starts at gcFloor, follows twice
// a large live heap after a collection, comes back to the floor when the
// heap is freed, and GOGC in the environment leaves everything as it is.
func TestPaceGC(t *testing.T) {
	if os.Getenv("LORATUNE_FIX_PACEGC_TEST") != "1" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPaceGC$", "-test.v")
		cmd.Env = append(os.Environ(), "LORATUNE_FIX_PACEGC_TEST=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	limit := func() int64 { return debug.SetMemoryLimit(-1) }

	t.Setenv("GOGC", "100")
	paceGC()
	if got := limit(); got != math.MaxInt64 {
		t.Fatalf("with GOGC set: limit %d, want none", got)
	}
	os.Unsetenv("GOGC")

	paceGC()
	if got := limit(); got != gcFloor {
		t.Fatalf("limit %d, want the floor %d", got, gcFloor)
	}
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Fatalf("GC percent %d, want -1 (off, the limit paces)", p)
	}
	// settle collects until the limit satisfies ok: the finalizer that
	// sets it runs shortly after a collection, on its own goroutine.
	settle := func(ok func(int64) bool) int64 {
		deadline := time.Now().Add(10 * time.Second)
		for {
			runtime.GC()
			time.Sleep(10 * time.Millisecond)
			if l := limit(); ok(l) || time.Now().After(deadline) {
				return l
			}
		}
	}
	const big = 128 << 20
	live := make([][]byte, 0, big>>20)
	for range big >> 20 {
		live = append(live, make([]byte, 1<<20))
	}
	if got := settle(func(l int64) bool { return l >= 2*big }); got < 2*big {
		t.Errorf("live heap of %d bytes: limit %d, want at least twice it", big, got)
	}
	runtime.KeepAlive(live)
	live = nil
	if got := settle(func(l int64) bool { return l == gcFloor }); got != gcFloor {
		t.Errorf("heap freed: limit %d, want the floor %d", got, gcFloor)
	}
}

// A run gets one P more than its workers for its duration; one with Ps
// to spare already keeps GOMAXPROCS as it is.
func TestSpareP(t *testing.T) {
	const before = 4
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(before))
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
}
