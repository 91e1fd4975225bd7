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
// values are a thread's registers (at N = 64, 122-168 of them).
var stagedNs = [...]int{8, 16, 32, 48, 56, 64}

// StagedKernels says whether t has staged kernels: float32 and the half
// types.
func StagedKernels(t Dtype) bool { return t == Float32 || t == Float16 || t == BFloat16 }

// StagedNs lists the staged kernels' row lengths.
func StagedNs() []int { return stagedNs[:] }

// StagedShape is the staged kernel for rows of n columns: the least N of
// StagedNs with n <= N. ok is false past the largest.
func StagedShape(n int64) (N int, ok bool) { return leastFit(stagedNs[:], 1, n) }

// stagedRs are the rows a thread the staged forward kernels exist for: a
// block takes StagedThreads x R rows. The backward has R = 1 only (at 2
// it ran slower on every row measured: docs/PERFORMANCE.md GPU entry 103),
// and so do rows past StagedR2MaxN columns, whose values at R = 2 would
// pass a thread's 255 registers.
var stagedRs = [...]int{1, 2}

// StagedR2MaxN is the largest N with a staged forward kernel at 2 rows a
// thread.
const StagedR2MaxN = 32

// StagedRs lists the rows a thread of the staged kernels of rows up to N
// columns, forward or backward.
func StagedRs(bwd bool, N int) []int {
	if bwd || N > StagedR2MaxN {
		return stagedRs[:1]
	}
	return stagedRs[:]
}

// StagedRows is the rows a thread of the staged kernels that the plan
// takes for calls of rows x n of t: 2 for the half types' forward of rows
// of under 16 columns from StagedLongRows rows, where a block of 128 rows
// holds too few bytes to keep the copy's rate (1.04-1.17x over R = 1 at
// 1048576 rows of 3-12 columns, docs/PERFORMANCE.md GPU entry 103); 1
// else (R = 1 was ahead at 262144 rows and fewer, and level at 20-32
// columns; the backward has R = 1 only, and so do rows past StagedR2MaxN
// columns). SOFTMAX_STAGED_ROWS=1 or =2 sets the forward's for every call
// of at most StagedR2MaxN columns (a tuning knob for benchmarks, read once
// at start).
func StagedRows(t Dtype, bwd bool, rows, n int64) int {
	switch {
	case bwd || n > StagedR2MaxN:
		return 1
	case stagedRowsSetting == "1":
		return 1
	case stagedRowsSetting == "2":
		return 2
	case t.Size() == 2 && n < 16 && rows >= StagedLongRows:
		return 2
	}
	return 1
}

// StagedLongRows is the fewest rows at which the rule takes the half
// types' 2 rows a thread and their whole-pack backward rows of 24 and 32
// columns: the row count measured there (entry 103; 262144 was the next
// below).
const StagedLongRows = 1 << 20

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
// unmasked, non-causal rows (keep is KeepAll); of 33-64 columns as
// stagedWideOn says, and of at most 32 columns where the H100 ran them
// faster than the other plans (docs/PERFORMANCE.md GPU entry 103, calls
// 1-3, two rounds each; 65536 to 4194304 rows of 3-32 columns):
//   - float32 forward, every row: 1.08-2.0x (1048576x10 59.5 -> 32.8 us),
//     level at 8 and 24 columns (whole packs in groups that fill);
//   - float32 backward of a part pack from 5 columns: 1.05-1.50x
//     (1048576x30 192.3 -> 128.4 us); whole packs level (0.98-1.01x), 3
//     columns 0.97x;
//   - the half types' forward of a part pack (n not a multiple of 8):
//     1.3-4.3x from 9 columns (1048576x30 263.6 -> 60.8 us); under 8
//     columns only from StagedLongRows rows, where StagedRows gives them 2
//     rows a thread (1.04-1.59x at 3-7 columns; at 1 row a thread 3 and 5
//     columns ran 0.95x); whole packs slower (0.73-0.96x at 8, 16, 24; 32
//     mixed);
//   - the half types' backward of a part pack: 1.06-1.57x; of 24 and 32
//     columns (whole packs) from StagedLongRows rows: 1.07-1.18x (at 131072
//     and 262144 rows of 32, 0.90-0.97x); 8 and 16 columns 0.89x and 1.02x.
//
// Those of at most 32 columns from StagedMinRows rows. SOFTMAX_STAGED=1
// takes them for every call they fit, =0 for none (tuning knobs for
// benchmarks, read once at start).
func StagedOn(t Dtype, bwd bool, keep Keep, rows, n int64) bool {
	if stagedSetting == "0" || keep != KeepAll || !StagedKernels(t) {
		return false
	}
	if stagedSetting == "1" {
		return true
	}
	part := n%int64(16/t.Size()) != 0
	if n > stagedNarrowMaxN {
		return stagedWideOn(t, bwd, part, rows, n)
	}
	if rows < StagedMinRows {
		return false
	}
	switch {
	case t == Float32 && !bwd:
		return true
	case t == Float32:
		return part && n > 4
	case !bwd:
		return part && (n > 8 || rows >= StagedLongRows)
	default:
		return part || n >= 24 && rows >= StagedLongRows
	}
}

// stagedWideOn is StagedOn's rule for rows of 33-64 columns (N = 48, 56
// and 64; part: n is not a whole number of packs), from the H100
// (docs/PERFORMANCE.md GPU entry 104, calls 2 and 3, and entry 105, calls
// 2-4: against the other plans, two rounds each but call 4's one):
//   - the half types' rows of a part pack, from StagedWideMinRows rows:
//     1.23-3.23x forward (262144x60 111.6 -> 34.5 us: the other plan takes
//     such rows a column at a time), 1.24-1.92x backward;
//   - float32's rows of a part pack from StagedWideF32Rows rows: backward
//     1.08-1.14x at 262144x50, 301056x49 and 1048576x33; forward
//     1.11-1.12x at 1048576x33, 1.01-1.03x at 301056x49, level at
//     262144x50 (0.99-1.01x) in four calls; fewer rows 0.82-1.04x
//     (131072x50 0.93x, 153600x50 0.94-0.95x, 65536x49 0.82-0.84x);
//   - not whole packs (0.79-1.03x: tier 1 reads those whole; float32's
//     forward at 60 columns ran 1.13-1.16x faster staged in entry 105,
//     and faster still since entry 106 on tier 1's one-row kernel at
//     K = 2: gpu.OnceShape);
//   - nor float32's backward rows that ShiftOn gives the shifted kernels
//     (41-64 columns): those ran 1.04-1.08x faster shifted than staged
//     from 262144 rows (entry 108: 262144x50 and x57, 301056x49,
//     1048576x50), where 33 columns ran 0.91x.
func stagedWideOn(t Dtype, bwd, part bool, rows, n int64) bool {
	switch {
	case !part:
		return false
	case t == Float32:
		return rows >= StagedWideF32Rows && !(bwd && shiftBwdShort(t, KeepAll, n))
	default:
		return rows >= StagedWideMinRows
	}
}

// stagedNarrowMaxN is the longest row of entry 103's rule (N = 8, 16, 32);
// stagedWideOn takes longer ones.
const stagedNarrowMaxN = 32

// StagedWideMinRows is the fewest rows of 33-64 columns of the half types
// that stagedWideOn gives the staged kernels (1.19-2.23x at 65536 rows of
// 33, 49 and 50; fewer were not measured), and StagedWideF32Rows
// float32's.
const (
	StagedWideMinRows = 1 << 16
	StagedWideF32Rows = 1 << 18
)

// StagedMinRows is the fewest rows the rule gives the staged kernels: at
// 65536 rows of 10 columns (calls of 6.5-9.5 us) they ran 0.84-1.36x the
// other plans, faster in one call and slower in the next (entry 103, calls
// 3 and 4); from 131072 rows 1.05-1.48x in both.
const StagedMinRows = 1 << 17

var stagedSetting = os.Getenv("SOFTMAX_STAGED")
