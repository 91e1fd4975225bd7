package gpu

import "os"

// Tier 1's wide backward (CUDA, cukernels/softmax.cuh bwd_rows_packed):
// unmasked backward rows whose packs are all aligned, K = 16 packs of y
// and of dy a thread (float32 only), so that a warp holds a row of 2048
// columns and sums it with shuffles alone. Blocks of at most 128 threads,
// three per SM (162 registers). It executes about 40% fewer instructions
// than tier 1's registers form at 2048 columns (K = 2, a block a row), and
// that is what counts when the H200 holds its 700 W cap by lowering the SM
// clock (docs/PERFORMANCE.md GPU entry 35).

// WideMaxGroup is the largest group of the wide kernel: its launch bound,
// 128 threads.
const WideMaxGroup = 128

// WideK is the packs per thread of t's wide kernel (0: none). The half
// types' form (K = 8) was slower than their kernels now on every row
// measured but float16 softmax backward 16x16x2048x2048 (3.8% faster;
// bfloat16 15-29% slower: entry 35).
func WideK(t Dtype) int {
	if t == Float32 {
		return 16
	}
	return 0
}

// WideKernel names t's wide kernel.
func WideKernel(t Dtype) string { return tierKernel("rows", t, true, WideK(t), "") }

// WideShape is the wide kernel's group for rows of n columns of t: w
// threads, whole warps, from one warp (its exact path needs groups of at
// least a warp) to WideMaxGroup. ok is false where t has no wide kernel
// or the row does not fit.
func WideShape(t Dtype, n int64, warp int) (w int, ok bool) {
	k := WideK(t)
	if k == 0 || n <= 0 {
		return 0, false
	}
	g := CeilDiv(rowPacks(t, n), int64(k))
	g = max(1, (g+int64(warp)-1)/int64(warp)) * int64(warp)
	if g > WideMaxGroup {
		return 0, false
	}
	return int(g), true
}

// WideMinElems is the fewest elements of a call that the wide kernel takes
// by default: 2^28, launches of about 1 ms and more, long enough for the
// card's power cap to lower its clock.
const WideMinElems = 1 << 28

// WideOn says whether tier 1 takes the wide kernel for rows x n of t
// (the caller checks that the rows are aligned and WideShape fits):
// float32 log-softmax backward without mask or causal limit, rows of 1025
// to 2048 columns (a warp a row), at least WideMinElems elements. On the
// H200 at 16x16x2048x2048 (entry 35) it took 2933-3043 us against the
// registers form's 2975-3532 in sequences of large launches, where the
// power cap lowered the SM clock (to 1.23 GHz in some samples), and 2950
// against 2923 alone; at 16384x2048 and 2048 rows of 2048-8192 columns
// it was 1.8-14% slower, and in softmax backward, never measured under
// the cap, from 0.1% faster (8192x4096) to 12.6% slower (2048x2048).
// SOFTMAX_WIDE=1 takes it for every unmasked backward row it fits, 0
// never (tuning knobs for benchmarks, read once at start).
func WideOn(t Dtype, bwd, log bool, keep Keep, rows, n int64) bool {
	if !bwd || keep != KeepAll || WideK(t) == 0 || wideSetting == "0" {
		return false
	}
	if wideSetting == "1" {
		return true
	}
	return log && n > 1024 && n <= 2048 && rows*n >= WideMinElems
}

var wideSetting = os.Getenv("SOFTMAX_WIDE")
