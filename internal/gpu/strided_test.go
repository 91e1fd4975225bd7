package gpu

import (
	"slices"
	"testing"
)

// TestStridedShape checks the strided layout against its definition,
// written out case by case: the fewest columns a thread that a warp of 32
// covers, and the least power-of-two group that covers the row.
func TestStridedShape(t *testing.T) {
	for _, c := range []struct {
		n    int64
		e, w int
		ok   bool
	}{
		{0, 0, 0, false},
		{1, 4, 1, true},
		{4, 4, 1, true},
		{5, 4, 2, true},
		{77, 4, 32, true},
		{128, 4, 32, true},
		{129, 8, 32, true},
		{197, 8, 32, true},
		{256, 8, 32, true},
		{257, 16, 32, true},
		{300, 16, 32, true},
		{512, 16, 32, true},
		{513, 32, 32, true},
		{577, 32, 32, true},
		{1024, 32, 32, true},
		{1025, 0, 0, false},
	} {
		e, w, ok := StridedShape(true, c.n, 32)
		if e != c.e || w != c.w || ok != c.ok {
			t.Errorf("StridedShape(%d) = %d, %d, %v; want %d, %d, %v", c.n, e, w, ok, c.e, c.w, c.ok)
		}
	}
	// The forward's lengths: E = 12, 20 and 24 fill more of a warp.
	for _, c := range []struct {
		n    int64
		e, w int
		ok   bool
	}{
		{1, 4, 1, true},
		{197, 8, 32, true},
		{257, 12, 32, true},
		{300, 12, 32, true},
		{385, 16, 32, true},
		{577, 20, 32, true},
		{641, 24, 32, true},
		{769, 32, 32, true},
		{1024, 32, 32, true},
		{1025, 0, 0, false},
	} {
		e, w, ok := StridedShape(false, c.n, 32)
		if e != c.e || w != c.w || ok != c.ok {
			t.Errorf("StridedShape(forward, %d) = %d, %d, %v; want %d, %d, %v", c.n, e, w, ok, c.e, c.w, c.ok)
		}
	}
	// A smaller warp: 64 columns at E = 4 need 16 lanes of a 16-lane warp.
	if e, w, ok := StridedShape(true, 64, 16); e != 4 || w != 16 || !ok {
		t.Errorf("StridedShape(64, 16) = %d, %d, %v; want 4, 16, true", e, w, ok)
	}
}

// TestStridedOn checks the rule: under SOFTMAX_STRIDED=1 unmasked rows
// of the types with kernels; =0 none; by default unmasked rows of a part
// pack in the lengths the H200 measured the one-row forms faster.
func TestStridedOn(t *testing.T) {
	saved := stridedSetting
	defer func() { stridedSetting = saved }()
	stridedSetting = "1"
	for _, c := range []struct {
		t    Dtype
		bwd  bool
		keep Keep
		want bool
	}{
		{Float32, true, KeepAll, true},
		{Float16, true, KeepAll, true},
		{BFloat16, true, KeepAll, true},
		{Float64, true, KeepAll, false},
		{Float32, false, KeepAll, true},
		{Float16, false, KeepAll, true},
		{Float32, true, KeepCausal, false},
		{Float32, true, KeepMask, false},
	} {
		if got := StridedOn(c.t, c.bwd, c.keep, 197); got != c.want {
			t.Errorf("SOFTMAX_STRIDED=1: StridedOn(%v, bwd %v, %v) = %v, want %v", c.t, c.bwd, c.keep, got, c.want)
		}
	}
	stridedSetting = "0"
	for _, n := range []int64{77, 197, 255, 577} {
		if StridedOn(Float32, true, KeepAll, n) {
			t.Errorf("SOFTMAX_STRIDED=0: StridedOn(float32, %d) = true, want false", n)
		}
	}
	stridedSetting = ""
	for _, c := range []struct {
		t    Dtype
		bwd  bool
		keep Keep
		n    int64
		want bool
	}{
		{Float32, true, KeepAll, 64, false}, // a group under a warp
		{Float32, true, KeepAll, 65, true},
		{Float32, true, KeepAll, 197, true},
		{Float32, true, KeepAll, 128, false}, // whole packs, K = 2 (groups full): level
		{Float32, true, KeepAll, 512, false},
		{Float32, true, KeepAll, 68, false}, // whole packs, K = 2 (groups part full): level or slower
		{Float32, true, KeepAll, 232, false},
		{Float32, true, KeepAll, 640, false},
		{Float32, true, KeepAll, 136, true}, // whole packs, K = 4: pipelined without the rule
		{Float32, true, KeepAll, 300, true},
		{Float32, true, KeepAll, 444, true},
		{Float32, true, KeepAll, 448, false},
		{Float32, false, KeepAll, 300, false}, // whole packs, forward
		{Float32, true, KeepAll, 639, true},
		{Float32, true, KeepAll, 641, false}, // past 640
		{Float32, true, KeepMask, 197, false},
		{Float32, false, KeepAll, 127, false},
		{Float32, false, KeepAll, 129, true},
		{Float32, false, KeepAll, 577, true},
		{Float32, false, KeepCausal, 197, false},
		{Float16, false, KeepAll, 223, false},
		{Float16, false, KeepAll, 225, true},
		{BFloat16, false, KeepAll, 577, true},
		{BFloat16, false, KeepAll, 256, false},
		{Float16, true, KeepAll, 77, true},
		{BFloat16, true, KeepAll, 128, false}, // whole packs
		{Float16, true, KeepAll, 129, false},
		{Float16, true, KeepAll, 249, false},
		{BFloat16, true, KeepAll, 250, true},
		{Float16, true, KeepAll, 255, true},
		{Float16, true, KeepAll, 257, false},
		{Float64, true, KeepAll, 197, false},
	} {
		if got := StridedOn(c.t, c.bwd, c.keep, c.n); got != c.want {
			t.Errorf("StridedOn(%v, bwd %v, %v, %d) = %v, want %v", c.t, c.bwd, c.keep, c.n, got, c.want)
		}
	}
}

// TestStridedBatchShape checks the batched kernel's columns a lane,
// written out: 2 up to 64 columns, 4 up to 128, none under 33 or past 128
// or for a warp other than 32 lanes.
func TestStridedBatchShape(t *testing.T) {
	for _, c := range []struct {
		n    int64
		warp int
		e    int
		ok   bool
	}{
		{1, 32, 0, false}, {32, 32, 0, false}, {33, 32, 2, true}, {64, 32, 2, true},
		{65, 32, 4, true}, {128, 32, 4, true}, {129, 32, 0, false}, {0, 32, 0, false},
		{68, 64, 0, false}, // a wavefront of 64: the kernel is built for 32 lanes
	} {
		e, ok := StridedBatchShape(c.n, c.warp)
		if e != c.e || ok != c.ok {
			t.Errorf("StridedBatchShape(%d, %d) = %d, %v, want %d, %v", c.n, c.warp, e, ok, c.e, c.ok)
		}
	}
	if got, want := StridedBatchKernel(4), "softmax_bwd_stronce4r2_f32"; got != want {
		t.Errorf("StridedBatchKernel(4) = %s, want %s", got, want)
	}
}

// TestStridedBatchOn checks the rule (float32 backward, unmasked, 62 to
// 80 columns, 24576 rows or more) and its knob: =1 every unmasked float32
// backward call, =0 none.
func TestStridedBatchOn(t *testing.T) {
	saved := stridedBatchSetting
	defer func() { stridedBatchSetting = saved }()
	for _, c := range []struct {
		t        Dtype
		bwd      bool
		keep     Keep
		rows, n  int64
		def, all bool // the rule's answer; SOFTMAX_STRIDED_BATCH=1's
	}{
		{Float32, true, KeepAll, 65536, 61, false, true}, {Float32, true, KeepAll, 65536, 62, true, true},
		{Float32, true, KeepAll, 131072, 63, true, true}, {Float32, true, KeepAll, 1 << 20, 63, true, true},
		{Float32, true, KeepAll, 24575, 63, false, true}, {Float32, true, KeepAll, 65536, 64, true, true},
		{Float32, true, KeepAll, 65536, 68, true, true}, {Float32, true, KeepAll, 65536, 77, true, true},
		{Float32, true, KeepAll, 65536, 80, true, true}, {Float32, true, KeepAll, 65536, 81, false, true},
		{Float32, true, KeepAll, 65536, 33, false, true}, {Float32, true, KeepAll, 65536, 128, false, true},
		{Float32, true, KeepAll, 24576, 68, true, true}, {Float32, true, KeepAll, 24575, 68, false, true},
		{Float32, true, KeepAll, 8192, 77, false, true},
		{Float32, false, KeepAll, 65536, 68, false, false}, {Float16, true, KeepAll, 65536, 68, false, false},
		{BFloat16, true, KeepAll, 65536, 68, false, false}, {Float64, true, KeepAll, 65536, 68, false, false},
		{Float32, true, KeepMask, 65536, 68, false, false}, {Float32, true, KeepCausal, 65536, 68, false, false},
	} {
		for set, want := range map[string]bool{"": c.def, "x": c.def, "0": false, "1": c.all} {
			stridedBatchSetting = set
			if got := StridedBatchOn(c.t, c.bwd, c.keep, c.rows, c.n); got != want {
				t.Errorf("SOFTMAX_STRIDED_BATCH=%q: StridedBatchOn(%v, %v, %v, %d, %d) = %v, want %v", set, c.t, c.bwd, c.keep, c.rows, c.n, got, want)
			}
		}
	}
}

// TestStagedShape checks the staged kernels' row lengths (the least N of
// 8, 16, 32, 48, 56, 64 that holds the row, none past 64) and their rows a
// thread (2 forward only, up to 32 columns).
func TestStagedShape(t *testing.T) {
	for _, c := range []struct {
		n  int64
		N  int
		ok bool
	}{{0, 0, false}, {1, 8, true}, {8, 8, true}, {9, 16, true}, {16, 16, true}, {17, 32, true}, {32, 32, true}, {33, 48, true}, {48, 48, true}, {49, 56, true}, {56, 56, true}, {57, 64, true}, {64, 64, true}, {65, 0, false}} {
		if N, ok := StagedShape(c.n); N != c.N || ok != c.ok {
			t.Errorf("StagedShape(%d) = %d, %v; want %d, %v", c.n, N, ok, c.N, c.ok)
		}
	}
	for _, c := range []struct {
		bwd  bool
		N    int
		want []int
	}{{false, 8, []int{1, 2}}, {false, 32, []int{1, 2}}, {false, 48, []int{1}}, {false, 56, []int{1}}, {false, 64, []int{1}}, {true, 16, []int{1}}, {true, 64, []int{1}}} {
		if got := StagedRs(c.bwd, c.N); !slices.Equal(got, c.want) {
			t.Errorf("StagedRs(%v, %d) = %v, want %v", c.bwd, c.N, got, c.want)
		}
	}
	if got := StagedSmem(Float16, true, 10, 2); got != 128*2*10*2*2 {
		t.Errorf("StagedSmem(float16, backward, 10, 2) = %d, want %d", got, 128*2*10*2*2)
	}
	if got := StagedKernel(BFloat16, false, 16, 2); got != "softmax_fwd_staged16r2_bf16" {
		t.Errorf("StagedKernel(bfloat16, forward, 16, 2) = %s", got)
	}
}

// TestStagedOn checks the staged kernels' rule (unless SOFTMAX_STAGED or
// SOFTMAX_STAGED_ROWS is set) against its cases, written out: which calls
// take them, and at how many rows a thread.
func TestStagedOn(t *testing.T) {
	if stagedSetting != "" || stagedRowsSetting != "" {
		t.Skip("SOFTMAX_STAGED or SOFTMAX_STAGED_ROWS replaces the rule")
	}
	for _, c := range []struct {
		t      Dtype
		bwd    bool
		keep   Keep
		rows   int64
		n      int64
		on     bool
		stride int // rows a thread, where on
	}{
		{Float32, false, KeepAll, 65536, 10, false, 0},
		{Float32, false, KeepAll, 1 << 17, 10, true, 1},
		{Float32, false, KeepAll, 1 << 20, 8, true, 1},
		{Float32, false, KeepAll, 1 << 20, 3, true, 1},
		{Float32, false, KeepCausal, 1 << 20, 10, false, 0},
		{Float32, false, KeepMask, 1 << 20, 10, false, 0},
		{Float64, false, KeepAll, 1 << 20, 10, false, 0},
		{Float32, true, KeepAll, 1 << 17, 10, true, 1},
		{Float32, true, KeepAll, 1<<17 - 1, 10, false, 0},
		{Float32, true, KeepAll, 1 << 20, 3, false, 0},
		{Float32, true, KeepAll, 1 << 20, 5, true, 1},
		{Float32, true, KeepAll, 1 << 20, 16, false, 0},
		{Float32, true, KeepAll, 1 << 20, 30, true, 1},
		{Float16, false, KeepAll, 1 << 17, 10, true, 1},
		{Float16, false, KeepAll, 1 << 20, 10, true, 2},
		{BFloat16, false, KeepAll, 1 << 20, 5, true, 2},
		{BFloat16, false, KeepAll, 1<<20 - 1, 5, false, 0},
		{Float16, false, KeepAll, 1 << 20, 20, true, 1},
		{Float16, false, KeepAll, 1 << 20, 8, false, 0},
		{Float16, false, KeepAll, 1 << 20, 32, false, 0},
		{BFloat16, true, KeepAll, 65536, 10, false, 0},
		{BFloat16, true, KeepAll, 1 << 17, 10, true, 1},
		{Float16, true, KeepAll, 1 << 20, 3, true, 1},
		{Float16, true, KeepAll, 1 << 20, 16, false, 0},
		{Float16, true, KeepAll, 1 << 20, 24, true, 1},
		{BFloat16, true, KeepAll, 1 << 20, 32, true, 1},
		{BFloat16, true, KeepAll, 1 << 18, 32, false, 0},
		{Float16, false, KeepAll, 1 << 16, 49, true, 1},
		{BFloat16, true, KeepAll, 1 << 16, 33, true, 1},
		{BFloat16, true, KeepAll, 1<<16 - 1, 60, false, 0},
		{Float16, false, KeepAll, 1 << 20, 48, false, 0},
		{Float16, true, KeepAll, 1 << 20, 48, false, 0},
		{BFloat16, false, KeepAll, 1 << 20, 64, false, 0},
		{Float16, false, KeepCausal, 1 << 20, 49, false, 0},
		{Float32, true, KeepAll, 1 << 18, 33, true, 1},
		{Float32, true, KeepAll, 1 << 20, 38, true, 1},
		{Float32, true, KeepAll, 1<<18 - 1, 33, false, 0},
		{Float32, true, KeepAll, 1 << 18, 49, false, 0}, // shifted: ShiftOn's short band
		{Float32, true, KeepAll, 1 << 20, 63, false, 0},
		{Float32, true, KeepAll, 1 << 20, 60, false, 0},
		{Float32, false, KeepAll, 1 << 20, 33, true, 1},
		{Float32, false, KeepAll, 1 << 18, 49, true, 1},
		{Float32, false, KeepAll, 1<<18 - 1, 50, false, 0},
		{Float32, false, KeepAll, 1 << 20, 60, false, 0}, // whole packs
	} {
		on := StagedOn(c.t, c.bwd, c.keep, c.rows, c.n)
		if on != c.on || on && StagedRows(c.t, c.bwd, c.rows, c.n) != c.stride {
			t.Errorf("%v backward %v keep %v %dx%d: on %v, %d rows a thread; want %v, %d",
				c.t, c.bwd, c.keep, c.rows, c.n, on, StagedRows(c.t, c.bwd, c.rows, c.n), c.on, c.stride)
		}
	}
}
