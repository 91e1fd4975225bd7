//go:build hip

package hip

import (
	"debug/elf"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gosoftmax/softmax/hipkernels"
	"github.com/gosoftmax/softmax/internal/backend"
	"github.com/gosoftmax/softmax/internal/gpu"
	"github.com/gosoftmax/softmax/internal/layout"
)

// These tests need no GPU: they run in CI under -tags hip. They pin what
// can be checked without running a kernel: the fallback to the CPU when
// there is no usable GPU, that every code object exports every kernel the
// dispatch may launch, and the dispatch rules for both wavefront widths.

// TestFallback: without a usable AMD GPU the hip build registers the
// reason instead of a backend, large problems go to the CPU, forcing the
// GPU is an error that says why, and the device-level API says so too.
func TestFallback(t *testing.T) {
	reason, err := probe()
	if err == nil {
		t.Skipf("a usable AMD GPU is present (%v): the fallback is not taken here", reason)
	}
	desc := backend.Describe()
	if !strings.HasPrefix(desc, "cpu (") || !strings.Contains(desc, "hip: ") || !strings.Contains(desc, "running on the CPU") {
		t.Errorf("Describe() = %q; want the CPU backend and the hip reason", desc)
	}
	t.Logf("Describe() = %q", desc)
	b, err := backend.Select(1<<30, 4)
	if err != nil || b.Name() == "hip" {
		t.Errorf("Select(1<<30, 4) = %v, %v; want the CPU backend", b, err)
	}
	t.Setenv(backend.EnvVar, "gpu")
	if _, err := backend.Select(1<<30, 4); err == nil || !strings.Contains(err.Error(), "hip: ") {
		t.Errorf("Select with %s=gpu: error %v; want one naming the hip reason", backend.EnvVar, err)
	}
	if _, err := Default(); err == nil {
		t.Error("Default() succeeded without a usable GPU")
	}
}

// TestCodeObjects opens every embedded code object as an ELF file and
// checks that it exports every kernel the dispatch launches, and that its
// wavefront width is the target's: 64 on gfx9 (GCN and CDNA), 32 on
// gfx1030 (RDNA2 in wave32).
func TestCodeObjects(t *testing.T) {
	if len(hipkernels.Objects) != 5 {
		t.Errorf("%d code objects; want 5", len(hipkernels.Objects))
	}
	for _, o := range hipkernels.Objects {
		f, err := elf.NewFile(strings.NewReader(o.Code))
		if err != nil {
			t.Errorf("%s: %v", o.Arch, err)
			continue
		}
		syms, err := f.DynamicSymbols()
		if err != nil {
			t.Errorf("%s: symbols: %v", o.Arch, err)
			continue
		}
		have := map[string]bool{}
		for _, s := range syms {
			have[s.Name] = true
		}
		for _, name := range kernelNames() {
			if !have[name] || !have[name+".kd"] {
				t.Errorf("%s: no kernel %s (or its descriptor %s.kd)", o.Arch, name, name)
			}
		}
		wave, err := hipkernels.WaveSize(o.Code)
		want := 64
		if strings.HasPrefix(o.Arch, "gfx10") {
			want = 32
		}
		if err != nil || wave != want {
			t.Errorf("%s: wavefront %d, %v; want %d", o.Arch, wave, err, want)
		}
	}
}

// fakeDevice is a Device with the attributes the dispatch reads and no
// GPU behind it.
func fakeDevice(wave, cus, lds int) *Device {
	d := &Device{wave: wave, sms: cus, kernels: map[string]*kernel{}}
	for _, name := range kernelNames() {
		static := 320 // static LDS of the block reductions (resources.txt)
		d.kernels[name] = &kernel{name: name, maxThreads: 1024, dynSmem: lds - static}
	}
	return d
}

func view(t *testing.T, shape []int, axis int) *layout.View {
	t.Helper()
	v, err := layout.Resolve(layout.Params{Axis: axis, Scale: 1}, shape, nil)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestDispatchWave pins the dispatch rules for a 64-wide (MI250-like: 110
// CUs) and a 32-wide (RX 6800-like: 60 CUs) device with 64 KB of LDS.
func TestDispatchWave(t *testing.T) {
	for _, dev := range []struct {
		wave, cus int
	}{{64, 110}, {32, 60}} {
		d := fakeDevice(dev.wave, dev.cus, 64<<10)
		edge := (64<<10 - 320) / 4
		for _, c := range []struct {
			shape []int
			axis  int
			want  Tier
		}{
			{[]int{4, 5, 6}, 1, TierInner},
			{[]int{100, 1}, -1, TierRows},
			{[]int{1000, 16384}, -1, TierRows},
			{[]int{1000, 16385}, -1, TierBlock},
			{[]int{1000, edge}, -1, TierRows},
			{[]int{2*dev.cus - 1, splitMinN}, -1, TierSplit},
			{[]int{2 * dev.cus, splitMinN}, -1, TierRows},
			{[]int{4, 1 << 25}, -1, TierSplit},
		} {
			if got := d.planTier(&call{dt: Float32, v: view(t, c.shape, c.axis)}); got != c.want {
				t.Errorf("wave %d: shape %v axis %d: tier %v, want %v", dev.wave, c.shape, c.axis, got, c.want)
			}
		}
		// Float64 softmax backward past gpu.FarGrad64's bound: the split
		// tier for fewer rows than CUs of at least splitMinN columns, the
		// block tier for other rows on the last axis, tier 5 off it; no
		// tier but those three.
		for _, c := range []struct {
			shape    []int
			axis     int
			want     Tier
			eligible []Tier
		}{
			{[]int{65536, 128}, -1, TierBlock, []Tier{TierBlock, TierInner}}, // past the split tier's 65535 rows
			{[]int{4096, 4096}, -1, TierBlock, []Tier{TierBlock, TierSplit, TierInner}},
			{[]int{4, 1 << 20}, -1, TierSplit, []Tier{TierBlock, TierSplit, TierInner}},
			{[]int{dev.cus - 1, splitMinN}, -1, TierSplit, []Tier{TierBlock, TierSplit, TierInner}},
			{[]int{dev.cus, splitMinN}, -1, TierBlock, []Tier{TierBlock, TierSplit, TierInner}},
			{[]int{50, 3}, 0, TierInner, []Tier{TierInner}},
		} {
			v := view(t, c.shape, c.axis)
			v.Scale = 1e300
			fc := &call{dt: Float64, v: v, bwd: true}
			if got := d.planTier(fc); got != c.want {
				t.Errorf("wave %d: far float64 backward %v axis %d: tier %v, want %v", dev.wave, c.shape, c.axis, got, c.want)
			}
			for tier := TierRows; tier <= TierInner; tier++ {
				if ok := d.eligible(fc, tier); ok != slices.Contains(c.eligible, tier) {
					t.Errorf("wave %d: far float64 backward %v axis %d: tier %v eligible %v", dev.wave, c.shape, c.axis, tier, ok)
				}
			}
		}
	}
}

// TestRowsPlan checks tier 1's threads per row and packs per thread at
// both widths: short rows share a block, longer ones take whole
// wavefronts, the longest take more packs per thread, and the kernel exists
// for every length.
func TestRowsPlan(t *testing.T) {
	for _, wave := range []int{64, 32} {
		d := fakeDevice(wave, 100, 64<<10)
		for _, c := range []struct {
			n, group, k int
			masked      bool
		}{
			{1, 1, 1, false}, {3, 1, 1, true}, {17, 2, 4, false}, {128, 16, 2, true}, {1024, 64, 4, false},
			{16384, 1024, 4, false}, {16384, 1024, 4, true}, {8193, (513 + wave - 1) / wave * wave, 4, true},
		} {
			var mask []int
			if c.masked {
				mask = []int{1, c.n}
			}
			v, err := layout.Resolve(layout.Params{Axis: -1, Scale: 1, Masked: c.masked}, []int{7, c.n}, mask)
			if err != nil {
				t.Fatal(err)
			}
			cl := &call{dt: Float32, v: v, force: TierRows}
			if c.masked {
				cl.mask = 0x1000
			}
			p, err := d.makePlan(cl)
			if err != nil {
				t.Fatalf("wave %d n %d: %v", wave, c.n, err)
			}
			want := gpu.RowsKernel(gpu.Float32, false, c.k, gpu.KeepOf(c.masked, false))
			threads := 128
			if c.group > wave {
				threads = c.group
			}
			if p.tier != TierRows || p.group != c.group || p.names[0] != want || p.threads != threads || d.kernels[want] == nil {
				t.Errorf("wave %d n %d: tier %v group %d kernel %s threads %d; want rows, group %d, %s, %d threads",
					wave, c.n, p.tier, p.group, p.names[0], p.threads, c.group, want, threads)
			}
		}
	}
}

// TestBlockThreads: every block tier launches whole wavefronts (the block
// reduction keeps one slot per wavefront), even when a kernel allows fewer
// threads than the plan wants.
func TestBlockThreads(t *testing.T) {
	for _, wave := range []int{64, 32} {
		d := fakeDevice(wave, 100, 64<<10)
		for name, k := range d.kernels {
			if !strings.Contains(name, "_rows") {
				k.maxThreads = 1000 // not a multiple of either width
			}
		}
		for _, tier := range []Tier{TierCached, TierBlock, TierSplit, TierInner} {
			p, err := d.makePlan(&call{dt: Float64, v: view(t, []int{3, 5000}, -1), force: tier})
			if err != nil {
				t.Fatalf("wave %d tier %v: %v", wave, tier, err)
			}
			if p.threads%wave != 0 || p.threads > 1000 {
				t.Errorf("wave %d tier %v: %d threads; want a multiple of %d up to 1000", wave, tier, p.threads, wave)
			}
		}
	}
}

// TestSlots pins the kernel parameter list: buffers, then the 25 view
// parameters and the 5 extra ones of cukernels/softmax.cuh, 8 bytes each.
func TestSlots(t *testing.T) {
	v, err := layout.Resolve(layout.Params{Axis: -1, Scale: 0.5, Log: true, Causal: true, Offset: -1}, []int{2, 3, 4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	md, _ := gpu.NewMaskDims(v)
	for _, bufs := range [][]DevicePtr{{0x1000, 0x2000}, {0x1000, 0x2000, 0x3000}} {
		c := &call{dt: Float32, v: v, bufs: bufs, mask: 0x4000}
		s := slots(c, md, plan{vec: true, group: 4, chunk: 7, splits: 9}, 0x5000)
		if want := len(bufs) + 25 + 5; len(s) != want {
			t.Fatalf("%d slots; want %d", len(s), want)
		}
		n := len(bufs)
		if s[0] != 0x1000 || s[n] != 6 || s[n+1] != 4 || s[n+2] != 1 || s[n+4] != 1 || s[n+5] != 3 ||
			int64(s[n+6]) != -1 || s[n+7] != 0x4000 || s[n+25] != 0x5000 || s[n+26] != 1 || s[n+27] != 4 ||
			s[n+28] != 7 || s[n+29] != 9 {
			t.Errorf("slots %v", s)
		}
	}
}

func TestMain(m *testing.M) {
	if _, err := probe(); err != nil {
		fmt.Fprintf(os.Stderr, "hip: no usable AMD GPU here, GPU tests skip: %v\n", err)
	}
	os.Exit(m.Run())
}
