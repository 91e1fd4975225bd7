package gpu

import (
	"math"
	"testing"
)

// A row of n = MaxInt64 columns spans about 2^61 packs (float32), far
// more than any tier 1 group of 1024 threads x 4 packs holds, so every
// shape function must say it does not fit. rowPacks computed n+per-1,
// which wrapped negative, and the layouts came back ok with one thread.
func TestHugeRowShapes(t *testing.T) {
	defer func(k int) { rowsPreferOverride = k }(rowsPreferOverride)
	rowsPreferOverride = 0
	for _, c := range []struct {
		dt Dtype
		n  int64
	}{
		{Float32, math.MaxInt64},
		{Float32, math.MaxInt64 - 2},
		{Float16, math.MaxInt64 - 6},
		{Float64, math.MaxInt64},
	} {
		for _, bwd := range []bool{false, true} {
			if k, w, ok := RowsShape(c.dt, bwd, KeepAll, c.n, 32); ok {
				t.Errorf("RowsShape(%v, bwd %v, n %d) = k %d w %d ok; covers %d columns", c.dt, bwd, c.n, k, w, int64(k*w)*int64(16/c.dt.Size()))
			}
		}
	}
	if k, w, ok := PackedShape(Float16, math.MaxInt64, 32); ok {
		t.Errorf("PackedShape(float16, MaxInt64) = k %d w %d ok", k, w)
	}
	if w, ok := WideShape(Float32, math.MaxInt64, 32); ok {
		t.Errorf("WideShape(float32, MaxInt64) = w %d ok", w)
	}
	if k, b, th, ok := ClusterShape(Float32, false, math.MaxInt64, 32); ok {
		t.Errorf("ClusterShape(float32, MaxInt64) = k %d blocks %d threads %d ok", k, b, th)
	}
}

// CachedBytes of a float64 row of 2^61 columns is 2^64 bytes; it wrapped to
// 0, which passes any shared memory limit (cuda eligible(TierCached)).
func TestCachedBytesOverflow(t *testing.T) {
	for _, bwd := range []bool{false, true} {
		if got := CachedBytes(Float64, 1<<61, bwd); got < 1<<61 {
			t.Errorf("CachedBytes(float64, 2^61, bwd %v) = %d; want at least 2^61 (no wrap)", bwd, got)
		}
	}
}

// RowThreads caps at 1024 for long rows; CeilDiv(cols, 8) wrapped for cols
// near MaxInt64 and the block dropped to 128.
func TestRowThreadsOverflow(t *testing.T) {
	if got := RowThreads(math.MaxInt64); got != 1024 {
		t.Errorf("RowThreads(MaxInt64) = %d, want 1024", got)
	}
}

// StreamShape says ok false for a dtype without the streamed kernel, and
// must not divide 16 by the size (0) of a dtype it does not know first.
func TestStreamShapeBadDtype(t *testing.T) {
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("StreamShape(Dtype(4), 16) panicked: %v; want ok false", r)
		}
	}()
	if th, ok := StreamShape(Dtype(4), 16); ok {
		t.Errorf("StreamShape(Dtype(4), 16) = %d, ok", th)
	}
}
