package gpu

import "testing"

// TestStagedWarpShape checks the warp form's layout against its
// definition, written out case by case: the fewest columns a lane that a
// warp covers the row with, a block's rows, its shared memory, and that
// every block's rows start on 16 bytes whatever the row's length.
func TestStagedWarpShape(t *testing.T) {
	for _, c := range []struct {
		n  int64
		e  int
		ok bool
	}{
		{0, 0, false},
		{1, 4, true},
		{65, 4, true},
		{128, 4, true},
		{129, 8, true},
		{197, 8, true},
		{256, 8, true},
		{257, 16, true},
		{512, 16, true},
		{513, 0, false},
	} {
		if e, ok := StagedWarpShape(c.n); e != c.e || ok != c.ok {
			t.Errorf("StagedWarpShape(%d) = %d, %v; want %d, %v", c.n, e, ok, c.e, c.ok)
		}
	}
	if got, want := StagedWarpKernel(BFloat16, true, 8, 4), "softmax_bwd_stagedw8r4_bf16"; got != want {
		t.Errorf("StagedWarpKernel = %s, want %s", got, want)
	}
	if got, want := StagedWarpSmem(Float16, false, 197, 2), 8*197*2; got != want {
		t.Errorf("StagedWarpSmem(float16, 197, 2) = %d, want %d", got, want)
	}
	if got, want := StagedWarpSmem(Float32, true, 77, 4), 16*77*4*2; got != want {
		t.Errorf("StagedWarpSmem(float32 backward, 77, 4) = %d, want %d", got, want)
	}
	for _, dt := range []Dtype{Float32, Float16, BFloat16} {
		for _, rw := range StagedWarpRs() {
			if b := StagedWarpRows(rw) * int64(dt.Size()); b%16 != 0 {
				t.Errorf("%v at %d rows a warp: a block's rows take %d bytes a column, not a multiple of 16", dt, rw, b)
			}
		}
	}
}

// TestStagedWarpOn checks the knob: SOFTMAX_STAGEDW=2 or 4 gives every
// unmasked call of float32 or the half types that many rows a warp; other
// values, masked calls and float64 none.
func TestStagedWarpOn(t *testing.T) {
	saved := stagedWarpSetting
	defer func() { stagedWarpSetting = saved }()
	for _, c := range []struct {
		setting string
		dt      Dtype
		keep    Keep
		want    int
	}{
		{"", Float16, KeepAll, 0},
		{"2", Float16, KeepAll, 2},
		{"4", Float32, KeepAll, 4},
		{"3", Float32, KeepAll, 0},
		{"4", Float64, KeepAll, 0},
		{"2", BFloat16, KeepMask, 0},
	} {
		stagedWarpSetting = stagedWarpKnob(c.setting)
		if got := StagedWarpOn(c.dt, c.keep); got != c.want {
			t.Errorf("SOFTMAX_STAGEDW=%q: StagedWarpOn(%v, %v) = %d, want %d", c.setting, c.dt, c.keep, got, c.want)
		}
	}
}
