package gpu

import "testing"

// TestStreamShape checks the streamed kernel's blocks: the power of two
// of threads from 64 that gives each at most StreamPacks packs, and no
// block for rows not whole packs, past 1024 threads, or of float64.
func TestStreamShape(t *testing.T) {
	if streamPacksSetting != 0 {
		t.Skip("SOFTMAX_LSTREAM_PACKS is set")
	}
	for _, c := range []struct {
		dt      Dtype
		n       int64
		threads int // 0: none
	}{
		{Float32, 2048, 128},
		{Float32, 8192, 512},
		{Float32, 8196, 1024}, // 2049 packs
		{Float32, 16384, 1024},
		{Float32, 16388, 0}, // 4097 packs
		{Float32, 2050, 0},  // not whole packs
		{Float16, 2048, 64},
		{Float16, 8192, 256},
		{Float16, 32768, 1024},
		{BFloat16, 16, 64},
		{Float64, 8192, 0},
	} {
		th, ok := StreamShape(c.dt, c.n)
		if ok != (c.threads > 0) || ok && th != c.threads {
			t.Errorf("%v n=%d: %d threads (ok %v), want %d threads", c.dt, c.n, th, ok, c.threads)
		}
		if ok && int64(th)*StreamPacks*int64(16/c.dt.Size()) < c.n {
			t.Errorf("%v n=%d: %d threads take more than %d packs each", c.dt, c.n, th, StreamPacks)
		}
	}
	for _, c := range []struct {
		dt       Dtype
		bwd, log bool
		keep     Keep
		n        int64
		on       bool
	}{
		{Float32, true, true, KeepAll, 4096, true},
		{Float32, true, true, KeepAll, 1024, true},
		{Float32, true, true, KeepAll, 1023, false},
		{Float16, true, true, KeepAll, 2048, true},
		{Float16, true, true, KeepAll, 1024, true},
		{BFloat16, true, true, KeepAll, 1016, false},
		{BFloat16, true, true, KeepAll, 512, false},
		{Float64, true, true, KeepAll, 8192, false},
		{Float32, true, false, KeepAll, 8192, false},
		{Float32, false, true, KeepAll, 8192, false},
		{Float16, true, true, KeepMask, 8192, false},
		{Float32, true, true, KeepCausal, 8192, false},
	} {
		if streamSetting != "" {
			break // a knob replaces the rule
		}
		if got := StreamOn(c.dt, c.bwd, c.log, c.keep, c.n); got != c.on {
			t.Errorf("StreamOn(%v, bwd %v, log %v, keep %v, n %d) = %v, want %v", c.dt, c.bwd, c.log, c.keep, c.n, got, c.on)
		}
	}
}
