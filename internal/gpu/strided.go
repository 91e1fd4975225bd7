package gpu

import "os"

// Tier 1's strided backward (CUDA, cukernels/softmax.cuh bwd_rows_strided):
// unmasked backward rows of any alignment, E columns of y and of dy a
// thread, column i*W + lane, each loaded alone, as PyTorch's
// softmax_warp_backward loads them. A group's loads of one column step are
// adjacent, so they coalesce whatever the row's start, and the row needs
// neither a pack boundary nor the shifted kernels' shift arithmetic.

// StridedThreads is the strided kernels' block: their launch bound.
const StridedThreads = 128

// stridedEs are the columns a thread the strided kernels exist for.
var stridedEs = [...]int{4, 8, 16, 32}

// StridedKernels says whether t has strided kernels: float32 and the half
// types.
func StridedKernels(t Dtype) bool { return t == Float32 || t == Float16 || t == BFloat16 }

// StridedEs lists the columns a thread of the strided kernels.
func StridedEs() []int { return stridedEs[:] }

// StridedKernel names t's strided kernel of e columns a thread.
func StridedKernel(t Dtype, e int) string { return tierKernel("strided", t, true, e, "") }

// StridedShape is the strided layout for rows of n columns on a device
// whose warp has warp lanes: the fewest columns a thread e with n <= e x
// warp, and w, the least power of two with w x e >= n. ok is false where
// the row is longer than the largest e's warp holds.
func StridedShape(n int64, warp int) (e, w int, ok bool) {
	if n <= 0 {
		return 0, 0, false
	}
	for _, e := range stridedEs {
		if n <= int64(e*warp) {
			return e, int(NextPow2(CeilDiv(n, int64(e)))), true
		}
	}
	return 0, 0, false
}

// StridedOn says whether tier 1 takes the strided kernels for rows of n
// columns of t (the caller checks that StridedShape fits): unmasked
// backward rows of the types with kernels, and by default none. On an
// H100 the kernels beat the shifted ones on float32 rows of a part pack
// of 171 to 255 columns (docs/PERFORMANCE.md GPU entries 93 and 94:
// 1.02-1.03x at 175, 1.08-1.12x at 197 at 96% of copy, level at 229 and
// 250, 1.19-1.21x at 255), and that was the rule until the H200 ran it:
// there float32 backward of 64x12x197x197 took 113.6-116.5 us strided
// against 103.2-108.0 shifted in three earlier runs (entry 95). A warp
// a row with 16 scalar loads a lane in flight at 8 blocks an SM does not
// keep the H200's bandwidth busy; the H100's is a third lower. Elsewhere
// they were slower on the H100 too (float32 at 300 and 577 columns
// 0.81-0.83x, 10 to 77 columns 0.70-0.83x, aligned rows 0.87-0.97x, the
// half types 0.27-0.84x). SOFTMAX_STRIDED=1 takes them for every
// unmasked backward row they fit (a tuning knob for benchmarks, read
// once at start).
func StridedOn(t Dtype, bwd bool, keep Keep, n int64) bool {
	return stridedSetting == "1" && bwd && keep == KeepAll && StridedKernels(t)
}

var stridedSetting = os.Getenv("SOFTMAX_STRIDED")
