package gpu

import (
	"os"
	"slices"
	"strconv"
)

// Tier 1's one-row form (CUDA, cukernels/softmax.cuh fwd_rows_once): the
// float32 forward at K = 4, and at K = 2 where OnceShape lays rows out so,
// for unmasked rows of whole aligned packs, on a grid with a group for every
// row, so each group takes one row and no loop. Bounded to 32 registers
// (launch bound 256 threads, 8 blocks per SM; at K = 4 4 bytes spilled, in
// the exact pass only), against fwd_rows' 64: 16 blocks of 128 threads
// per SM, the most, instead of 8. It loads its packs from a clamped row
// index, each predicated on its column alone, so that ptxas issues them
// into distinct registers back to back (an earlier 32-register form
// serialized them and was 4-6% slower: GPU entry 54). On the H200, K = 4:
// 8% faster than fwd_rows at 2048x2048, 1-4% at 2048x1024 and 65536x128,
// level at 32768x512 and 16384x2048 at 40 registers (docs/PERFORMANCE.md
// GPU entry 52); at 32 another 0.3-1% at 65536x128 and 16384x2048, level
// at 32768x512 and 2048x2048 (entry 55). Groups of 256 threads (4096
// columns) were not measured and keep fwd_rows.

// OnceMaxGroup is the largest group the one-row kernel takes by default:
// 128 threads (2048 float32 columns), the longest rows measured.
const OnceMaxGroup = 128

// OnceMaxThreads is the one-row kernel's launch bound.
const OnceMaxThreads = 256

// OnceKs lists the packs per thread with one-row kernels for t (none
// where t has none): float32 at K = 4, and at K = 2 for the rows
// OnceShape gives two packs a lane.
func OnceKs(t Dtype) []int {
	if t == Float32 {
		return []int{4, 2}
	}
	return nil
}

// OnceKernel names t's one-row kernel at k packs per thread for groups of
// any size.
func OnceKernel(t Dtype, k int) string { return tierKernel("once", t, false, k, "") }

// OnceGroups are the group sizes with one-row kernels of their own at k
// packs per thread, the group a compile-time constant (cukernels/softmax.cu
// once{K}w{W}). At K = 4, rows of 128 to 1024 float32 columns: on the H200
// 1.5-2.7% faster than the kernel of any group at 65536x128, 16384x256,
// 32768x512 and 8192x1024 (docs/PERFORMANCE.md GPU entry 55); a group of
// 128 was 1% slower at 16384x2048 and is left out. At K = 2, the group
// OnceShape gives it (8). Other groups take OnceKernel's.
func OnceGroups(k int) []int {
	switch k {
	case 4:
		return []int{8, 16, 32, 64}
	case 2:
		return []int{8}
	}
	return nil
}

// OnceShape is RowsShape for t's forward of unmasked rows of n columns
// whose packs are all aligned, where the one-row kernel takes them: rows
// of an odd number of float32 packs from 9 to 15 (36, 44, 52 and 60
// columns) at K = 2 in groups of 8, others as RowsShape. Such a row is not
// a whole number of 32-byte sectors, so at K = 4 (4 lanes, 64 bytes a
// load) every other row's loads span three sectors instead of two; at
// K = 2 (128 bytes) five instead of four. On the H100 against K = 4
// (docs/PERFORMANCE.md GPU entry 106): 1.13-1.19x at 262144 and 1048576
// rows of 44, 52 and 60 columns, 1.10-1.11x at 262144x36, 1.02-1.12x at
// 65536 rows; level (0.95-1.03x) at the even packs between, and at 17-32
// packs (0.98-1.01x), which keep K = 4. SOFTMAX_ROWS_K still sets K
// everywhere.
func OnceShape(t Dtype, n int64, warp int) (k, w int, ok bool) {
	packs := rowPacks(t, n)
	if onceSetting != "0" && t == Float32 && packs%2 == 1 && packs >= 9 && packs <= 15 {
		return rowsShape(false, packs, preferred(2, 4), 4, warp)
	}
	return RowsShape(t, false, KeepAll, n, warp)
}

// OnceGroupKernels names every one-row kernel of t, the kernels of any
// group and of OnceGroups', for loading.
func OnceGroupKernels(t Dtype) []string {
	var names []string
	for _, k := range OnceKs(t) {
		names = append(names, OnceKernel(t, k))
		for _, w := range OnceGroups(k) {
			names = append(names, onceGroupKernel(t, k, w))
		}
	}
	return names
}

func onceGroupKernel(t Dtype, k, w int) string {
	return tierKernel("once", t, false, k, "w"+strconv.Itoa(w))
}

// OnceKernelFor names the one-row kernel tier 1 launches for groups of w
// threads of t at k packs per thread: w's own where OnceGroups has it,
// else OnceKernel's. SOFTMAX_ONCE_GROUPS=0 keeps OnceKernel's for every
// group (a tuning knob for benchmarks, read once at start).
func OnceKernelFor(t Dtype, k, w int) string {
	if onceGroupsSetting != "0" && slices.Contains(OnceGroups(k), w) {
		return onceGroupKernel(t, k, w)
	}
	return OnceKernel(t, k)
}

var onceGroupsSetting = os.Getenv("SOFTMAX_ONCE_GROUPS")

// OnceOn says whether tier 1 takes the one-row kernel for a forward
// problem of t at k packs per thread in groups of w threads, whose packs
// are all aligned and whose grid has a group for every row.
// SOFTMAX_ONCE=0 turns it off (a tuning knob for benchmarks, read once at
// start).
// K = 2 takes it only in OnceShape's group (8) unless SOFTMAX_ROWS_K
// sets K: rows of 2 packs (8 float32 columns), which RowsShape gives K = 2
// in groups of 1, were not measured on it and keep fwd_rows.
func OnceOn(t Dtype, bwd bool, keep Keep, k, w int) bool {
	if onceSetting == "0" || bwd || keep != KeepAll || !slices.Contains(OnceKs(t), k) || w > OnceMaxGroup {
		return false
	}
	return k == 4 || rowsPreferOverride > 0 || slices.Contains(OnceGroups(k), w)
}

var onceSetting = os.Getenv("SOFTMAX_ONCE")
