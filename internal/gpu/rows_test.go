package gpu

import (
	"slices"
	"testing"
)

// TestRowsShape checks tier 1's layout for every row length up to past the
// largest it takes: the group covers the row, has a kernel, is a power of
// two up to a warp or whole warps above, and the row does not fit with
// fewer packs per thread than chosen (unless at the preferred count).
func TestRowsShape(t *testing.T) {
	for _, warp := range []int{32, 64} {
		for dt := Float32; dt <= BFloat16; dt++ {
			for _, c := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
				bwd, masked := c[0], c[1]
				p := 16 / dt.Size()
				prefer, most := rowsK(dt, bwd, masked)
				limit := RowsMaxThreads * most * p
				for n := 1; n <= limit+3*p; n++ {
					k, w, ok := RowsShape(dt, bwd, masked, int64(n), warp)
					if ok != (n <= limit) {
						t.Fatalf("%v bwd=%v warp %d n %d: ok %v; want %v", dt, bwd, warp, n, ok, n <= limit)
					}
					if !ok {
						continue
					}
					pow2 := w&(w-1) == 0
					switch {
					case k*w*p < n:
						t.Fatalf("%v bwd=%v n %d: k %d w %d cover %d columns", dt, bwd, n, k, w, k*w*p)
					case !slices.Contains(RowsKs(bwd), k):
						t.Fatalf("%v bwd=%v n %d: no kernel for k %d", dt, bwd, n, k)
					case w > RowsMaxThreads || (w <= warp && !pow2) || (w > warp && w%warp != 0):
						t.Fatalf("%v bwd=%v warp %d n %d: w %d", dt, bwd, warp, n, w)
					case k > prefer && (n+p-1)/p <= RowsMaxThreads*k/2:
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
	if k, w, _ := RowsShape(Float32, false, false, 4096, 32); k != 4 || w != 256 {
		t.Errorf("float32 4096: k %d w %d; want 4, 256", k, w)
	}
	if got := RowsKernel(BFloat16, true, 2, true); got != "softmax_bwd_rows2m_bf16" {
		t.Errorf("RowsKernel = %s", got)
	}
}

// TestRowsOverride: SOFTMAX_ROWS_K takes powers of two up to what tier 1
// takes and is ignored otherwise, so every K it yields has a kernel.
func TestRowsOverride(t *testing.T) {
	defer func(k int) { rowsPreferOverride = k }(rowsPreferOverride)
	for _, c := range []struct{ set, want int }{{0, 4}, {1, 1}, {2, 2}, {3, 4}, {8, 4}, {-1, 4}} {
		rowsPreferOverride = c.set
		if k, _, _ := RowsShape(Float32, false, false, 1<<12, 32); k != c.want {
			t.Errorf("SOFTMAX_ROWS_K=%d: k %d; want %d", c.set, k, c.want)
		}
	}
}
