package gpu

import (
	"fmt"
	"math/bits"
	"os"
	"strconv"
)

// Tier 1 (cukernels/softmax.cuh, fwd_rows and bwd_rows) holds a row in the
// registers of a group of W threads, K packs of 16 bytes per thread. These
// rules are shared by the CUDA and HIP backends; the kernels each K needs
// are instantiated in cukernels/softmax.cu.

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
// 1024-thread block.
func rowsK(t Dtype, bwd, masked bool) (prefer, most int) {
	half := t == Float16 || t == BFloat16
	switch {
	case bwd:
		prefer, most = 2, 2
	case half && !masked:
		prefer, most = 2, 4
	default:
		prefer, most = 4, 4
	}
	if k := rowsPreferOverride; k > 0 && k&(k-1) == 0 { // kernels exist for powers of two only
		prefer = min(k, most)
	}
	return prefer, most
}

// PipeOn says whether tier 1 takes its pipelined kernels when it can: for
// the half types, and for masked rows (their mask bytes are copied ahead
// too). Unmasked float32 rows ran faster without (docs/PERFORMANCE.md, GPU
// entry 3): four 16-byte loads per thread already keep enough bytes in
// flight, and the copy through shared memory costs instructions.
// SOFTMAX_PIPE=0 turns them off, SOFTMAX_PIPE=1 on everywhere (tuning
// knobs for benchmarks, read once at start).
func PipeOn(t Dtype, masked bool) bool {
	switch pipeSetting {
	case "0":
		return false
	case "1":
		return true
	}
	return masked || t == Float16 || t == BFloat16
}

var pipeSetting = os.Getenv("SOFTMAX_PIPE")

// rowsPreferOverride is SOFTMAX_ROWS_K: when set to 1, 2 or 4, the packs
// per thread tier 1 prefers for every dtype (capped at the most it takes;
// other values are ignored).
// A tuning knob for benchmarks, read once at start.
var rowsPreferOverride, _ = strconv.Atoi(os.Getenv("SOFTMAX_ROWS_K"))

// RowsKs lists the K values with a kernel in one direction
// (cukernels/softmax.cu instantiates the same).
func RowsKs(bwd bool) []int {
	if bwd {
		return []int{1, 2}
	}
	return []int{1, 2, 4}
}

// RowsKernel is the name of tier 1's kernel for K packs per thread; masked
// says the problem has a mask or a causal limit.
func RowsKernel(t Dtype, bwd bool, k int, masked bool) string {
	return tierKernel("rows", t, bwd, k, masked)
}

// PipeKernel is RowsKernel's pipelined form: each thread copies its packs
// of its next row into shared memory while it computes the current one.
// It needs every pack aligned (the 16-byte vector path).
func PipeKernel(t Dtype, bwd bool, k int, masked bool) string {
	return tierKernel("pipe", t, bwd, k, masked)
}

// PipeSmem is the dynamic shared memory of a pipelined launch: two stages
// of K 16-byte packs per thread, for x (forward) or y and dy (backward),
// and for masked kernels two stages of K packs' worth of mask bytes.
func PipeSmem(t Dtype, bwd, masked bool, k, threads int) int {
	b := 2 * k * threads * 16
	if bwd {
		b *= 2
	}
	if masked {
		b += 2 * k * threads * (16 / t.Size())
	}
	return b
}

func tierKernel(tier string, t Dtype, bwd bool, k int, masked bool) string {
	dir, m := "fwd", ""
	if bwd {
		dir = "bwd"
	}
	if masked {
		m = "m"
	}
	return fmt.Sprintf("softmax_%s_%s%d%s_%s", dir, tier, k, m, t.Suffix())
}

// RowsShape is tier 1's layout for rows of n columns of t on a device
// whose warp (wavefront) has warp lanes: k packs per thread and w threads
// per row (a power of two up to a warp, else a whole number of warps up to
// RowsMaxThreads). ok is false when the row does not fit.
func RowsShape(t Dtype, bwd, masked bool, n int64, warp int) (k, w int, ok bool) {
	if n <= 0 || !t.Valid() {
		return 0, 0, false
	}
	packs := (n + int64(16/t.Size()) - 1) / int64(16/t.Size())
	prefer, most := rowsK(t, bwd, masked)
	k = int(min(int64(prefer), pow2(packs)))
	for (packs+int64(k)-1)/int64(k) > RowsMaxThreads {
		if k >= most {
			return 0, 0, false
		}
		k *= 2
	}
	w = int((packs + int64(k) - 1) / int64(k))
	if w <= warp {
		w = int(pow2(int64(w)))
	} else {
		w = (w + warp - 1) / warp * warp
	}
	return k, w, true
}

// RowsThreads is the block size for groups of w threads, and how many rows
// one block covers.
func RowsThreads(w int, warp int) (threads, rows int) {
	if w <= warp {
		return RowsBlock, RowsBlock / w
	}
	return w, 1
}

func pow2(n int64) int64 {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len64(uint64(n-1))
}
