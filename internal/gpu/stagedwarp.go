package gpu

import (
	"os"
	"strconv"
)

// The staged kernels' warp form (CUDA, cukernels/softmax.cuh
// fwd_rows_stagedw and bwd_rows_stagedw): a block of StagedThreads copies
// its rows through shared memory in 16-byte packs as the staged kernels
// do, and each warp then takes RW of them, a row at a time, E columns a
// lane (column i x 32 + lane). For the half types' rows too long for a
// thread whose starts fall between packs: every load and store to memory
// is a whole pack. Unmasked, non-causal rows; the buffers must start on 16
// bytes.

// stagedWarpForm is one warp-form kernel: e columns a lane (rows of up to
// 32 x e columns), rw rows a warp.
type stagedWarpForm struct{ e, rw int }

// stagedWarpForms are the kernels built, the form the H100 ran fastest
// for each E (docs/PERFORMANCE.md GPU entry 117, two rounds): forward at 4
// rows a warp (1.02-1.25x the plan at 77-250 columns; at 2 rows, 0.96-1.16x),
// none past 256 columns (0.90-0.92x at 300, where the strided kernels
// lead); backward at 4 rows a warp to 128 columns (1.09-1.22x; at 2 rows
// 1.05-1.09x), at 2 above (1.08-1.18x at 150-300; at 4 rows 0.90-1.07x).
// A block's rows (StagedThreads/32 x rw) times 2 bytes must be a multiple
// of 16 whatever the row's length, so that every block's rows start on a
// pack: rw >= 2.
var stagedWarpForms = [2][]stagedWarpForm{
	{{4, 4}, {8, 4}},          // forward
	{{4, 4}, {8, 2}, {16, 2}}, // backward
}

// StagedWarpKernels says whether t has warp-form kernels: the half types
// (float32's ran level or slower than its plan on every row measured).
func StagedWarpKernels(t Dtype) bool { return t == Float16 || t == BFloat16 }

// StagedWarpShape is the warp form's kernel for rows of n columns: the
// fewest columns a lane e that covers the row, and its rows a warp rw.
// ok is false past the direction's longest row (forward 256 columns,
// backward 512).
func StagedWarpShape(bwd bool, n int64) (e, rw int, ok bool) {
	for _, f := range stagedWarpForms[b2i(bwd)] {
		if n >= 1 && n <= int64(32*f.e) {
			return f.e, f.rw, true
		}
	}
	return 0, 0, false
}

// StagedWarpKernelNames lists t's warp-form kernels of one direction
// (none for types without them).
func StagedWarpKernelNames(t Dtype, bwd bool) []string {
	if !StagedWarpKernels(t) {
		return nil
	}
	var names []string
	for _, f := range stagedWarpForms[b2i(bwd)] {
		names = append(names, StagedWarpKernel(t, bwd, f.e, f.rw))
	}
	return names
}

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
	return int(StagedWarpRows(rw) * n * int64(t.Size()) * int64(1+b2i(bwd)))
}

// The rows the rule gives the warp form (StagedWarpOn): the fewest it
// was measured to gain from.
const (
	StagedWarpMinRows      = 1 << 15 // the forward's part-pack rows (32768x300)
	StagedWarpBwdMinRows   = 1 << 14 // the backward's part-pack rows (16384x197)
	StagedWarpWholeMinRows = 1 << 18 // the backward's whole-pack rows (262144x128, x256)
	StagedWarpWholeMaxN    = 256     // ... of at most this many columns
)

// StagedWarpOn says whether tier 1 takes the warp form for calls of rows
// x n of t (the caller checks StagedWarpShape and the buffers'
// alignment): unmasked, non-causal rows of the half types past the staged
// kernels' 64 columns, where the H100 ran it faster than the plan
// (docs/PERFORMANCE.md GPU entries 117-119):
//   - rows of a part pack (n not a multiple of 8), forward from
//     StagedWarpMinRows rows: 1.02-1.04x at 77 columns, 1.05-1.10x at 100,
//     150 and 250, 1.20-1.25x at 197 (131072x197 56.2 -> 45.1 us); at
//     16384x197 0.92x;
//   - rows of a part pack, backward from StagedWarpBwdMinRows rows:
//     1.08-1.22x at 77-300 columns (131072x197 64.6 -> 55.5 us; 16384x197
//     1.08-1.11x);
//   - rows of whole packs, backward only, of at most StagedWarpWholeMaxN
//     columns from StagedWarpWholeMinRows rows: 1.07-1.13x at 262144x128
//     and 262144x256, level at 262144x72 (0.97-1.02x, entry 119) and at
//     65536x128 and 32768x512. Whole packs forward stay on their kernels
//     (0.87-1.07x).
//
// Rows of at most 64 columns keep the staged kernels (0.48-0.89x against
// them). SOFTMAX_STAGEDW=1 takes the warp form for every unmasked,
// non-causal call of the half types it fits, =0 for none (tuning knobs
// for benchmarks, read once at start).
func StagedWarpOn(t Dtype, bwd bool, keep Keep, rows, n int64) bool {
	if stagedWarpSetting == "0" || keep != KeepAll || !StagedWarpKernels(t) {
		return false
	}
	if stagedWarpSetting == "1" {
		return true
	}
	if n <= int64(stagedNs[len(stagedNs)-1]) {
		return false
	}
	switch part := n%int64(16/t.Size()) != 0; {
	case !bwd:
		return part && rows >= StagedWarpMinRows
	case part:
		return rows >= StagedWarpBwdMinRows
	default:
		return n <= StagedWarpWholeMaxN && rows >= StagedWarpWholeMinRows
	}
}

var stagedWarpSetting = os.Getenv("SOFTMAX_STAGEDW")

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
