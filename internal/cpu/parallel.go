package cpu

import (
	"runtime"
	"sync"
)

// forEach splits [0, n) into at most GOMAXPROCS contiguous chunks of at
// least grain items each and runs fn on them, one goroutine per chunk, the
// last chunk on the calling goroutine. Small jobs run inline.
func forEach(n, grain int, fn func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	chunks := min(workers, n/max(grain, 1))
	if chunks <= 1 {
		if n > 0 {
			fn(0, n)
		}
		return
	}
	var wg sync.WaitGroup
	lo := 0
	for c := range chunks {
		hi := lo + (n-lo)/(chunks-c)
		if c == chunks-1 {
			fn(lo, hi)
			break
		}
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			fn(lo, hi)
		}(lo, hi)
		lo = hi
	}
	wg.Wait()
}
