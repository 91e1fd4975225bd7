package gpu

import (
	"os"
	"strconv"
)

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
	if e, ok = leastFit(StridedEs(bwd), warp, n); !ok {
		return 0, 0, false
	}
	return e, int(NextPow2(CeilDiv(n, int64(e)))), true
}

// StridedOn says whether tier 1 takes the strided kernels for rows of n
// columns of t (the caller checks that StridedShape fits): unmasked rows
// (forward: not causal either) of a part pack, where the H200 ran the
// one-row forms (`stronce`, groups of a warp: n > 64) faster than the
// shifted kernels (docs/PERFORMANCE.md GPU entry 99, call 4, two rounds):
//   - float32 backward, 65 to 640 columns: 1.04-1.25x at 77, 131-255 and
//     577 (64x12x197x197 86.1 against 101.5-103.2 us);
//   - float32 forward, 129 to 640: 1.03-1.44x at 131-255 and 577 (1.25x);
//     slower at 77 (0.86-0.88x);
//   - the half types' forward, 225 to 640: 1.04-1.61x at 229-255, 300 and
//     577; 0.93-1.02x at 131-197;
//   - the half types' backward, 65 to 128 columns (1.25-1.27x at 77) and
//     250 to 255, where the shifted kernels' row of n + 7 columns passes
//     256 (1.10-1.23x); 0.79-1.02x at 131-229, 300 and 577.
//
// Rows of whole packs keep the kernels the shapes were measured
// on, but float32 backward rows that tier 1 gives K = 4 (pipeK4: 132-220
// and 260-444 columns) and so its pipelined kernel: the one-row kernel
// beat that by 1.07-1.10x on the H100 at 136 and 300 columns (entry 100)
// and 1.14x on the H200 at 300 (entry 99); at 128, 256 and 512 columns
// (K = 2, groups full) the two were level (0.99-1.02x), and at other K =
// 2 rows (68, 100, 232, 480, 600, 640) 0.97-1.03x on the H200 (entry 100,
// call 2), too little to take them. Rows past 640 columns (E = 24 and 32)
// were not measured. Groups under a warp (n <= 64: the looping form) were slower
// or level (0.55-0.83x at 33 columns, 0.80-1.02x at 10). On the H100 the
// looping form's ranking differed (entry 95), so this rule is the H200's.
// SOFTMAX_STRIDED=1 takes them for every unmasked row they fit, =0 for
// none (tuning knobs for benchmarks, read once at start).
func StridedOn(t Dtype, bwd bool, keep Keep, n int64) bool {
	if stridedSetting == "0" || keep != KeepAll || !StridedKernels(t) {
		return false
	}
	if stridedSetting == "1" {
		return true
	}
	if n > 640 { // unmeasured lengths
		return false
	}
	pk := int64(16 / t.Size())
	switch {
	case t == Float32 && bwd:
		return n >= 65 && (n%pk != 0 || pipeK4(n/pk))
	case n%pk == 0: // whole packs
		return false
	case t == Float32:
		return n >= 129
	case bwd:
		return n >= 65 && n <= 128 || n >= 250 && n <= 255
	default:
		return n >= 225
	}
}

var stridedSetting = os.Getenv("SOFTMAX_STRIDED")

// pipeK4 says whether tier 1 gives unmasked float32 backward rows of
// the given packs K = 4 (rowsK): the K at which PipeOn takes its
// pipelined kernel for them.
func pipeK4(packs int64) bool {
	k, _ := rowsK(Float32, true, KeepAll, packs)
	return k == 4
}

// The batched one-row strided kernel (stronce{E}r2:
// cukernels/softmax.cuh bwd_rows_strided_batch) takes float32 backward
// rows of 33 to 128 columns, unmasked, a warp for every StridedBatchRows
// rows, E = 2 or 4 columns of each a lane, both rows' loads in flight
// before the first row's sum, as PyTorch's softmax_warp_backward does
// (WARP_BATCH).
const StridedBatchRows = 2

var stridedBatchEs = [...]int{2, 4}

// StridedBatchShape is the batched kernel's columns a lane for rows of n
// columns on a device whose warp has warp lanes: the fewer e of 2 and 4
// with n <= e x warp. ok is false at 32 columns or fewer (E = 1 was slower
// than tier 1's packs on every such row: entry 101) and past 128, or
// where the warp is not the 32 lanes the kernel is built for.
func StridedBatchShape(n int64, warp int) (e int, ok bool) {
	if n <= 32 || warp != 32 {
		return 0, false
	}
	for _, e := range stridedBatchEs {
		if n <= int64(e*warp) {
			return e, true
		}
	}
	return 0, false
}

// StridedBatchKernels says whether the batched kernel exists for calls
// of t, bwd and keep: the unmasked float32 backward.
func StridedBatchKernels(t Dtype, bwd bool, keep Keep) bool {
	return t == Float32 && bwd && keep == KeepAll
}

// StridedBatchEs lists the batched kernel's columns a lane.
func StridedBatchEs() []int { return stridedBatchEs[:] }

// StridedBatchKernel names the batched kernel of e columns a lane (float32
// backward).
func StridedBatchKernel(e int) string {
	return tierKernel("stronce", Float32, true, e, "r"+strconv.Itoa(StridedBatchRows))
}

// StridedBatchOn says whether tier 1 takes the batched kernel for
// backward calls of rows x n of t: unmasked float32 rows of 64 to 80
// columns (62 to 80 since entry 108: StridedBatchMinN), at least
// StridedBatchMinRows of them. There the H100 ran it
// 1.02-1.08x faster than the plans it replaces (docs/PERFORMANCE.md GPU
// entries 101 and 102: tier 1's packs at 64, 68, 72 and 80 columns, the
// one-row strided kernel at 77; 24576 to 131072 rows); at 88 to 128
// columns the two were level (0.99-1.01x), at 33 and 48 it was slower
// (0.88-0.95x), and under 24576 rows, where its grid of a warp for every
// two rows fills the SMs fewer than three times, slower or level (8192
// rows 0.79-0.97x). 4 rows a warp, the forward and the half types were
// slower everywhere (entry 101). SOFTMAX_STRIDED_BATCH=1 takes it for
// every call it fits, =0 for none (tuning knobs for benchmarks, read
// once at start).
func StridedBatchOn(t Dtype, bwd bool, keep Keep, rows, n int64) bool {
	if !StridedBatchKernels(t, bwd, keep) || stridedBatchSetting == "0" {
		return false
	}
	return stridedBatchSetting == "1" || rows >= StridedBatchMinRows && n >= StridedBatchMinN && n <= 80
}

// StridedBatchMinN is the shortest row StridedBatchOn gives the batched
// kernel: 62 columns, the first whose shifted row (n + 3 columns, ShiftOn's
// short band) passes 16 packs, so that tier 1's shifted kernel at K = 2
// doubles its group to 16 lanes, 7 of them idle. There the batched kernel
// ran 1.18-1.27x the shifted one at 24576-1048576 rows of 62 and 63
// columns (131072x63 37.3 against 46.4 us, PyTorch's time); at 57 columns
// (15 packs shifted, a full group of 8) the two were level, at 41 and 50
// shifted was 1.03-1.06x faster (docs/PERFORMANCE.md GPU entry 108, calls
// 3 and 4).
const StridedBatchMinN = 62

// StridedBatchMinRows is the fewest rows the rule gives the batched
// kernel: the least of the row counts measured at which it won.
const StridedBatchMinRows = 24576

var stridedBatchSetting = os.Getenv("SOFTMAX_STRIDED_BATCH")
