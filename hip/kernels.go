//go:build hip

package hip

import (
	"fmt"
	"math"

	"github.com/gosoftmax/softmax/internal/gpu"
	"github.com/gosoftmax/softmax/internal/layout"
)

// Tier names the kernel family that computes a problem; docs/GPU.md
// describes each and the dispatch rules, which live in planTier. They are
// the CUDA backend's tiers, built from the same templates.
type Tier int

const (
	TierAuto   Tier = iota // let planTier choose
	TierRows               // 1: a row in the registers of a group of threads
	TierCached             // 2: block per row, row in LDS
	TierBlock              // 3: block per row, online max/sum, two reads
	TierSplit              // 4: split rows across blocks
	TierInner              // 5: non-last axis, one thread per (outer, inner)
)

func (t Tier) String() string {
	return [...]string{"auto", "rows", "cached", "block", "split", "inner"}[t]
}

const (
	innerThreads = 256
	vecBytes     = 16    // widest access, PackWidth in softmax.cuh
	splitMinN    = 16384 // rows at least this long may be split...
	splitRowsPer = 2     // ...when there are fewer than this many rows per CU
	maxGridY     = 65535
)

// kernelNames are the entry points of every code object: the names
// cukernels/softmax.cu exports.
func kernelNames() []string {
	var names []string
	for dt := gpu.Float32; dt <= gpu.BFloat16; dt++ {
		for _, dir := range []string{"fwd", "bwd"} {
			for _, k := range gpu.RowsKs() {
				for _, m := range []gpu.Keep{gpu.KeepAll, gpu.KeepMask} {
					names = append(names, gpu.RowsKernel(dt, dir == "bwd", k, m), gpu.PipeKernel(dt, dir == "bwd", k, m))
				}
			}
			for _, t := range []string{"cached", "block", "split_stats", "split_apply", "inner"} {
				names = append(names, gpu.TierKernelName(dt, dir == "bwd", t))
			}
			if dir == "bwd" && dt == gpu.Float64 {
				names = append(names, gpu.FarRowsKernel)
			}
		}
	}
	return names
}

// call is one forward or backward problem on device buffers.
type call struct {
	dt    Dtype
	v     *layout.View
	bwd   bool
	bufs  []DevicePtr // x, y (forward) or y, dy, dx (backward)
	mask  DevicePtr   // 0 without a mask
	force Tier        // tests force tiers; TierAuto otherwise
}

// plan is one decided launch sequence.
type plan struct {
	tier    Tier
	names   []string // kernels, launched in order
	grid    [2]int
	threads int
	smem    int
	vec     bool
	group   int   // rows tier: threads per row
	chunk   int64 // split tier: columns per block (backward; the forward kernels walk steps, LongTiles)
	splits  int64
	work    int64 // split tier: workspace bytes
}

// aligned reports whether every buffer starts on a multiple of n bytes.
func aligned(bufs []DevicePtr, n int) bool {
	for _, b := range bufs {
		if uintptr(b)%uintptr(n) != 0 {
			return false
		}
	}
	return true
}

// planTier is the dispatch rule: which tier computes c, unless the caller
// forces one. The rules are the CUDA backend's, with the wavefront width
// (d.wave) where CUDA has 32 and the LDS per workgroup (64 KB) where CUDA
// has its opted-in shared memory.
//
//	inner > 1                                      -> inner
//	float64 softmax backward past 2^52 over its
//	  row length (gpu.FarGrad64): rows < CUs and
//	  n >= 16384                                   -> split
//	  others                                       -> block
//	rows < 2*CUs and n >= 16384 (and rows<=65535)  -> split
//	row fits 1024 threads' registers (gpu.RowsShape) -> rows
//	otherwise                                      -> block
func (d *Device) planTier(c *call) Tier {
	v := c.v
	n, rows := int64(v.N), int64(v.Outer)
	switch {
	case v.Inner > 1:
		return TierInner
	case gpu.FarGrad64(c.dt, c.bwd, v):
		if rows < int64(d.sms) && n >= splitMinN { // CUDA's farSplitPays
			return TierSplit // far_sum and far_write
		}
		return TierBlock // far_block, or far_rows
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

// eligible reports whether tier t can compute c (tests force every
// eligible tier).
func (d *Device) eligible(c *call, t Tier) bool {
	v := c.v
	if gpu.FarGrad64(c.dt, c.bwd, v) && t != TierBlock && t != TierSplit && t != TierInner {
		return false // the others round products under 2^-1022 to 2^-1075
	}
	switch t {
	case TierRows:
		_, _, ok := gpu.RowsShape(c.dt, c.bwd, gpu.KeepOf(c.mask != 0, v.Causal), int64(v.N), d.wave)
		return v.Inner == 1 && ok
	case TierCached:
		return v.Inner == 1 && d.cachedBytes(c) <= int64(d.kernel(c, "cached").dynSmem)
	case TierBlock:
		return v.Inner == 1
	case TierSplit:
		return v.Inner == 1 && v.Outer <= maxGridY
	case TierInner:
		return true
	}
	return false
}

func (d *Device) cachedBytes(c *call) int64 { return gpu.CachedBytes(c.dt, int64(c.v.N), c.bwd) }

func (d *Device) kernel(c *call, tier string) *kernel {
	return d.kernels[gpu.TierKernelName(c.dt, c.bwd, tier)]
}

func (d *Device) makePlan(c *call) (plan, error) {
	v := c.v
	t := c.force
	if t == TierAuto {
		t = d.planTier(c)
	} else if !d.eligible(c, t) {
		return plan{}, fmt.Errorf("hip: tier %v cannot compute %v over shape %v", t, v.Params, v.Shape)
	}
	size := c.dt.Size()
	n, rows := int64(v.N), int64(v.Outer)
	pk := vecBytes / size
	p := plan{tier: t, grid: [2]int{1, 1}}
	blocks := func(want int64, perCU int) int {
		return int(max(1, min(want, int64(d.sms*perCU))))
	}
	switch t {
	case TierRows:
		keep := gpu.KeepOf(c.mask != 0, v.Causal)
		k, w, _ := gpu.RowsShape(c.dt, c.bwd, keep, n, d.wave)
		threads, perBlock := gpu.RowsThreads(w, d.wave)
		p.vec = n%int64(pk) == 0 && aligned(c.bufs, vecBytes)
		p.names = []string{gpu.RowsKernel(c.dt, c.bwd, k, keep)}
		p.threads, p.group = threads, w
		p.grid[0] = int(min(gpu.CeilDiv(rows, int64(perBlock)), 1<<30))
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
			p.grid[0] = blocks(gpu.CeilDiv(rows, int64(gpu.FarRowsThreads/d.wave)), 4)
		}
	case TierSplit:
		p.vec = n%int64(pk) == 0 && aligned(c.bufs, vecBytes)
		// One wave: the split kernels hold 1024 threads per SM (64
		// registers each), so 256-thread blocks, four per SM, unless the
		// chunks would pass 64K columns; then 512, two per SM (measured on
		// the H200: docs/PERFORMANCE.md, GPU entry 3).
		p.threads = 256
		splits := max(1, min(gpu.CeilDiv(4*int64(d.sms), rows), gpu.CeilDiv(n, 2048)))
		if gpu.CeilDiv(n, splits) > 65536 {
			p.threads = 512
			splits = max(1, min(gpu.CeilDiv(2*int64(d.sms), rows), gpu.CeilDiv(n, 2048)))
		}
		p.chunk = gpu.CeilDiv(gpu.CeilDiv(n, splits), int64(pk)) * int64(pk)
		p.splits = gpu.CeilDiv(n, p.chunk)
		p.names = []string{d.kernel(c, "split_stats").name, d.kernel(c, "split_apply").name}
		p.grid = [2]int{int(p.splits), int(rows)}
		p.work = (rows*p.splits + 1) * gpu.SplitPartBytes(c.dt, c.bwd) // and the slot of CUDA's pieces counter, which the shared statistics kernel zeroes
		if !c.bwd && c.mask != 0 && p.vec {
			p.work = gpu.SplitBits(p.work, rows, n)
		}
	case TierInner:
		p.names = []string{d.kernel(c, "inner").name}
		p.threads = innerThreads
		p.grid[0] = blocks(gpu.CeilDiv(rows*int64(v.Inner), innerThreads), 32)
	}
	for _, name := range p.names {
		k := d.kernels[name]
		if k == nil {
			return plan{}, fmt.Errorf("hip: no kernel %s in the loaded module", name)
		}
		if p.threads > k.maxThreads && p.tier == TierRows && p.group > d.wave {
			// The group is the block: it cannot shrink.
			return plan{}, fmt.Errorf("hip: %s runs at most %d threads per block; rows of %d columns need %d", name, k.maxThreads, n, p.threads)
		}
		if p.threads > k.maxThreads {
			// Block reductions need whole wavefronts.
			p.threads = k.maxThreads / d.wave * d.wave
		}
		if p.smem > k.dynSmem {
			return plan{}, fmt.Errorf("hip: %s needs %d bytes of LDS, the device allows %d", name, p.smem, k.dynSmem)
		}
	}
	return p, nil
}

// slots are the kernel parameters of c under plan p, one 8-byte slot each,
// in the order of SM_VIEW_PARAMS and SM_EXTRA_PARAMS
// (cukernels/softmax.cuh), after the buffers.
func slots(c *call, md gpu.MaskDims, p plan, work DevicePtr) []uint64 {
	v := c.v
	i := func(n int) uint64 { return uint64(int64(n)) }
	b := func(t bool) uint64 { return uint64(btoi(t)) }
	causalRows := 0
	if v.Causal {
		causalRows = v.CausalRows
	}
	s := make([]uint64, 0, 33)
	for _, buf := range c.bufs {
		s = append(s, uint64(buf))
	}
	s = append(s, i(v.Outer), i(v.N), i(v.Inner), math.Float64bits(gpu.KernelScale(c.dt, v.Scale)), b(v.Log),
		i(causalRows), i(v.Offset), uint64(c.mask), i(v.MaskStride))
	for _, a := range [][4]int64{md.OuterSize, md.OuterStride, md.InnerSize, md.InnerStride} {
		for _, e := range a {
			s = append(s, uint64(e))
		}
	}
	return append(s, uint64(work), b(p.vec), i(p.group), uint64(p.chunk), uint64(p.splits))
}

// launch queues c's kernels on the device's stream; it runs on the device
// thread.
func (d *Device) launch(c *call) error {
	v := c.v
	if v.Len() == 0 {
		return nil
	}
	md, ok := gpu.NewMaskDims(v)
	if !ok {
		return fmt.Errorf("hip: mask shape %v against x shape %v needs more than 4 outer or 4 inner mask dimensions after merging", v.MaskShape, v.Shape)
	}
	p, err := d.makePlan(c)
	if err != nil {
		return err
	}
	var work DevicePtr
	if p.work > 0 {
		if work, err = d.workspace(p.work); err != nil {
			return err
		}
	}
	args := slots(c, md, p, work)
	for _, name := range p.names {
		if err := d.kernels[name].fn.launch(p.grid[0], p.grid[1], p.threads, p.smem, d.stream, args); err != nil {
			return fmt.Errorf("hip: launching %s (grid %v, %d threads, %d bytes LDS): %w", name, p.grid, p.threads, p.smem, err)
		}
	}
	return nil
}

// run computes c and waits for it; it runs on the device thread.
func (d *Device) run(c *call) error {
	if err := d.launch(c); err != nil {
		return err
	}
	if err := d.stream.synchronize(); err != nil {
		return fmt.Errorf("hip: %s over shape %v: %w", c.v.Params, c.v.Shape, err)
	}
	return nil
}
