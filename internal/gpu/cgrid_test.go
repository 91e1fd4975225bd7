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
// whose multiprocessors come in groups of 18 and 14 (132 in all, as on an
// H200), each with 228 KB of shared memory (1 KB a block reserved), 2048
// threads and 64K registers at 40 a thread; a cluster runs inside one
// group. ok false: clusters past 8 blocks do not run (a driver that
// refuses them).
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

// TestCGridPick checks the cluster size tier 8 takes against the rule
// written out by enumeration on the model above: CGridShape's, or of the
// sizes between half of it and it, the one that holds the most rows at
// once where that is more.
func TestCGridPick(t *testing.T) {
	const target, limit = 32 << 10, 227 << 10
	for _, big := range []bool{true, false} {
		resident := gpcs(big)
		most := 16
		if !big {
			most = 8 // resident says 0 past 8: CGridPick must halve
		}
		for _, dt := range []Dtype{Float32, Float64, Float16, BFloat16} {
			for _, bwd := range []bool{false, true} {
				for _, masked := range []bool{false, true} {
					for _, n := range []int64{9, 4097, 16385, 20000, 32000, 40001, 128256, 600001} {
						for _, rows := range []int64{1, 4, 256, 1024} {
							g, ok := CGridPick(dt, bwd, masked, n, rows, 16, target, limit, 0, resident)
							base, bok := CGridShape(dt, bwd, masked, n, most, target, limit)
							if !bok {
								if ok {
									t.Errorf("%v bwd=%v masked=%v %dx%d: got %+v, want none", dt, bwd, masked, rows, n, g)
								}
								continue
							}
							held := func(g CGrid) int64 { return min(rows, int64(resident(g))) }
							want := base
							for b := base.Blocks/2 + 1; b < base.Blocks; b++ {
								if l, fits, _ := cgridLayout(dt, bwd, masked, n, b, limit); fits && held(l) > held(want) {
									want = l
								}
							}
							if !ok || g != want {
								t.Errorf("%v bwd=%v masked=%v %dx%d big=%v: got %+v (ok %v), want %+v", dt, bwd, masked, rows, n, big, g, ok, want)
							}
							if ok && int64(g.Blocks)*g.Chunk < n {
								t.Errorf("%v %dx%d: %+v does not cover the row", dt, rows, n, g)
							}
						}
					}
				}
			}
		}
	}
	// The benchmark's long float32 rows on the model: clusters of 16 hold
	// 45 rows at once forward (6 blocks an SM: 6 clusters in a group of 18,
	// 5 in one of 14), 14 hold 53, 9 (4 an SM) 58; backward (3 blocks an
	// SM) 16 hold 21, 9 (2 an SM) 29; 1024x32000 forward 4 blocks hold
	// 198, 3 hold 219.
	for _, c := range []struct {
		bwd          bool
		rows, n      int64
		blocks, held int
	}{
		{false, 256, 128256, 9, 58},
		{true, 256, 128256, 9, 29},
		{false, 1024, 32000, 3, 219},
		{false, 4, 128256, 16, 45}, // 4 rows: every size holds them all
	} {
		g, ok := CGridPick(Float32, c.bwd, false, c.n, c.rows, 16, target, limit, 0, gpcs(true))
		if !ok || g.Blocks != c.blocks || gpcs(true)(g) != c.held {
			t.Errorf("float32 bwd=%v %dx%d: %+v (ok %v, %d at once), want clusters of %d (%d at once)", c.bwd, c.rows, c.n, g, ok, gpcs(true)(g), c.blocks, c.held)
		}
	}
	// Forced sizes: taken where they fit, refused where they do not.
	if g, ok := CGridPick(Float32, false, false, 128256, 256, 16, target, limit, 15, gpcs(true)); !ok || g.Blocks != 15 {
		t.Errorf("forced 15: %+v (ok %v)", g, ok)
	}
	if g, ok := CGridPick(Float32, true, false, 128256, 256, 16, target, limit, 3, gpcs(true)); ok {
		t.Errorf("forced 3 backward 128256: %+v fits %d bytes?", g, limit)
	}
	if g, ok := CGridPick(Float32, false, false, 128256, 256, 8, target, limit, 12, gpcs(true)); ok {
		t.Errorf("forced 12 past most 8: %+v", g)
	}
}
