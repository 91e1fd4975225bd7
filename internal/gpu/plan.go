package gpu

import (
	"fmt"
	"math"
	"math/bits"
)

// Layout arithmetic the CUDA and HIP backends share when they plan a
// launch.

// CeilDiv is a / b rounded up, for a >= 0 and b > 0 (without forming
// a + b - 1, which wraps for a near MaxInt64).
func CeilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 {
		q++
	}
	return q
}

// NextPow2 is the least power of two at least n (1 for n <= 1).
func NextPow2(n int64) int64 {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len64(uint64(n-1))
}

// leastFit is the least c of caps (ascending) whose c x per covers a row
// of n columns; ok is false for n < 1 or past the last. It picks the
// template size of a family of kernels that each hold a row up to a size.
func leastFit(caps []int, per int, n int64) (c int, ok bool) {
	if n < 1 {
		return 0, false
	}
	for _, c := range caps {
		if n <= int64(c)*int64(per) {
			return c, true
		}
	}
	return 0, false
}

// SplitBits is the workspace a forward split over masked rows of whole
// packs takes: its first `before` bytes (the Parts, and the fused kernel's
// queues), then from the next 128-byte line each row's keep bits, a bit a
// column in whole lines (cukernels/long.cuh, split_bits). The statistics
// pass writes them and the write pass reads them where it would read the
// mask again: an eighth of the mask's bytes.
func SplitBits(before, rows, n int64) int64 {
	const line = 128
	return CeilDiv(before, line)*line + rows*CeilDiv(CeilDiv(n, 8), line)*line
}

// RowThreads is the block of tiers 2 and 3 (one block a row) for rows of
// cols columns: about 8 columns a thread, a power of two from 128 to 1024.
func RowThreads(cols int64) int {
	return int(max(128, min(1024, NextPow2(CeilDiv(cols, 8)))))
}

// CachedBytes is the shared memory tier 2 takes for a row of n columns of
// t: the row, and backward dy beside y.
// Rows too long for the product to fit in an int64 give MaxInt64.
func CachedBytes(t Dtype, n int64, bwd bool) int64 {
	per := int64(t.Size())
	if bwd {
		per *= 2
	}
	if n > math.MaxInt64/per {
		return math.MaxInt64
	}
	return n * per
}

// TierKernelName names t's kernel of a tier with one kernel a direction
// (cached, block, split_stats, cgrid, ...).
func TierKernelName(t Dtype, bwd bool, tier string) string {
	dir := "fwd"
	if bwd {
		dir = "bwd"
	}
	return fmt.Sprintf("softmax_%s_%s_%s", dir, tier, t.Suffix())
}
