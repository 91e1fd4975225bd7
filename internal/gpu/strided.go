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
// backward rows, and by default only float32 rows of a part pack of 171 to
// 255 columns (E = 8, at least two thirds of the warp's columns in the
// row). Measured on an H100 (docs/PERFORMANCE.md GPU entry 93, the H200
// not yet), against the shifted kernels: 1.02-1.03x faster at 175
// columns, 1.08x at 193, 1.08-1.12x at 197 (64x12x197x197: 123.7 against
// 138.3 us, 96% of copy; PyTorch's column-at-a-time kernel ran 1.15x ours
// there before, 1.03x after), level at 229 and 250, 1.19-1.20x at 255;
// slower at 131 (0.90x) and 150 (0.96x), where a third or more of the
// warp's columns lie past the row. Everywhere else it was slower too:
// float32 at 300 and 577 columns 0.81-0.83x (E = 16 and 32: fewer blocks
// per SM, 41-44% of the group's columns past the row), 10 to 77 columns
// 0.70-0.83x, aligned rows of 128 to 1024 columns 0.87-0.97x; the half
// types 0.27-0.84x (a 2-byte load a column). SOFTMAX_STRIDED=1 takes them
// for every unmasked backward row they fit, 0 never (tuning knobs for
// benchmarks, read once at start).
//
// The forward kernels (unmasked, non-causal rows) are not measured yet:
// by default never; SOFTMAX_STRIDED=1 takes them too.
func StridedOn(t Dtype, bwd bool, keep Keep, n int64) bool {
	if keep != KeepAll || !StridedKernels(t) || stridedSetting == "0" {
		return false
	}
	if stridedSetting == "1" {
		return true
	}
	return bwd && t == Float32 && n%int64(16/t.Size()) != 0 && n > 170 && n < 256 // rows of a part pack
}

var stridedSetting = os.Getenv("SOFTMAX_STRIDED")
