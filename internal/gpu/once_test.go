package gpu

import (
	"slices"
	"testing"
)

// TestOnceOn pins which tier 1 problems take the one-row kernel: float32
// forward without mask or causal limit, at K = 4 in groups of at most
// OnceMaxGroup threads, at K = 2 in groups of 8 (any group up to
// OnceMaxGroup under SOFTMAX_ROWS_K).
func TestOnceOn(t *testing.T) {
	defer func(s string, k int) { onceSetting, rowsPreferOverride = s, k }(onceSetting, rowsPreferOverride)
	onceSetting, rowsPreferOverride = "", 0
	for _, c := range []struct {
		dt   Dtype
		bwd  bool
		keep Keep
		k, w int
		want bool
	}{
		{Float32, false, KeepAll, 4, 8, true},
		{Float32, false, KeepAll, 4, 128, true},
		{Float32, false, KeepAll, 4, 256, false},
		{Float32, false, KeepAll, 2, 8, true},
		{Float32, false, KeepAll, 2, 1, false},
		{Float32, false, KeepAll, 2, 16, false},
		{Float32, false, KeepAll, 2, 256, false},
		{Float32, false, KeepAll, 1, 8, false},
		{Float32, true, KeepAll, 4, 8, false},
		{Float32, false, KeepCausal, 4, 8, false},
		{Float32, false, KeepMask, 4, 8, false},
		{Float64, false, KeepAll, 4, 8, false},
		{Float16, false, KeepAll, 4, 8, false},
	} {
		if got := OnceOn(c.dt, c.bwd, c.keep, c.k, c.w); got != c.want {
			t.Errorf("%v bwd %v keep %v k %d w %d: %v, want %v", c.dt, c.bwd, c.keep, c.k, c.w, got, c.want)
		}
	}
	rowsPreferOverride = 2
	if !OnceOn(Float32, false, KeepAll, 2, 1) || !OnceOn(Float32, false, KeepAll, 2, 16) || OnceOn(Float32, false, KeepAll, 2, 256) {
		t.Error("SOFTMAX_ROWS_K=2: K = 2 not in every group up to OnceMaxGroup")
	}
	rowsPreferOverride = 0
	onceSetting = "0"
	if OnceOn(Float32, false, KeepAll, 4, 8) {
		t.Error("SOFTMAX_ONCE=0: on")
	}
	if got := OnceKernel(Float32, 4); got != "softmax_fwd_once4_f32" {
		t.Errorf("kernel %s", got)
	}
	if OnceMaxGroup > OnceMaxThreads || OnceMaxThreads > RowsMaxThreads {
		t.Error("bounds out of order")
	}
}

// TestOnceKernelFor pins which groups take a one-row kernel of their own
// (cukernels/softmax.cu defines each name).
func TestOnceKernelFor(t *testing.T) {
	defer func(s string) { onceGroupsSetting = s }(onceGroupsSetting)
	onceGroupsSetting = ""
	for _, c := range []struct {
		k, w int
		want string
	}{
		{4, 1, "softmax_fwd_once4_f32"}, {4, 4, "softmax_fwd_once4_f32"},
		{4, 8, "softmax_fwd_once4w8_f32"}, {4, 16, "softmax_fwd_once4w16_f32"}, {4, 32, "softmax_fwd_once4w32_f32"},
		{4, 64, "softmax_fwd_once4w64_f32"}, {4, 96, "softmax_fwd_once4_f32"}, {4, 128, "softmax_fwd_once4_f32"},
		{4, 256, "softmax_fwd_once4_f32"},
		{2, 4, "softmax_fwd_once2_f32"}, {2, 8, "softmax_fwd_once2w8_f32"}, {2, 16, "softmax_fwd_once2_f32"},
		{2, 64, "softmax_fwd_once2_f32"},
	} {
		if got := OnceKernelFor(Float32, c.k, c.w); got != c.want {
			t.Errorf("k %d w %d: %s, want %s", c.k, c.w, got, c.want)
		}
	}
	want := []string{"softmax_fwd_once4_f32", "softmax_fwd_once4w8_f32", "softmax_fwd_once4w16_f32", "softmax_fwd_once4w32_f32", "softmax_fwd_once4w64_f32",
		"softmax_fwd_once2_f32", "softmax_fwd_once2w8_f32"}
	if got := OnceGroupKernels(Float32); !slices.Equal(got, want) || OnceGroupKernels(Float16) != nil {
		t.Errorf("OnceGroupKernels: %v", got)
	}
	if got := OnceGroupKernels(Float64); got != nil {
		t.Errorf("float64: %v", got)
	}
	onceGroupsSetting = "0"
	if got := OnceKernelFor(Float32, 2, 8); got != "softmax_fwd_once2_f32" {
		t.Errorf("SOFTMAX_ONCE_GROUPS=0: %s", got)
	}
}

// TestOnceShape pins the layout the one-row kernel takes: K = 2 in groups
// of 8 for float32 rows of an odd number of packs from 9 to 15, RowsShape's
// elsewhere (rows of whole packs only), and SOFTMAX_ROWS_K's K over both.
func TestOnceShape(t *testing.T) {
	defer func(k int, s string) { rowsPreferOverride, onceSetting = k, s }(rowsPreferOverride, onceSetting)
	rowsPreferOverride, onceSetting = 0, ""
	for _, c := range []struct {
		dt   Dtype
		n    int64
		k, w int
	}{
		{Float32, 28, 4, 2}, {Float32, 32, 4, 2}, {Float32, 36, 2, 8}, {Float32, 40, 4, 4}, {Float32, 44, 2, 8},
		{Float32, 48, 4, 4}, {Float32, 52, 2, 8}, {Float32, 56, 4, 4}, {Float32, 60, 2, 8}, {Float32, 64, 4, 4},
		{Float32, 68, 4, 8}, {Float32, 124, 4, 8}, {Float16, 120, 2, 8}, {Float64, 36, 4, 8},
	} {
		k, w, ok := OnceShape(c.dt, c.n, 32)
		rk, rw, _ := RowsShape(c.dt, false, KeepAll, c.n, 32)
		if !ok || k != c.k || w != c.w {
			t.Errorf("%v n %d: k %d w %d ok %v; want k %d w %d", c.dt, c.n, k, w, ok, c.k, c.w)
		}
		if odd := c.dt == Float32 && c.k == 2; !odd && (k != rk || w != rw) {
			t.Errorf("%v n %d: k %d w %d; RowsShape's k %d w %d", c.dt, c.n, k, w, rk, rw)
		}
	}
	rowsPreferOverride = 4
	if k, w, _ := OnceShape(Float32, 60, 32); k != 4 || w != 4 {
		t.Errorf("SOFTMAX_ROWS_K=4: k %d w %d", k, w)
	}
	rowsPreferOverride, onceSetting = 0, "0"
	if k, _, _ := OnceShape(Float32, 60, 32); k != 4 {
		t.Errorf("SOFTMAX_ONCE=0: k %d", k)
	}
}
