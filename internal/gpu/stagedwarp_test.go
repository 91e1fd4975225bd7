package gpu

import (
	"slices"
	"testing"
)

// TestStagedWarpShape checks the warp form's layout against its
// definition, written out case by case: the fewest columns a lane that a
// warp covers the row with, at the rows a warp of the form kept for it,
// a block's rows, its shared memory, and that every block's rows start on
// 16 bytes whatever the row's length.
func TestStagedWarpShape(t *testing.T) {
	for _, c := range []struct {
		bwd   bool
		n     int64
		e, rw int
		ok    bool
	}{
		{false, 0, 0, 0, false},
		{false, 1, 4, 4, true},
		{false, 128, 4, 4, true},
		{false, 129, 8, 4, true},
		{false, 256, 8, 4, true},
		{false, 257, 0, 0, false},
		{true, 0, 0, 0, false},
		{true, 65, 4, 4, true},
		{true, 128, 4, 4, true},
		{true, 129, 8, 2, true},
		{true, 197, 8, 2, true},
		{true, 257, 16, 2, true},
		{true, 512, 16, 2, true},
		{true, 513, 0, 0, false},
	} {
		if e, rw, ok := StagedWarpShape(c.bwd, c.n); e != c.e || rw != c.rw || ok != c.ok {
			t.Errorf("StagedWarpShape(%v, %d) = %d, %d, %v; want %d, %d, %v", c.bwd, c.n, e, rw, ok, c.e, c.rw, c.ok)
		}
	}
	if got, want := StagedWarpKernel(BFloat16, true, 8, 2), "softmax_bwd_stagedw8r2_bf16"; got != want {
		t.Errorf("StagedWarpKernel = %s, want %s", got, want)
	}
	want := []string{"softmax_bwd_stagedw4r4_f16", "softmax_bwd_stagedw8r2_f16", "softmax_bwd_stagedw16r2_f16"}
	if got := StagedWarpKernelNames(Float16, true); !slices.Equal(got, want) {
		t.Errorf("StagedWarpKernelNames(float16, backward) = %v, want %v", got, want)
	}
	if got := StagedWarpKernelNames(Float32, false); got != nil {
		t.Errorf("StagedWarpKernelNames(float32) = %v, want none", got)
	}
	if got, want := StagedWarpSmem(Float16, false, 197, 4), 16*197*2; got != want {
		t.Errorf("StagedWarpSmem(float16, 197, 4) = %d, want %d", got, want)
	}
	if got, want := StagedWarpSmem(BFloat16, true, 300, 2), 8*300*2*2; got != want {
		t.Errorf("StagedWarpSmem(bfloat16 backward, 300, 2) = %d, want %d", got, want)
	}
	for _, forms := range stagedWarpForms {
		for _, f := range forms {
			if b := StagedWarpRows(f.rw) * 2; b%16 != 0 {
				t.Errorf("%d rows a warp: a block's half rows take %d bytes a column, not a multiple of 16", f.rw, b)
			}
		}
	}
}

// TestStagedWarpOn checks the rule and its knob, case by case:
// SOFTMAX_STAGEDW unset, the half types' unmasked rows past 64 columns of
// a part pack (forward from StagedWarpMinRows rows, backward from
// StagedWarpBwdMinRows) and of whole packs backward to
// StagedWarpWholeMaxN columns from StagedWarpWholeMinRows; =1 every
// unmasked call of the half types; =0 none.
func TestStagedWarpOn(t *testing.T) {
	saved := stagedWarpSetting
	defer func() { stagedWarpSetting = saved }()
	for _, c := range []struct {
		setting string
		dt      Dtype
		bwd     bool
		keep    Keep
		rows, n int64
		want    bool
	}{
		{"", Float16, false, KeepAll, 131072, 197, true},
		{"", Float16, false, KeepAll, 32768, 197, true},
		{"", Float16, false, KeepAll, 32767, 197, false},
		{"", BFloat16, true, KeepAll, 16384, 300, true},
		{"", BFloat16, true, KeepAll, 16383, 300, false},
		{"", Float16, true, KeepAll, 65536, 65, true},
		{"", Float16, true, KeepAll, 65536, 64, false},
		{"", Float16, true, KeepAll, 1 << 20, 63, false},
		{"", Float16, true, KeepAll, 262144, 128, true},
		{"", Float16, true, KeepAll, 262144, 256, true},
		{"", Float16, true, KeepAll, 262144, 72, true},
		{"", Float16, true, KeepAll, 262143, 128, false},
		{"", Float16, true, KeepAll, 262144, 264, false},
		{"", Float16, false, KeepAll, 1 << 20, 128, false},
		{"", Float16, false, KeepMask, 131072, 197, false},
		{"", Float16, false, KeepCausal, 131072, 197, false},
		{"", Float32, false, KeepAll, 131072, 197, false},
		{"", Float64, true, KeepAll, 131072, 197, false},
		{"1", Float16, true, KeepAll, 8, 128, true},
		{"1", Float32, true, KeepAll, 131072, 197, false},
		{"1", BFloat16, false, KeepMask, 131072, 197, false},
		{"0", Float16, false, KeepAll, 131072, 197, false},
		{"0", Float16, true, KeepAll, 262144, 128, false},
	} {
		stagedWarpSetting = c.setting
		if got := StagedWarpOn(c.dt, c.bwd, c.keep, c.rows, c.n); got != c.want {
			t.Errorf("SOFTMAX_STAGEDW=%q: StagedWarpOn(%v, bwd %v, %v, %d, %d) = %v, want %v",
				c.setting, c.dt, c.bwd, c.keep, c.rows, c.n, got, c.want)
		}
	}
}
