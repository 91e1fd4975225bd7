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
	if !StreamKernels(t) || n <= 0 {
		return 0, false
	}
	pk := int64(16 / t.Size())
	if n%pk != 0 {
		return 0, false
	}
	packs := n / pk
	per := int64(StreamPacks)
	if k := streamPacksSetting; k == 1 || k == 2 {
		per = int64(k)
	}
	th := max(64, NextPow2((packs+per-1)/per))
	if th > 1024 {
		return 0, false
	}
	return int(th), true
}

// StreamOn says whether tier 1 takes the streamed kernel for rows of n
// columns of t: log-softmax backward without mask or causal limit (the
// caller also checks that the rows are aligned and StreamShape fits), from
// StreamMinN columns. SOFTMAX_LSTREAM=0 turns it off, SOFTMAX_LSTREAM=1
// takes it wherever it fits (tuning knobs for benchmarks, read once at
// start).
func StreamOn(t Dtype, bwd, log bool, keep Keep, n int64) bool {
	if !bwd || !log || keep != KeepAll || !StreamKernels(t) || streamSetting == "0" {
		return false
	}
	return streamSetting == "1" || n >= StreamMinN
}

// StreamMinN is the shortest row the streamed kernel takes by default:
// 1024 columns, every type. On the H200 (docs/PERFORMANCE.md GPU entry
// 36, the 811e3c3 run's A/B: SOFTMAX_LSTREAM=1 against the rule then,
// 2048 half and 4096 float32 columns; two rounds), the kernel with dy
// in registers took 9-12% less time at 2048x1024 (float32 10.4 against
// 11.5 us, the half types 7.4-8.0 against 8.8-9.0), float32 8% less at
// 2048x2048 and 0.4% at 16384x2048, but the half types 24% more at
// 32768x512 (37.4-37.8 against 30.1-30.3; float32 level there). A later
// call on another card had the half types at 9.0-9.4 us at 2048x1024
// streamed (entry 36, call 5; launch-bound rows). Float32's
// 16x16x2048x2048 keeps the wide kernel (gpu.WideOn), 0.25% ahead.
const StreamMinN = 1024

var streamSetting = os.Getenv("SOFTMAX_LSTREAM")

// streamPacksSetting is SOFTMAX_LSTREAM_PACKS: 1 or 2 packs a thread in
// place of StreamPacks (twice or four times the threads a block), a tuning
// knob for benchmarks, read once at start.
var streamPacksSetting, _ = strconv.Atoi(os.Getenv("SOFTMAX_LSTREAM_PACKS"))
