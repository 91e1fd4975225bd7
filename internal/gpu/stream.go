package gpu

import (
	"os"
	"strconv"
)

// Tier 1's streamed log-softmax backward (CUDA, cukernels/stream.cuh): a
// block per row loads the row's dy into its threads' registers and sums
// it, then loads y and writes dx. y is loaded after the sum, where tier
// 1's registers form loads y and dy together and holds both through it.

// StreamPacks is the most packs a thread of the streamed kernel takes
// (the kernel's StreamUnroll: it holds them in registers), so that it sums
// at most 32 terms in the compute type (float32: 4 packs of 4; the half
// types: 4 of 8), as tier 1 does.
const StreamPacks = 4

// StreamKernels says whether the CUDA build has the streamed kernel for
// t: float32 and the half types.
func StreamKernels(t Dtype) bool { return t == Float32 || t == Float16 || t == BFloat16 }

// StreamKernel names the streamed kernel of t.
func StreamKernel(t Dtype) string { return "softmax_bwd_lstream_" + t.Suffix() }

// StreamShape is the streamed kernel's block for rows of n columns of t:
// threads, the power of two from 64 to 1024 that gives each at most
// StreamPacks packs (or SOFTMAX_LSTREAM_PACKS's 1 or 2). ok is false where
// the row is not whole packs or needs more than 1024 threads (tier 1 then
// keeps its registers form).
func StreamShape(t Dtype, n int64) (threads int, ok bool) {
	pk := int64(16 / t.Size())
	if !StreamKernels(t) || n <= 0 || n%pk != 0 {
		return 0, false
	}
	packs := n / pk
	per := int64(StreamPacks)
	if k := streamPacksSetting; k == 1 || k == 2 {
		per = int64(k)
	}
	th := max(64, pow2((packs+per-1)/per))
	if th > 1024 {
		return 0, false
	}
	return int(th), true
}

// StreamOn says whether tier 1 takes the streamed kernel for rows of n
// columns of t: log-softmax backward without mask or causal limit (the
// caller also checks that the rows are aligned and StreamShape fits), from
// StreamMinN(t) columns. SOFTMAX_LSTREAM=0 turns it off, SOFTMAX_LSTREAM=1
// takes it wherever it fits (tuning knobs for benchmarks, read once at
// start).
func StreamOn(t Dtype, bwd, log bool, keep Keep, n int64) bool {
	if !bwd || !log || keep != KeepAll || !StreamKernels(t) || streamSetting == "0" {
		return false
	}
	return streamSetting == "1" || n >= StreamMinN(t)
}

// StreamMinN is the shortest row the streamed kernel takes by default:
// 2048 columns for the half types, 4096 for float32. On the H200, its
// first form (dy in shared memory) against tier 1's registers form
// (docs/PERFORMANCE.md GPU entry 34, call 2; entry 36's form, dy in
// registers, ran 3-6% faster than the first from 2048 half and 4096
// float32 columns, and is not measured below them): the half types ran
// 0.3-4.6% faster from 2048 columns; float32 1.3-2.7% at
// 2048x4096 and 2048x8192 and 0.7% at 8192x4096, but 2.2-2.4% slower at
// 16384x2048 and 16x16x2048x2048 (0.3% faster at 2048x2048). Rows of 128
// and 512 columns ran up to 174% slower (a build held to 32 registers;
// float16 32768x512 0.8% faster), and 1024 columns are bound by the
// launch.
func StreamMinN(t Dtype) int64 {
	if t == Float32 {
		return 4096
	}
	return 2048
}

var streamSetting = os.Getenv("SOFTMAX_LSTREAM")

// streamPacksSetting is SOFTMAX_LSTREAM_PACKS: 1 or 2 packs a thread in
// place of StreamPacks (twice or four times the threads a block), a tuning
// knob for benchmarks, read once at start.
var streamPacksSetting, _ = strconv.Atoi(os.Getenv("SOFTMAX_LSTREAM_PACKS"))
