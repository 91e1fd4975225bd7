package gpu

import "os"

// Tier 1's strided kernels (CUDA, cukernels/softmax.cuh bwd_rows_strided
// and fwd_rows_strided): unmasked rows of any alignment (forward: not
// causal either), E columns of y and of dy (forward: of x) a thread,
// column i*W + lane, each loaded alone, as PyTorch's softmax_warp_backward
// loads them. A group's loads of one column step are
// adjacent, so they coalesce whatever the row's start, and the row needs
// neither a pack boundary nor the shifted kernels' shift arithmetic.

// StridedThreads is the strided kernels' block: their launch bound.
const StridedThreads = 128

// stridedEs are the columns a thread the strided backward kernels exist
// for, stridedFwdEs the forward's: the forward holds one array, so
// more lengths fit its registers, and fewer of a group's columns lie past
// the row (577 columns take E = 20: 640 columns, not 1024).
var (
	stridedEs    = [...]int{4, 8, 16, 32}
	stridedFwdEs = [...]int{4, 8, 12, 16, 20, 24, 32}
)

// StridedKernels says whether t has strided kernels: float32 and the half
// types.
func StridedKernels(t Dtype) bool { return t == Float32 || t == Float16 || t == BFloat16 }

// StridedEs lists the columns a thread of the strided kernels, forward or
// backward.
func StridedEs(bwd bool) []int {
	if bwd {
		return stridedEs[:]
	}
	return stridedFwdEs[:]
}

// StridedKernel names t's strided kernel of e columns a thread.
func StridedKernel(t Dtype, bwd bool, e int) string { return tierKernel("strided", t, bwd, e, "") }

// StridedOnceKernel names t's one-row strided kernel of e columns a
// thread: groups of a warp (32 lanes), a group for every row, so no loop
// over rows and fewer registers (forward 38-40 at e <= 12 against 48-64:
// 12 blocks an SM, not 8). StridedOnceOn says when the plan takes it.
func StridedOnceKernel(t Dtype, bwd bool, e int) string { return tierKernel("stronce", t, bwd, e, "") }

// StridedOnceOn says whether a strided call of groups of w lanes on a
// grid of blocks takes the one-row kernel: groups of 32, a grid that gives
// every row a group (it has no loop), and not turned off by
// SOFTMAX_STRIDED_ONCE=0 (a tuning knob for benchmarks, read once at
// start).
func StridedOnceOn(w int, blocks int64) bool {
	return stridedOnceSetting != "0" && w == 32 && blocks <= 1<<30 // the plans' grid cap
}

var stridedOnceSetting = os.Getenv("SOFTMAX_STRIDED_ONCE")

// StridedShape is the strided layout for rows of n columns on a device
// whose warp has warp lanes: the fewest columns a thread e of
// StridedEs(bwd) with n <= e x warp, and w, the least power of two with
// w x e >= n. ok is false where the row is longer than the largest e's
// warp holds.
func StridedShape(bwd bool, n int64, warp int) (e, w int, ok bool) {
	if n <= 0 {
		return 0, 0, false
	}
	for _, e := range StridedEs(bwd) {
		if n <= int64(e*warp) {
			return e, int(NextPow2(CeilDiv(n, int64(e)))), true
		}
	}
	return 0, 0, false
}

// StridedOn says whether tier 1 takes the strided kernels for rows of n
// columns of t (the caller checks that StridedShape fits): unmasked
// rows of the types with kernels (forward: not causal either), and by
// default none. On an
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
// half types 0.27-0.84x). The forward kernels were slower on 56 of 60
// rows on the H100 (entry 94). SOFTMAX_STRIDED=1 takes them for every
// unmasked row they fit, forward and backward (a tuning knob for
// benchmarks, read once at start).
func StridedOn(t Dtype, bwd bool, keep Keep, n int64) bool {
	return stridedSetting == "1" && keep == KeepAll && StridedKernels(t)
}

var stridedSetting = os.Getenv("SOFTMAX_STRIDED")
