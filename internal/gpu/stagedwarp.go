package gpu

import (
	"os"
	"slices"
	"strconv"
)

// The staged kernels' warp form (CUDA, cukernels/softmax.cuh
// fwd_rows_stagedw and bwd_rows_stagedw): a block of StagedThreads copies
// its rows through shared memory in 16-byte packs as the staged kernels
// do, and each warp then takes RW of them, a row at a time, E columns a
// lane (column i x 32 + lane). For rows too long for a thread whose starts
// fall between packs: every load and store to memory is a whole pack.
// Unmasked, non-causal rows; the buffers must start on 16 bytes.

// stagedWarpEs are the columns a lane of the warp form's kernels: rows of
// up to 32 x E columns.
var stagedWarpEs = [...]int{4, 8, 16}

// stagedWarpRs are the rows a warp of the warp form's kernels. A block's
// rows (StagedThreads/32 x RW) times the type's size must be a multiple of
// 16 bytes whatever the row's length, so that every block's rows start on
// a pack: RW >= 2 for the half types.
var stagedWarpRs = [...]int{2, 4}

// StagedWarpEs lists the warp form's columns a lane.
func StagedWarpEs() []int { return stagedWarpEs[:] }

// StagedWarpRs lists the warp form's rows a warp.
func StagedWarpRs() []int { return stagedWarpRs[:] }

// StagedWarpShape is the warp form's E for rows of n columns: the least of
// StagedWarpEs with n <= 32 x E. ok is false past the largest.
func StagedWarpShape(n int64) (e int, ok bool) { return leastFit(stagedWarpEs[:], 32, n) }

// StagedWarpKernel names t's warp-form kernel of e columns a lane and rw
// rows a warp.
func StagedWarpKernel(t Dtype, bwd bool, e, rw int) string {
	return tierKernel("stagedw", t, bwd, e, "r"+strconv.Itoa(rw))
}

// StagedWarpRows is the rows a block of the warp form at rw rows a warp.
func StagedWarpRows(rw int) int64 { return int64(StagedThreads / 32 * rw) }

// StagedWarpSmem is the dynamic shared memory of a warp-form block over
// rows of n columns of t at rw rows a warp: its rows, of y and dy
// backward.
func StagedWarpSmem(t Dtype, bwd bool, n int64, rw int) int {
	arrays := int64(1)
	if bwd {
		arrays = 2
	}
	return int(StagedWarpRows(rw) * n * int64(t.Size()) * arrays)
}

// StagedWarpOn gives the rows a warp of the warp form the plan takes for
// calls of t, 0 for none (the caller checks StagedWarpShape
// and the buffers' alignment). No rule yet: only SOFTMAX_STAGEDW=2 or 4
// takes them, at that many rows a warp, for every unmasked, non-causal
// call of float32 or the half types they fit (a tuning knob for
// benchmarks, read once at start).
func StagedWarpOn(t Dtype, keep Keep) int {
	if keep != KeepAll || !StagedKernels(t) {
		return 0
	}
	return stagedWarpSetting
}

// stagedWarpSetting is SOFTMAX_STAGEDW's rows a warp, parsed once (the plan
// asks on every launch); 0 where it names none of stagedWarpRs.
var stagedWarpSetting = stagedWarpKnob(os.Getenv("SOFTMAX_STAGEDW"))

func stagedWarpKnob(s string) int {
	if rw, err := strconv.Atoi(s); err == nil && slices.Contains(stagedWarpRs[:], rw) {
		return rw
	}
	return 0
}
