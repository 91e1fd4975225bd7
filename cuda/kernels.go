//go:build cu

package cuda

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/gosoftmax/softmax/internal/gpu"
	"github.com/gosoftmax/softmax/internal/layout"
)

// Tier names the kernel family that computes a problem; docs/GPU.md
// describes each and the dispatch rules, which live in planTier.
type Tier int

const (
	TierAuto    Tier = iota // let planTier choose
	TierRows                // 1: a row in the registers of a group of threads
	TierCached              // 2: block per row, row in shared memory
	TierBlock               // 3: block per row, online max/sum, two reads
	TierSplit               // 4: split rows across blocks
	TierInner               // 5: non-last axis, one thread per (outer, inner)
	TierCluster             // 6: tier 1 over a thread block cluster (sm_90)
	TierGrid                // 7: few rows over every SM at once, in shared memory
	TierCGrid               // 8: a row per thread block cluster, in shared memory (sm_90)
)

func (t Tier) String() string {
	return [...]string{"auto", "rows", "cached", "block", "split", "inner", "cluster", "grid", "cgrid"}[t]
}

const (
	warpSize       = 32 // SM_WARP in cukernels/port.cuh
	innerThreads   = 256
	vecBytes       = 16    // widest access, PackWidth in softmax.cuh
	splitMinN      = 16384 // rows at least this long may be split...
	splitRowsPer   = 2     // ...when there are fewer than this many rows per SM
	rescaleThreads = 256   // threads a block of softmax_bwd_rescale
	maxGridY       = 65535
)

func kernelNames() []string {
	var names []string
	for dt := gpu.Float32; dt <= gpu.BFloat16; dt++ {
		s := dt.Suffix()
		for _, dir := range []string{"fwd", "bwd"} {
			for _, k := range gpu.RowsKs() {
				for _, m := range []gpu.Keep{gpu.KeepAll, gpu.KeepCausal, gpu.KeepMask} {
					if m != gpu.KeepCausal {
						names = append(names, gpu.RowsKernel(dt, dir == "bwd", k, m), gpu.RowsShiftKernel(dt, dir == "bwd", k, m))
					}
					names = append(names, gpu.PipeKernel(dt, dir == "bwd", k, m))
					if name, ok := gpu.PipeShiftKernel(dt, dir == "bwd", k, m); ok {
						names = append(names, name)
					}
				}
			}
			for _, t := range []string{"cached", "block", "split_stats", "split_apply", "inner", "grid", "cgrid", "cgrid_shift"} {
				names = append(names, gpu.TierKernelName(dt, dir == "bwd", t))
			}
			if dir == "bwd" && gpu.WideK(dt) > 0 {
				names = append(names, gpu.WideKernel(dt))
			}
			if gpu.StridedKernels(dt) {
				for _, e := range gpu.StridedEs(dir == "bwd") {
					names = append(names, gpu.StridedKernel(dt, dir == "bwd", e), gpu.StridedOnceKernel(dt, dir == "bwd", e))
				}
				if gpu.StridedBatchKernels(dt, dir == "bwd", gpu.KeepAll) {
					for _, e := range gpu.StridedBatchEs() {
						names = append(names, gpu.StridedBatchKernel(e))
					}
				}
			}
			if gpu.StagedKernels(dt) {
				for _, N := range gpu.StagedNs() {
					for _, r := range gpu.StagedRs(dir == "bwd", N) {
						names = append(names, gpu.StagedKernel(dt, dir == "bwd", N, r))
					}
				}
			}
			names = append(names, gpu.StagedWarpKernelNames(dt, dir == "bwd")...)
			if dir == "fwd" {
				names = append(names, gpu.OnceGroupKernels(dt)...)
			}
			if dir == "bwd" && gpu.StreamKernels(dt) {
				names = append(names, gpu.StreamKernel(dt), gpu.CGridLogKernel(dt))
			}
			if dir == "bwd" && dt != gpu.Float64 {
				names = append(names, rescaleKernel(dt))
			}
			if dir == "bwd" && dt == gpu.Float64 {
				names = append(names, gpu.FarRowsKernel)
			}
			if dir == "fwd" {
				names = append(names, "softmax_fwd_split_pieces_"+s, "softmax_fwd_split_fused_"+s, "softmax_fwd_split_fused_head_"+s,
					"softmax_fwd_split_fused_masked_"+s)
				if gpu.PackedKernels(dt) {
					for _, k := range gpu.RowsKs() {
						names = append(names, gpu.PackedKernel(dt, k))
					}
				}
			}
		}
	}
	return append(names, gpu.ClusterKernels()...)
}

// stridedName says whether name is one of the strided kernels, in any
// form (gpu.StridedKernel, gpu.StridedOnceKernel, gpu.StridedBatchKernel).
func stridedName(name string) bool {
	return strings.Contains(name, "_strided") || strings.Contains(name, "_stronce")
}

// stagedName says whether name is one of the staged kernels, at either
// rows a thread (gpu.StagedKernel), or of their warp form
// (gpu.StagedWarpKernel).
func stagedName(name string) bool { return strings.Contains(name, "_staged") }

// spanKernelNames lists the kernels of cukernels.SpanFatbin: the float32
// and bfloat16 forward ones, under kernelNames' names, but the strided
// kernels, one-row forms included, and the staged kernels (softmax.cu
// builds none with SM_SPAN; the plan falls back).
func spanKernelNames() []string {
	var names []string
	for _, name := range kernelNames() {
		if stridedName(name) || stagedName(name) {
			continue
		}
		if strings.HasPrefix(name, "softmax_fwd_") && (strings.HasSuffix(name, "_f32") || strings.HasSuffix(name, "_bf16") || strings.HasSuffix(name, "_f64")) {
			names = append(names, name)
		}
	}
	return names
}

// spanScale is the scale under which every float32 or bfloat16 forward
// call takes the span kernels: under about 3e-37 the terms of entries more
// than float32's range from the row's maximum stay in float32's range,
// and the default kernels, which round such an x - m to -Inf, drop them
// from the sum. spanScale64 is float64's: its terms count again only
// under about 745 * 2^-1024.
const (
	spanScale   = 0x1p-100
	spanScale64 = 0x1p-1000
)

// spanCall says whether c takes the span kernels (cukernels/softmax.cuh,
// SM_SPAN), whose x - m cannot round to -Inf where the answer is finite: a
// float32, bfloat16 or float64 forward call at a scale under its
// spanScale, or a log-softmax one at a scale under 1 (its output
// scale*(x - m) - log(sum) is then finite where x - m is not). float16
// entries lie at most 131008 apart.
func spanCall(c *call) bool {
	if c.bwd || spanSetting == "0" {
		return false
	}
	switch c.dt {
	case gpu.Float32, gpu.BFloat16:
		return c.v.Scale < spanScale || c.v.Log && c.v.Scale < 1
	case gpu.Float64:
		return c.v.Scale < spanScale64 || c.v.Log && c.v.Scale < 1
	}
	return false
}

// SOFTMAX_SPAN=0 keeps every call on the default kernels (to measure what
// the span kernels cost).
var spanSetting = os.Getenv("SOFTMAX_SPAN")

// rescaleKernel multiplies a backward's dx by gpu.BackwardScale's factor.
func rescaleKernel(dt gpu.Dtype) string { return "softmax_bwd_rescale_" + dt.Suffix() }

// SOFTMAX_RESCALE=0 runs backward calls at tiny scales unrescaled (the
// kernels' float32 scale as it was: tests show what the rescale fixes).
var rescaleSetting = os.Getenv("SOFTMAX_RESCALE")

// scales is the scale c's kernels take, and the factor by which a
// backward's dx is multiplied after them (0: none; gpu.BackwardScale).
func scales(c *call) (kernel, factor float64) {
	if c.bwd && rescaleSetting != "0" {
		return gpu.BackwardScale(c.dt, c.v.Scale)
	}
	return gpu.KernelScale(c.dt, c.v.Scale), 0
}

// set is the kernels c runs: the span ones or the default ones, which
// have the same names, launch bounds and shared memory.
func (d *Device) set(c *call) map[string]*kernel {
	if spanCall(c) {
		return d.spanKernels
	}
	return d.kernels
}

// call is one forward or backward problem on device buffers.
type call struct {
	dt    Dtype
	v     *layout.View
	bwd   bool
	bufs  []cu.DevicePtr // x, y (forward) or y, dy, dx (backward)
	mask  cu.DevicePtr   // 0 without a mask
	force Tier           // tests force tiers; TierAuto otherwise
}

// plan is one decided launch sequence.
type plan struct {
	tier    Tier
	names   []string // kernels, launched in order
	grid    [2]int
	threads int
	smem    int
	vec     bool  // every row's packs aligned: n a whole number of packs, buffers aligned
	shift   bool  // rows tier: buffers aligned, rows of a part pack taken from the boundary before them
	group   int   // rows and cluster tiers: threads per row; the fused split kernel: fusedHead
	cluster int   // cluster and cgrid tiers: blocks per cluster
	chunk   int64 // split, grid and cgrid tiers: columns per block (split forward: the pieces kernel's base; the apply and fused kernels walk steps)
	splits  int64 // split, grid and cgrid tiers: blocks per row
	work    int64 // split and grid tiers: workspace bytes
	coop    bool  // grid tier and the split tier's fused kernel: a cooperative launch, passed the rows' barrier words
	balance bool  // cgrid tier: clusters scheduled by load balancing (gpu.CGridBalanced)
}

// overlaps says whether buffers i and j of c share a byte (each holds the
// call's elements).
func (c *call) overlaps(i, j int) bool {
	n := cu.DevicePtr(int64(c.v.Outer) * int64(c.v.N) * int64(c.v.Inner) * int64(c.dt.Size()))
	a, b := c.bufs[i], c.bufs[j]
	return a < b+n && b < a+n
}

// aligned reports whether every buffer starts on a multiple of n bytes.
func aligned(bufs []cu.DevicePtr, n int) bool {
	for _, b := range bufs {
		if uintptr(b)%uintptr(n) != 0 {
			return false
		}
	}
	return true
}

// splitPieces says whether the split tier writes with its pieces kernel,
// whose blocks take pieces of the rows from a counter, rather than the
// apply kernel, which writes each block's steps (cukernels/long.cuh,
// fwd_split_pieces): for float32 forward chunks of at least 32 steps (of
// step columns). Measured on the H200 with the kept form
// (docs/PERFORMANCE.md, GPU entry 23, call 4 and the 8fa6f56 run): at
// 4x33554432 float32, chunks of 62 steps, softmax 453-456 -> 402-403 us
// and masked 528-533 -> 472-473; at 4x8388608 float32, chunks of 15.5
// steps, 2% slower (masked 0.7%); float16 2-3% faster and bfloat16 4-5%
// slower at 4x33554432, both 12-20% slower at 4x8388608, so the half
// types keep their chunks. Where between 15.5 and 62 steps pieces start
// to pay was not measured. Backward has no such kernel.
// SOFTMAX_SPLIT_PIECES=0 turns pieces off, 1 on for every forward split
// (a tuning knob for benchmarks and tests, read once at start).
func splitPieces(dt Dtype, bwd bool, chunk, step int64) bool {
	switch splitPiecesSetting {
	case "0":
		return false
	case "1":
		return !bwd
	}
	return dt == Float32 && !bwd && chunk >= 32*step
}

var splitPiecesSetting = os.Getenv("SOFTMAX_SPLIT_PIECES")

// splitFused says whether the split tier's forward runs as its fused
// kernel (cukernels/grid.cuh, fwd_split_fused) rather than its statistics
// and apply (or pieces) kernels: one cooperative launch whose blocks meet
// at a barrier a row between reading and writing, then write the row's
// steps from its queues, last first, so that the second read starts with
// what L2 still holds. It needs a cooperative launch with every block of
// the grid resident at once, barrier words for its rows, and a warp a
// row for each of its splitQueues queues (a queue no warp takes from
// would leave its steps unwritten): with 256-thread blocks, 4 blocks a
// row, which the split tier's rule gives fewer of from a third of the
// resident blocks on (176 rows on the H200; float64 176x50000 took the
// fused kernel with 3 blocks a row at 88323ee and lost columns), and
// forced plans of short rows. Measured on the H200
// (docs/PERFORMANCE.md, GPU entry 28), against two kernels: 4x8388608
// 5-7.5% faster, masked 5-13%; 4x33554432 the half types 3-4.5% faster,
// float32 0-0.4% (against pieces); but masked 4x33554432 2% slower for
// bfloat16 and 0.4% for float32 (float16 0.4% faster), where L2 holds a
// sixth of the rows' data and mask bytes. Masked rows of whole packs now
// read keep bits in the write pass, not the mask (gpu.SplitBits), and on
// them the fused kernel ran masked 4x33554432 5.5% (float32) and 6.3-7.3%
// (the half types) faster than the two kernels (GPU entry 56); other
// masked rows take it only where the rows' data and mask bytes are at
// most splitFusedMaskedL2 times L2. SOFTMAX_SPLIT_FUSED=1 takes it
// wherever it can run, 0 never (a tuning knob for benchmarks and tests,
// read once at start).
func (d *Device) splitFused(c *call, p plan) bool {
	if c.bwd || !d.coop || splitFusedSetting == "0" {
		return false
	}
	if int64(c.v.Outer) > gridMaxPerSM*int64(d.sms) || p.splits*int64(p.threads/32) < splitQueues ||
		!d.coopFits(c, p, d.kernel(c, "split_fused")) {
		return false
	}
	if splitFusedSetting == "1" || c.mask == 0 || p.vec {
		return true
	}
	elems := int64(c.v.Outer) * int64(c.v.N)
	return elems*int64(c.dt.Size()+1) <= splitFusedMaskedL2*int64(d.l2)
}

// coopFits says whether k runs p's grid of blocks of p.threads all at once.
func (d *Device) coopFits(c *call, p plan, k *kernel) bool {
	return k != nil && p.threads <= k.maxThreads &&
		int64(d.occupancy(k, p.threads, p.smem))*int64(d.sms) >= p.splits*int64(c.v.Outer)
}

// fusedHead is the pack of each row below which the fused kernel's
// statistics pass loads evict-first (the fused kernel's head form,
// cukernels/grid.cuh tiles_stats_head), or 0 for none: all but the last
// half of L2's worth of the rows, for rows with 16-byte packs, no mask and
// no causal limit, whose data is at most 2.5 times L2. L2 gives up the
// marked lines first, so more of the rows' last columns, which the write
// pass rereads first, are still there when it does. Measured on the H200
// at 4 rows of 8388608 columns, 1.07 (the half types) and 2.1 (float32)
// times L2 (docs/PERFORMANCE.md, GPU entry 31): unmasked rows 1.8-3%
// faster than the plain kernel; masked rows 0.4-1.2% slower, so they take
// no marks, nor do causal rows (whose protected tail could lie past their
// limit; not measured). Other row counts, float64 and longer rows were not
// measured with this form (with the write pass's loads marked too, float32
// 4x33554432 ran 2% slower). SOFTMAX_SPLIT_HEAD=0 turns the marks off (a
// tuning knob for benchmarks, read once at start).
func (d *Device) fusedHead(c *call, vec bool, pk int64) int64 {
	if !vec || c.mask != 0 || c.v.Causal || splitHeadSetting == "0" {
		return 0
	}
	if !d.headSized(c) {
		return 0
	}
	rows, n := int64(c.v.Outer), int64(c.v.N)
	tail := gpu.CeilDiv(int64(d.l2)*int64(splitTailPercent)/100, rows*vecBytes) // packs a row left unmarked
	return max(0, n/pk-tail)
}

// headSized says whether c's data (input and output) is at most 2.5 times
// L2: the rows the fused kernel's head and masked forms take.
func (d *Device) headSized(c *call) bool {
	return 2*int64(c.v.Outer)*int64(c.v.N)*int64(c.dt.Size()) <= 5*int64(d.l2)
}

// maskedStash says whether the fused kernel's masked form
// (cukernels/grid.cuh, FUSED_MASKED: the head form's stash for masked
// rows, marking only the mask evict-first) takes c: masked float16 and bfloat16 rows of
// 16-byte packs with no causal limit, headSized as fusedHead's; they then
// take 512-thread blocks. Measured on the H200 at 4x8388608
// (docs/PERFORMANCE.md, GPU entry 68, call 3), against the plain form at
// 256 threads: float16 4.0% and bfloat16 2.4% faster; loading the mask
// words evict-first took 1.2% more off both (entry 69). Float32 keeps the
// plain form: with the stash (entry 68, call 1) level at 512 threads and
// 3.2% slower at 256, and level with the evict-first mask too (entry 69).
// SOFTMAX_SPLIT_HEAD=0 and SOFTMAX_SPLIT_STASH=0 turn it off.
func (d *Device) maskedStash(c *call, vec bool) bool {
	if !vec || c.mask == 0 || c.v.Causal || c.dt != Float16 && c.dt != BFloat16 || splitHeadSetting == "0" || splitStashSteps == 0 {
		return false
	}
	return d.headSized(c)
}

var splitHeadSetting = os.Getenv("SOFTMAX_SPLIT_HEAD")

// splitTailPercent is SOFTMAX_SPLIT_TAIL, the share of L2 (in percent) the
// head form's rows leave unmarked at their ends (a tuning knob for
// benchmarks, read once at start), else 50.
var splitTailPercent = func() int {
	if n, err := strconv.Atoi(os.Getenv("SOFTMAX_SPLIT_TAIL")); err == nil && n >= 0 {
		return n
	}
	return 50
}()

// splitStash is the dynamic shared memory of a launch of the fused
// kernel's head form or masked form (maskedStash): each block keeps its
// first steps of the row there (cukernels/grid.cuh, fwd_split_fused's
// stash) and writes them from there, so the second read of the rows'
// heads, which L2 gives up first, does not go to DRAM. As many steps as
// fit with every block resident (fits), up to splitStashSteps. Measured on
// the H200 at 4x8388608 (docs/PERFORMANCE.md, GPU entry 64): each step a
// block (32 KB at 512 threads, two blocks an SM) took 1.1-2.3 us off the
// float16 rows, and 3 steps, the most that fit, 9-10% (float32 3.8-4.7%,
// bfloat16 2.4-4.9%); the masked half rows, bound by instructions as much
// as by memory (entry 57), gain less (entry 68). Float64 takes none: not
// measured, and its head kernel spills.
func splitStash(c *call, p plan, fits func(plan) bool) int {
	if !p.vec || c.dt == Float64 {
		return 0
	}
	for keep := min(splitStashSteps, 8); keep > 0; keep-- { // 8 bounds the loop; 3 is what was measured
		p.smem = keep * p.threads * 4 * vecBytes // LongUnroll's fwd packs a thread and step
		if fits(p) {
			return p.smem
		}
	}
	return 0
}

// splitStashSteps is SOFTMAX_SPLIT_STASH, the most steps a block stashes
// (0: none; a tuning knob for benchmarks and tests, read once at start),
// else 3.
var splitStashSteps = func() int {
	if n, err := strconv.Atoi(os.Getenv("SOFTMAX_SPLIT_STASH")); err == nil && n >= 0 {
		return n
	}
	return 3
}()

// splitQueues is cukernels/grid.cuh's SM_QUEUES: the counters a row's
// warps take the fused kernel's write steps from, warp w from counter w
// mod splitQueues.
const splitQueues = 32

// splitFusedMaskedL2: masked rows whose data and mask bytes pass this many
// times L2 keep the two kernels (measured at 1.6 and 6.4 times L2 on the
// H200: 4x8388608 and 4x33554432 bfloat16).
const splitFusedMaskedL2 = 4

var splitFusedSetting = os.Getenv("SOFTMAX_SPLIT_FUSED")

// splitThreadsSetting is SOFTMAX_SPLIT_THREADS: threads a block for every
// split launch, a multiple of 32 from 64 to 1024, in one wave of as many
// blocks as 1024 threads an SM hold whole (448: two blocks; a tuning knob
// for benchmarks, read once at start; other values are ignored). A kernel bounded below the setting runs at its bound on the
// grid computed for the setting (the split kernels are bounded at 1024).
var splitThreadsSetting, _ = strconv.Atoi(os.Getenv("SOFTMAX_SPLIT_THREADS"))

// planTier is the dispatch rule: which tier computes c, unless the caller
// forces one.
//
//	inner > 1                                            -> inner
//	float64 softmax backward past 2^52 over its
//	  row length (gpu.FarGrad64): fewer rows than
//	  SMs, n >= 16384 (farSplitPays)                     -> split
//	  others                                             -> block
//	SOFTMAX_CLUSTER=1 and the cluster tier holds the row -> cluster
//	rows of a part pack in aligned buffers that tier 1
//	  does not take (or that the next line sends to
//	  tier 8), a cluster holds the row and a pack more,
//	  a block per SM (clusterShiftPays)                 -> cluster
//	masked forward half rows whose tier 1 group passes
//	  the pipelined masked kernel's bound
//	  (cgridBeforeRows)                                 -> cgrid
//	row fits 1024 threads' registers (gpu.RowsShape),
//	  unless rows < 2*SMs and n >= 16384                -> rows
//	rows <= 16 and n >= 16384, and the grid tier holds
//	  them in at most 48 KB per block (gridPays)        -> grid
//	float32 or half rows past tier 1, no causal limit,
//	  no mask backward, at least 64 blocks in clusters
//	  (cgridPays)                                       -> cgrid
//	the cluster tier pays (clusterPays)                 -> cluster
//	rows < 2*SMs and n >= 16384 (and rows <= 65535)     -> split
//	otherwise                                           -> block
//
// (The tier 1 line's exception and the split line are the rules from
// before the cluster tier: few rows of at least 16384 columns are split
// even when tier 1 holds them.)
func (d *Device) planTier(c *call) Tier {
	v := c.v
	n, rows := int64(v.N), int64(v.Outer)
	switch {
	case v.Inner > 1:
		return TierInner
	case gpu.FarGrad64(c.dt, c.bwd, v):
		if d.farSplitPays(rows, n) {
			return TierSplit // far_sum and far_write, chunks of a row over many blocks
		}
		return TierBlock // far_block, a block a row
	case gpu.ClusterForced() && d.eligible(c, TierCluster):
		return TierCluster
	case d.clusterShiftPays(c):
		return TierCluster
	case d.cgridBeforeRows(c):
		return TierCGrid
	case d.eligible(c, TierRows) && !(rows < splitRowsPer*int64(d.sms) && n >= splitMinN):
		return TierRows
	case n >= splitMinN && d.gridPays(c):
		return TierGrid
	case d.cgridPays(c):
		return TierCGrid
	case d.clusterPays(c):
		return TierCluster
	case rows < splitRowsPer*int64(d.sms) && n >= splitMinN && rows <= maxGridY:
		return TierSplit
	case d.eligible(c, TierRows):
		return TierRows
	default:
		// Tier 2 (cached) is left to forcing: since the block tier issues
		// four loads per thread it beat it on every row it could take
		// (docs/PERFORMANCE.md, GPU entry 3), its second read coming
		// from L2.
		return TierBlock
	}
}

// farSplitPays says whether a gpu.FarGrad64 call takes the split tier
// rather than far_block (a block a row): fewer rows than SMs, each of at
// least splitMinN columns. Measured on an H100 (docs/PERFORMANCE.md, GPU
// entry 115): the split tier 3.3-9.2x faster at 4 rows (4x65536 to
// 4x33554432), far_block 13% faster at 256x128256, where its blocks
// fill every SM and read a row's second pass from L2.
func (d *Device) farSplitPays(rows, n int64) bool {
	return rows < int64(d.sms) && n >= splitMinN
}

// eligible reports whether tier t can compute c (tests force every
// eligible tier).
func (d *Device) eligible(c *call, t Tier) bool {
	v := c.v
	if gpu.FarGrad64(c.dt, c.bwd, v) && t != TierBlock && t != TierSplit && t != TierInner {
		return false // the others round products under 2^-1022 to 2^-1075
	}
	switch t {
	case TierRows:
		_, _, ok := gpu.RowsShape(c.dt, c.bwd, gpu.KeepOf(c.mask != 0, v.Causal), int64(v.N), warpSize)
		return v.Inner == 1 && ok
	case TierCached:
		return v.Inner == 1 && d.cachedBytes(c) <= int64(d.kernel(c, "cached").dynSmem)
	case TierBlock:
		return v.Inner == 1
	case TierSplit:
		return v.Inner == 1 && v.Outer <= maxGridY
	case TierInner:
		return true
	case TierCluster:
		_, _, _, ok := gpu.ClusterShape(c.dt, c.bwd, int64(v.N), warpSize)
		return d.clusters && v.Inner == 1 && ok
	case TierGrid:
		_, ok := d.gridShape(c)
		return ok
	case TierCGrid:
		_, ok := d.cgridShape(c)
		return ok
	}
	return false
}

// Dispatch takes the grid tier for at most gridMaxRows rows whose blocks
// hold at most gridMaxSmem bytes each: measured on the H200 at 1 and 4
// rows (docs/PERFORMANCE.md, GPU entry 9), it beat the split tier by up to
// 30% with chunks of 8-32 KB, tied at 64 KB and lost up to 10% at 127 KB
// (each block loads, reduces and writes one after the other, so longer
// chunks serialize more). Rows that would give one block per SM more
// than that take the fewest blocks per SM, 2 or 4, that keep each under it
// (gridShape; 4x1048576: float32 4 blocks of 32 KB per SM, the half types'
// forward 2, their backward 4): float32 forward 14-24% faster at 2x and
// 4x1048576, the half types' forward 13-46% at 2x, 4x and 8x1048576 and
// 16x524288, their backward 4-18% at 2x and 4x1048576, than the split
// tier and tier 8 they took before; float32 backward at 2x1048576 1-2%
// slower (entry 21). Where no layout fits (float32 8x1048576: 64 KB a
// block at 4 per SM is more than an SM holds) the split tier stays.
// More rows were not measured.
const (
	gridMaxRows = 16
	gridMaxSmem = 48 << 10
)

// gridPays says whether dispatch takes the grid tier for c, rows of at
// least 16384 columns (see gridMaxRows); SOFTMAX_GRID=0 turns it off.
func (d *Device) gridPays(c *call) bool {
	if !gpu.GridOn() || c.v.Outer > gridMaxRows {
		return false
	}
	p, ok := d.gridShape(c)
	return ok && gridData(c, p) <= gridMaxSmem
}

// gridMaxPerSM is the most blocks per SM the grid tier launches, so it
// computes at most gridMaxPerSM*SMs rows.
const gridMaxPerSM = 4

// gridShape is the grid tier's layout for c: 1, 2 or 4 blocks per SM, the
// same number of blocks for every row (splits), each holding chunk
// columns (a whole number of 16-byte packs) in its shared memory. It takes
// the fewest blocks per SM that give at least 3/4 of the launch's blocks a
// share of a row and whose blocks hold at most gridMaxSmem bytes of the
// rows' data, else the fewest that fit at all (which gridPays turns down).
// ok is false where the device has no cooperative launch, the axis is not
// the last, or no layout fits.
func (d *Device) gridShape(c *call) (p plan, ok bool) {
	v := c.v
	k := d.kernel(c, "grid")
	if !d.coop || v.Inner != 1 || k == nil || v.N > math.MaxInt32 {
		return plan{}, false
	}
	var first plan
	for perSM := 1; perSM <= gridMaxPerSM; perSM *= 2 {
		p, fits := d.gridLayout(c, k, perSM)
		switch {
		case !fits:
		case gridData(c, p) <= gridMaxSmem:
			return p, true
		case !ok:
			first, ok = p, true
		}
	}
	return first, ok
}

// gridData is the bytes of the rows' data a block of layout p holds: a
// masked row's mask bytes are not counted (gridMaxSmem was measured on
// the data).
func gridData(c *call, p plan) int {
	if c.mask != 0 {
		return p.smem - int(p.chunk)
	}
	return p.smem
}

// gridLayout is gridShape's layout at perSM blocks per SM; fits is false
// where too few blocks would hold a share of a row or perSM blocks do not
// fit an SM.
func (d *Device) gridLayout(c *call, k *kernel, perSM int) (p plan, fits bool) {
	n, rows, pk := int64(c.v.N), int64(c.v.Outer), int64(vecBytes/c.dt.Size())
	blocks := int64(perSM * d.sms)
	per := blocks / rows // blocks per row
	if 4*rows*per < 3*blocks {
		return plan{}, false
	}
	p.chunk = gpu.CeilDiv(gpu.CeilDiv(n, per), pk) * pk
	p.splits = gpu.CeilDiv(n, p.chunk)
	p.smem = int(p.chunk * int64(c.dt.Size()))
	if c.bwd {
		p.smem *= 2
	}
	if c.mask != 0 {
		p.smem += int(p.chunk) // the share's mask bytes (grid.cuh: grid_copy_mask)
	}
	// Enough threads that each takes at most 2 packs (every pass over the
	// cache is instructions, not memory), from 128 up to what lets perSM
	// blocks share an SM.
	p.threads = max(128, min(1024, k.maxThreads, int(gpu.NextPow2(gpu.CeilDiv(p.chunk, 2*pk)))))
	for p.threads > 128 && d.occupancy(k, p.threads, p.smem) < perSM {
		p.threads /= 2
	}
	return p, d.occupancy(k, p.threads, p.smem) >= perSM
}

// clusterPays says whether dispatch takes the cluster tier for c, a row
// too long for tier 1: the device has clusters, the row fits blocks of at
// most 512 threads (two blocks share an SM, so one computes while the
// other waits at a cluster barrier), the rows give every SM a block, and
// the dtype is a half type or the row is masked. Measured on the H200
// (docs/PERFORMANCE.md, GPU entry 5), against the block and split tiers:
// 20-30% faster for those (half backward 1024x32000, half forward and
// masked 256x128256, masked float32 1024x32000); 5-10% slower for
// unmasked float32 rows, and no faster with 1024-thread blocks.
// SOFTMAX_CLUSTER=0 turns it off.
func (d *Device) clusterPays(c *call) bool {
	if !gpu.ClusterOn() || !d.eligible(c, TierCluster) {
		return false
	}
	_, blocks, threads, _ := gpu.ClusterShape(c.dt, c.bwd, int64(c.v.N), warpSize)
	half := c.dt == Float16 || c.dt == BFloat16
	return threads <= 512 && int64(c.v.Outer)*int64(blocks) >= int64(d.sms) && (half || c.mask != 0 || c.v.Causal)
}

// cgridPays says whether dispatch takes tier 8 for c, a row neither tier
// 1 nor the grid tier takes (planTier asks after them; few rows that tier
// 1 holds but planTier sends on, rows < 2*SMs with n >= 16384, stay on the
// split tier: not measured on tier 8): rows of float32 and the half types
// with no causal limit (and with a mask, forward only) whose clusters give
// at least cgridMinBlocks blocks (cgridEnough). Measured on the H200 against the tiers dispatch
// took before it (docs/PERFORMANCE.md GPU entry 14), time saved:
//   - float32: 8-24% forward (1024x32000, 256x128256, 132x65536,
//     512x65536, 4096x16400, 64x262144), 2-29% backward;
//   - the half types, against the cluster and split tiers: forward 30-38%
//     at 64x262144, 2-10% at 256x128256 and 512x65536, 4% lost for
//     bfloat16 at 132x65536; backward 4-29%, but 2-6% lost at 132x65536
//     and 2% for bfloat16 softmax at 4096x16400.
//
// Log-softmax backward on bwd_cgrid (both arrays held) whose shares pass
// CGridSmemTarget stays on the split tier, whose statistics read dy
// alone: 82 against 91 us at float32 64x262144 (GPU entry 14). On the
// kernel that holds dy alone (gpu.CGridLogKernel) it takes tier 8 at any
// share: 6-28% less time than the split tier at float32 64x262144 to
// 32x524288 (64x262144 62.1 against 86.4 us; GPU entry 44).
//
// Masked forward rows, their mask bytes copied into shared
// memory with the share (GPU entry 16), against the split and cluster
// tiers: float32 12-31% faster (1024x32000 111.7 against 89.9 us,
// 256x128256 144.3 against 100.1, 4096x16400, 132x65536, 512x65536,
// 64x262144, 4096x32000), the half types 5-35%. Masked backward and
// causal rows were not measured, so they do not take tier 8; nor does
// float64 (not measured). SOFTMAX_CGRID=0 turns tier 8 off;
// SOFTMAX_CGRID=1 takes it wherever it is eligible past tier 1,
// SOFTMAX_CGRID=2 before tier 1 too.
func (d *Device) cgridPays(c *call) bool {
	if !gpu.CGridOn() {
		return false
	}
	if gpu.CGridForced() {
		return d.eligible(c, TierCGrid)
	}
	v := c.v
	if c.bwd && c.mask != 0 || v.Causal || c.dt == Float64 || d.eligible(c, TierRows) {
		return false
	}
	g, ok := d.cgridEnough(c)
	if _, dyOnly := d.cgridKernel(c); dyOnly {
		return ok
	}
	return ok && !(c.bwd && v.Log && g.Chunk*int64(c.dt.Size()) > int64(gpu.CGridSmemTarget))
}

// cgridEnough is tier 8's layout for c where it gives at least
// cgridMinBlocks blocks, and masked rows a block per SM: masked half rows
// of 4x1048576 (64 blocks) ran 5-13% slower on tier 8 than on the split
// tier (GPU entry 16; float32's shares do not fit there).
func (d *Device) cgridEnough(c *call) (gpu.CGrid, bool) {
	g, ok := d.cgridShape(c)
	least := int64(cgridMinBlocks)
	if c.mask != 0 {
		least = max(least, int64(d.sms))
	}
	return g, ok && int64(c.v.Outer)*int64(g.Blocks) >= least
}

// cgridBeforeRows says whether dispatch takes tier 8 for c ahead of tier
// 1: masked forward rows of the half types whose tier 1 group is wider
// than the pipelined masked kernel's bound (512 threads at K = 4: 16385
// to 32768 columns), so tier 1 would take its plain kernel (rows it runs
// unpipelined for other reasons, unaligned ones, are not moved), which
// spills at the 64 registers of a 1024-thread block and keeps one row in
// flight per SM. Measured on the H200 (docs/PERFORMANCE.md GPU entry 16), tier 8
// against tier 1: float16 1024x32000 67.9 against 90.9 us, 4096x16400
// 141 against 225, 4096x32000 235 against 356; bfloat16 19-31% less
// time likewise. At 8192 columns (the pipelined kernel) tier 8 took
// 46-49% longer (float16 2048x8192 41.4 against 28.3 us), and unmasked
// forward rows 2-15% longer at 16400 and 32000 columns, so they stay on
// tier 1 (which does not hold the half types' backward rows there).
// SOFTMAX_CGRID=2 takes tier 8 before tier 1 wherever it is eligible (a
// tuning knob).
func (d *Device) cgridBeforeRows(c *call) bool {
	if !gpu.CGridOn() {
		return false
	}
	if gpu.CGridFirst() {
		return d.eligible(c, TierCGrid)
	}
	v := c.v
	if c.bwd || c.mask == 0 || v.Causal || c.dt != Float16 && c.dt != BFloat16 {
		return false
	}
	k, w, ok := gpu.RowsShape(c.dt, false, gpu.KeepMask, int64(v.N), warpSize)
	if !ok || w <= warpSize {
		return false
	}
	if pipe := d.set(c)[gpu.PipeKernel(c.dt, false, k, gpu.KeepMask)]; pipe != nil && w <= pipe.maxThreads {
		return false
	}
	_, ok = d.cgridEnough(c)
	return ok
}

// clusterShiftPays says whether dispatch takes the cluster tier's shifted
// kernels for c: rows of a part pack, in aligned buffers, that tier 1
// would not take (or that cgridBeforeRows sends to tier 8), where a
// cluster holds the row and a pack less one column more and the clusters
// give at least a block per SM. The grid and split tiers take such rows
// a column at a time (docs/PERFORMANCE.md GPU entry 88); tier 8 in whole
// packs (cgridShifted), and it takes the rows it would take were they
// whole packs (GPU entry 92).
func (d *Device) clusterShiftPays(c *call) bool {
	v := c.v
	n, rows, pk := int64(v.N), int64(v.Outer), int64(vecBytes/c.dt.Size())
	if !d.clusters || !gpu.ClusterOn() || v.Inner != 1 || !d.shifts(c, n, pk) || gpu.CGridForced() || gpu.CGridFirst() {
		return false // (SOFTMAX_CGRID=1 or 2 ask for tier 8 first: theirs)
	}
	if d.eligible(c, TierRows) && !(rows < splitRowsPer*int64(d.sms) && n >= splitMinN) && !d.cgridBeforeRows(c) {
		return false // tier 1's
	}
	if d.cgridShifted(c) && d.cgridPays(c) {
		return false // tier 8's shifted kernels
	}
	_, blocks, _, ok := gpu.ClusterShape(c.dt, c.bwd, n+pk-1, warpSize)
	return ok && rows*int64(blocks) >= int64(d.sms)
}

// pipeShiftFits says whether the shifted pipelined kernels (tier 1's and
// the cluster tier's) can take rows rows of n columns, pk to a pack
// (buffers aligned to a pack): forward ones always (a row whose last pack
// passes the buffer's end copies it a byte at a time, fetch_tail); backward
// ones only where the rows end on a pack boundary, since they copy each
// row's last pack with cp.async and a source size, which
// compute-sanitizer's memcheck counts as a 16-byte read (GPU entry 90),
// and a check per row cost them 5-8% (entry 92). Other rows take the plain
// shifted kernels, knobs included.
func pipeShiftFits(bwd bool, rows, n, pk int64) bool { return !bwd || rows*n%pk == 0 }

// shifts says whether c's rows of n columns, pk to a pack, take the
// shifted kernels where they fit: rows of a part pack in buffers aligned
// to a pack, where gpu.ShiftOn says they pay (tests: Device.shift,
// wherever they fit).
func (d *Device) shifts(c *call, n, pk int64) bool {
	return n%pk != 0 && aligned(c.bufs, vecBytes) && (d.shift || gpu.ShiftOn(c.dt, c.bwd, gpu.KeepOf(c.mask != 0, c.v.Causal), n))
}

// cgridMinBlocks is the fewest blocks for which dispatch takes tier 8:
// the fewest measured, 4 rows in clusters of 16 (4x1048576 float16
// forward: 19.9-20.8 us against the split tier's 22.5-23.0 on the H200;
// bfloat16 22.9 against 23.1).
const cgridMinBlocks = 64

// cgridShape is tier 8's layout for c (gpu.CGridPick): clusters of at
// most d.cgridMost blocks, fewer while the device cannot run a cluster of
// the layout (a share of the GPU may not fit 16 blocks). ok is false where
// the device has no clusters, the axis is not the last, or no layout fits.
func (d *Device) cgridShape(c *call) (g gpu.CGrid, ok bool) {
	v := c.v
	k, dyOnly := d.cgridKernel(c)
	if !d.clusters || v.Inner != 1 || k == nil {
		return gpu.CGrid{}, false
	}
	resident := func(g gpu.CGrid) int {
		if int64(v.Outer)*int64(g.Blocks) > math.MaxInt32 {
			return 0
		}
		return d.maxClusters(k, g.Threads, g.Smem, g.Blocks, gpu.CGridBalanced(c.bwd, g.Blocks))
	}
	// The log-softmax kernel that holds dy alone takes the forward's
	// layout: one array a block, blocks of at most gpu.CGridMaxThreads.
	bwd := c.bwd && !dyOnly
	n := int64(v.N)
	if d.cgridShifted(c) {
		n = gpu.CGridShiftN(c.dt, n)
	}
	return gpu.CGridPick(c.dt, bwd, c.mask != 0, n, d.cgridMost, gpu.CGridSmemTarget, k.dynSmem, d.cgridBlocks, resident)
}

// cgridShifted says whether tier 8 takes c in its shifted kernels
// (gpu.CGridShiftKernel): rows of a part pack in aligned buffers (shifts:
// so SOFTMAX_SHIFT=0, tier 1's knob, turns them off too), with neither
// mask nor causal limit.
func (d *Device) cgridShifted(c *call) bool {
	n, pk := int64(c.v.N), int64(vecBytes/c.dt.Size())
	return c.mask == 0 && !c.v.Causal && gpu.CGridShiftOn() && !d.noCGridShift && d.shifts(c, n, pk)
}

// cgridKernel is tier 8's kernel for c: for log-softmax backward rows of
// whole aligned packs with neither mask nor causal limit, where dx
// overlaps neither y nor dy, the one that holds dy alone through the meet
// and loads y after it (gpu.CGridLogKernel; dyOnly is true), else
// bwd_cgrid or fwd_cgrid. A call without buffers (dispatch asked about a
// shape) is taken as aligned and apart.
func (d *Device) cgridKernel(c *call) (k *kernel, dyOnly bool) {
	v := c.v
	if d.cgridShifted(c) {
		return d.set(c)[gpu.CGridShiftKernel(c.dt, c.bwd)], false
	}
	if c.bwd && v.Log && c.mask == 0 && !v.Causal && !d.noCGridLog && gpu.CGridLogOn(c.dt) &&
		int64(v.N)%int64(vecBytes/c.dt.Size()) == 0 && aligned(c.bufs, vecBytes) &&
		(len(c.bufs) < 3 || !c.overlaps(2, 0) && !c.overlaps(2, 1)) {
		if k := d.set(c)[gpu.CGridLogKernel(c.dt)]; k != nil {
			return k, true
		}
	}
	return d.kernel(c, "cgrid"), false
}

// forcesRowsKernel says whether a test forces one of tier 1's kernels
// where it can run (Device.shift, pipe, wide, once, packed), so that no
// rule takes the strided kernels in its place.
func (d *Device) forcesRowsKernel() bool { return d.shift || d.pipe || d.wide || d.once || d.packed }

func (d *Device) cachedBytes(c *call) int64 { return gpu.CachedBytes(c.dt, int64(c.v.N), c.bwd) }

func (d *Device) kernel(c *call, tier string) *kernel {
	return d.set(c)[gpu.TierKernelName(c.dt, c.bwd, tier)]
}

func (d *Device) makePlan(c *call) (plan, error) {
	v := c.v
	t := c.force
	if t == TierAuto {
		t = d.planTier(c)
	} else if !d.eligible(c, t) {
		return plan{}, fmt.Errorf("cuda: tier %v cannot compute %v over shape %v", t, v.Params, v.Shape)
	}
	size := c.dt.Size()
	n, rows := int64(v.N), int64(v.Outer)
	pk := vecBytes / size
	p := plan{tier: t, grid: [2]int{1, 1}}
	blocks := func(want int64, perSM int) int {
		return int(max(1, min(want, int64(d.sms*perSM))))
	}
	switch t {
	case TierRows:
		keep := gpu.KeepOf(c.mask != 0, v.Causal)
		p.vec = n%int64(pk) == 0 && aligned(c.bufs, vecBytes)
		// Forward rows of aligned packs without mask or causal limit are
		// laid out for the one-row kernel taken below (gpu.OnceShape: K = 2
		// for some float32 rows that K = 4 reads across extra sectors).
		var k, w int
		if p.vec && !c.bwd && keep == gpu.KeepAll {
			k, w, _ = gpu.OnceShape(c.dt, n, warpSize)
		} else {
			k, w, _ = gpu.RowsShape(c.dt, c.bwd, keep, n, warpSize)
		}
		name := gpu.RowsKernel(c.dt, c.bwd, k, keep)
		// Rows of a part pack in aligned buffers take the shifted kernels,
		// which read each row from the pack boundary before it (softmax.cuh
		// row_shift), where they pay (gpu.ShiftOn) and the row and pk-1
		// columns more still fit.
		if d.shifts(c, n, int64(pk)) {
			if ks, ws, ok := gpu.RowsShape(c.dt, c.bwd, keep, n+int64(pk)-1, warpSize); ok {
				k, w, p.shift = ks, ws, true
				name = gpu.RowsShiftKernel(c.dt, c.bwd, k, keep)
			}
		}
		// Aligned half rows forward without mask or causal limit take the
		// packed kernel, which keeps their packs as loaded, where it paid.
		packed := gpu.PackedOn(c.dt, c.bwd, keep, v.Log, rows, n) && !d.noPacked
		if d.packed { // tests: wherever the packed kernels can run
			packed = gpu.PackedKernels(c.dt) && !c.bwd && keep == gpu.KeepAll
		}
		packed = packed && p.vec
		if packed {
			kp, pw, ok := gpu.PackedShape(c.dt, n, warpSize)
			packed = ok && d.set(c)[gpu.PackedKernel(c.dt, kp)] != nil
			if packed {
				name, w = gpu.PackedKernel(c.dt, kp), pw
			}
		}
		threads, perBlock := gpu.RowsThreads(w, warpSize)
		p.names = []string{name}
		p.threads, p.group = threads, w
		want := gpu.CeilDiv(rows, int64(perBlock))
		p.grid[0] = int(min(want, 1<<30))
		// Float32 forward rows of aligned packs, where the grid has a group
		// for every row, take the one-row kernel (fewer registers).
		if once := d.set(c)[gpu.OnceKernel(c.dt, k)]; once != nil && !packed && p.vec && want <= 1<<30 && threads <= once.maxThreads &&
			(gpu.OnceOn(c.dt, c.bwd, keep, k, w) || d.once && !c.bwd && keep == gpu.KeepAll && slices.Contains(gpu.OnceKs(c.dt), k)) {
			p.names[0] = once.name
			if own := d.set(c)[gpu.OnceKernelFor(c.dt, k, w)]; own != nil && threads <= own.maxThreads {
				p.names[0] = own.name
			}
		}
		// Other aligned rows take the pipelined kernel: a grid that fills
		// the GPU once, each block walking its rows with the next one in
		// flight.
		// The masked pipelined kernels copy each row's mask bytes in
		// packs: they need every mask row aligned to a pack.
		maskOK := keep != gpu.KeepMask || uintptr(c.mask)%uintptr(pk) == 0 && gpu.MaskRowsAligned(v, int64(pk))
		// Rows of a part pack (unmasked or causal) take the shifted form.
		var pipe *kernel
		pipeOn := gpu.PipeOn
		if p.shift {
			pipeOn = gpu.PipeShiftOn
			if name, ok := gpu.PipeShiftKernel(c.dt, c.bwd, k, keep); ok && pipeShiftFits(c.bwd, rows, n, int64(pk)) {
				pipe = d.set(c)[name]
			}
		} else if p.vec && !packed && maskOK {
			pipe = d.set(c)[gpu.PipeKernel(c.dt, c.bwd, k, keep)]
		}
		if pipe != nil && !d.noPipe && (d.pipe || pipeOn(c.dt, c.bwd, k, w, keep)) {
			smem := gpu.PipeSmem(c.dt, c.bwd, keep, k, threads)
			if per := d.occupancy(pipe, threads, smem); per > 0 {
				if most := gpu.PipeBlocksCap(c.dt, c.bwd, k, w, keep); most > 0 {
					per = min(per, most)
				}
				grid := min(want, int64(per*d.sms))
				if d.pipeBlocks > 0 {
					grid = min(grid, int64(d.pipeBlocks))
				}
				if gpu.PipeRowsFit(rows, grid*int64(perBlock), int64(perBlock)) {
					p.names[0], p.smem = pipe.name, smem
					p.grid[0] = int(grid)
				}
			}
		}
		// Log-softmax backward rows from gpu.StreamMinN columns take the
		// streamed kernel: a block a row, dy in registers, y loaded after
		// the row's sum. Not where dx overlaps y or dy: a row that fails the
		// fast form's bounds is rewritten from y and dy after dx is
		// written (tier 1's other kernels decide before they write).
		if lk := d.set(c)[gpu.StreamKernel(c.dt)]; lk != nil && p.vec && !d.noStream && rows <= math.MaxInt32 && gpu.StreamOn(c.dt, c.bwd, v.Log, keep, n) && !c.overlaps(2, 0) && !c.overlaps(2, 1) {
			if threads, ok := gpu.StreamShape(c.dt, n); ok && threads <= lk.maxThreads {
				p.names, p.threads, p.group, p.smem = []string{lk.name}, threads, threads, 0
				p.grid[0] = int(rows)
			}
		}
		// Float32 log-softmax backward calls of 1025-2048 columns from 2^28
		// elements (gpu.WideOn) take the wide kernel: K = 16, a warp a row,
		// fewer instructions where the card's power cap lowers its clock.
		// The rule goes first: the kernel's name is formatted only for the
		// calls that may take it (this runs on every launch).
		if p.vec && (gpu.WideOn(c.dt, c.bwd, v.Log, keep, rows, n) || d.wide && c.bwd && keep == gpu.KeepAll) {
			wk := d.set(c)[gpu.WideKernel(c.dt)]
			if w, ok := gpu.WideShape(c.dt, n, warpSize); wk != nil && ok && w <= wk.maxThreads {
				threads, perBlock := gpu.RowsThreads(w, warpSize)
				p.names, p.threads, p.group, p.smem = []string{wk.name}, threads, w, 0
				p.grid[0] = int(min(gpu.CeilDiv(rows, int64(perBlock)), 1<<30))
			}
		}
		// Unmasked rows (forward: not causal either) where gpu.StridedOn
		// says so (rows of a part pack of the lengths the H200 ran them
		// faster; SOFTMAX_STRIDED=1: every row they fit) take the strided
		// kernels, which load a column at a time and need no alignment
		// (not where a test forces another of tier 1's kernels). The span
		// module has none: its calls keep the kernels above.
		if gpu.StridedOn(c.dt, c.bwd, keep, n) && !d.noStrided && !d.forcesRowsKernel() || d.strided && keep == gpu.KeepAll {
			if e, w, ok := gpu.StridedShape(c.bwd, n, warpSize); ok {
				blocks := gpu.CeilDiv(rows, int64(gpu.StridedThreads/w))
				set := d.set(c)
				sk := set[gpu.StridedKernel(c.dt, c.bwd, e)]
				if !d.stridedLoop && gpu.StridedOnceOn(w, blocks) {
					if one := set[gpu.StridedOnceKernel(c.dt, c.bwd, e)]; one != nil {
						sk = one // a group for every row: the one-row kernel
					}
				}
				if sk != nil && gpu.StridedThreads <= sk.maxThreads {
					p.names, p.threads, p.group, p.smem = []string{sk.name}, gpu.StridedThreads, w, 0
					p.vec, p.shift = false, false // it loads columns, not packs
					p.grid[0] = int(min(blocks, 1<<30))
				}
			}
		}
		// Unmasked float32 backward calls where gpu.StridedBatchOn says so
		// (62 to 80 columns, 24576 rows or more; SOFTMAX_STRIDED_BATCH=1:
		// every call it fits) take the batched one-row strided kernel: a
		// warp for every StridedBatchRows rows, no loop, so a grid that
		// gives every row its warp (not where a test forces another of
		// tier 1's kernels).
		batch := gpu.StridedBatchOn(c.dt, c.bwd, keep, rows, n) && !d.noStrided && !d.strided && !d.forcesRowsKernel() ||
			d.stridedBatch && gpu.StridedBatchKernels(c.dt, c.bwd, keep)
		if e, ok := gpu.StridedBatchShape(n, warpSize); batch && ok {
			blocks := gpu.CeilDiv(rows, int64(gpu.StridedThreads/warpSize*gpu.StridedBatchRows))
			if bk := d.set(c)[gpu.StridedBatchKernel(e)]; bk != nil && gpu.StridedThreads <= bk.maxThreads && blocks <= 1<<30 {
				p.names, p.threads, p.group, p.smem = []string{bk.name}, gpu.StridedThreads, warpSize, 0
				p.vec, p.shift = false, false // it loads columns, not packs
				p.grid[0] = int(blocks)
			}
		}
		// Unmasked, non-causal rows of at most 64 columns where
		// gpu.StagedOn says so take the staged kernels: a thread a row, a
		// block's rows copied through shared memory in packs, so every
		// buffer must start on 16 bytes (not where a test forces another of
		// tier 1's kernels).
		staged := gpu.StagedOn(c.dt, c.bwd, keep, rows, n) && !d.noStaged && !d.forcesRowsKernel() && !d.strided && !d.stridedBatch ||
			d.staged && keep == gpu.KeepAll
		if N, ok := gpu.StagedShape(n); staged && ok && aligned(c.bufs, vecBytes) {
			r := gpu.StagedRows(c.dt, c.bwd, rows, n)
			if d.stagedRows > 0 && slices.Contains(gpu.StagedRs(c.bwd, N), d.stagedRows) {
				r = d.stagedRows
			}
			blocks := gpu.CeilDiv(rows, int64(gpu.StagedThreads*r))
			if sk := d.set(c)[gpu.StagedKernel(c.dt, c.bwd, N, r)]; sk != nil && gpu.StagedThreads <= sk.maxThreads && blocks <= 1<<30 {
				p.names, p.threads, p.group, p.smem = []string{sk.name}, gpu.StagedThreads, 1, gpu.StagedSmem(c.dt, c.bwd, n, r)
				p.vec, p.shift = false, false // it copies the block's rows, not a row's packs
				p.grid[0] = int(blocks)
			}
		}
		// Their warp form, a warp a row (gpu.StagedWarpOn: the half types'
		// rows past 64 columns, to 256 forward and 512 backward, of a part
		// pack or, backward, many rows of whole packs), under the same
		// conditions.
		warp := gpu.StagedWarpOn(c.dt, c.bwd, keep, rows, n) && !d.noStaged && !d.forcesRowsKernel() && !d.strided && !d.stridedBatch && !d.staged ||
			d.stagedWarp && keep == gpu.KeepAll
		if e, rw, ok := gpu.StagedWarpShape(c.bwd, n); warp && ok && aligned(c.bufs, vecBytes) {
			blocks := gpu.CeilDiv(rows, gpu.StagedWarpRows(rw))
			if sk := d.set(c)[gpu.StagedWarpKernel(c.dt, c.bwd, e, rw)]; sk != nil && gpu.StagedThreads <= sk.maxThreads && blocks <= 1<<30 {
				p.names, p.threads, p.group, p.smem = []string{sk.name}, gpu.StagedThreads, warpSize, gpu.StagedWarpSmem(c.dt, c.bwd, n, rw)
				p.vec, p.shift = false, false // it copies the block's rows, not a row's packs
				p.grid[0] = int(blocks)
			}
		}
	case TierCluster:
		masked := c.mask != 0 || v.Causal
		k, blocks, threads, _ := gpu.ClusterShape(c.dt, c.bwd, n, warpSize)
		p.vec = n%int64(pk) == 0 && aligned(c.bufs, vecBytes)
		// Rows of a part pack in aligned buffers take the shifted kernels
		// (tier 1's, over a cluster) where the row and pk-1 columns more fit.
		if d.shifts(c, n, int64(pk)) {
			if ks, bs, ts, ok := gpu.ClusterShape(c.dt, c.bwd, n+int64(pk)-1, warpSize); ok {
				k, blocks, threads, p.shift = ks, bs, ts, true
			}
		}
		// At most rows clusters walk the rows (below), so rows is a bound on
		// their step.
		pipe := (p.vec || p.shift && pipeShiftFits(c.bwd, rows, n, int64(pk))) && !d.noPipe && gpu.ClusterPipeOn(masked) &&
			gpu.PipeRowsFit(rows, rows, 1)
		p.names = []string{gpu.ClusterKernel(c.dt, c.bwd, masked, pipe)}
		if p.shift {
			p.names[0] = gpu.ClusterShiftKernel(c.dt, c.bwd, masked, pipe)
		}
		p.threads, p.cluster, p.group = threads, blocks, blocks*threads
		if pipe {
			p.smem = gpu.PipeSmem(c.dt, c.bwd, gpu.KeepAll, k, threads)
		}
		// Clusters walk the rows: as many as fit the device at once.
		kn := d.set(c)[p.names[0]]
		if kn == nil {
			return plan{}, fmt.Errorf("cuda: no kernel %s in the loaded module", p.names[0])
		}
		most := d.maxClusters(kn, threads, p.smem, blocks, false)
		if most <= 0 {
			return plan{}, fmt.Errorf("cuda: %s: no cluster of %d blocks of %d threads (%d bytes shared) fits the device", kn.name, blocks, threads, p.smem)
		}
		if d.pipeBlocks > 0 {
			most = min(most, d.pipeBlocks)
		}
		p.grid[0] = int(min(rows, int64(most))) * blocks
	case TierCached:
		p.vec = n%int64(pk) == 0 && aligned(c.bufs, vecBytes)
		p.names = []string{d.kernel(c, "cached").name}
		p.threads = gpu.RowThreads(n)
		p.smem = int(d.cachedBytes(c))
		p.grid[0] = blocks(rows, 16)
	case TierBlock:
		p.vec = n%int64(pk) == 0 && aligned(c.bufs, vecBytes)
		p.names = []string{d.kernel(c, "block").name}
		p.threads = gpu.RowThreads(n)
		p.grid[0] = blocks(rows, 16)
		if gpu.FarGrad64(c.dt, c.bwd, v) && n <= gpu.FarRowsCols {
			// A warp a row: far_block's two barriers a row cost short rows
			// 2.8x their usual tier (docs/PERFORMANCE.md, GPU entry 113).
			// Four blocks an SM: its 64 registers hold 32 warps.
			p.names[0], p.threads = gpu.FarRowsKernel, gpu.FarRowsThreads
			p.grid[0] = blocks(gpu.CeilDiv(rows, int64(gpu.FarRowsThreads/warpSize)), 4)
		}
	case TierSplit:
		p.vec = n%int64(pk) == 0 && aligned(c.bufs, vecBytes)
		// One wave: the split kernels hold 1024 threads per SM (64
		// registers each), so 256-thread blocks, four per SM, unless the
		// chunks would pass 64K columns; then 512, two per SM (measured on
		// the H200: docs/PERFORMANCE.md, GPU entry 3).
		splitsAt := func(threads int) int64 {
			return max(1, min(gpu.CeilDiv(int64(1024/threads*d.sms), rows), gpu.CeilDiv(n, 2048)))
		}
		layout := func(threads int) {
			p.threads = threads
			p.chunk = gpu.CeilDiv(gpu.CeilDiv(n, splitsAt(threads)), int64(pk)) * int64(pk)
			p.splits = gpu.CeilDiv(n, p.chunk)
			p.grid = [2]int{int(p.splits), int(rows)}
		}
		stepAt := func(threads int) int64 { // LongUnroll's fwd packs per thread and step, in columns
			if p.vec {
				return int64(4 * threads * pk)
			}
			return int64(4 * threads)
		}
		threads := 256
		if gpu.CeilDiv(n, splitsAt(256)) > 65536 {
			threads = 512
		}
		knob := splitThreadsSetting >= 64 && splitThreadsSetting <= 1024 && splitThreadsSetting%32 == 0
		if knob {
			threads = splitThreadsSetting
		}
		layout(threads)
		p.names = []string{d.kernel(c, "split_stats").name, d.kernel(c, "split_apply").name}
		fused := d.splitFused(c, p)
		// The fused kernel at 512 threads for unmasked rows whose chunks
		// hold at least 4 of their steps: at 4x8388608 0-3% faster than
		// at 256; masked half rows 3.5-7% slower there (float32 0.5%
		// faster; GPU entry 29), but those the masked form takes, with
		// their stash, faster (entry 68).
		if fused && threads == 256 && !knob && (c.mask == 0 || d.maskedStash(c, p.vec)) && gpu.CeilDiv(n, splitsAt(512)) >= 4*stepAt(512) {
			layout(512)
			if !d.splitFused(c, p) {
				layout(256)
			}
		}
		switch {
		case fused:
			p.names, p.coop = []string{d.kernel(c, "split_fused").name}, true
			// The masked form where each block has a whole step to stash.
			if k := d.kernel(c, "split_fused_masked"); d.maskedStash(c, p.vec) && n >= p.splits*stepAt(p.threads) && d.coopFits(c, p, k) {
				if smem := splitStash(c, p, func(p plan) bool { return d.coopFits(c, p, k) }); smem > 0 {
					p.names[0], p.smem = k.name, smem
				}
			} else if head, k := d.fusedHead(c, p.vec, int64(pk)), d.kernel(c, "split_fused_head"); head > 0 && d.coopFits(c, p, k) {
				p.names[0], p.group = k.name, int(head)
				p.smem = splitStash(c, p, func(p plan) bool { return d.coopFits(c, p, k) })
			}
		case splitPieces(c.dt, c.bwd, p.chunk, stepAt(p.threads)):
			p.names[1] = d.kernel(c, "split_pieces").name
		}
		part := gpu.SplitPartBytes(c.dt, c.bwd)
		p.work = (rows*p.splits + 1) * part // and a slot for the pieces kernel's counter, which the statistics kernel zeroes
		if p.coop {
			// The fused kernel: the Parts, then at the next 128 bytes
			// each row's queues, a 128-byte line each.
			p.work = gpu.CeilDiv(rows*p.splits*part, 128)*128 + rows*splitQueues*128
		}
		if !c.bwd && c.mask != 0 && p.vec {
			p.work = gpu.SplitBits(p.work, rows, n)
		}
	case TierGrid:
		g, _ := d.gridShape(c)
		p.vec = n%int64(pk) == 0 && aligned(c.bufs, vecBytes)
		p.names = []string{d.kernel(c, "grid").name}
		p.threads, p.smem, p.chunk, p.splits, p.coop = g.threads, g.smem, g.chunk, g.splits, true
		p.grid[0] = int(rows * g.splits)
		p.work = rows * g.splits * 32 // sizeof(Part)
	case TierCGrid:
		g, _ := d.cgridShape(c)
		k, dyOnly := d.cgridKernel(c)
		p.vec = n%int64(pk) == 0 && aligned(c.bufs, vecBytes)
		p.shift = d.cgridShifted(c)
		p.names = []string{k.name}
		p.threads, p.smem, p.chunk, p.splits, p.cluster = g.Threads, g.Smem+gpu.CGridPad, g.Chunk, int64(g.Blocks), g.Blocks
		p.balance = gpu.CGridBalanced(c.bwd, g.Blocks)
		p.grid[0] = int(rows) * g.Blocks
		if dyOnly {
			p.work = rows * int64(g.Blocks) * 4 // a word per block: the check of rows of -Inf alone
		}
		if gpu.CGridTrace != "" && !c.bwd {
			p.work = int64(p.grid[0]) * cgridTraceBytes
		}
	case TierInner:
		p.names = []string{d.kernel(c, "inner").name}
		p.threads = innerThreads
		p.grid[0] = blocks(gpu.CeilDiv(rows*int64(v.Inner), innerThreads), 32)
	}
	for _, name := range p.names {
		k := d.set(c)[name]
		if k == nil {
			return plan{}, fmt.Errorf("cuda: no kernel %s in the loaded module", name)
		}
		if p.threads > k.maxThreads && (p.tier == TierRows && p.group > warpSize || p.tier == TierCluster) {
			// The group is the block: it cannot shrink.
			return plan{}, fmt.Errorf("cuda: %s runs at most %d threads per block; rows of %d columns need %d", name, k.maxThreads, n, p.threads)
		}
		if p.threads > k.maxThreads {
			p.threads = k.maxThreads / warpSize * warpSize
		}
		if p.smem > k.dynSmem {
			return plan{}, fmt.Errorf("cuda: %s needs %d bytes of shared memory, the device allows %d", name, p.smem, k.dynSmem)
		}
	}
	return p, nil
}

// occupancy is how many blocks of k with this many threads and bytes of
// dynamic shared memory fit one SM (0 when none, or the driver will not
// say); it runs inside do, which guards the cache.
func (d *Device) occupancy(k *kernel, threads, smem int) int {
	if smem > k.dynSmem || threads > k.maxThreads {
		return 0
	}
	key := [2]int{threads, smem}
	if n, ok := k.occ[key]; ok {
		return n
	}
	n, err := k.fn.MaxActiveBlocksPerMultiProcessor(threads, int64(smem))
	if err != nil {
		n = 0
	}
	if k.occ == nil {
		k.occ = map[[2]int]int{}
	}
	k.occ[key] = n
	return n
}

// run computes c; it runs inside do.
func (d *Device) run(c *call) error {
	v := c.v
	if v.Len() == 0 {
		return nil
	}
	md, ok := gpu.NewMaskDims(v)
	if !ok {
		return fmt.Errorf("cuda: mask shape %v against x shape %v needs more than 4 outer or 4 inner mask dimensions after merging", v.MaskShape, v.Shape)
	}
	p, err := d.makePlan(c)
	if err != nil {
		return err
	}
	var work cu.DevicePtr
	if p.work > 0 {
		if work, err = d.workspace(p.work); err != nil {
			return err
		}
	}
	// Every parameter is one 8-byte slot, in the order of SM_VIEW_PARAMS
	// and SM_EXTRA_PARAMS (cukernels/softmax.cuh), after the buffers.
	i := func(n int) uint64 { return uint64(int64(n)) }
	b := func(t bool) uint64 {
		if t {
			return 1
		}
		return 0
	}
	causalRows := 0
	if v.Causal {
		causalRows = v.CausalRows
	}
	slots := make([]uint64, 0, 32)
	for _, buf := range c.bufs {
		slots = append(slots, uint64(buf))
	}
	scale, factor := scales(c)
	slots = append(slots, i(v.Outer), i(v.N), i(v.Inner), math.Float64bits(scale), b(v.Log),
		i(causalRows), i(v.Offset), uint64(c.mask), i(v.MaskStride))
	for _, a := range [][]int64{md.OuterSize[:], md.OuterStride[:], md.InnerSize[:], md.InnerStride[:]} {
		for _, e := range a {
			slots = append(slots, uint64(e))
		}
	}
	slots = append(slots, uint64(work), b(p.vec), i(p.group), uint64(p.chunk), uint64(p.splits))
	if p.coop {
		sync, err := d.gridBarriers()
		if err != nil {
			return err
		}
		slots = append(slots, uint64(sync))
	}
	for _, name := range p.names {
		if err := d.launch(d.set(c)[name], p, slots); err != nil {
			return fmt.Errorf("cuda: launching %s (grid %v, %d threads, %d bytes shared, clusters of %d): %w", name, p.grid, p.threads, p.smem, max(p.cluster, 1), err)
		}
	}
	if factor != 0 {
		n := int64(v.Len())
		rp := plan{grid: [2]int{int(min(gpu.CeilDiv(n, rescaleThreads), int64(8*d.sms))), 1}, threads: rescaleThreads}
		if err := d.launch(d.set(c)[rescaleKernel(c.dt)], rp, []uint64{uint64(c.bufs[2]), uint64(n), math.Float64bits(factor)}); err != nil {
			return fmt.Errorf("cuda: launching %s (grid %v, %d threads): %w", rescaleKernel(c.dt), rp.grid, rp.threads, err)
		}
	}
	if err := d.syncRun(); err != nil {
		return fmt.Errorf("cuda: %s over shape %v (tier %v): %w", v.Params, v.Shape, p.tier, err)
	}
	if gpu.CGridTrace != "" && p.tier == TierCGrid && !c.bwd {
		return d.writeTrace(p, v, work)
	}
	return nil
}

// cgridTraceBytes is a block's record in tier 8's trace: 16 words.
const cgridTraceBytes = 128

// writeTrace overwrites gpu.CGridTrace with the stamps tier 8's forward
// left in the workspace (a -DSM_TRACE build): a header, then a line per
// block, its SM and the ns from the launch's first start to its start,
// share landed, Part, meet, output, store read, and the fold's maximum
// and sum passes done.
func (d *Device) writeTrace(p plan, v *layout.View, work cu.DevicePtr) error {
	const w = cgridTraceBytes / 8
	words := make([]uint64, p.grid[0]*w)
	if err := cu.MemcpyDtoH(unsafe.Pointer(&words[0]), work, int64(len(words))*8); err != nil {
		return fmt.Errorf("cuda: reading tier 8's trace: %w", err)
	}
	first := uint64(math.MaxUint64)
	for b := 0; b < p.grid[0]; b++ {
		first = min(first, words[w*b])
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "# tier 8 trace: shape %v, %d blocks, clusters of %d; block sm start landed part meet out read maxpass sumpass (ns)\n", v.Shape, p.grid[0], p.cluster)
	for b := 0; b < p.grid[0]; b++ {
		r := words[w*b : w*b+w]
		fmt.Fprintf(&sb, "%d %d", b, r[8])
		for _, t := range r[:8] {
			fmt.Fprintf(&sb, " %d", int64(t-first))
		}
		sb.WriteByte('\n')
	}
	return os.WriteFile(gpu.CGridTrace, []byte(sb.String()), 0o644)
}
