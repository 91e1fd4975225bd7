package gpu

import (
	"math"
	"slices"
	"testing"
)

// TestRowsShape checks tier 1's layout for every row length up to past the
// largest it takes: the group covers the row, has a kernel, is a power of
// two up to a warp or whole warps above, and the row does not fit with
// fewer packs per thread than chosen (unless at the preferred count).
func TestRowsShape(t *testing.T) {
	defer func(k int) { rowsPreferOverride = k }(rowsPreferOverride)
	rowsPreferOverride = 0 // the rules, not SOFTMAX_ROWS_K
	for _, warp := range []int{32, 64} {
		for dt := Float32; dt <= BFloat16; dt++ {
			for _, c := range []struct {
				bwd  bool
				keep Keep
			}{{false, KeepAll}, {false, KeepCausal}, {false, KeepMask}, {true, KeepAll}, {true, KeepCausal}, {true, KeepMask}} {
				bwd, keep := c.bwd, c.keep
				p := 16 / dt.Size()
				_, most := rowsK(dt, bwd, keep, 1)
				limit := RowsMaxGroup(bwd, most) * most * p
				for n := 1; n <= limit+3*p; n++ {
					k, w, ok := RowsShape(dt, bwd, keep, int64(n), warp)
					if ok != (n <= limit) {
						t.Fatalf("%v bwd=%v warp %d n %d: ok %v; want %v", dt, bwd, warp, n, ok, n <= limit)
					}
					if !ok {
						continue
					}
					prefer, _ := rowsK(dt, bwd, keep, int64((n+p-1)/p))
					pow2 := w&(w-1) == 0
					switch {
					case k*w*p < n:
						t.Fatalf("%v bwd=%v n %d: k %d w %d cover %d columns", dt, bwd, n, k, w, k*w*p)
					case !slices.Contains(RowsKs(), k):
						t.Fatalf("%v bwd=%v n %d: no kernel for k %d", dt, bwd, n, k)
					case w > RowsMaxGroup(bwd, k) || (w <= warp && !pow2) || (w > warp && w%warp != 0):
						t.Fatalf("%v bwd=%v warp %d n %d: w %d", dt, bwd, warp, n, w)
					case k > prefer && (n+p-1)/p <= RowsMaxGroup(bwd, k/2)*k/2:
						t.Fatalf("%v bwd=%v n %d: k %d where %d would do", dt, bwd, n, k, k/2)
					}
					threads, rows := RowsThreads(w, warp)
					if threads%warp != 0 || rows*w != threads && w <= warp || w > warp && (threads != w || rows != 1) {
						t.Fatalf("%v warp %d w %d: %d threads, %d rows per block", dt, warp, w, threads, rows)
					}
				}
			}
		}
	}
	if k, w, _ := RowsShape(Float32, false, KeepAll, 4096, 32); k != 4 || w != 256 {
		t.Errorf("float32 4096: k %d w %d; want 4, 256", k, w)
	}
	// Unmasked half backward rows of at most 16 packs take K = 1 (entry 12);
	// unmasked rows of 17 to 128 packs K = 4 (half forward and backward,
	// float32 backward from 33 packs but where K = 2 fills its group), half
	// backward rows of 129 to 255 packs K = 2 (entry 90).
	for _, c := range []struct {
		dt       Dtype
		bwd      bool
		keep     Keep
		n        int64
		wantK, w int
	}{
		{Float16, true, KeepAll, 128, 1, 16},
		{BFloat16, true, KeepAll, 128, 1, 16},
		{Float16, true, KeepAll, 136, 4, 8},
		{Float16, true, KeepMask, 128, 2, 8},
		{Float16, true, KeepAll, 1025, 2, 96},
		{BFloat16, true, KeepAll, 2040, 2, 128},
		{Float16, true, KeepAll, 2048, 4, 64},
		{Float16, false, KeepAll, 128, 2, 8},
		{Float16, false, KeepAll, 136, 4, 8},
		{BFloat16, false, KeepAll, 577, 4, 32},
		{Float16, false, KeepAll, 1024, 4, 32},
		{Float16, false, KeepAll, 1025, 2, 96},
		{Float16, false, KeepCausal, 1025, 4, 64},
		{Float32, true, KeepAll, 128, 2, 16},
		{Float32, true, KeepAll, 300, 4, 32},
		{Float32, true, KeepAll, 512, 2, 64},
		{Float32, true, KeepAll, 256, 2, 32},
		{Float32, true, KeepAll, 252, 2, 32},
		{Float32, true, KeepAll, 224, 2, 32},
		{Float32, true, KeepAll, 220, 4, 16},
		{Float32, true, KeepAll, 444, 4, 32},
		{Float32, true, KeepAll, 448, 2, 64},
		{Float32, true, KeepAll, 136, 4, 16},
		{Float32, true, KeepAll, 577, 2, 96},
		{Float32, true, KeepMask, 300, 2, 64},
	} {
		if k, w, _ := RowsShape(c.dt, c.bwd, c.keep, c.n, 32); k != c.wantK || w != c.w {
			t.Errorf("%v backward %v %d columns, keep %v: k %d w %d; want %d, %d", c.dt, c.bwd, c.n, c.keep, k, w, c.wantK, c.w)
		}
	}
	for _, c := range []struct {
		name string
		want string
	}{
		{RowsKernel(BFloat16, true, 2, KeepMask), "softmax_bwd_rows2m_bf16"},
		{RowsKernel(Float32, false, 4, KeepCausal), "softmax_fwd_rows4m_f32"},
		{PipeKernel(Float16, false, 4, KeepCausal), "softmax_fwd_pipe4c_f16"},
		{PipeKernel(Float16, true, 2, KeepMask), "softmax_bwd_pipe2m_f16"},
		{PipeKernel(Float32, false, 1, KeepAll), "softmax_fwd_pipe1_f32"},
	} {
		if c.name != c.want {
			t.Errorf("kernel %s, want %s", c.name, c.want)
		}
	}
	if a, c, m := PipeSmem(Float32, true, KeepAll, 2, 128), PipeSmem(Float32, true, KeepCausal, 2, 128),
		PipeSmem(Float32, true, KeepMask, 2, 128); a != 16384 || c != a || m != a+2*2*128*4 {
		t.Errorf("PipeSmem: unmasked %d, causal %d, masked %d", a, c, m)
	}
}

// TestRowsOverride: SOFTMAX_ROWS_K takes powers of two up to what tier 1
// takes and is ignored otherwise, so every K it yields has a kernel (the
// packed kernels' too).
func TestRowsOverride(t *testing.T) {
	defer func(k int) { rowsPreferOverride = k }(rowsPreferOverride)
	for _, c := range []struct{ set, want int }{{0, 4}, {1, 1}, {2, 2}, {3, 4}, {8, 4}, {-1, 4}} {
		rowsPreferOverride = c.set
		if k, _, _ := RowsShape(Float32, false, KeepAll, 1<<12, 32); k != c.want {
			t.Errorf("SOFTMAX_ROWS_K=%d: k %d; want %d", c.set, k, c.want)
		}
		if k, _, _ := PackedShape(Float16, 1<<12, 32); k != c.want {
			t.Errorf("SOFTMAX_ROWS_K=%d: packed k %d; want %d", c.set, k, c.want)
		}
	}
}

// TestPackedShape: the packed kernels take K = 4 where a row has that
// many packs, hold the rows tier 1 holds for the half types' forward
// (32768 columns), and serve only the half types' unmasked forward:
// log-softmax from 2048 columns or 2^24 elements, softmax from 2048
// columns and 2^25 elements or at 9-16 packs from 2^26 elements.
func TestPackedShape(t *testing.T) {
	defer func(k int, p string) { rowsPreferOverride, packedSetting = k, p }(rowsPreferOverride, packedSetting)
	rowsPreferOverride, packedSetting = 0, "" // the rules, not the knobs
	for _, c := range []struct {
		n    int64
		k, w int
		ok   bool
	}{{8, 1, 1, true}, {16, 2, 1, true}, {24, 4, 1, true}, {2048, 4, 64, true}, {1024, 4, 32, true}, {32768, 4, 1024, true}, {32776, 0, 0, false}} {
		k, w, ok := PackedShape(Float16, c.n, 32)
		if k != c.k || w != c.w || ok != c.ok {
			t.Errorf("PackedShape(%d): %d, %d, %v; want %d, %d, %v", c.n, k, w, ok, c.k, c.w, c.ok)
		}
		if _, _, rowsOK := RowsShape(Float16, false, KeepAll, c.n, 32); rowsOK != ok {
			t.Errorf("%d columns: tier 1 holds them %v, the packed kernels %v", c.n, rowsOK, ok)
		}
	}
	for _, c := range []struct {
		dt      Dtype
		bwd     bool
		keep    Keep
		log     bool
		rows, n int64
		want    bool
	}{
		{Float16, false, KeepAll, false, 16384, 2048, true}, {BFloat16, false, KeepAll, false, 16 * 16 * 2048, 2048, true},
		{Float16, false, KeepAll, false, 2048, 8192, false}, {Float16, false, KeepAll, false, 1 << 18, 128, false},
		{Float16, false, KeepAll, true, 2048, 2048, true}, {BFloat16, false, KeepAll, true, 32768, 512, true},
		{BFloat16, false, KeepAll, true, 65536, 128, false}, {Float16, false, KeepAll, true, 2048, 1024, false},
		{Float32, false, KeepAll, true, 16384, 2048, false}, {Float16, true, KeepAll, true, 16384, 2048, false},
		{Float16, false, KeepCausal, true, 16384, 2048, false}, {BFloat16, false, KeepMask, false, 16384, 2048, false},
		{BFloat16, false, KeepCausal, false, 16 * 16 * 2048, 2048, false},
		// Rows past 2048 packs keep the pipelined kernels (entry 90).
		{Float16, false, KeepAll, true, 2048, 16384, true}, {Float16, false, KeepAll, true, 1024, 16392, false},
		{BFloat16, false, KeepAll, true, 1024, 32000, false}, {Float16, false, KeepAll, false, 4096, 32768, false},
		// Softmax's rows of 9-16 packs from 2^26 elements (entry 107):
		// not the 65536x128, nor 8 or 17 packs, nor float32.
		{Float16, false, KeepAll, false, 1 << 20, 72, true}, {BFloat16, false, KeepAll, false, 1 << 19, 128, true},
		{Float16, false, KeepAll, false, 1 << 20, 96, true}, {BFloat16, false, KeepAll, false, 1<<19 - 1, 128, false},
		{Float16, false, KeepAll, false, 65536, 128, false}, {BFloat16, false, KeepAll, false, 131072, 96, false},
		{Float16, false, KeepAll, false, 1 << 21, 64, false}, {Float16, false, KeepAll, false, 1 << 20, 136, false},
		{Float32, false, KeepAll, false, 1 << 20, 64, false}, {Float16, true, KeepAll, false, 1 << 20, 96, false},
		{BFloat16, false, KeepMask, false, 1 << 20, 96, false},
	} {
		if got := PackedOn(c.dt, c.bwd, c.keep, c.log, c.rows, c.n); got != c.want {
			t.Errorf("PackedOn(%v, bwd %v, keep %v, log %v, %dx%d) = %v", c.dt, c.bwd, c.keep, c.log, c.rows, c.n, got)
		}
	}
}

// TestClusterShape: the cluster covers the row with the fewest blocks,
// whole warps per block, and gives up past 8 blocks of 1024 threads.
func TestClusterShape(t *testing.T) {
	for _, c := range []struct {
		dt                 Dtype
		bwd                bool
		n                  int64
		k, blocks, threads int
		ok                 bool
	}{
		{Float32, false, 32000, 4, 4, 512, true},   // 8000 packs: 500 threads each, rounded to warps
		{Float32, false, 128256, 4, 8, 1024, true}, // 32064 packs
		{Float32, false, 131072, 4, 8, 1024, true}, // the most
		{Float32, false, 131073, 0, 0, 0, false},
		{Float16, false, 128256, 4, 8, 512, true}, // 16032 packs
		{BFloat16, true, 128256, 2, 8, 1024, true},
		{Float32, true, 128256, 0, 0, 0, false}, // 32064 packs need 16 blocks
		{Float32, false, 1, 4, 2, 32, true},
		{Float64, false, 1000, 0, 0, 0, false},
	} {
		k, b, th, ok := ClusterShape(c.dt, c.bwd, c.n, 32)
		if k != c.k || b != c.blocks || th != c.threads || ok != c.ok {
			t.Errorf("%v bwd=%v n=%d: (%d, %d, %d, %v); want (%d, %d, %d, %v)", c.dt, c.bwd, c.n, k, b, th, ok, c.k, c.blocks, c.threads, c.ok)
		}
	}
	for n := int64(1); n <= 300000; n += 997 {
		for dt := Float32; dt <= BFloat16; dt++ {
			for _, bwd := range []bool{false, true} {
				k, b, th, ok := ClusterShape(dt, bwd, n, 32)
				if !ok {
					continue
				}
				p := int64(16 / dt.Size())
				if int64(k*b*th)*p < n || th%32 != 0 || th > RowsMaxThreads || b > ClusterMaxBlocks {
					t.Fatalf("%v bwd=%v n=%d: k %d blocks %d threads %d", dt, bwd, n, k, b, th)
				}
			}
		}
	}
	if got := ClusterKernel(Float16, true, true, false); got != "softmax_bwd_clus2m_f16" {
		t.Errorf("ClusterKernel = %s", got)
	}
	if got := ClusterShiftKernel(BFloat16, false, false, true); got != "softmax_fwd_cpipe4s_bf16" {
		t.Errorf("ClusterShiftKernel = %s", got)
	}
	if got := ClusterShiftKernel(Float32, true, true, false); got != "softmax_bwd_clus2ms_f32" {
		t.Errorf("ClusterShiftKernel = %s", got)
	}
	if got := len(ClusterKernels()); got != 36 {
		t.Errorf("%d cluster kernels; want 36", got)
	}
}

// TestPipeOn pins which tier 1 rows take the pipelined kernels by default:
// the half types, masked and causal rows (but float32 forward rows with a
// mask buffer at K = 4 in groups of at most 256 threads), and float32
// backward at K = 4 or at K = 2 in groups of more than 256 threads.
func TestPipeOn(t *testing.T) {
	defer func(s string) { pipeSetting = s }(pipeSetting)
	pipeSetting = ""
	for _, c := range []struct {
		dt   Dtype
		bwd  bool
		k, w int
		keep Keep
		want bool
	}{
		{Float32, false, 4, 256, KeepAll, false},
		{Float32, true, 2, 256, KeepAll, false},
		{Float32, true, 2, 288, KeepAll, true},
		{Float32, true, 2, 512, KeepAll, true},
		{Float32, true, 1, 1024, KeepAll, false},
		{Float32, false, 2, 512, KeepAll, false},
		{Float32, true, 4, 256, KeepAll, true},
		{Float32, false, 2, 256, KeepCausal, true},
		{Float32, false, 4, 256, KeepCausal, true},
		{Float32, false, 4, 512, KeepMask, true},
		{Float32, false, 4, 256, KeepMask, false},
		{Float32, false, 4, 64, KeepMask, false},
		{Float32, false, 2, 32, KeepMask, true},
		{Float32, true, 4, 256, KeepMask, true},
		{Float16, false, 4, 256, KeepMask, true},
		{Float64, true, 4, 256, KeepAll, false},
		{Float16, false, 2, 256, KeepAll, true},
		{BFloat16, true, 4, 256, KeepAll, true},
	} {
		if got := PipeOn(c.dt, c.bwd, c.k, c.w, c.keep); got != c.want {
			t.Errorf("PipeOn(%v, bwd %v, k %d, w %d, keep %v) = %v, want %v", c.dt, c.bwd, c.k, c.w, c.keep, got, c.want)
		}
	}
	pipeSetting = "0"
	if PipeOn(Float16, false, 2, 256, KeepAll) {
		t.Error("SOFTMAX_PIPE=0: pipelined kernels still taken")
	}
}

// TestPipeRowsFit pins the bound of the pipelined kernels' 32-bit row
// indices: rows + perBlock + step, above the largest index they form, must
// stay below 2^31.
func TestPipeRowsFit(t *testing.T) {
	for _, c := range []struct {
		rows, step, perBlock int64
		want                 bool
	}{
		{65536, 132 * 16, 16, true},
		{math.MaxInt32 - 2048 - 16, 2048, 16, true},
		{math.MaxInt32 - 2048 - 16 + 1, 2048, 16, false},
		{math.MaxInt32, 1, 0, false},
		{1 << 40, 132, 1, false},
		{1, math.MaxInt64, math.MaxInt64, false}, // no overflow
		{-1, 1, 1, false},
	} {
		if got := PipeRowsFit(c.rows, c.step, c.perBlock); got != c.want {
			t.Errorf("PipeRowsFit(%d, %d, %d) = %v, want %v", c.rows, c.step, c.perBlock, got, c.want)
		}
	}
}

// TestPipeBlocksCap pins the pipelined kernels' cap on blocks per SM: 4
// for the half types' backward at K = 4 in 64-thread groups, 2 in
// 128-thread groups (unmasked rows only); for unmasked float32 backward at
// K = 2 in groups of more than 256 threads, 768/w; none elsewhere.
func TestPipeBlocksCap(t *testing.T) {
	defer func(n int) { pipeBlocksSetting = n }(pipeBlocksSetting)
	pipeBlocksSetting = 0
	for _, c := range []struct {
		dt   Dtype
		bwd  bool
		k, w int
		keep Keep
		want int
	}{
		{Float16, true, 4, 64, KeepAll, 4},
		{BFloat16, true, 4, 64, KeepAll, 4},
		{Float16, false, 4, 64, KeepAll, 0},
		{Float16, true, 4, 128, KeepAll, 2},
		{BFloat16, true, 4, 128, KeepAll, 2},
		{Float16, true, 4, 256, KeepAll, 0},
		{Float16, false, 4, 128, KeepAll, 0},
		{Float16, true, 2, 64, KeepAll, 0},
		{Float16, true, 4, 64, KeepCausal, 0},
		{BFloat16, true, 4, 128, KeepMask, 0},
		{Float32, true, 4, 64, KeepAll, 0},
		{Float32, true, 2, 256, KeepAll, 0},
		{Float32, true, 2, 288, KeepAll, 2},
		{Float32, true, 2, 384, KeepAll, 2},
		{Float32, true, 2, 512, KeepAll, 1},
		{Float32, true, 2, 512, KeepMask, 0},
		{Float32, false, 2, 512, KeepAll, 0},
		{Float16, false, 4, 16, KeepMask, 4},
		{BFloat16, false, 4, 32, KeepMask, 4},
		{Float16, false, 4, 64, KeepMask, 0},
		{Float16, false, 4, 16, KeepCausal, 0},
		{Float16, false, 2, 16, KeepMask, 0},
		{Float32, false, 4, 16, KeepMask, 0},
	} {
		if got := PipeBlocksCap(c.dt, c.bwd, c.k, c.w, c.keep); got != c.want {
			t.Errorf("PipeBlocksCap(%v, bwd %v, k %d, w %d, keep %v) = %d, want %d", c.dt, c.bwd, c.k, c.w, c.keep, got, c.want)
		}
	}
	pipeBlocksSetting = 6
	if got := PipeBlocksCap(Float32, false, 1, 32, KeepAll); got != 6 {
		t.Errorf("SOFTMAX_PIPE_BLOCKS=6: cap %d", got)
	}
}

// TestRowsBlock: SOFTMAX_ROWS_BLOCK sets the block of groups up to a warp
// to a power of two from 32 to 512, never below the warp, and leaves
// wider groups one to a block.
func TestRowsBlock(t *testing.T) {
	defer func(b int) { rowsBlockSetting = b }(rowsBlockSetting)
	for _, c := range []struct{ set, w, warp, threads, rows int }{
		{0, 8, 32, 128, 16}, {64, 8, 32, 64, 8}, {32, 8, 32, 32, 4}, {32, 8, 64, 64, 8},
		{256, 32, 32, 256, 8}, {48, 8, 32, 128, 16}, {1024, 8, 32, 128, 16}, {512, 4, 32, 512, 128}, {64, 256, 32, 256, 1},
	} {
		rowsBlockSetting = c.set
		if threads, rows := RowsThreads(c.w, c.warp); threads != c.threads || rows != c.rows {
			t.Errorf("SOFTMAX_ROWS_BLOCK=%d w %d warp %d: %d threads, %d rows; want %d, %d", c.set, c.w, c.warp, threads, rows, c.threads, c.rows)
		}
	}
}

// TestShiftOn checks the shifted kernels' rule at the lengths of GPU entry
// 87's measurements, either side of each bound, and the kernels' names.
func TestShiftOn(t *testing.T) {
	if shiftSetting != "" {
		t.Skip("SOFTMAX_SHIFT is set")
	}
	for _, c := range []struct {
		dt   Dtype
		bwd  bool
		keep Keep
		n    int64
		want bool
	}{
		{Float32, false, KeepAll, 10, true},
		{Float32, false, KeepAll, 33, true},
		{Float64, false, KeepAll, 33, true},
		{Float32, false, KeepCausal, 127, false},
		{Float32, false, KeepMask, 128, true},
		{Float16, false, KeepAll, 33, false},
		{BFloat16, false, KeepAll, 63, false},
		{BFloat16, false, KeepAll, 64, true},
		{Float16, false, KeepMask, 31, false},
		{Float16, false, KeepCausal, 32, true},
		{Float32, true, KeepAll, 127, false},
		{Float32, true, KeepAll, 38, false},
		{Float32, true, KeepAll, 41, true},
		{Float32, true, KeepAll, 63, true},
		{Float32, true, KeepAll, 65, false},
		{Float16, true, KeepAll, 50, true},
		{BFloat16, true, KeepAll, 33, false},
		{Float64, true, KeepAll, 49, false},
		{Float32, true, KeepMask, 49, false},
		{Float16, true, KeepCausal, 57, false},
		{BFloat16, true, KeepAll, 128, true},
		{Float16, true, KeepMask, 77, false},
	} {
		if got := ShiftOn(c.dt, c.bwd, c.keep, c.n); got != c.want {
			t.Errorf("ShiftOn(%v, bwd %v, keep %v, %d) = %v, want %v", c.dt, c.bwd, c.keep, c.n, got, c.want)
		}
	}
	if got := RowsShiftKernel(BFloat16, true, 2, KeepCausal); got != "softmax_bwd_rows2ms_bf16" {
		t.Errorf("RowsShiftKernel = %s", got)
	}
	if got := RowsShiftKernel(Float32, false, 4, KeepAll); got != "softmax_fwd_rows4s_f32" {
		t.Errorf("RowsShiftKernel = %s", got)
	}
	if pipeSetting == "" {
		for _, c := range []struct {
			dt   Dtype
			bwd  bool
			keep Keep
			want bool
		}{
			{Float32, false, KeepCausal, false},
			{Float32, true, KeepCausal, true},
			{Float16, false, KeepCausal, true},
			{BFloat16, false, KeepAll, true},
			{Float32, false, KeepAll, false},
		} {
			if got := PipeShiftOn(c.dt, c.bwd, 2, 32, c.keep); got != c.want {
				t.Errorf("PipeShiftOn(%v, bwd %v, 2, 32, %v) = %v, want %v", c.dt, c.bwd, c.keep, got, c.want)
			}
		}
	}
	for _, c := range []struct {
		dt   Dtype
		bwd  bool
		k    int
		keep Keep
		want string
	}{
		{Float16, false, 2, KeepAll, "softmax_fwd_pipe2s_f16"},
		{Float32, true, 4, KeepCausal, "softmax_bwd_pipe4cs_f32"},
		{BFloat16, false, 1, KeepMask, ""},
	} {
		if got, ok := PipeShiftKernel(c.dt, c.bwd, c.k, c.keep); got != c.want || ok != (c.want != "") {
			t.Errorf("PipeShiftKernel(%v, bwd %v, %d, %v) = %q, %v; want %q", c.dt, c.bwd, c.k, c.keep, got, ok, c.want)
		}
	}
}
