package gpu

import "testing"

func TestWideShape(t *testing.T) {
	for _, c := range []struct {
		t    Dtype
		n    int64
		w    int
		ok   bool
		desc string
	}{
		{Float32, 4, 32, true, "one pack: a warp, most lanes idle"},
		{Float32, 2048, 32, true, "16 packs a lane"},
		{Float32, 2049, 64, true, "past a warp: two"},
		{Float32, 4100, 96, true, "three warps"},
		{Float32, 8192, 128, true, "the largest group"},
		{Float32, 8193, 0, false, "past the launch bound"},
		{Float32, 0, 0, false, "empty rows"},
		{Float16, 2048, 0, false, "no half kernel"},
		{Float64, 2048, 0, false, "no float64 kernel"},
	} {
		w, ok := WideShape(c.t, c.n, 32)
		if w != c.w || ok != c.ok {
			t.Errorf("%s: WideShape(%v, %d) = %d, %v; want %d, %v", c.desc, c.t, c.n, w, ok, c.w, c.ok)
		}
	}
}

func TestWideOn(t *testing.T) {
	if wideSetting != "" {
		t.Skip("SOFTMAX_WIDE is set")
	}
	for _, c := range []struct {
		t        Dtype
		bwd, log bool
		keep     Keep
		rows, n  int64
		want     bool
	}{
		{Float32, true, true, KeepAll, 1 << 18, 2048, true},
		{Float32, true, true, KeepAll, 1 << 18, 1025, true},
		{Float32, true, true, KeepAll, 1 << 20, 1024, false},
		{Float32, true, true, KeepAll, 1 << 17, 4096, false},
		{Float32, true, true, KeepAll, 1<<17 - 1, 2048, false},
		{Float32, true, false, KeepAll, 1 << 18, 2048, false},
		{Float32, false, true, KeepAll, 1 << 18, 2048, false},
		{Float32, true, true, KeepCausal, 1 << 18, 2048, false},
		{Float32, true, true, KeepMask, 1 << 18, 2048, false},
		{BFloat16, true, true, KeepAll, 1 << 18, 2048, false},
	} {
		if got := WideOn(c.t, c.bwd, c.log, c.keep, c.rows, c.n); got != c.want {
			t.Errorf("WideOn(%v, bwd %v, log %v, %v, %dx%d) = %v, want %v", c.t, c.bwd, c.log, c.keep, c.rows, c.n, got, c.want)
		}
	}
}
