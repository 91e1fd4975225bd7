package gpu

import (
	"fmt"
	"math"
	"os"
	"strconv"
)

// Tier 1 (cukernels/softmax.cuh, fwd_rows and bwd_rows, and for the half
// types' unmasked forward fwd_rows_packed) holds a row in the registers of
// a group of W threads, K packs of 16 bytes per thread. These
// rules are shared by the CUDA and HIP backends; the kernels each K needs
// are instantiated in cukernels/softmax.cu.

// Keep says which columns of a row a problem keeps: all, those up to a
// causal limit, or those a mask buffer keeps (with or without a causal
// limit). Tier 1's "m" kernels serve both of the last two; its pipelined
// kernels have a causal-only form ("c") without the mask state.
type Keep uint8

const (
	KeepAll    Keep = iota // no mask, no causal limit
	KeepCausal             // a causal limit, no mask buffer
	KeepMask               // a mask buffer, maybe a causal limit too
)

// KeepOf is the Keep of a problem with or without a mask buffer and a
// causal limit.
func KeepOf(mask, causal bool) Keep {
	switch {
	case mask:
		return KeepMask
	case causal:
		return KeepCausal
	}
	return KeepAll
}

// Masked says whether some columns may be dropped.
func (k Keep) Masked() bool { return k != KeepAll }

// RowsMaxThreads is the largest group: one block of 1024 threads.
const RowsMaxThreads = 1024

// RowsBlock is the block size when several rows share a block (W at most
// a warp).
const RowsBlock = 128

// rowsK is the packs per thread tier 1 prefers and the most it takes
// (rows that need more go to tier 3), chosen from H200 measurements
// (docs/PERFORMANCE.md, GPU entry 3): float32 forward 4 (64 bytes per
// thread in flight, no spills); the half types convert to float32 in
// registers, so 2, but 4 when masked (their mask bytes come through the
// pipeline); backward 2 (y and dy). Larger K spill at the 64 registers of a
// 1024-thread block; backward K = 4 has kernels for groups of at most 512
// threads (RowsMaxGroup), which hold no longer rows than K = 2 does, and
// backward preferred it for unmasked half rows of at least 64 packs (512
// columns) and float32 rows K = 2 would give more than 512 threads: 2-8%
// faster there on the H200, 1-10% slower on shorter rows
// (docs/PERFORMANCE.md, GPU entry 8; entry 90 moved the half bounds and
// added float32's short rows: below); unmasked half rows of at most 16
// packs (128 columns) prefer 1: 5% faster than 2 at 65536x128 (entry 12).
// Float32 rows with a mask buffer of at most 128 packs (512 columns)
// prefer 2: 4-7% faster (entry 11).
// Unmasked rows of 17 to 128 packs (a warp or less at K = 4) prefer 4
// (GPU entry 90): the half types forward 1.03-1.35x faster from 136 to
// 1024 columns but at 256 and 512 (level), and 0.92x at 1025 (129 packs,
// K = 4 in a 64-thread group); backward 1.10-1.21x at 136, 197 and 300,
// 0.97-0.99x at 256. Float32 backward rows of 33 to 128 packs 1.03-1.21x
// at 136, 197 and 300 columns, but 0.95x where K = 2 fills its group (256
// and 512 columns), which keep 2 (fullK2Group), and 0.93-0.96x at 577 and
// 1000. Half backward rows of 129 to 255 packs prefer 2: at 1025 and
// 1100 columns 1.09-1.24x faster than K = 4 (44.0-46.8 us against
// 48.3-57.5, entry 90's call 3), at 1536 level to 1.05x.
func rowsK(t Dtype, bwd bool, keep Keep, packs int64) (prefer, most int) {
	half := t == Float16 || t == BFloat16
	switch {
	case bwd:
		prefer, most = 2, 4
		switch {
		case keep != KeepAll:
		case half && packs <= 16:
			prefer = 1
		case half && packs > 128 && packs < 256:
		case half:
			prefer = 4
		case t == Float32 && packs > 32 && packs <= 128 && !fullK2Group(packs):
			prefer = 4
		case t == Float32 && packs > 2*512:
			prefer = 4
		}
	case half && keep == KeepAll:
		prefer, most = 2, 4
		if packs > 16 && packs <= 128 {
			prefer = 4
		}
	case t == Float32 && keep == KeepMask && packs <= 128:
		prefer, most = 2, 4
	default:
		prefer, most = 4, 4
	}
	return preferred(prefer, most), most
}

// fullK2Group says whether rows of 33 to 128 packs fill at least 7/8 of
// the group K = 2 gives them (a warp for up to 64 packs, two up to 128):
// 56-64 and 112-128 packs. Measured full (64, 128) and at most 78% full
// (34, 50, 75); the 7/8 between is a guess.
func fullK2Group(packs int64) bool {
	slots := int64(2 * 32)
	if packs > slots {
		slots *= 2
	}
	return packs*8 >= slots*7
}

// preferred is prefer, or SOFTMAX_ROWS_K's K capped at most where it is
// set to a power of two (kernels exist for powers of two only).
func preferred(prefer, most int) int {
	if k := rowsPreferOverride; k > 0 && k&(k-1) == 0 {
		return min(k, most)
	}
	return prefer
}

// PipeOn says whether tier 1 takes its pipelined kernels for k packs per
// thread and groups of w threads when it can: for the half types, for
// masked and causal rows, and for float32 backward at K = 4 or at K = 2 in
// groups of more than 256 threads. Other unmasked float32 rows ran faster
// without (docs/PERFORMANCE.md, GPU entry 3): four 16-byte loads per thread
// already keep enough bytes in flight, and the copy through shared memory
// costs instructions; backward at K = 4 (long rows, 512-thread groups) ran
// 5-8% faster with (2048x8192, entry 9), and at K = 2 in groups of 288 to
// 512 threads (2049 to 4096 columns) -0.3 to 4% faster with at
// PipeBlocksCap's blocks per SM (8192x2304 58.3 against 60.6 us, 8192x2560
// 65.0 against 64.8, 8192x3072 82.7 against 85.4, 8192x4096 99.7 against
// 103.2; entry 20); at 256 threads (2048 columns) 2-28% slower.
// Float32 forward rows with a mask buffer at K = 4 in groups of at most 256
// threads (516 to 4096 columns) also ran faster without where rows are
// many: 81.7 against 85 to 94 us at 16384x2048, 84.1 against 85 to 92 at
// 8192x4096 (entry 12); 2048 rows of 1024 to 4096 columns moved 1-2.5% the
// other way (10.6 -> 10.8 us at 2048x1024), and rows of 516 to 1020
// columns were not measured. At 2048x8192 (512 threads) the pipeline won,
// 45.7 against 50.4.
// SOFTMAX_PIPE=0 turns them off, SOFTMAX_PIPE=1 on everywhere (tuning
// knobs for benchmarks, read once at start).
func PipeOn(t Dtype, bwd bool, k, w int, keep Keep) bool {
	switch pipeSetting {
	case "0":
		return false
	case "1":
		return true
	}
	if t == Float32 && !bwd && keep == KeepMask && k == 4 && w <= 256 {
		return false
	}
	if keep != KeepAll {
		return true
	}
	return t == Float16 || t == BFloat16 || t == Float32 && bwd && (k == 4 || k == 2 && w > 256)
}

// PipeShiftOn is PipeOn for tier 1's shifted kernels (rows of a part
// pack): PipeOn's rule, but float32 causal forward rows take the plain
// shifted kernel. Measured on the H200 against the plain shifted kernels
// (docs/PERFORMANCE.md GPU entry 88): the half types 1.05-1.24x faster
// forward, 1.03-1.21x causal, 1.4-2.7x backward; float32 causal rows
// 0.90-0.93x (64x12x197x197, 16x12x577x577). Float64 not measured.
func PipeShiftOn(t Dtype, bwd bool, k, w int, keep Keep) bool {
	if pipeSetting == "" && t == Float32 && !bwd && keep == KeepCausal {
		return false
	}
	return PipeOn(t, bwd, k, w, keep)
}

// PipeRowsFit says whether the pipelined kernels (tier 1's and the
// cluster tier's) may walk rows rows, step rows per step of the grid and
// perBlock rows per block: they index rows in 32 bits
// (cukernels/softmax.cuh, fwd_pipe), and every index they form is below
// rows + perBlock + step. Where it does not hold the plain kernels, which
// index in 64 bits, take the rows.
func PipeRowsFit(rows, step, perBlock int64) bool {
	const most = math.MaxInt32
	return rows >= 0 && step >= 0 && perBlock >= 0 && step <= most && perBlock <= most && rows <= most-step-perBlock
}

// PipeBlocksCap is the most blocks per SM the pipelined tier 1 kernels
// run at (0: as many as fit). Backward rows of the half types at K = 4 in
// 64-thread groups (2041 to 2048 columns since entry 90 gave 129-255
// packs K = 2; 1032 to 2048 before) run at most 4: 52.6 against
// 53.9 us at 16384x2048 and 1516 against 1571 at 16x16x2048x2048, both
// ops and both types, where 9 fit; 5 and 8 ran as 9 did, 3 and 2 7-30%
// slower (docs/PERFORMANCE.md GPU entry 13). In 128-thread groups (3080
// to 4096 columns; 2056-3072 take 96-thread groups, not measured) they run
// at most 2, the same 256 threads per SM: at 8192x4096 52.1-53.7 against
// 54.3-56.2 us where 4 fit, 3 in between, 6 as 4 (both ops and types,
// entry 19). Only unmasked rows are capped (masked rows take K = 4
// backward only under SOFTMAX_ROWS_K: rowsK prefers 2 for them).
// Unmasked float32 backward rows at K = 2 in groups of w > 256 threads run
// 768/w blocks per SM, at least 1: 2 blocks (576-768 threads per SM) for
// w of 288-384, 1 (416-512 threads) for 416-512. At 8192x4096 (512
// threads) 99.4 against 107.9 us at 2 blocks and 103.2 for the plain
// kernel; at 8192x3072 (384) 2 blocks 81.4, 1 block 82.8; at 8192x2560
// (320) 2 blocks 64.6, 1 block 74.0; 8192x2304 (288) was measured at 2
// only, and groups of 416-480 threads (3329-3840 columns) not at all, so
// where 2 blocks turn slower than 1 between 384 and 512 threads is not
// known (entry 20). Masked rows were not measured and are not capped.
// Masked half rows forward at K = 4 in groups of at most a warp (rows
// sharing 128-thread blocks) run 4 blocks per SM: the kernel's 93
// registers (since fwd_row finishes the exact rows last; 106 before)
// admit 5, which ran 32768x512 4-5% slower (27.6 against 26.7 us at 4;
// entry 52). Groups of 64 and 128 threads were measured too, mixed
// (16384x2048 at 4 and 9 blocks 2-36% slower, 8192x4096 at 4 2-4% faster,
// 2048x4096 2-4% slower): not capped.
// SOFTMAX_PIPE_BLOCKS sets it for every pipelined tier 1 launch (a tuning
// knob, read once at start; not the cluster tier's).
func PipeBlocksCap(t Dtype, bwd bool, k, w int, keep Keep) int {
	if pipeBlocksSetting > 0 {
		return pipeBlocksSetting
	}
	if bwd && t == Float32 && k == 2 && w > 256 && keep == KeepAll {
		return max(1, 768/w)
	}
	if !bwd && (t == Float16 || t == BFloat16) && k == 4 && keep == KeepMask && w <= 32 {
		return 4
	}
	if bwd && (t == Float16 || t == BFloat16) && k == 4 && keep == KeepAll {
		switch w {
		case 64:
			return 4
		case 128:
			return 2
		}
	}
	return 0
}

var pipeBlocksSetting, _ = strconv.Atoi(os.Getenv("SOFTMAX_PIPE_BLOCKS"))

var pipeSetting = os.Getenv("SOFTMAX_PIPE")

// rowsPreferOverride is SOFTMAX_ROWS_K: when set to 1, 2 or 4, the packs
// per thread tier 1 prefers for every dtype (capped at the most it takes;
// other values are ignored).
// A tuning knob for benchmarks, read once at start.
var rowsPreferOverride, _ = strconv.Atoi(os.Getenv("SOFTMAX_ROWS_K"))

// RowsKs lists the K values with a kernel, the same forward and backward
// (cukernels/softmax.cu instantiates the same).
func RowsKs() []int { return []int{1, 2, 4} }

// RowsMaxGroup is the largest group tier 1's kernels for K packs per
// thread run: backward K = 4 holds 64 values per thread, which needs the
// 128 registers of a 512-thread block (cukernels/softmax.cu,
// SM_WIDE_THREADS).
func RowsMaxGroup(bwd bool, k int) int {
	if bwd && k >= 4 {
		return 512
	}
	return RowsMaxThreads
}

// RowsKernel is the name of tier 1's kernel for K packs per thread: its
// "m" form for rows with a mask or a causal limit.
func RowsKernel(t Dtype, bwd bool, k int, keep Keep) string {
	m := ""
	if keep.Masked() {
		m = "m"
	}
	return tierKernel("rows", t, bwd, k, m)
}

// ShiftOn says whether tier 1 takes its shifted kernels (RowsShiftKernel)
// for rows of n columns of t that are not a whole number of packs, where
// they fit: they read a row's packs whole but for the two its ends cut,
// which take the column-at-a-time path, and a warp whose rows' ends fall
// inside it runs both. So they pay where rows are long enough for the
// whole packs to outweigh that. On the H200 (docs/PERFORMANCE.md GPU
// entry 87, against the column-at-a-time path in the same kernels'
// layout): the forward 1.1-2.8x faster from 64 columns (float16 and
// bfloat16) and at every float32 length measured (10 to 1025: 1.07-1.57x),
// but 0.88-0.90x at half rows of 33; masked and causal rows 1.2-2.8x from
// 33 half columns and 197 float32 ones, 0.73-0.93x below; the backward
// 1.03-1.16x from 197 columns, 0.48-0.98x at 10 to 77. Float64 was not
// measured and follows float32. Unmasked backward rows of ShiftBwdMinN to
// ShiftBwdMaxN columns of float32 and the half types take them too, from
// the H100 (entry 108: against the column-at-a-time kernel, float32
// 1.04-1.24x at 41-63 columns, 16384-131072 rows, 0.94-0.95x at 33; float16
// 1.13-1.35x at 41 and 50 below the staged kernels' 65536 rows in one
// call, level at 16384x50, a 9 us call, in the next); float32's rows of
// 62-63 columns take the batched strided kernel before (StridedBatchOn),
// rows of 65-127 columns the strided kernels (StridedOn).
// SOFTMAX_SHIFT=0 turns them off, 1 on wherever they fit (tuning knobs for
// benchmarks, read once at start).
func ShiftOn(t Dtype, bwd bool, keep Keep, n int64) bool {
	switch {
	case shiftSetting == "0":
		return false
	case shiftSetting == "1":
		return true
	case bwd:
		return n >= 128 || shiftBwdShort(t, keep, n)
	case t == Float16 || t == BFloat16:
		if keep == KeepAll {
			return n >= 64
		}
		return n >= 32
	default:
		return keep == KeepAll || n >= 128
	}
}

var shiftSetting = os.Getenv("SOFTMAX_SHIFT")

// ShiftBwdMinN and ShiftBwdMaxN bound the short backward rows ShiftOn
// gives the shifted kernels: from 41 columns (41 and 45 the shortest
// measured faster; 33 slower, 34-40 not measured) to 64.
const (
	ShiftBwdMinN = 41
	ShiftBwdMaxN = 64
)

// shiftBwdShort says whether unmasked backward rows of n columns of t fall
// in ShiftOn's short band: float32 and the half types (float64 was not
// measured), ShiftBwdMinN to ShiftBwdMaxN columns.
func shiftBwdShort(t Dtype, keep Keep, n int64) bool {
	return t != Float64 && keep == KeepAll && n >= ShiftBwdMinN && n <= ShiftBwdMaxN
}

// RowsShiftKernel is RowsKernel's shifted form ("rows{K}s", "rows{K}ms";
// CUDA): for rows that are not a whole number of packs in buffers aligned
// to a pack, each row indexed from the pack boundary at or before its
// start, so that its packs are aligned and read whole but at its two
// ends. Its group must hold the row and a pack less one column more.
func RowsShiftKernel(t Dtype, bwd bool, k int, keep Keep) string {
	m := "s"
	if keep.Masked() {
		m = "ms"
	}
	return tierKernel("rows", t, bwd, k, m)
}

// PipeKernel is RowsKernel's pipelined form: each thread copies its packs
// of its next row into shared memory while it computes the current one.
// It needs every pack aligned (the 16-byte vector path). Causal rows
// without a mask buffer take its "c" form, which has no mask state.
func PipeKernel(t Dtype, bwd bool, k int, keep Keep) string {
	m := ""
	switch keep {
	case KeepCausal:
		m = "c"
	case KeepMask:
		m = "m"
	}
	return tierKernel("pipe", t, bwd, k, m)
}

// PipeShiftKernel is PipeKernel's shifted form ("pipe{K}s", "pipe{K}cs";
// CUDA), for the rows RowsShiftKernel takes: unmasked rows and causal rows
// without a mask buffer only (ok false for a mask buffer, whose rows need
// not line up with the data's packs).
func PipeShiftKernel(t Dtype, bwd bool, k int, keep Keep) (name string, ok bool) {
	switch keep {
	case KeepAll:
		return tierKernel("pipe", t, bwd, k, "s"), true
	case KeepCausal:
		return tierKernel("pipe", t, bwd, k, "cs"), true
	}
	return "", false
}

// PipeSmem is the dynamic shared memory of a pipelined launch: two stages
// of K 16-byte packs per thread, for x (forward) or y and dy (backward),
// and with a mask buffer two stages of K packs' worth of mask bytes.
func PipeSmem(t Dtype, bwd bool, keep Keep, k, threads int) int {
	b := 2 * k * threads * 16
	if bwd {
		b *= 2
	}
	if keep == KeepMask {
		b += 2 * k * threads * (16 / t.Size())
	}
	return b
}

func tierKernel(tier string, t Dtype, bwd bool, k int, form string) string {
	dir := "fwd"
	if bwd {
		dir = "bwd"
	}
	return fmt.Sprintf("softmax_%s_%s%d%s_%s", dir, tier, k, form, t.Suffix())
}

// RowsShape is tier 1's layout for rows of n columns of t on a device
// whose warp (wavefront) has warp lanes: k packs per thread and w threads
// per row (a power of two up to a warp, else a whole number of warps up to
// RowsMaxThreads). ok is false when the row does not fit.
func RowsShape(t Dtype, bwd bool, keep Keep, n int64, warp int) (k, w int, ok bool) {
	if n <= 0 || !t.Valid() {
		return 0, 0, false
	}
	packs := rowPacks(t, n)
	prefer, most := rowsK(t, bwd, keep, packs)
	return rowsShape(bwd, packs, prefer, most, warp)
}

// PackedKernels says whether the packed kernels (CUDA's "rows{K}p",
// fwd_rows_packed in cukernels/softmax.cuh) serve t at all: the half
// types' forward, whose rows the other kernels convert to float32 as they
// load them (twice the registers). SOFTMAX_PACKED=0 turns them off, 1 on
// wherever they can run (a tuning knob for benchmarks, read once at
// start).
func PackedKernels(t Dtype) bool {
	return packedSetting != "0" && (t == Float16 || t == BFloat16)
}

// PackedOn says whether tier 1 takes its packed kernels for rows x n of t
// without mask or causal limit whose packs are all aligned, forward:
// log-softmax at rows of at least 2048 columns or 2^24 elements in all,
// softmax at rows of at least 2048 columns and 2^25 elements, or of 9 to
// 16 packs and 2^26 elements (below). On the H200
// (docs/PERFORMANCE.md GPU entry 32, against the pipelined kernels at
// K = 2) log-softmax ran 3-9% faster from 2048x4096 up and at 32768x512
// (2048x2048: float16 2-4%, bfloat16 the same), but at 65536x128 from 2%
// faster to 4% slower across calls, and at 2048x1024 (launch-bound, noisy)
// up to 9% slower; softmax 0.6-11% faster at 16384x2048, 8192x4096,
// 16x16x2048x2048 and 1x16x4096x4096, the same at 32768x512, and 1-7%
// slower at 2048 rows of 2048-8192 columns and at 65536x128, where the
// pipelined kernel's next row in flight pays for its copy: softmax's
// packed output pass takes each exponential again, log-softmax's takes
// none.
// Rows of more than 2048 packs (16384 columns; K = 4 in groups of more
// than 512 threads, one block a SM with nothing in flight) keep the
// pipelined kernels: log-softmax at 1024x32000 1.25-1.30x faster there
// (GPU entry 90).
// Softmax takes them for rows of 9 to 16 packs (72-128 columns) from
// 2^26 elements too: on the H100 (GPU entry 107) 1.04-1.22x faster than
// the pipelined K = 2 at 1048576 rows of 72-128 columns, against
// 1.00-1.05x at 131072 rows and 0.95-1.03x at 65536, so the issue's
// 65536x128 keeps the pipelined kernels. No H200 has run this bound.
func PackedOn(t Dtype, bwd bool, keep Keep, log bool, rows, n int64) bool {
	if !PackedKernels(t) || bwd || keep != KeepAll {
		return false
	}
	if packedSetting == "1" {
		return true
	}
	packs := rowPacks(t, n)
	if packs > packedMostPacks {
		return false
	}
	if log {
		return n >= 2048 || rows*n >= 1<<24
	}
	return n >= 2048 && rows*n >= 1<<25 || packs >= 9 && packs <= 16 && rows*n >= 1<<26
}

var packedSetting = os.Getenv("SOFTMAX_PACKED")

// packedMostPacks is the longest row, in packs, PackedOn takes the packed
// kernels for.
const packedMostPacks = 2048

// PackedShape is RowsShape for the packed kernels: they prefer K = 4, 16
// registers of packs a thread as float32 takes at K = 4 (SOFTMAX_ROWS_K
// sets the preference as it does for RowsShape).
func PackedShape(t Dtype, n int64, warp int) (k, w int, ok bool) {
	if n <= 0 || !t.Valid() {
		return 0, 0, false
	}
	packs := rowPacks(t, n)
	return rowsShape(false, packs, preferred(4, 4), 4, warp)
}

// PackedKernel names the packed kernel for K packs per thread.
func PackedKernel(t Dtype, k int) string { return tierKernel("rows", t, false, k, "p") }

// rowPacks is the 16-byte packs a row of n columns of t spans.
func rowPacks(t Dtype, n int64) int64 {
	per := int64(16 / t.Size())
	return CeilDiv(n, per)
}

// rowsShape lays out rows of packs packs at K = prefer, doubling up to
// most while the group would pass its largest.
func rowsShape(bwd bool, packs int64, prefer, most, warp int) (k, w int, ok bool) {
	k = int(min(int64(prefer), NextPow2(packs)))
	for (packs+int64(k)-1)/int64(k) > int64(RowsMaxGroup(bwd, k)) {
		if k >= most {
			return 0, 0, false
		}
		k *= 2
	}
	w = int((packs + int64(k) - 1) / int64(k))
	if w <= warp {
		w = int(NextPow2(int64(w)))
	} else {
		w = (w + warp - 1) / warp * warp
	}
	return k, w, true
}

// RowsThreads is the block size for groups of w threads, and how many rows
// one block covers.
func RowsThreads(w int, warp int) (threads, rows int) {
	if w <= warp {
		b := max(rowsBlock(), warp, w)
		return b, b / w
	}
	return w, 1
}

// rowsBlock is RowsBlock, or SOFTMAX_ROWS_BLOCK where it is a power of two
// from 32 to 512, which every tier 1 kernel's launch bound admits
// (RowsMaxGroup), a tuning knob for benchmarks, read once at start.
func rowsBlock() int {
	if b := rowsBlockSetting; b >= 32 && b <= 512 && b&(b-1) == 0 {
		return b
	}
	return RowsBlock
}

var rowsBlockSetting, _ = strconv.Atoi(os.Getenv("SOFTMAX_ROWS_BLOCK"))

// The cluster tier is tier 1 over a thread block cluster (sm_90 and
// later): a row's group is every thread of a cluster of up to
// ClusterMaxBlocks blocks, lanes numbered by block rank, and the blocks
// exchange their partial reductions through distributed shared memory. It
// holds rows up to 8 times longer than one block does, read once.

// ClusterMaxBlocks is the largest cluster launched: 8, the portable limit.
const ClusterMaxBlocks = 8

// clusterK is the packs per thread of the cluster kernels (0: none for
// t): forward 4 and backward 2, the most tier 1 holds without spilling.
func clusterK(t Dtype, bwd bool) int {
	switch {
	case t != Float32 && t != Float16 && t != BFloat16:
		return 0
	case bwd:
		return 2
	}
	return 4
}

// ClusterShape is the cluster tier's layout for rows of n columns: k packs
// per thread, blocks per cluster and threads per block (whole warps). It
// takes the fewest blocks that keep each at most ClusterThreads threads
// (two blocks of 512 share an SM, and one waits at a cluster barrier while
// the other works), else the fewest that hold the row at all. ok is false
// when no cluster holds the row, or t has no cluster kernels.
func ClusterShape(t Dtype, bwd bool, n int64, warp int) (k, blocks, threads int, ok bool) {
	k = clusterK(t, bwd)
	if n <= 0 || k == 0 {
		return 0, 0, 0, false
	}
	packs := rowPacks(t, n)
	for _, most := range []int64{int64(clusterThreads), RowsMaxThreads} {
		for blocks = 2; blocks <= ClusterMaxBlocks; blocks *= 2 {
			per := CeilDiv(packs, int64(k*blocks))
			if th := (per + int64(warp) - 1) / int64(warp) * int64(warp); th <= most {
				return k, blocks, int(th), true
			}
		}
	}
	return 0, 0, 0, false
}

// clusterThreads is the block size ClusterShape prefers not to pass:
// SOFTMAX_CLUSTER_THREADS (a multiple of 32 up to 1024; a tuning knob for
// benchmarks, read once at start), else 512.
var clusterThreads = func() int {
	if n, err := strconv.Atoi(os.Getenv("SOFTMAX_CLUSTER_THREADS")); err == nil && n >= 32 && n <= RowsMaxThreads && n%32 == 0 {
		return n
	}
	return 512
}()

// ClusterOn says whether dispatch may take the cluster tier:
// SOFTMAX_CLUSTER=0 turns it off (a tuning knob for benchmarks, read once
// at start).
func ClusterOn() bool { return clusterSetting != "0" }

// ClusterForced says whether dispatch takes the cluster tier wherever it
// holds the row, tier 1's rows included: SOFTMAX_CLUSTER=1 (a tuning knob
// for benchmarks, read once at start).
func ClusterForced() bool { return clusterSetting == "1" }

var clusterSetting = os.Getenv("SOFTMAX_CLUSTER")

// GridOn says whether dispatch may take the grid tier (CUDA's tier 7):
// SOFTMAX_GRID=0 turns it off (a tuning knob for benchmarks, read once at
// start).
func GridOn() bool { return gridSetting != "0" }

var gridSetting = os.Getenv("SOFTMAX_GRID")

// ClusterKernel names the cluster tier's kernel: pipe for the form that
// copies each block's share of the next row ahead (unmasked rows only).
func ClusterKernel(t Dtype, bwd bool, masked, pipe bool) string {
	return clusterKernel(t, bwd, masked, pipe, "")
}

// ClusterShiftKernel is ClusterKernel's shifted form ("clus{K}s",
// "clus{K}ms", "cpipe{K}s"): tier 1's shifted kernels over a cluster, for
// rows that are not a whole number of packs in buffers aligned to a pack.
// Its cluster must hold the row and a pack less one column more.
func ClusterShiftKernel(t Dtype, bwd bool, masked, pipe bool) string {
	return clusterKernel(t, bwd, masked, pipe, "s")
}

func clusterKernel(t Dtype, bwd bool, masked, pipe bool, shift string) string {
	tier, m := "clus", ""
	if pipe {
		tier = "cpipe"
	}
	if masked {
		m = "m"
	}
	return tierKernel(tier, t, bwd, clusterK(t, bwd), m+shift)
}

// ClusterKernels lists every cluster kernel (cukernels/softmax.cu
// instantiates the same).
func ClusterKernels() []string {
	var names []string
	for _, t := range []Dtype{Float32, Float16, BFloat16} {
		for _, bwd := range []bool{false, true} {
			for _, f := range []func(Dtype, bool, bool, bool) string{ClusterKernel, ClusterShiftKernel} {
				names = append(names, f(t, bwd, false, false), f(t, bwd, true, false), f(t, bwd, false, true))
			}
		}
	}
	return names
}

// ClusterPipeOn says whether the cluster tier takes its pipelined kernels:
// for unmasked rows, unless SOFTMAX_PIPE=0.
func ClusterPipeOn(masked bool) bool { return !masked && pipeSetting != "0" }
