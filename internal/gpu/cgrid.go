package gpu

import (
	"os"
	"strconv"
)

// Tier 8 (CUDA, cukernels/grid.cuh: fwd_cgrid and bwd_cgrid) computes a
// row per thread block cluster: each block of the cluster copies its
// share of the row (chunk columns; y and dy backward) into its shared
// memory, and the blocks exchange their Parts through the cluster's
// shared memory. Several blocks share an SM, each at its own phase, which
// keeps memory busy where tier 1 cannot hold the row.

// CGridMaxBlocks is the largest cluster tier 8 launches: 16, the H100 and
// H200's non-portable limit (the kernels keep that many Part slots; the
// driver says whether a cluster that large fits).
const CGridMaxBlocks = 16

// CGrid is tier 8's layout for a row: Blocks per cluster, Chunk columns
// per block (a whole number of 16-byte packs), Smem bytes of dynamic
// shared memory per block and Threads per block.
type CGrid struct {
	Blocks  int
	Chunk   int64
	Smem    int
	Threads int
}

// CGridShape is tier 8's layout for rows of n columns of t: the fewest
// blocks (a power of two from 2 to most) whose shares take at most
// target bytes of shared memory per array (x forward; y and dy
// backward, twice the bytes), else the most blocks whose shares fit
// limit bytes. A masked row's blocks also hold their share's mask bytes
// (one per column, after the arrays), counted against limit, not target.
// Threads are enough that each takes about cgridPacks packs of the share
// per pass, from 128 up to CGridMaxThreads forward and 512 backward. ok is
// false when no cluster of at most most blocks holds the row in limit
// bytes per block, or the row is too short to give every block a share.
func CGridShape(t Dtype, bwd, masked bool, n int64, most, target, limit int) (g CGrid, ok bool) {
	if n <= 0 || n > 1<<31-1 {
		return CGrid{}, false
	}
	for blocks := 2; blocks <= most; blocks *= 2 {
		l, fits, whole := cgridLayout(t, bwd, masked, n, blocks, limit)
		if !whole {
			break // too short: some block would hold nothing
		}
		if !fits {
			continue
		}
		g, ok = l, true
		if l.Chunk*int64(t.Size()) <= int64(target) {
			break
		}
	}
	return g, ok
}

// cgridLayout is tier 8's layout for rows of n columns of t in clusters
// of `blocks` blocks (CGridShape's shares and threads). whole says every
// block holds some of the row; fits, that and a block's shared memory
// within limit.
func cgridLayout(t Dtype, bwd, masked bool, n int64, blocks, limit int) (g CGrid, fits, whole bool) {
	pk := int64(16 / t.Size())
	arrays, widest := int64(1), int64(CGridMaxThreads)
	if bwd {
		arrays, widest = 2, 512
	}
	chunk := (n + int64(blocks) - 1) / int64(blocks)
	chunk = (chunk + pk - 1) / pk * pk
	if (n+chunk-1)/chunk != int64(blocks) {
		return CGrid{}, false, false
	}
	smem := chunk * int64(t.Size()) * arrays
	if masked {
		smem += chunk
	}
	threads := int(min(widest, max(128, NextPow2((chunk/pk+cgridPacks-1)/cgridPacks))))
	return CGrid{Blocks: blocks, Chunk: chunk, Smem: int(smem), Threads: threads}, smem <= int64(limit), true
}

// CGridPick is the layout tier 8 launches for rows of n columns of t:
// CGridShape's, its largest clusters halved while resident (how many
// clusters of a layout run at once; 0 where none does) says none of them
// fits the device. forced > 0 takes clusters of that many blocks
// (SOFTMAX_CGRID_BLOCKS; tests) where they fit, powers of two or not;
// where they do not, ok is false and dispatch takes another tier.
//
// Sizes between the powers of two, where the GPU's groups of
// multiprocessors (a cluster runs inside one) would hold more rows at
// once, ran slower on the H200 nearly everywhere: float32 256x128256
// forward took 74.1 us in clusters of 16, 82-98 in 9, 10, 11, 13 and 14
// (docs/PERFORMANCE.md, GPU entry 34).
func CGridPick(t Dtype, bwd, masked bool, n int64, most, target, limit, forced int, resident func(CGrid) int) (CGrid, bool) {
	if n <= 0 || n > 1<<31-1 {
		return CGrid{}, false
	}
	if forced > 0 {
		if g, fits, _ := cgridLayout(t, bwd, masked, n, forced, limit); fits && forced <= most && resident(g) > 0 {
			return g, true
		}
		return CGrid{}, false
	}
	for m := most; m >= 2; {
		g, ok := CGridShape(t, bwd, masked, n, m, target, limit)
		if !ok {
			return CGrid{}, false
		}
		if resident(g) > 0 {
			return g, true
		}
		m = g.Blocks / 2
	}
	return CGrid{}, false
}

// CGridBlocks is SOFTMAX_CGRID_BLOCKS, a cluster size tier 8 takes
// wherever it fits (a tuning knob for benchmarks, read once at start; 0:
// CGridPick's choice).
var CGridBlocks = func() int {
	if n, err := strconv.Atoi(os.Getenv("SOFTMAX_CGRID_BLOCKS")); err == nil && n >= 2 && n <= CGridMaxBlocks {
		return n
	}
	return 0
}()

// CGridPad is SOFTMAX_CGRID_PAD, bytes of shared memory tier 8's launches
// ask for beyond their shares, so that fewer blocks share an SM (a tuning
// knob for experiments, read once at start; 0 by default).
var CGridPad = func() int {
	if n, err := strconv.Atoi(os.Getenv("SOFTMAX_CGRID_PAD")); err == nil && n >= 0 && n <= 128<<10 {
		return n
	}
	return 0
}()

// CGridBalanced says whether tier 8 launches its clusters of blocks
// (backward when bwd) under the load-balancing cluster scheduling policy
// rather than the driver's default, which spreads a cluster's blocks over
// distinct SMs: forward always, backward in clusters of CGridMaxBlocks.
// On the H200 the default left SMs without a block all launch long: 8 of
// 132 in clusters of 4 and 8, 16 in clusters of 16 (%smid stamps);
// load balancing filled all 132 and 124. Forward it ran 0-4% faster
// (float32 masked 1024x32000 2.3%, bfloat16 256x128256 3-4%, float32
// softmax 256x128256 1.2%); backward in clusters of 16 float32 softmax
// 256x128256 3.7% and log-softmax 0.8% faster, but in clusters of 2 and
// 4 up to 1.2% slower (docs/PERFORMANCE.md GPU entry 49).
// SOFTMAX_CGRID_BALANCE=0 turns it off (a tuning knob, read once at
// start).
func CGridBalanced(bwd bool, blocks int) bool {
	return cgridBalance && (!bwd || blocks == CGridMaxBlocks)
}

var cgridBalance = os.Getenv("SOFTMAX_CGRID_BALANCE") != "0"

// CGridTrace is SOFTMAX_CGRID_TRACE, a file that each forward call on
// tier 8 overwrites with its blocks' timestamps, for a kernel build with
// -DSM_TRACE (cukernels/grid.cuh; an experiment's knob, read once at
// start; "" by default: no trace).
var CGridTrace = os.Getenv("SOFTMAX_CGRID_TRACE")

// cgridPacks is the packs of its share a thread of tier 8 takes per pass.
const cgridPacks = 8

// CGridMaxThreads is tier 8's largest forward block, its forward kernels'
// launch bound (SM_CGRID_THREADS in cukernels/softmax.cu).
const CGridMaxThreads = 256

// CGridSmemTarget is the shared memory per block and array CGridShape
// aims for: SOFTMAX_CGRID_SMEM (bytes; a tuning knob for benchmarks, read
// once at start), else 32 KB. Measured on the H200 against 8, 16 and 64
// KB (docs/PERFORMANCE.md GPU entry 14, call 5): fastest or within 2% on
// every row; float32 1024x32000 forward ran 143, 97, 88 and 92 us at 8,
// 16, 32 and 64 KB, backward 130, 112, 110 and 128.
var CGridSmemTarget = func() int {
	if n, err := strconv.Atoi(os.Getenv("SOFTMAX_CGRID_SMEM")); err == nil && n >= 1024 {
		return n
	}
	return 32 << 10
}()

// CGridOn says whether dispatch may take tier 8: SOFTMAX_CGRID=0 turns it
// off; CGridForced, SOFTMAX_CGRID=1, takes it wherever it holds a row
// tier 1 does not; CGridFirst, SOFTMAX_CGRID=2, wherever it holds a row,
// before tier 1 (tuning knobs for benchmarks, read once at start).
func CGridOn() bool     { return cgridSetting != "0" }
func CGridForced() bool { return cgridSetting == "1" }
func CGridFirst() bool  { return cgridSetting == "2" }

var cgridSetting = os.Getenv("SOFTMAX_CGRID")

// CGridLogKernel names tier 8's log-softmax backward in the streamed
// kernel's order (cukernels/stream.cuh, bwd_log_cgrid): each block holds
// its share of dy alone through the cluster's meet on the row's sum and
// loads y after it, so a block needs half bwd_cgrid's shared memory.
// Float32 and the half types, as the streamed kernel (StreamKernels).
func CGridLogKernel(t Dtype) string { return "softmax_bwd_cgrid_log_" + t.Suffix() }

// CGridLogOn says whether tier 8 may take CGridLogKernel for its
// log-softmax backward rows (the caller checks that they are whole aligned
// packs with neither mask nor causal limit, and that dx overlaps neither
// y nor dy). SOFTMAX_CGRID_LOG=0 keeps bwd_cgrid (a tuning knob for
// benchmarks, read once at start).
func CGridLogOn(t Dtype) bool { return StreamKernels(t) && cgridLogSetting != "0" }

var cgridLogSetting = os.Getenv("SOFTMAX_CGRID_LOG")

// CGridShiftKernel names tier 8's shifted kernel (cukernels/grid.cuh,
// GridSlice::shifted): rows of a part pack in buffers aligned to a pack,
// with neither mask nor causal limit, their shares tiled from the pack
// boundary at or before each row's start so that they move whole packs
// (the other kernels take such rows a column at a time). Its layout is
// the one for rows of a pack less one column more (CGridShiftN).
func CGridShiftKernel(t Dtype, bwd bool) string { return TierKernelName(t, bwd, "cgrid_shift") }

// CGridShiftN is the row length tier 8's shifted kernels are laid out
// for: n columns and the up to a pack less one before the row's start.
func CGridShiftN(t Dtype, n int64) int64 { return n + int64(16/t.Size()) - 1 }

// CGridShiftOn says whether tier 8 takes its shifted kernels for the rows
// they hold, and dispatch sends it such rows ahead of the cluster tier's
// shifted kernels wherever tier 8 would take them were they whole packs
// (cgridPays): on the H200 1.2-1.6x faster than the cluster tier at
// 1024x50257 (float32 softmax 176.3 -> 115.7 us, the half types' backward
// 1.30-1.35x) and 1.05-1.36x at 512x32001, and 2.2-3.5x faster than tier 8's
// column-at-a-time path at 256x128257 and 64x262147 (docs/PERFORMANCE.md
// GPU entry 92). SOFTMAX_CGRID_SHIFT=0 keeps the column-at-a-time path
// and the cluster tier (a tuning knob for benchmarks, read once at start).
func CGridShiftOn() bool { return cgridShiftSetting != "0" }

var cgridShiftSetting = os.Getenv("SOFTMAX_CGRID_SHIFT")
