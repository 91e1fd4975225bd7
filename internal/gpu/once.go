package gpu

import (
	"os"
	"slices"
	"strconv"
)

// Tier 1's one-row form (CUDA, cukernels/softmax.cuh fwd_rows_once): the
// float32 forward at K = 4 for unmasked rows of whole aligned packs, on a
// grid with a group for every row, so each group takes one row and no
// loop. Bounded to 32 registers (launch bound 256 threads, 8 blocks per
// SM; 4 bytes spilled, in the exact pass only), against fwd_rows' 64: 16
// blocks of 128 threads per SM, the most, instead of 8. It loads its four
// packs from a clamped row index, each predicated on its column alone, so
// that ptxas issues them into distinct registers back to back (an earlier
// 32-register form serialized them and was 4-6% slower: GPU entry 54). On
// the H200: 8% faster than fwd_rows at 2048x2048, 1-4% at 2048x1024 and
// 65536x128, level at 32768x512 and 16384x2048 at 40 registers
// (docs/PERFORMANCE.md GPU entry 52); at 32 another 0.3-1% at 65536x128
// and 16384x2048, level at 32768x512 and 2048x2048 (entry 55). Groups
// of 256 threads (4096 columns) were not measured and keep fwd_rows.

// OnceMaxGroup is the largest group the one-row kernel takes by default:
// 128 threads (2048 float32 columns), the longest rows measured.
const OnceMaxGroup = 128

// OnceMaxThreads is the one-row kernel's launch bound.
const OnceMaxThreads = 256

// OnceK is the packs per thread of t's one-row kernel (0: none).
func OnceK(t Dtype) int {
	if t == Float32 {
		return 4
	}
	return 0
}

// OnceKernel names t's one-row kernel for groups of any size.
func OnceKernel(t Dtype) string { return tierKernel("once", t, false, OnceK(t), "") }

// OnceGroups are the group sizes with one-row kernels of their own, the
// group a compile-time constant (cukernels/softmax.cu once4w{W}): rows of
// 128 to 1024 float32 columns. On the H200 1.5-2.7% faster than the kernel
// of any group at 65536x128, 16384x256, 32768x512 and 8192x1024
// (docs/PERFORMANCE.md GPU entry 55); a group of 128 was 1% slower at
// 16384x2048 and is left out. Other groups take OnceKernel's.
var OnceGroups = []int{8, 16, 32, 64}

// OnceGroupKernels names every kernel of OnceGroups for t (none where t
// has no one-row kernel), for loading.
func OnceGroupKernels(t Dtype) []string {
	if OnceK(t) == 0 {
		return nil
	}
	names := make([]string, len(OnceGroups))
	for i, w := range OnceGroups {
		names[i] = onceGroupKernel(t, w)
	}
	return names
}

func onceGroupKernel(t Dtype, w int) string {
	return tierKernel("once", t, false, OnceK(t), "w"+strconv.Itoa(w))
}

// OnceKernelFor names the one-row kernel tier 1 launches for groups of w
// threads of t: w's own where OnceGroups has it, else OnceKernel's.
// SOFTMAX_ONCE_GROUPS=0 keeps OnceKernel's for every group (a tuning knob
// for benchmarks, read once at start).
func OnceKernelFor(t Dtype, w int) string {
	if onceGroupsSetting != "0" && slices.Contains(OnceGroups, w) {
		return onceGroupKernel(t, w)
	}
	return OnceKernel(t)
}

var onceGroupsSetting = os.Getenv("SOFTMAX_ONCE_GROUPS")

// OnceOn says whether tier 1 takes the one-row kernel for a forward
// problem of t at k packs per thread in groups of w threads, whose packs
// are all aligned and whose grid has a group for every row.
// SOFTMAX_ONCE=0 turns it off (a tuning knob for benchmarks, read once at
// start).
func OnceOn(t Dtype, bwd bool, keep Keep, k, w int) bool {
	return onceSetting != "0" && !bwd && keep == KeepAll && OnceK(t) != 0 && k == OnceK(t) && w <= OnceMaxGroup
}

var onceSetting = os.Getenv("SOFTMAX_ONCE")
