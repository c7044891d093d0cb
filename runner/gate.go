package runner

import "sync"

// ParseBudget is how many bytes of source the workers of a run parse at
// once. Small files never wait (16 workers on 10 kB files use a tenth of
// it); large ones take turns, so peak memory stays bounded by the budget
// and the files in flight, however large the tree and however many
// large files it holds. A file larger than the budget is parsed alone.
const ParseBudget = 2 << 20

// byteGate is a weighted semaphore of bytes.
type byteGate struct {
	mu   sync.Mutex
	cond *sync.Cond
	free int64
	size int64
}

func newByteGate(size int64) *byteGate {
	g := &byteGate{free: size, size: size}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// acquire waits until n bytes (at most the whole budget) are free, takes
// them, and returns the function that gives them back.
func (g *byteGate) acquire(n int64) (release func()) {
	if n > g.size {
		n = g.size
	}
	g.mu.Lock()
	for g.free < n {
		g.cond.Wait()
	}
	g.free -= n
	g.mu.Unlock()
	return func() {
		g.mu.Lock()
		g.free += n
		g.mu.Unlock()
		g.cond.Broadcast()
	}
}
