package gpu

import (
	"os"
	"strconv"
)

// Tier 1's staged kernels (CUDA, cukernels/softmax.cuh fwd_rows_staged and
// bwd_rows_staged): short rows, unmasked and non-causal, a thread a row.
// A block's rows lie back to back in memory, so the block copies them into
// shared memory in 16-byte packs, coalesced whatever the rows' starts,
// each thread takes its row from there with no shuffle, and the block
// copies the outputs back out in packs. The buffers must start on 16
// bytes.

// StagedThreads is the staged kernels' block, and so the rows a block
// takes (SM_STAGED_THREADS).
const StagedThreads = 128

// stagedNs are the most columns a row of the staged kernels: their
// values are a thread's registers.
var stagedNs = [...]int{8, 16, 32}

// StagedKernels says whether t has staged kernels: float32 and the half
// types.
func StagedKernels(t Dtype) bool { return t == Float32 || t == Float16 || t == BFloat16 }

// StagedNs lists the staged kernels' row lengths.
func StagedNs() []int { return stagedNs[:] }

// StagedShape is the staged kernel for rows of n columns: the least N of
// StagedNs with n <= N. ok is false past the largest.
func StagedShape(n int64) (N int, ok bool) {
	for _, N := range stagedNs {
		if n >= 1 && n <= int64(N) {
			return N, true
		}
	}
	return 0, false
}

// stagedRs are the rows a thread the staged forward kernels exist for: a
// block takes StagedThreads x R rows. The backward has R = 1 only (at 2
// it ran slower on every row measured: docs/PERFORMANCE.md GPU entry 103).
var stagedRs = [...]int{1, 2}

// StagedRs lists the staged kernels' rows a thread, forward or backward.
func StagedRs(bwd bool) []int {
	if bwd {
		return stagedRs[:1]
	}
	return stagedRs[:]
}

// StagedRows is the rows a thread of t's staged kernels that the plan
// takes: 2 for the half types' forward, whose rows hold half float32's
// bytes, so that a block has as many bytes in flight; 1 else.
// SOFTMAX_STAGED_ROWS=1 or =2 sets the forward's for every type (a tuning
// knob for benchmarks, read once at start).
func StagedRows(t Dtype, bwd bool) int {
	switch {
	case bwd:
		return 1
	case stagedRowsSetting == "1":
		return 1
	case stagedRowsSetting == "2" || t.Size() == 2:
		return 2
	}
	return 1
}

var stagedRowsSetting = os.Getenv("SOFTMAX_STAGED_ROWS")

// StagedKernel names t's staged kernel of rows up to N columns, r rows a
// thread.
func StagedKernel(t Dtype, bwd bool, N, r int) string {
	form := ""
	if r > 1 {
		form = "r" + strconv.Itoa(r)
	}
	return tierKernel("staged", t, bwd, N, form)
}

// StagedSmem is the dynamic shared memory of a staged block over rows of
// n columns of t, r rows a thread: its rows, of y and dy backward.
func StagedSmem(t Dtype, bwd bool, n int64, r int) int {
	arrays := int64(1)
	if bwd {
		arrays = 2
	}
	return int(StagedThreads * int64(r) * n * int64(t.Size()) * arrays)
}

// StagedOn says whether tier 1 takes the staged kernels for calls of rows
// x n of t (the caller checks StagedShape and the buffers' alignment):
// unmasked, non-causal rows (keep is KeepAll) of at most 32 columns. Not
// measured yet: no call takes them but under SOFTMAX_STAGED=1, which takes
// them for every call they fit (=0: none; tuning knobs for benchmarks,
// read once at start).
func StagedOn(t Dtype, keep Keep, rows, n int64) bool {
	if stagedSetting == "0" || keep != KeepAll || !StagedKernels(t) {
		return false
	}
	return stagedSetting == "1"
}

var stagedSetting = os.Getenv("SOFTMAX_STAGED")
