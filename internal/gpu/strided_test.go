package gpu

import "testing"

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

// TestStridedOn checks the rule: under SOFTMAX_STRIDED=1 unmasked rows,
// forward and backward, of the types with kernels; otherwise never.
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
			t.Errorf("StridedOn(%v, bwd %v, %v) = %v, want %v", c.t, c.bwd, c.keep, got, c.want)
		}
	}
	// By default none, and SOFTMAX_STRIDED=0 alike: the rows the H100
	// took them for (float32, a part pack, 171 to 255 columns) included.
	for _, setting := range []string{"", "0"} {
		stridedSetting = setting
		for _, n := range []int64{77, 171, 197, 255, 256, 577} {
			if StridedOn(Float32, true, KeepAll, n) {
				t.Errorf("StridedOn(float32, %d) under SOFTMAX_STRIDED=%q = true, want false", n, setting)
			}
		}
	}
	if StridedOn(Float32, false, KeepAll, 197) || StridedOn(Float32, true, KeepMask, 197) {
		t.Errorf("StridedOn takes forward or masked rows by default")
	}
}
