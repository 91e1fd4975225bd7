package gpu

import "testing"

func TestPlanArithmetic(t *testing.T) {
	for _, c := range []struct{ a, b, want int64 }{{0, 4, 0}, {1, 4, 1}, {4, 4, 1}, {5, 4, 2}, {1 << 40, 3, (1<<40 + 2) / 3}} {
		if got := CeilDiv(c.a, c.b); got != c.want {
			t.Errorf("CeilDiv(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	for _, c := range []struct{ n, want int64 }{{-3, 1}, {0, 1}, {1, 1}, {2, 2}, {3, 4}, {1024, 1024}, {1025, 2048}, {1<<40 + 1, 1 << 41}} {
		if got := NextPow2(c.n); got != c.want {
			t.Errorf("NextPow2(%d) = %d, want %d", c.n, got, c.want)
		}
	}
	// 8 columns a thread, 128 to 1024 threads.
	for _, c := range []struct {
		cols int64
		want int
	}{{1, 128}, {1024, 128}, {1032, 256}, {4096, 512}, {8192, 1024}, {1 << 20, 1024}} {
		if got := RowThreads(c.cols); got != c.want {
			t.Errorf("RowThreads(%d) = %d, want %d", c.cols, got, c.want)
		}
	}
	// The bits start on the 128-byte line after `before`; a row's run is
	// whole lines of a bit a column.
	for _, c := range []struct{ before, rows, n, want int64 }{
		{0, 1, 1, 128},
		{100, 4, 1000, 128 + 4*128},
		{128, 3, 1025, 128 + 3*256},
		{4*8388608/2048*32 + 4*32*128, 4, 8388608, 4*8388608/2048*32 + 4*32*128 + 4*1048576},
	} {
		if got := SplitBits(c.before, c.rows, c.n); got != c.want {
			t.Errorf("SplitBits(%d, %d, %d) = %d, want %d", c.before, c.rows, c.n, got, c.want)
		}
	}
	if got := CachedBytes(Float16, 1000, false); got != 2000 {
		t.Errorf("CachedBytes float16 forward: %d", got)
	}
	if got := CachedBytes(Float32, 1000, true); got != 8000 {
		t.Errorf("CachedBytes float32 backward: %d", got)
	}
	if got := TierKernelName(BFloat16, true, "split_apply"); got != "softmax_bwd_split_apply_bf16" {
		t.Errorf("TierKernelName: %s", got)
	}
	if got := TierKernelName(Float32, false, "cached"); got != "softmax_fwd_cached_f32" {
		t.Errorf("TierKernelName: %s", got)
	}
}
