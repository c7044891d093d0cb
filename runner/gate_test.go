package runner

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestByteGateBoundsBytesInFlight(t *testing.T) {
	g := newByteGate(100)
	var inFlight, peak atomic.Int64
	var wg sync.WaitGroup
	for _, n := range []int64{60, 50, 40, 30, 250, 10, 90} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release := g.acquire(n)
			w := min(n, 100)
			now := inFlight.Add(w)
			for {
				p := peak.Load()
				if now <= p || peak.CompareAndSwap(p, now) {
					break
				}
			}
			time.Sleep(5 * time.Millisecond)
			inFlight.Add(-w)
			release()
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the gate deadlocked (a request over the budget must still pass, alone)")
	}
	if p := peak.Load(); p > 100 || p < 60 {
		t.Errorf("peak bytes in flight %d, want within the budget of 100 (and some overlap)", p)
	}
}
