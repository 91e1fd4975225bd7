package gpu

import "testing"

// TestCGridShape checks tier 8's layouts against the rule written out by
// enumeration: every cluster size that gives each block a share, the
// fewest blocks within the target, else the most within the limit (a
// masked row's mask bytes counted against the limit only).
func TestCGridShape(t *testing.T) {
	const target, limit = 32 << 10, 227 << 10
	for _, dt := range []Dtype{Float32, Float64, Float16, BFloat16} {
		for _, bwd := range []bool{false, true} {
			for _, masked := range []bool{false, true} {
				for _, n := range []int64{1, 2, 7, 8, 9, 33, 4097, 16385, 32000, 128256, 600001, 1 << 21, 1 << 24} {
					for _, most := range []int{8, 16} {
						g, ok := CGridShape(dt, bwd, masked, n, most, target, limit)
						pk := int64(16 / dt.Size())
						arrays := int64(1)
						if bwd {
							arrays = 2
						}
						// want: enumerate clusters, keep those that fit.
						var fits []CGrid
						for b := int64(2); b <= int64(most); b *= 2 {
							chunk := ((n+b-1)/b + pk - 1) / pk * pk
							if (b-1)*chunk >= n {
								break
							}
							smem := chunk * int64(dt.Size()) * arrays
							if masked {
								smem += chunk
							}
							if smem <= limit {
								fits = append(fits, CGrid{Blocks: int(b), Chunk: chunk, Smem: int(smem)})
							}
						}
						if len(fits) == 0 {
							if ok {
								t.Errorf("%v bwd=%v masked=%v n=%d most=%d: got %+v, want none", dt, bwd, masked, n, most, g)
							}
							continue
						}
						want := fits[len(fits)-1]
						for _, f := range fits {
							if f.Chunk*int64(dt.Size())*arrays <= target*arrays {
								want = f
								break
							}
						}
						if !ok || g.Blocks != want.Blocks || g.Chunk != want.Chunk || g.Smem != want.Smem {
							t.Errorf("%v bwd=%v masked=%v n=%d most=%d: got %+v (ok %v), want %+v", dt, bwd, masked, n, most, g, ok, want)
							continue
						}
						if int64(g.Blocks)*g.Chunk < n || g.Chunk%pk != 0 {
							t.Errorf("%v n=%d: %d blocks of %d columns do not cover the row in packs", dt, n, g.Blocks, g.Chunk)
						}
						widest := CGridMaxThreads
						if bwd {
							widest = 512
						}
						if g.Threads < 128 || g.Threads > widest || g.Threads&(g.Threads-1) != 0 {
							t.Errorf("%v n=%d: %d threads, want a power of two in [128, %d]", dt, n, g.Threads, widest)
						}
						if packs := g.Chunk / pk; g.Threads < widest && int64(g.Threads)*cgridPacks < packs {
							t.Errorf("%v n=%d: %d threads take more than %d of %d packs each", dt, n, g.Threads, cgridPacks, packs)
						}
					}
				}
			}
		}
	}
	// The layouts the benchmark shapes take.
	for _, c := range []struct {
		dt     Dtype
		bwd    bool
		n      int64
		blocks int
	}{
		{Float32, false, 32000, 4},   // 32000-byte shares
		{Float32, true, 32000, 4},    // y and dy: 32000 bytes each
		{Float32, false, 128256, 16}, // 32064 bytes
		{Float16, false, 32000, 2},
		{Float16, false, 128256, 8},
	} {
		if g, ok := CGridShape(c.dt, c.bwd, false, c.n, 16, target, limit); !ok || g.Blocks != c.blocks {
			t.Errorf("%v bwd=%v n=%d: %+v (ok %v), want %d blocks", c.dt, c.bwd, c.n, g, ok, c.blocks)
		}
	}
}

// gpcs is a model of how many clusters of a layout run at once: a GPU
// whose multiprocessors come in groups of 18 and 14 (132 in all), each
// with 228 KB of shared memory (1 KB a block reserved), 2048 threads and
// 64K registers at 40 a thread; a cluster runs inside one group. big
// false: clusters past 8 blocks do not run (a driver that refuses them).
func gpcs(big bool) func(CGrid) int {
	return func(g CGrid) int {
		if !big && g.Blocks > 8 {
			return 0
		}
		per := min(228<<10/(g.Smem+1<<10), 2048/g.Threads, 65536/(40*g.Threads))
		n := 0
		for _, sms := range []int{18, 18, 18, 18, 18, 14, 14, 14} {
			n += sms * per / g.Blocks
		}
		return n
	}
}

// TestCGridPick checks the layout tier 8 launches: CGridShape's at the
// largest clusters the device runs (halved past 8 where the model refuses
// them), and forced cluster sizes where they fit.
func TestCGridPick(t *testing.T) {
	const target, limit = 32 << 10, 227 << 10
	for _, big := range []bool{true, false} {
		most := 16
		if !big {
			most = 8
		}
		for _, dt := range []Dtype{Float32, Float64, Float16, BFloat16} {
			for _, bwd := range []bool{false, true} {
				for _, masked := range []bool{false, true} {
					for _, n := range []int64{9, 4097, 16385, 20000, 32000, 40001, 128256, 600001} {
						g, ok := CGridPick(dt, bwd, masked, n, 16, target, limit, 0, gpcs(big))
						want, wok := CGridShape(dt, bwd, masked, n, most, target, limit)
						if ok != wok || g != want {
							t.Errorf("%v bwd=%v masked=%v n=%d big=%v: got %+v (ok %v), want %+v (ok %v)", dt, bwd, masked, n, big, g, ok, want, wok)
						}
					}
				}
			}
		}
	}
	// Forced sizes: taken where they fit, any size; refused where they do
	// not, or past most.
	for _, c := range []struct {
		bwd          bool
		n            int64
		most, forced int
		ok           bool
	}{
		{false, 128256, 16, 15, true},
		{false, 128256, 16, 9, true},
		{true, 32000, 16, 3, true},
		{true, 128256, 16, 3, false}, // 171 KB of y and dy a block
		{false, 128256, 8, 12, false},
		{false, 5, 16, 3, false}, // 5 columns: a block would hold nothing
	} {
		g, ok := CGridPick(Float32, c.bwd, false, c.n, c.most, target, limit, c.forced, gpcs(true))
		if ok != c.ok || ok && (g.Blocks != c.forced || int64(g.Blocks)*g.Chunk < c.n || int64(g.Blocks-1)*g.Chunk >= c.n) {
			t.Errorf("float32 bwd=%v n=%d most=%d forced %d: %+v (ok %v), want ok %v", c.bwd, c.n, c.most, c.forced, g, ok, c.ok)
		}
	}
}

// TestCGridBalanced pins which tier 8 launches ask for load-balanced
// cluster scheduling: every forward one, backward ones in clusters of 16.
func TestCGridBalanced(t *testing.T) {
	for _, blocks := range []int{2, 4, 8, 16} {
		if !CGridBalanced(false, blocks) {
			t.Errorf("forward, clusters of %d: not load-balanced", blocks)
		}
		if got, want := CGridBalanced(true, blocks), blocks == CGridMaxBlocks; got != want {
			t.Errorf("backward, clusters of %d: load-balanced %v, want %v", blocks, got, want)
		}
	}
}
