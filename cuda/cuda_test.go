//go:build cu

package cuda

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"gorgonia.org/cu"

	"github.com/gosoftmax/softmax/cukernels"
	"github.com/gosoftmax/softmax/internal/gpu"
	"github.com/gosoftmax/softmax/internal/gpu/gpucheck"
	"github.com/gosoftmax/softmax/internal/layout"
	"github.com/gosoftmax/softmax/internal/reference"
)

// The suite needs a GPU: build it here with `go test -c -tags cu` and run
// the binary on the GPU machine (docs/GPU.md). -test.short runs a smaller
// set, for compute-sanitizer.

var seeds = flag.Int("seeds", 120, "random problems per dtype (short: 20)")

// -fatbin runs the suite on another build of the kernels (a file of the
// same kernels, compiled otherwise) instead of the embedded fatbin. Calls
// that take the span kernels (spanCall) still run the embedded span
// fatbin.
var fatbinFile = flag.String("fatbin", "", "load the kernels from this file instead of the embedded fatbin")
var fatbinOnce sync.Once

var dtypes = []Dtype{Float32, Float64, Float16, BFloat16}

func device(t testing.TB) *Device {
	t.Helper()
	fatbinOnce.Do(func() {
		if *fatbinFile == "" {
			return
		}
		b, err := os.ReadFile(*fatbinFile)
		if err != nil {
			panic(err)
		}
		cukernels.Fatbin = string(b) // before Default loads it
	})
	d, err := Default()
	if err != nil {
		t.Fatalf("no device: %v", err)
	}
	return d
}

// ---- one problem on the device ----

type problem struct {
	name string
	spec reference.Spec
	axis int // as passed to the API
	x    []float64
	dy   []float64
	y    []float64 // the backward's y where set, in place of the forward's output
	// exactDX and exactTerms, where set, are the backward's reference in
	// place of reference.Backward's and GradTerms' (float64 problems whose
	// y is set: reference.ExactBackward, taken once for every tier).
	exactDX, exactTerms []float64
}

func fromRandom(name string, p reference.Problem) problem {
	return problem{name: name, spec: p.Spec, axis: p.UserAxis, x: p.X, dy: p.DY}
}

func (p problem) params() layout.Params {
	return layout.Params{Axis: p.axis, Log: p.spec.Log, Masked: p.spec.Mask != nil, Scale: p.spec.Scale,
		Causal: p.spec.Causal, Offset: p.spec.Offset}
}

func (p problem) view(t testing.TB) *layout.View {
	v, err := layout.Resolve(p.params(), p.spec.Shape, p.spec.MaskShape)
	if err != nil {
		t.Fatalf("%s: %v", p.name, err)
	}
	return v
}

// buffer is device memory holding a copy of host bytes; off shifts the
// pointer by off bytes (unaligned tests).
type buffer struct {
	base, ptr cu.DevicePtr
	n         int
}

// upload copies b to a new allocation, off bytes past its base, with
// guardBytes after it. The off bytes before and the guard after hold 0xff
// (NaN in every dtype): a kernel that reads them into a result makes it
// NaN, and intact finds one that writes them. A read whose bytes are
// dropped (the shifted kernels' cut packs) leaves no trace in the values:
// memcheck under GPU_TEST_GUARD=0 finds one past the buffer.
func upload(t testing.TB, d *Device, b []byte, off int) buffer {
	t.Helper()
	all := poison(off + len(b) + guardBytes)
	copy(all[off:], b)
	base, err := d.Alloc(len(all))
	if err != nil {
		t.Fatal(err)
	}
	if err := Upload(d, base, all); err != nil {
		t.Fatal(err)
	}
	return buffer{base: base, ptr: base + cu.DevicePtr(off), n: len(b)}
}

// guardBytes is the guard after each test buffer: a 16-byte pack read or
// written whole past the last element lands in it. GPU_TEST_GUARD=0 leaves
// it out, so that such a read leaves the allocation (for memcheck).
var guardBytes = func() int {
	if os.Getenv("GPU_TEST_GUARD") == "0" {
		return 0
	}
	return 16
}()

// intact says whether the bytes around b (before its ptr and after its
// end) still hold what upload wrote there.
func (b buffer) intact(t testing.TB, d *Device) bool {
	t.Helper()
	all := make([]byte, int(b.ptr-b.base)+b.n+guardBytes)
	if err := Download(d, all, b.base); err != nil {
		t.Fatal(err)
	}
	for i, c := range all {
		if (i < int(b.ptr-b.base) || i >= len(all)-guardBytes) && c != 0xff {
			return false
		}
	}
	return true
}

func (b buffer) read(t testing.TB, d *Device) []byte {
	t.Helper()
	out := make([]byte, b.n)
	if err := Download(d, out, b.ptr); err != nil {
		t.Fatal(err)
	}
	return out
}

func (b buffer) free(t testing.TB, d *Device) {
	if err := d.Free(b.base); err != nil {
		t.Error(err)
	}
}

func poison(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = 0xff // NaN in every dtype
	}
	return b
}

func maskBytes(m []bool) []byte {
	b := make([]byte, len(m))
	for i, k := range m {
		if k {
			b[i] = 1
		}
	}
	return b
}

// check runs p forward and backward on dtype dt with the tier forced
// (TierAuto: the public API and its dispatch) and compares against the
// float64 reference. It returns a failure description or "".
func check(t testing.TB, d *Device, p problem, dt Dtype, tier Tier, off int) string {
	v := p.view(t)
	x, dy := gpucheck.Round(dt, p.x), gpucheck.Round(dt, p.dy)
	want := reference.Forward(p.spec, x)
	yIn := gpucheck.Round(dt, want)
	if p.y != nil {
		yIn = gpucheck.Round(dt, p.y)
	}
	wantDX, terms := p.exactDX, p.exactTerms
	if wantDX == nil {
		wantDX, terms = reference.Backward(p.spec, yIn, dy), reference.GradTerms(p.spec, yIn, dy)
	}

	n := len(x) * dt.Size()
	bx := upload(t, d, gpucheck.Encode(dt, x), off)
	by := upload(t, d, poison(n), off)
	bdy := upload(t, d, gpucheck.Encode(dt, dy), off)
	bdx := upload(t, d, poison(n), off)
	bufs := []buffer{bx, by, bdy, bdx}
	var mask *Mask
	if p.spec.Mask != nil {
		bm := upload(t, d, maskBytes(p.spec.Mask), 0)
		bufs = append(bufs, bm)
		mask = &Mask{Ptr: bm.ptr, Shape: p.spec.MaskShape}
	}
	defer func() {
		for _, b := range bufs {
			b.free(t, d)
		}
	}()
	opt := Options{Axis: p.axis, Log: p.spec.Log, Scale: p.spec.Scale, Causal: p.spec.Causal, Offset: p.spec.Offset}
	var mp cu.DevicePtr
	if mask != nil {
		mp = mask.Ptr
	}
	where := fmt.Sprintf("%s %v tier=%v off=%d shape=%v axis=%d log=%v scale=%v causal=%v/%d mask=%v",
		p.name, dt, tier, off, p.spec.Shape, p.axis, p.spec.Log, p.spec.Scale, p.spec.Causal, p.spec.Offset, p.spec.MaskShape)

	var err error
	if tier == TierAuto {
		err = d.Forward(dt, p.spec.Shape, bx.ptr, by.ptr, mask, opt)
	} else {
		err = d.do(func() error {
			return d.run(&call{dt: dt, v: v, bufs: []cu.DevicePtr{bx.ptr, by.ptr}, mask: mp, force: tier})
		})
	}
	if err != nil {
		return where + ": forward: " + err.Error()
	}
	if !by.intact(t, d) {
		return where + ": forward wrote outside y"
	}
	got := gpucheck.Decode(dt, by.read(t, d))
	var bad []string
	for i := range got {
		if !gpucheck.FwdOK(dt, p.spec.Log, got[i], want[i]) {
			bad = append(bad, fmt.Sprintf("y[%d]=%v want %v (x=%v)", i, got[i], want[i], x[i]))
		}
	}
	if len(bad) > 0 {
		return fmt.Sprintf("%s: forward: %d of %d wrong: %s", where, len(bad), len(got), strings.Join(bad[:min(4, len(bad))], "; "))
	}

	if tier != TierAuto && !eligible(d, &call{dt: dt, v: v, bwd: true, mask: mp}, tier) {
		return "" // a tier that takes these rows forward only (cluster)
	}
	bwdIn := upload(t, d, gpucheck.Encode(dt, yIn), off)
	bufs = append(bufs, bwdIn)
	if tier == TierAuto {
		err = d.Backward(dt, p.spec.Shape, bwdIn.ptr, bdy.ptr, bdx.ptr, mask, opt)
	} else {
		err = d.do(func() error {
			return d.run(&call{dt: dt, v: v, bwd: true, bufs: []cu.DevicePtr{bwdIn.ptr, bdy.ptr, bdx.ptr}, mask: mp, force: tier})
		})
	}
	if err != nil {
		return where + ": backward: " + err.Error()
	}
	if !bdx.intact(t, d) {
		return where + ": backward wrote outside dx"
	}
	gotDX := gpucheck.Decode(dt, bdx.read(t, d))
	for i := range gotDX {
		if !gpucheck.GradOK(dt, gotDX[i], wantDX[i], terms[i]) {
			bad = append(bad, fmt.Sprintf("dx[%d]=%v want %v (y=%v dy=%v terms=%v)", i, gotDX[i], wantDX[i], yIn[i], dy[i], terms[i]))
		}
	}
	if len(bad) > 0 {
		return fmt.Sprintf("%s: backward: %d of %d wrong: %s", where, len(bad), len(gotDX), strings.Join(bad[:min(4, len(bad))], "; "))
	}
	return ""
}

// tiers lists TierAuto and every tier that can compute p forward (check
// runs the backward pass on those that can compute it too). A masked
// problem is asked about with a mask (any non-zero pointer): tiers 7 and 8
// hold its mask bytes too.
func tiers(d *Device, p problem, dt Dtype, v *layout.View) []Tier {
	out := []Tier{TierAuto}
	var mask cu.DevicePtr
	if p.spec.Mask != nil {
		mask = 1
	}
	for t := TierRows; t <= TierCGrid; t++ {
		if eligible(d, &call{dt: dt, v: v, mask: mask}, t) {
			out = append(out, t)
		}
	}
	return out
}

// eligible is d.eligible inside do: the grid tier asks the driver for
// occupancy, which needs the device's context current.
func eligible(d *Device, c *call, t Tier) (ok bool) {
	if err := d.do(func() error { ok = d.eligible(c, t); return nil }); err != nil {
		panic(err)
	}
	return ok
}

func run(t *testing.T, d *Device, p problem, dt Dtype, only ...Tier) {
	t.Helper()
	ts := tiers(d, p, dt, p.view(t))
	if len(only) > 0 { // the forced tiers that can compute p
		ts = slices.DeleteFunc(slices.Clone(only), func(t Tier) bool { return !slices.Contains(ts, t) })
	}
	for _, tier := range ts {
		if msg := check(t, d, p, dt, tier, 0); msg != "" {
			t.Error(msg)
		}
	}
}

// ---- problems ----

// randomProblem draws reference.Random problems small enough to check
// quickly.
func randomProblem(rng *rand.Rand, masked bool) reference.Problem {
	for {
		p := reference.Random(rng, masked)
		n := 1
		for _, s := range p.Shape {
			n *= s
		}
		if n <= 60000 {
			return p
		}
	}
}

// rowsProblem is rows x n over the last axis with a variant: 0 plain,
// 1 full mask with a fully masked row, 2 broadcast column mask, 3 causal,
// 4 causal and mask, 5 special values (NaN, +Inf, -Inf rows), 6 log
// softmax with scale and special values, 7 causal with the limit mid-row,
// 8 full mask with special values where it masks (NaN, +Inf and -Inf in
// every row, which must change nothing) and where it keeps (+Inf, -Inf or
// NaN, by row).
func rowsProblem(rng *rand.Rand, rows, n, variant int) problem {
	p := problem{name: fmt.Sprintf("rows%dx%d/v%d", rows, n, variant), axis: -1,
		spec: reference.Spec{Shape: []int{rows, n}, Axis: 1, Scale: 1}}
	p.x, p.dy = make([]float64, rows*n), make([]float64, rows*n)
	for i := range p.x {
		p.x[i] = rng.NormFloat64() * 3
		p.dy[i] = rng.NormFloat64()
	}
	fullMask := func() {
		p.spec.MaskShape = []int{rows, n}
		p.spec.Mask = make([]bool, rows*n)
		for i := range p.spec.Mask {
			p.spec.Mask[i] = i >= n && rng.Float64() < 0.7 // row 0 fully masked
		}
	}
	switch variant {
	case 1:
		fullMask()
	case 2:
		p.spec.MaskShape = []int{1, n}
		p.spec.Mask = make([]bool, n)
		for i := range p.spec.Mask {
			p.spec.Mask[i] = rng.Float64() < 0.5
		}
	case 3:
		p.spec.Causal, p.spec.Offset = true, rng.IntN(5)-2
		p.spec.Log = true
	case 4:
		p.spec.Causal, p.spec.Offset = true, n-rows
		fullMask()
	case 7: // a causal limit in the middle of every row
		p.spec.Causal, p.spec.Offset = true, n/2+rng.IntN(7)
	case 5, 6:
		for r := range rows {
			row := p.x[r*n : (r+1)*n]
			switch r % 5 {
			case 1:
				row[rng.IntN(n)] = math.NaN()
			case 2:
				row[rng.IntN(n)] = math.Inf(1)
				row[rng.IntN(n)] = math.Inf(1)
			case 3:
				for k := range row {
					row[k] = math.Inf(-1)
				}
			case 4:
				row[rng.IntN(n)] = math.Inf(-1)
			}
		}
		if variant == 6 {
			p.spec.Log, p.spec.Scale = true, 0.3
		}
	case 8:
		fullMask()
		for r := range rows {
			row, keep := p.x[r*n:(r+1)*n], p.spec.Mask[r*n:(r+1)*n]
			// at is a column from a random start that the mask keeps (or
			// masks), -1 if the row has none.
			at := func(kept bool) int {
				for i, k0 := 0, rng.IntN(n); i < n; i++ {
					if k := (k0 + i) % n; keep[k] == kept {
						return k
					}
				}
				return -1
			}
			for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				if k := at(false); k >= 0 {
					row[k] = x
				}
			}
			if k := at(true); k >= 0 && r%4 != 0 {
				row[k] = []float64{math.Inf(1), math.Inf(-1), math.NaN()}[r%4-1]
			}
		}
	}
	return p
}

// ---- tests ----

func TestGPURandom(t *testing.T) {
	d := device(t)
	count := *seeds
	if testing.Short() {
		count = 20
	}
	for _, dt := range dtypes {
		rng := rand.New(rand.NewPCG(1, uint64(dt)))
		for i := range count {
			p := randomProblem(rng, i%2 == 1)
			run(t, d, fromRandom(fmt.Sprintf("random%d", i), p), dt)
		}
	}
}

// TestGPUTinyGradients runs log-softmax backward on rows whose dy are all
// tiny and of one sign, so the row sum is as large as its terms and tiny
// too: tier 1's fast form would lose the product's bits there (log_grad
// in cukernels/softmax.cuh), and such rows must take the exact form.
func TestGPUTinyGradients(t *testing.T) {
	d := device(t)
	rng := rand.New(rand.NewPCG(9, 9))
	for _, dt := range dtypes {
		for _, size := range []float64{1e-30, 1e-35, 1e-40} {
			for _, n := range []int{100, 1000, 4000} {
				p := rowsProblem(rng, 4, n, 0)
				p.name = fmt.Sprintf("tiny%gx%d", size, n)
				p.spec.Log = true
				for i := range p.dy {
					p.dy[i] = size * (1 + rng.Float64())
				}
				run(t, d, p, dt)
			}
		}
	}
}

// TestGPUTierBoundaries runs row lengths at and around every tier
// boundary, with every variant, on every tier that can take them.
func TestGPUTierBoundaries(t *testing.T) {
	d := device(t)
	rng := rand.New(rand.NewPCG(2, 2))
	ns := []int{1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257,
		511, 512, 513, 1023, 1024, 1025, 2047, 2048, 2049, 4097}
	for _, dt := range dtypes {
		for i, n := range ns {
			for variant := range 7 {
				if testing.Short() && (i+variant)%3 != 0 {
					continue
				}
				run(t, d, rowsProblem(rng, 7, n, variant), dt)
			}
		}
	}
}

// TestGPUTinyScale runs scales whose float32 form is subnormal or 0, on
// rows with a mask or with NaN, +Inf and -Inf entries: scale*x is then
// about 0 for every finite x and stays -Inf or +Inf for the infinite
// ones, so a row is uniform over its finite kept entries, and no tier may
// turn -Inf times a scale it rounded to 0 into NaN.
func TestGPUTinyScale(t *testing.T) {
	d := device(t)
	rng := rand.New(rand.NewPCG(12, 4))
	for _, dt := range dtypes {
		gpucheck.ScaleCases(dt, []float64{1e-40, 1e-46, 1e-300}, testing.Short(), func(n int, s float64, variant int, lg bool) {
			p := rowsProblem(rng, 5, n, variant)
			p.spec.Scale, p.spec.Log = s, lg
			run(t, d, p, dt)
		})
	}
}

// TestGPUTinyScaleBackward runs the backward at scales where the float32
// form of the scale, or its product with y, lies under float32's normal
// range (down to 1e-300, under KernelScale's floor of 2^-149) with
// gradients near 1e37, so that dx is still a normal float32: softmax and
// log-softmax, unmasked, masked and causal, float32 and bfloat16, on every
// tier. gpu.BackwardScale runs such calls at a scale in [2^-61, 2^-60)
// and multiplies dx down after; without it (SOFTMAX_RESCALE=0) dx kept
// fewer bits (about 2% off at 1e-44) or, under the floor, came out up to
// 1e255 times too large.
func TestGPUTinyScaleBackward(t *testing.T) {
	d := device(t)
	rng := rand.New(rand.NewPCG(16, 7))
	for _, dt := range []Dtype{Float32, BFloat16} {
		for i, n := range []int{33, 1000, 70000} {
			for j, s := range []float64{1e-20, 1e-37, 1e-44, 1e-46, 1e-300} {
				for k, variant := range []int{0, 1, 3} {
					for l, lg := range []bool{false, true} {
						if testing.Short() && (i+j+k+l)%2 != 0 {
							continue
						}
						p := rowsProblem(rng, 5, n, variant)
						p.spec.Scale, p.spec.Log = s, lg
						for e := range p.dy {
							p.dy[e] *= 1e37
						}
						p.name += fmt.Sprintf("/dy1e37/scale%g", s)
						run(t, d, p, dt)
					}
				}
			}
		}
	}
}

// TestGPUHugeScale runs scales up to float32's largest value, where
// log-softmax outputs and gradients pass the output type's range (the
// checks then want the infinity they round to), and, for float64, past it.
// Past it the float32-computed types are refused on the device
// (TestGPUErrors) and float32 host calls too, checked here.
func TestGPUHugeScale(t *testing.T) {
	d := device(t)
	rng := rand.New(rand.NewPCG(14, 4))
	for _, dt := range dtypes {
		gpucheck.ScaleCases(dt, []float64{1e30, 1e38, math.MaxFloat32, 1e39, 1e300}, testing.Short(), func(n int, s float64, variant int, lg bool) {
			p := rowsProblem(rng, 5, n, variant)
			p.spec.Scale, p.spec.Log = s, lg
			run(t, d, p, dt)
		})
	}

	p := rowsProblem(rng, 5, 1024, 5)
	p.spec.Scale = 1e39
	v := p.view(t)
	x32, y32 := make([]float32, len(p.x)), make([]float32, len(p.x))
	if err := (Backend{}).Forward(v, x32, y32, nil); err == nil || !strings.Contains(err.Error(), "scale") {
		t.Errorf("host float32 at scale 1e39: error %v, want one naming the scale", err)
	}
	if err := (Backend{}).Backward(v, y32, x32, y32, nil); err == nil || !strings.Contains(err.Error(), "scale") {
		t.Errorf("host float32 backward at scale 1e39: error %v, want one naming the scale", err)
	}
}

// TestGPUExtremeValues runs rows whose entries reach each dtype's largest
// value (differences past its range, -max as a mask score) and float32's
// subnormals, with gradients near the largest (reference.Extreme), at
// scales under and over 1, on every tier that takes them. float64 rows
// reach 1e300, where the kernels' float64 differences stay finite.
// No -Inf is allowed for a finite answer: the float32 and bfloat16
// log-softmax rows at scales under 1 take the span kernels (spanCall).
func TestGPUExtremeValues(t *testing.T) {
	d := device(t)
	rng := rand.New(rand.NewPCG(15, 4))
	for _, dt := range dtypes {
		gpucheck.ExtremeCases(dt, testing.Short(), func(n int, big, s float64, lg bool) {
			rp := reference.Extreme(rng, 12, n, big)
			rp.Scale, rp.Log = s, lg
			run(t, d, fromRandom(fmt.Sprintf("extreme12x%d", n), rp), dt)
		})
	}
}

// TestGPUSpanScales runs rows spanning past float32's range at scales
// under spanScale, where the far entries' terms still count (under about
// 3e-37) and where the scale is a float32 subnormal, softmax and
// log-softmax, on every tier that takes them: before the span kernels the
// default ones gave those entries 0 (GPU entry 61). The gradients are of
// order 1: with reference.Extreme's, near float32's largest over n, the
// backward's scale*y underflows float32's normal range first and dx
// loses bits (docs/GPU.md, Not done yet; GPU entry 62).
func TestGPUSpanScales(t *testing.T) {
	d := device(t)
	rng := rand.New(rand.NewPCG(15, 5))
	for _, dt := range []Dtype{Float32, BFloat16} {
		gpucheck.ExtremeCasesAt(dt, []float64{1e-37, 1e-38, 1e-41}, testing.Short(), func(n int, big, s float64, lg bool) {
			rp := reference.Extreme(rng, 12, n, big)
			rp.Scale, rp.Log = s, lg
			for i := range rp.DY {
				rp.DY[i] = rng.NormFloat64()
			}
			run(t, d, fromRandom(fmt.Sprintf("span12x%d", n), rp), dt)
		})
	}
}

// TestGPUSpanFloat64 runs float64 rows spanning past float64's range
// (reference.Extreme up to its largest value: entries near 1.8e308 and
// -1.8e308 in one row) at scales under 1, where log-softmax's far outputs
// are finite, and under spanScale64, where the far entries' terms count,
// softmax and log-softmax, on every tier that takes them: the default
// kernels round such an x - m to -Inf, the span kernels halve it.
func TestGPUSpanFloat64(t *testing.T) {
	d := device(t)
	rng := rand.New(rand.NewPCG(15, 6))
	for i, n := range []int{33, 1024, 5000, 70000} {
		for j, s := range []float64{0.125, 1e-300, 1e-308} {
			for k, lg := range []bool{false, true} {
				if testing.Short() && (i+j+k)%2 != 0 {
					continue
				}
				rp := reference.Extreme(rng, 12, n, math.MaxFloat64)
				rp.Scale, rp.Log = s, lg
				for i := range rp.DY {
					rp.DY[i] = rng.NormFloat64()
				}
				run(t, d, fromRandom(fmt.Sprintf("span64x12x%d", n), rp), Float64)
			}
		}
	}
}

// TestSpanCall checks which calls take the span kernels.
func TestSpanCall(t *testing.T) {
	for _, c := range []struct {
		dt       Dtype
		bwd, log bool
		scale    float64
		want     bool
	}{
		{Float32, false, true, 0.5, true},
		{BFloat16, false, true, 0.999, true},
		{Float32, false, true, 1, false},
		{Float32, false, false, 0.5, false},
		{Float32, false, false, 0x1p-101, true},
		{BFloat16, false, false, 1e-38, true},
		{Float32, false, false, 0x1p-100, false},
		{Float16, false, true, 0.5, false},
		{Float64, false, true, 0.5, true},
		{Float64, false, true, 1, false},
		{Float64, false, false, 0.5, false},
		{Float64, false, false, 0x1p-1001, true},
		{Float64, false, false, 0x1p-1000, false},
		{Float64, true, true, 0.5, false},
		{Float32, true, true, 0.5, false},
	} {
		v := &layout.View{Params: layout.Params{Log: c.log, Scale: c.scale}}
		if got := spanCall(&call{dt: c.dt, bwd: c.bwd, v: v}); got != c.want {
			t.Errorf("spanCall(%v, bwd %v, log %v, scale %g) = %v, want %v", c.dt, c.bwd, c.log, c.scale, got, c.want)
		}
	}
}

// shapeEdges lists the row lengths up to limit after which shape's value
// (packs per thread, blocks per cluster) changes, ending with the longest
// row shape takes (ok false past it).
func shapeEdges(limit int, shape func(n int) (value int, ok bool)) []int {
	var edges []int
	last := 0
	for n := 1; n <= limit; n++ {
		v, ok := shape(n)
		if !ok {
			return append(edges, n-1)
		}
		if v != last && n > 1 {
			edges = append(edges, n-1)
		}
		last = v
	}
	return edges
}

// TestGPURowsBoundaries runs rows one shorter than, as long as, and one
// longer than each row length at which tier 1 changes its packs per thread
// (and, at the largest, hands over to the next tier), forward and
// backward, with several rows per warp where the group is narrow.
func TestGPURowsBoundaries(t *testing.T) {
	d := device(t)
	rng := rand.New(rand.NewPCG(6, 6))
	for _, dt := range dtypes {
		for _, bwd := range []bool{false, true} {
			edges := shapeEdges(1<<16, func(n int) (int, bool) {
				k, _, ok := gpu.RowsShape(dt, bwd, gpu.KeepAll, int64(n), warpSize)
				return k, ok
			})
			for i, edge := range edges {
				for j, n := range []int{edge - 1, edge, edge + 1} {
					if n < 1 || testing.Short() && j != 1 && edge > 4096 {
						continue
					}
					// With and without the pipelined and packed kernels
					// (aligned rows take them when they can).
					for _, noPipe := range []bool{false, true} {
						d.noPipe, d.noPacked = noPipe, noPipe // off: the plain kernels
						run(t, d, rowsProblem(rng, 5, n, (i+j)%7), dt, TierAuto, TierRows)
					}
					d.noPipe, d.noPacked = false, false
				}
			}
		}
	}
}

// TestGPULogBackwardSumPastRange runs log-softmax backward rows whose
// gradients, each in range, sum past float32's largest value (float32 and
// bfloat16, 1.5e38 to 3e38 each, y uniform over the kept columns: dx is
// scale times dy less the kept gradients' mean), unmasked, masked, causal
// and causal to the middle of the row (full steps, then partial ones), on
// every tier that takes them, at scales 1 and 0.5. The row's sum is
// float64, but the exact path, which such rows take (|scale*sum| past the
// fast form's 2^32), once turned it to float32's +Inf (dx -Inf), and the
// long-row tiers summed a thread's step (up to 32 terms) in float32
// before adding it.
func TestGPULogBackwardSumPastRange(t *testing.T) {
	d := device(t)
	rng := rand.New(rand.NewPCG(13, 14))
	for _, dt := range []Dtype{Float32, BFloat16} {
		for _, n := range []int{16, 33, 1000, 5000, 70000} {
			for _, variant := range []int{0, 1, 3, 7} {
				for _, scale := range []float64{1, 0.5} {
					p := rowsProblem(rng, 3, n, variant)
					p.spec.Log, p.spec.Scale = true, scale
					for k := range p.x {
						p.x[k], p.dy[k] = 0, 3e38*(0.5+0.5*rng.Float64())
					}
					p.name += fmt.Sprintf("/dy1.5e38-3e38/scale%g", scale)
					run(t, d, p, dt)
				}
			}
		}
	}
}

// TestGPUFloat64GradSubnormals runs float64 backward rows whose terms
// are formed from values under 2^-1022 (the CPU's
// TestFloat64GradSubnormals, on every tier that takes them) against
// reference.ExactBackward: 1e-12 of the terms, down to 2^-1022. Before,
// every tier formed log-softmax's exp(y)*s*c with exp(y) rounded to
// 2^-1075 (y = -800 beside a sum of 1e300: dx 0 for -3.7e-48), and
// softmax's products in sum(dy*y) and y*(dy - c) likewise before the
// scale (y = 5e-324 at a scale of 1e300: 43% off), and the long-row
// tiers took s*y first past a scale of 2^22 (y = 5e-324 at 1e10/3 beside
// dy = 1e100: 1e-10 off). Rows of 2 to
// 70000 columns, plain, masked, causal and causal to the middle, and a
// non-last axis; x is 0 (the forward check's rows are uniform).
func TestGPUFloat64GradSubnormals(t *testing.T) {
	d := device(t)
	rng := rand.New(rand.NewPCG(73, 1))
	exact := func(p problem, log bool, s float64) problem {
		p.spec.Log, p.spec.Scale = log, s
		p.x = make([]float64, len(p.dy))
		p.exactDX, p.exactTerms = reference.ExactBackward(p.spec, p.y, p.dy)
		p.name += fmt.Sprintf("/log%v/scale%g", log, s)
		return p
	}
	for _, r := range reference.FarRows {
		p := rowsProblem(rng, 1, len(r.Y), 0)
		p.y, p.dy = r.Y, r.DY
		run(t, d, exact(p, r.Log, r.Scale), Float64)
	}
	ns, variants := []int{16, 37, 1000, 5000, 70000}, []int{0, 1, 3, 7}
	if testing.Short() {
		ns, variants = []int{37, 70000}, []int{0, 7}
	}
	// far is a 3 x n problem of FarY rows, |dy| from 1e-300 to 1e300/s
	// (s*dy stays in range).
	far := func(n, variant int, log bool, s float64) problem {
		p := rowsProblem(rng, 3, n, variant)
		p.y = make([]float64, len(p.dy))
		for r := range 3 {
			reference.FarY(rng, p.y[r*n:(r+1)*n], log, 1400)
		}
		for k := range p.dy {
			p.dy[k] = math.Pow(10, rng.Float64()*(600-math.Log10(s))-300) * float64(1-2*rng.IntN(2))
		}
		return exact(p, log, s)
	}
	for _, n := range ns {
		for _, variant := range variants {
			for _, log := range []bool{false, true} {
				run(t, d, far(n, variant, log, math.Pow(10, float64(rng.IntN(31)*10))), Float64) // 1 to 1e300
			}
			// Softmax at 1e10, under 2^52 over the row length (not
			// gpu.FarGrad64's).
			run(t, d, far(n, variant, false, 1e10), Float64)
		}
	}
	// The long-row tiers' softmax past a scale of 2^22 took s*y first,
	// rounded to a multiple of 2^-1074 where it fell under 2^-1022: y =
	// 5e-324 at 1e10/3 beside dy = 1e100 was 1e-10 off. 5000 columns, so
	// that every tier takes the rows.
	const long = 5000
	p := rowsProblem(rng, 3, long, 0)
	p.y, p.dy = make([]float64, 3*long), make([]float64, 3*long)
	for k := range p.y {
		p.y[k] = 1.0 / long
	}
	for r := range 3 {
		p.y[r*long+1+r], p.dy[r*long+1+r] = 5e-324*float64(r+1), 1e100
	}
	run(t, d, exact(p, false, 1e10/3), Float64)
	// Along axis 0 of a 50 x 3 tensor (tier 5), each column the same row.
	const m = 50
	for _, log := range []bool{false, true} {
		p := problem{name: "axis0/50x3", axis: 0, spec: reference.Spec{Shape: []int{m, 3}, Axis: 0}}
		row := make([]float64, m)
		reference.FarY(rng, row, log, 1400)
		p.y, p.dy = make([]float64, 3*m), make([]float64, 3*m)
		for k := range m {
			for j := range 3 {
				p.y[3*k+j], p.dy[3*k+j] = row[k], float64(k%5)-2
			}
		}
		s := 1e300
		if log {
			p.dy[0], p.dy[1], p.dy[2], s = 1e300, 1e300, 1e300, 1
		}
		run(t, d, exact(p, log, s), Float64)
	}
}

// TestGPUSoftmaxBackwardPastRange runs softmax backward rows whose dx
// the fast path's float32 arithmetic once got wrong, or could, though dx
// is in range (float32 and bfloat16; unmasked, masked, causal and causal
// to the middle of the row; every tier that takes them):
//   - "far": y nearly all on column 0, whose dy is -3e38, the others'
//     1.5e38 to 3e38: the row's sum c is near -3e38, so dy - c passes
//     float32's range (it was +Inf) while dx = s*y*(dy - c), y near 2e-9,
//     is near s*1e30. Scales 0.5, 1 and 2.
//   - "tiny y": y from 1 down to about 1e-39 by column, dy +-1e38 (|c|
//     past SoftGrad's 2^102: tiers 1, 7 and 8 take the exact path) or
//     +-1e30 (under it: SoftGrad.at), at scales 1e-6, 2^-60 and 1e-20
//     (which runs at a scale in [2^-61, 2^-60), gpu.BackwardScale): s*y
//     formed first fell under 2^-126 and lost y's bits, where dx is far
//     above it.
//   - "large scale": y from 1 down to 2^-100, dy near 1e-12 (column 0's
//     1e-30), at scales 2^30 and 1e10, where dx is about 1e-33 to 1e-15:
//     y*dy and y*c under 2^-126, taken before the scale, would be off by
//     up to scale*2^-150 (SoftGrad.any keeps s*y first there).
//
// The short form runs 33 and 70000 columns, unmasked and causal to the
// middle.
func TestGPUSoftmaxBackwardPastRange(t *testing.T) {
	d := device(t)
	rng := rand.New(rand.NewPCG(13, 15))
	ns, variants := []int{16, 33, 1000, 5000, 70000}, []int{0, 1, 3, 7}
	if testing.Short() {
		ns, variants = []int{33, 70000}, []int{0, 7}
	}
	type form struct {
		name   string
		scales []float64
		dy     float64 // tiny y's gradient magnitude
	}
	forms := []form{
		{"far", []float64{0.5, 1, 2}, 0},
		{"tiny y", []float64{1e-6, 0x1p-60, 1e-20}, 1e38},
		{"tiny y", []float64{1e-6, 0x1p-60, 1e-20}, 1e30},
		{"large scale", []float64{0x1p30, 1e10}, 0},
	}
	for _, dt := range []Dtype{Float32, BFloat16} {
		for _, n := range ns {
			for _, variant := range variants {
				for _, f := range forms {
					for _, scale := range f.scales {
						p := rowsProblem(rng, 3, n, variant)
						p.spec.Log, p.spec.Scale = false, scale
						for k := range p.x {
							col, u := k%n, rng.Float64()
							switch {
							case f.name == "tiny y":
								// y = exp(-90*u) over the row: x*scale from 0 to -90.
								p.x[k], p.dy[k] = -90*u/scale, f.dy*float64(1-2*(k%2))
							case f.name == "large scale":
								// y = 2^(-70 to -100), dy 0.67e-12 to 1.33e-12.
								p.x[k], p.dy[k] = -(70+30*u)*math.Ln2/scale, 1.33e-12*(0.5+0.5*rng.Float64())
							default:
								p.x[k], p.dy[k] = 0, 3e38*(0.5+0.5*u)
							}
							if col == 0 { // the row's largest x
								switch f.name {
								case "far":
									p.x[k], p.dy[k] = 20/scale, -3e38
								case "tiny y":
									p.x[k] = 0
								default:
									p.x[k], p.dy[k] = 0, 1e-30
								}
							}
						}
						if p.spec.Mask != nil { // keep column 0 but in row 0, which variant 1 masks whole
							for r := 1; r < 3; r++ {
								p.spec.Mask[r*n] = true
							}
						}
						p.name += fmt.Sprintf("/%s/dy%g/scale%g", f.name, f.dy, scale)
						run(t, d, p, dt)
					}
				}
			}
		}
	}
}

// TestGPULogBackward runs unmasked log-softmax backward rows of 1 to 2048
// packs (tier 1's longest backward row; 3 and 9 packs put several rows'
// groups in a warp, whose ballots grad_reduce must keep apart) through
// tier 1's kernels that take them: the streamed one (from gpu.StreamMinN
// columns), the pipelined one and the plain one. Plain rows, rows with
// NaN, +Inf and all -Inf (the exact form) and a scale, and (float32 and
// bfloat16, whose range holds them) rows of tiny dy of one sign (the
// exact form by log_grad_fast) and rows whose y passes 64 (the exact form;
// the streamed kernel finds it only after its writes).
func TestGPULogBackward(t *testing.T) {
	d := device(t)
	rng := rand.New(rand.NewPCG(13, 13))
	for _, dt := range []Dtype{Float32, Float16, BFloat16} {
		pk := 16 / dt.Size()
		for i, packs := range []int{1, 3, 9, 63, 64, 65, 256, 520, 1000, 1024, 1025, 2047, 2048} {
			n := packs * pk
			for variant, name := range []string{"plain", "special", "tiny", "large y"} {
				if variant >= 2 && dt == Float16 { // 1e-38 is 0 in float16; exp(64) past its range
					continue
				}
				p := rowsProblem(rng, 3+i%3, n, []int{0, 6, 0, 0}[variant])
				p.spec.Log = true
				switch variant {
				case 2:
					for k := range p.dy {
						p.dy[k] = 1e-38 * (1 + rng.Float64())
					}
				case 3:
					// y past what log_grad takes (above 64) in row 1, and up
					// to 64 in row 2: not a log-softmax output, but a
					// backward's input all the same.
					p.y = reference.Forward(p.spec, p.x)
					p.y[n+rng.IntN(n)] = 70
					p.y[2*n+rng.IntN(n)] = 64
				}
				p.name += "/" + name
				// Every kernel of tier 1 that takes these rows: the
				// streamed one (gpu.StreamOn), the pipelined one and the
				// plain one.
				for _, k := range []struct{ noStream, noPipe bool }{{false, false}, {true, false}, {true, true}} {
					d.noStream, d.noPipe = k.noStream, k.noPipe
					run(t, d, p, dt, TierAuto, TierRows)
				}
				d.noStream, d.noPipe = false, false
			}
		}
	}
}

// planOf is makePlan's plan for a softmax (backward: log-softmax) over the
// last axis of shape, on aligned buffers it does not read.
func planOf(t *testing.T, d *Device, dt Dtype, shape []int, bwd bool) plan {
	t.Helper()
	return planAt(t, d, dt, shape, bwd, TierAuto)
}

// planAt is planOf with the tier forced as the tests force it.
func planAt(t *testing.T, d *Device, dt Dtype, shape []int, bwd bool, force Tier) plan {
	t.Helper()
	return planWith(t, d, dt, shape, layout.Params{Axis: -1, Scale: 1, Log: bwd}, bwd, force)
}

// planWith is planAt with the op's parameters given.
func planWith(t *testing.T, d *Device, dt Dtype, shape []int, params layout.Params, bwd bool, force Tier) plan {
	t.Helper()
	v, err := layout.Resolve(params, shape, nil)
	if err != nil {
		t.Fatal(err)
	}
	bufs := []cu.DevicePtr{1 << 40, 2 << 40, 3 << 40} // apart: no call's buffers overlap
	return planCall(t, d, &call{dt: dt, v: v, bwd: bwd, bufs: bufs, force: force})
}

// planCall is makePlan's plan for c, inside do.
func planCall(t *testing.T, d *Device, c *call) plan {
	t.Helper()
	var p plan
	if err := d.do(func() (err error) {
		p, err = d.makePlan(c)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGPUPipeDispatch checks which tier 1 kernel and grid makePlan takes
// where the pipelined kernels' rules decide: half backward rows of 2048
// columns at 4 blocks per SM and of 4096 at 2, float32 backward rows of
// 4096 at 1 and of 2560 at 2 (gpu.PipeBlocksCap), float32 backward rows of
// 2048 on the plain kernel (gpu.PipeOn), and
// rows too many for their 32-bit row indices on the plain kernels
// (gpu.PipeRowsFit).
func TestGPUPipeDispatch(t *testing.T) {
	if tierKnobsSet() {
		t.Skip("a tier 1 knob replaces the rules checked here")
	}
	d := device(t)
	// The half types' forward rows below are the pipelined kernels' when
	// the packed ones are off (TestGPUPacked checks those), the backward
	// rows (log-softmax) when the streamed one is (TestGPUStreamDispatch),
	// and float32 backward rows of 300 columns when the strided rule is
	// (TestGPUStrided).
	d.noPacked, d.noStream, d.noStrided = true, true, true
	defer func() { d.noPacked, d.noStream, d.noStrided = false, false, false }()
	for _, c := range []struct {
		dt        Dtype
		shape     []int
		bwd       bool
		kernel    string
		gridPerSM int // 0: not checked
	}{
		{Float16, []int{16384, 2048}, true, "softmax_bwd_pipe4_f16", 4},
		{BFloat16, []int{16384, 2048}, true, "softmax_bwd_pipe4_bf16", 4},
		{Float16, []int{8192, 4096}, true, "softmax_bwd_pipe4_f16", 2},
		{Float32, []int{8192, 4096}, true, "softmax_bwd_pipe2_f32", 1},
		{Float32, []int{8192, 2560}, true, "softmax_bwd_pipe2_f32", 2},
		{Float32, []int{16384, 2048}, true, "softmax_bwd_rows2_f32", 0},
		{Float16, []int{16384, 1024}, false, "softmax_fwd_pipe4_f16", 0},
		{Float16, []int{16384, 1032}, false, "softmax_fwd_pipe2_f16", 0},
		{Float32, []int{32768, 300}, true, "softmax_bwd_pipe4_f32", 0},
		{Float16, []int{1<<31 - 8, 8}, false, "softmax_fwd_rows1_f16", 0},
		{Float16, []int{1 << 20, 8}, false, "softmax_fwd_pipe1_f16", 0},
	} {
		p := planOf(t, d, c.dt, c.shape, c.bwd)
		if p.names[0] != c.kernel {
			t.Errorf("%v %v bwd %v: kernel %s, want %s", c.dt, c.shape, c.bwd, p.names[0], c.kernel)
		}
		if c.gridPerSM > 0 && p.grid[0] != c.gridPerSM*d.sms {
			t.Errorf("%v %v bwd %v: grid %d, want %d blocks per SM (%d)", c.dt, c.shape, c.bwd, p.grid[0], c.gridPerSM, c.gridPerSM*d.sms)
		}
	}
}

// TestGPUStreamDispatch checks where tier 1 takes its streamed log-softmax
// backward (gpu.StreamOn): aligned rows of log-softmax backward from
// gpu.StreamMinN columns, a block a row; not softmax backward, shorter
// rows, causal rows or float64.
func TestGPUStreamDispatch(t *testing.T) {
	if tierKnobsSet() {
		t.Skip("a tier 1 knob replaces the rules checked here")
	}
	d := device(t)
	for _, c := range []struct {
		dt      Dtype
		shape   []int
		params  layout.Params
		threads int // 0: not the streamed kernel
	}{
		{Float32, []int{2048, 8192}, layout.Params{Axis: -1, Scale: 1, Log: true}, 512},
		{Float32, []int{2048, 4096}, layout.Params{Axis: -1, Scale: 1, Log: true}, 256},
		{Float32, []int{16, 16, 2048, 2048}, layout.Params{Axis: -1, Scale: 1, Log: true}, 0}, // the wide kernel (gpu.WideOn)
		{Float32, []int{16384, 2048}, layout.Params{Axis: -1, Scale: 1, Log: true}, 128},
		{Float16, []int{16384, 2048}, layout.Params{Axis: -1, Scale: 1, Log: true}, 64},
		{Float16, []int{2048, 1024}, layout.Params{Axis: -1, Scale: 1, Log: true}, 64},
		{BFloat16, []int{2048, 8192}, layout.Params{Axis: -1, Scale: 0.5, Log: true}, 256},
		{Float32, []int{2048, 8192}, layout.Params{Axis: -1, Scale: 1}, 0},
		{Float32, []int{2048, 1024}, layout.Params{Axis: -1, Scale: 1, Log: true}, 64},
		{BFloat16, []int{32768, 512}, layout.Params{Axis: -1, Scale: 1, Log: true}, 0},
		{Float32, []int{2048, 8192}, layout.Params{Axis: -1, Scale: 1, Log: true, Causal: true}, 0},
		{Float64, []int{2048, 8192}, layout.Params{Axis: -1, Scale: 1, Log: true}, 0},
	} {
		p := planWith(t, d, c.dt, c.shape, c.params, true, TierAuto)
		streamed := strings.Contains(p.names[0], "_lstream_")
		rows := 1
		for _, s := range c.shape[:len(c.shape)-1] {
			rows *= s
		}
		if streamed != (c.threads > 0) || streamed && (p.threads != c.threads || p.grid[0] != rows) {
			t.Errorf("%v %v %+v: %v, grid %d, %d threads; want streamed %v at %d threads, grid %d", c.dt, c.shape, c.params, p.names, p.grid[0], p.threads, c.threads > 0, c.threads, rows)
		}
	}
	// Not where dx overlaps y or dy (its exact path rereads them after
	// the writes): dx on dy, on y, and 16 bytes into dy's last row.
	v, err := layout.Resolve(layout.Params{Axis: -1, Scale: 1, Log: true}, []int{2048, 8192}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const size = 2048 * 8192 * 4
	for _, bufs := range [][]cu.DevicePtr{
		{1 << 30, 2 << 30, 2 << 30},
		{1 << 30, 2 << 30, 1 << 30},
		{1 << 30, 2 << 30, 2<<30 + size - 16},
		{1 << 30, 2 << 30, 2<<30 + size}, // adjacent, not overlapping: streamed
	} {
		p := planCall(t, d, &call{dt: Float32, v: v, bwd: true, bufs: bufs})
		want := bufs[2] == 2<<30+size
		if got := strings.Contains(p.names[0], "_lstream_"); got != want {
			t.Errorf("y %#x, dy %#x, dx %#x: streamed %v, want %v", bufs[0], bufs[1], bufs[2], got, want)
		}
	}
}

// TestGPUPacked runs the half types' forward rows of aligned packs
// through tier 1's packed kernels (wherever they can run, past the rule
// that picks them) and without them (the pipelined kernels): rows of 1 to
// 4096 packs around each change of K and of the group (one pack; a warp;
// the widest group), several rows per block where groups are narrow;
// plain rows, rows with NaN, +Inf and all -Inf (the exact form, in
// softmax and in log-softmax with a scale of 1 and of 0.3), softmax with
// a scale. It also checks the rule (gpu.PackedOn) on a few shapes, causal
// rows keeping the pipelined kernels (unless a knob replaces the rule).
func TestGPUPacked(t *testing.T) {
	d := device(t)
	if !gpu.PackedKernels(Float16) {
		t.Skip("SOFTMAX_PACKED=0: the packed kernels are off")
	}
	for _, c := range []struct {
		dt          Dtype
		shape       []int
		log, causal bool
		kernel      string
	}{
		{Float16, []int{16384, 2048}, false, false, "softmax_fwd_rows4p_f16"},
		{BFloat16, []int{16, 16, 2048, 2048}, false, false, "softmax_fwd_rows4p_bf16"},
		{Float16, []int{16, 16, 2048, 2048}, false, true, "softmax_fwd_pipe4c_f16"},
		{Float16, []int{2048, 8192}, false, false, "softmax_fwd_pipe2_f16"},
		{BFloat16, []int{2048, 8192}, true, false, "softmax_fwd_rows4p_bf16"},
		{Float16, []int{32768, 512}, true, false, "softmax_fwd_rows4p_f16"},
		{Float16, []int{65536, 128}, true, false, "softmax_fwd_pipe2_f16"},
		{Float16, []int{65536, 128}, false, false, "softmax_fwd_pipe2_f16"},
		{BFloat16, []int{1024, 32000}, true, false, "softmax_fwd_pipe4_bf16"},
		// Softmax's rows of 9-16 packs from 2^26 elements (entry 107).
		{Float16, []int{1 << 20, 96}, false, false, "softmax_fwd_rows4p_f16"},
		{BFloat16, []int{1 << 19, 128}, false, false, "softmax_fwd_rows4p_bf16"},
		{BFloat16, []int{131072, 96}, false, false, "softmax_fwd_pipe2_bf16"},
	} {
		if tierKnobsSet() {
			break // the knobs replace the rule
		}
		params := layout.Params{Axis: -1, Scale: 1, Log: c.log, Causal: c.causal}
		if p := planWith(t, d, c.dt, c.shape, params, false, TierAuto); p.names[0] != c.kernel {
			t.Errorf("%v %v log %v causal %v: kernel %s, want %s", c.dt, c.shape, c.log, c.causal, p.names[0], c.kernel)
		}
	}
	defer func() { d.packed, d.noPacked = false, false }()
	rng := rand.New(rand.NewPCG(14, 14))
	for _, dt := range []Dtype{Float16, BFloat16} {
		pk := 16 / dt.Size()
		for i, packs := range []int{1, 2, 3, 4, 5, 31, 32, 33, 127, 128, 129, 130, 255, 256, 257, 1000, 2047, 2048, 4095, 4096} {
			n := packs * pk
			k, _, ok := gpu.PackedShape(dt, int64(n), warpSize)
			if !ok {
				t.Fatalf("%v: no packed shape for %d columns", dt, n)
			}
			rows := 5 + i%4
			d.packed = true
			if p := planAt(t, d, dt, []int{rows, n}, false, TierRows); p.names[0] != gpu.PackedKernel(dt, k) {
				t.Errorf("%v %dx%d: kernel %s, want %s", dt, rows, n, p.names[0], gpu.PackedKernel(dt, k))
			}
			for variant, name := range []string{"plain", "special", "logscale", "logspecial", "scale"} {
				if testing.Short() && (i+variant)%2 != 0 {
					continue
				}
				p := rowsProblem(rng, rows, n, []int{0, 5, 6, 5, 0}[variant])
				p.spec.Log = variant == 2 || variant == 3
				if variant == 4 {
					p.spec.Scale = 0.7
				}
				p.name += "/" + name
				for _, on := range []bool{true, false} {
					d.packed, d.noPacked = on, !on
					run(t, d, p, dt, TierAuto, TierRows)
				}
			}
		}
	}
}

// bwdVariants names the backward cases TestGPUWide and TestGPUStrided run
// on each row length: special values (NaN, +Inf, -Inf rows), log-softmax
// at a scale with special values, a scale, and log-softmax y past
// log_grad's bounds (70 and 64, which take the exact path).
var bwdVariants = []string{"plain", "special", "logscale", "logspecial", "scale", "large y"}

// bwdVariantProblem is rows x n (rows at least 3) under bwdVariants[variant].
func bwdVariantProblem(rng *rand.Rand, rows, n, variant int) problem {
	p := rowsProblem(rng, rows, n, []int{0, 5, 6, 5, 0, 0}[variant])
	p.spec.Log = variant == 2 || variant == 3 || variant == 5
	switch variant {
	case 4:
		p.spec.Scale = 0.7
	case 5:
		p.y = reference.Forward(p.spec, p.x)
		p.y[n+rng.IntN(n)] = 70
		p.y[2*n+rng.IntN(n)] = 64
	}
	p.name += "/" + bwdVariants[variant]
	return p
}

// TestGPUWide runs tier 1's wide backward (gpu.WideShape) over rows of
// one pack to the most it holds, softmax and log-softmax, with special
// values, a scale, and y past log_grad's bounds, against the reference.
func TestGPUWide(t *testing.T) {
	d := device(t)
	if !tierKnobsSet() {
		// The rule (gpu.WideOn): float32 log-softmax backward of 1025-2048
		// columns from 2^28 elements.
		for _, c := range []struct {
			shape []int
			log   bool
			wide  bool
		}{
			{[]int{16, 16, 2048, 2048}, true, true},
			{[]int{1 << 17, 2048}, true, true},
			{[]int{1 << 18, 1028}, true, true},
			{[]int{1<<17 - 1, 2048}, true, false},
			{[]int{16384, 2048}, true, false},
			{[]int{1 << 18, 1024}, true, false},
			{[]int{1 << 16, 4096}, true, false},
			{[]int{16, 16, 2048, 2048}, false, false},
		} {
			params := layout.Params{Axis: -1, Scale: 1, Log: c.log}
			p := planWith(t, d, Float32, c.shape, params, true, TierAuto)
			if got := p.names[0] == gpu.WideKernel(Float32); got != c.wide {
				t.Errorf("%v log %v: kernel %s, wide kernel wanted: %v", c.shape, c.log, p.names[0], c.wide)
			}
		}
	}
	defer func() { d.wide = false }()
	rng := rand.New(rand.NewPCG(15, 15))
	for _, dt := range []Dtype{Float32} {
		pk, k := 16/dt.Size(), gpu.WideK(dt)
		for i, packs := range []int{1, 31, 32*k - 1, 32 * k, 32*k + 1, 64 * k, 80 * k, 96*k + 3, 128*k - 1, 128 * k} {
			n := packs * pk
			rows := 5 + i%4
			d.wide = true
			if p := planAt(t, d, dt, []int{rows, n}, true, TierRows); p.names[0] != gpu.WideKernel(dt) {
				t.Errorf("%v %dx%d: kernel %s, want %s", dt, rows, n, p.names[0], gpu.WideKernel(dt))
			}
			for variant := range bwdVariants {
				if testing.Short() && (i+variant)%2 != 0 {
					continue
				}
				run(t, d, bwdVariantProblem(rng, rows, n, variant), dt, TierRows)
			}
		}
	}
}

// TestGPUStrided runs tier 1's strided kernels (gpu.StridedShape),
// forward and backward, their one-row forms (groups of a warp) and their
// looping forms, over rows of one column to the most they hold
// (each E's bounds, odd lengths, groups of 1 to 32 threads, blocks left
// part empty), softmax and log-softmax, with special values, a scale and
// y past log_grad's bounds, from buffers that start on and off a pack,
// against the reference. (Log-softmax forward at a scale under 1 in
// float32 and bfloat16 takes the span kernels, which have no strided
// form.)
func TestGPUStrided(t *testing.T) {
	d := device(t)
	for _, bwd := range []bool{false, true} {
		if _, _, ok := gpu.StridedShape(bwd, 1025, warpSize); ok {
			t.Errorf("StridedShape (backward %v) takes rows of 1025 columns; its largest E holds 1024", bwd)
		}
	}
	if !tierKnobsSet() {
		// The rule (gpu.StridedOn), through dispatch: unmasked rows of a
		// part pack, and float32 backward rows of whole packs that tier 1
		// gives K = 4, where the one-row forms were measured faster.
		for _, c := range []struct {
			dt     Dtype
			shape  []int
			causal bool
			bwd    bool
			want   bool
		}{
			{Float32, []int{64, 12, 197, 197}, false, true, true},
			{Float32, []int{1000, 255}, false, true, true},
			{Float32, []int{1000, 99}, false, true, true}, // (62 to 80 columns: the batched kernel, TestGPUStridedBatch)
			{Float32, []int{1000, 577}, false, true, true},
			{Float32, []int{1000, 300}, false, true, true},   // whole packs, pipelined without the rule
			{Float32, []int{1000, 256}, false, true, false},  // whole packs, K = 2
			{Float32, []int{1000, 300}, false, false, false}, // whole packs, forward
			{Float32, []int{1000, 641}, false, true, false},  // past 640
			{Float32, []int{1000, 33}, false, true, false},   // a group under a warp
			{Float32, []int{1000, 197}, false, false, true},
			{Float32, []int{1000, 197}, true, false, false}, // causal
			{Float32, []int{1000, 77}, false, false, false},
			{Float16, []int{1000, 250}, false, false, true},
			{BFloat16, []int{16, 12, 577, 577}, false, false, true},
			{Float16, []int{1000, 197}, false, false, false},
			{Float16, []int{1000, 77}, false, true, true},
			{BFloat16, []int{1000, 255}, false, true, true},
			{Float16, []int{1000, 197}, false, true, false},
			{BFloat16, []int{16, 12, 577, 577}, false, true, false},
		} {
			params := layout.Params{Axis: -1, Scale: 1, Log: c.bwd, Causal: c.causal}
			p := planWith(t, d, c.dt, c.shape, params, c.bwd, TierAuto)
			want := "not a strided one"
			if c.want {
				e, _, _ := gpu.StridedShape(c.bwd, int64(c.shape[len(c.shape)-1]), warpSize)
				want = gpu.StridedOnceKernel(c.dt, c.bwd, e)
			}
			if got := p.names[0]; c.want && got != want || !c.want && stridedName(got) {
				t.Errorf("%v %v causal %v bwd %v: kernel %s, want %s", c.dt, c.shape, c.causal, c.bwd, got, want)
			}
		}
	}
	defer func() { d.strided, d.stridedLoop = false, false }()
	rng := rand.New(rand.NewPCG(17, 17))
	for _, dt := range []Dtype{Float32, Float16, BFloat16} {
		for i, n := range []int{1, 3, 5, 13, 31, 63, 77, 128, 129, 197, 255, 256, 257, 300, 384, 385, 511, 512, 513, 577, 640, 641, 768, 769, 1000, 1023, 1024} {
			// Groups of a warp take the one-row kernels (stronce), and their
			// looping form under d.stridedLoop: both run every case.
			for _, loop := range []bool{false, true} {
				rows := 5 + i%4
				d.strided, d.stridedLoop = true, loop
				once := false
				for _, bwd := range []bool{false, true} {
					e, w, _ := gpu.StridedShape(bwd, int64(n), warpSize)
					want := gpu.StridedKernel(dt, bwd, e)
					if !loop && gpu.StridedOnceOn(w, 1) {
						want = gpu.StridedOnceKernel(dt, bwd, e)
					}
					once = once || w == 32
					params := layout.Params{Axis: -1, Scale: 1, Log: bwd}
					if p := planWith(t, d, dt, []int{rows, n}, params, bwd, TierRows); p.names[0] != want || p.group != w {
						t.Errorf("%v %dx%d bwd %v: kernel %s (group %d), want %s (group %d)", dt, rows, n, bwd, p.names[0], p.group, want, w)
					}
				}
				if loop && !once {
					continue // no one-row form: the first pass ran the looping kernels
				}
				for variant := range bwdVariants {
					if testing.Short() && (i+variant)%2 != 0 {
						continue
					}
					// Every other case starts its buffers an element past a pack.
					off := (i + variant) % 2 * dt.Size()
					if msg := check(t, d, bwdVariantProblem(rng, rows, n, variant), dt, TierRows, off); msg != "" {
						t.Errorf("loop %v: %s", loop, msg)
					}
				}
			}
		}
	}
}

// TestGPUStridedBatch checks the batched one-row strided kernel's rule
// through dispatch (gpu.StridedBatchOn: float32 backward, unmasked, 62
// to 80 columns, 24576 rows or more), then runs the kernel (E = 2 and 4)
// over rows of 33 to 128 columns, row counts that leave a warp's second
// row or a block's last warps empty, buffers a pack apart and an element
// past it, under bwdVariants (special values for the exact path, a scale, y past
// log_grad's bounds), softmax and log-softmax, against the reference.
func TestGPUStridedBatch(t *testing.T) {
	d := device(t)
	if !tierKnobsSet() {
		for _, c := range []struct {
			dt    Dtype
			shape []int
			bwd   bool
			want  bool
		}{
			{Float32, []int{24576, 64}, true, true},
			{Float32, []int{32768, 68}, true, true},
			{Float32, []int{6, 4096, 77}, true, true}, // 24576 rows
			{Float32, []int{65536, 80}, true, true},
			{Float32, []int{24575, 68}, true, false}, // too few rows (gpu.StridedBatchMinRows)
			{Float32, []int{8192, 77}, true, false},
			{Float32, []int{65536, 63}, true, true}, // gpu.StridedBatchMinN
			{Float32, []int{131072, 62}, true, true},
			{Float32, []int{65536, 61}, true, false}, // shifted (gpu.ShiftOn's short band)
			{Float32, []int{65536, 81}, true, false},
			{Float32, []int{65536, 128}, true, false},
			{Float32, []int{65536, 68}, false, false},
			{Float16, []int{65536, 68}, true, false},
			{BFloat16, []int{65536, 77}, true, false},
		} {
			params := layout.Params{Axis: -1, Scale: 1, Log: c.bwd}
			p := planWith(t, d, c.dt, c.shape, params, c.bwd, TierAuto)
			e, _ := gpu.StridedBatchShape(int64(c.shape[len(c.shape)-1]), warpSize)
			if got := p.names[0] == gpu.StridedBatchKernel(e); got != c.want {
				t.Errorf("%v %v bwd %v: kernel %s, batched kernel wanted: %v", c.dt, c.shape, c.bwd, p.names[0], c.want)
			}
		}
		// A masked backward keeps tier 1's masked kernels.
		params := layout.Params{Axis: -1, Scale: 1, Causal: true}
		if p := planWith(t, d, Float32, []int{65536, 68}, params, true, TierAuto); stridedName(p.names[0]) {
			t.Errorf("causal 65536x68 backward: kernel %s, want no strided one", p.names[0])
		}
	}
	d.stridedBatch = true
	defer func() { d.stridedBatch = false }()
	rng := rand.New(rand.NewPCG(63, 63))
	for i, n := range []int{33, 47, 63, 64, 65, 68, 72, 77, 80, 100, 127, 128} {
		rows := 3 + i%15 // blocks of 4 warps hold 8 rows: odd counts leave a warp's second row empty, others some of a block's warps
		e, _ := gpu.StridedBatchShape(int64(n), warpSize)
		params := layout.Params{Axis: -1, Scale: 1, Log: i%2 == 0}
		if p := planWith(t, d, Float32, []int{rows, n}, params, true, TierRows); p.names[0] != gpu.StridedBatchKernel(e) {
			t.Errorf("%dx%d: kernel %s, want %s", rows, n, p.names[0], gpu.StridedBatchKernel(e))
		}
		for variant := range bwdVariants {
			off := (i + variant) % 2 * Float32.Size()
			if msg := check(t, d, bwdVariantProblem(rng, rows, n, variant), Float32, TierRows, off); msg != "" {
				t.Error(msg)
			}
		}
	}
}

// TestGPUStaged checks the staged kernels' rule (gpu.StagedOn) through
// dispatch, then runs tier 1's staged kernels (a thread a row, a block's
// rows copied through shared memory in packs: gpu.StagedShape) against
// the reference: the three types, rows of 1 to 64 columns around each N,
// the forward at 1 and 2 rows a thread, row counts that leave the last
// block part empty and end the buffer off a pack (its last elements
// copied one at a time), every bwdVariant (special values take the exact
// path in shared memory); then in place (y over x, dx over dy), and
// buffers off 16 bytes, which keep other kernels.
func TestGPUStaged(t *testing.T) {
	d := device(t)
	if !tierKnobsSet() {
		for _, c := range []struct {
			dt    Dtype
			shape []int
			bwd   bool
			want  string // "": not a staged kernel
		}{
			{Float32, []int{1 << 20, 10}, false, "softmax_fwd_staged16_f32"},
			{Float32, []int{1 << 20, 10}, true, "softmax_bwd_staged16_f32"},
			{Float32, []int{65536, 10}, true, ""}, // under gpu.StagedMinRows
			{Float16, []int{65536, 10}, false, ""},
			{Float32, []int{1 << 17, 10}, false, "softmax_fwd_staged16_f32"},
			{Float32, []int{1 << 20, 16}, true, ""},
			{Float16, []int{1 << 20, 10}, false, "softmax_fwd_staged16r2_f16"},
			{Float16, []int{32, 4096, 30}, false, "softmax_fwd_staged32_f16"}, // 131072 rows over two dimensions
			{BFloat16, []int{1 << 20, 8}, false, ""},
			{BFloat16, []int{1 << 20, 32}, true, "softmax_bwd_staged32_bf16"},
			{BFloat16, []int{1 << 18, 32}, true, ""},
			{Float16, []int{32, 192, 49, 49}, false, "softmax_fwd_staged56_f16"}, // Swin's 7x7 windows
			{BFloat16, []int{65536, 60}, true, "softmax_bwd_staged64_bf16"},
			{BFloat16, []int{65536, 33}, false, "softmax_fwd_staged48_bf16"},
			{Float16, []int{32768, 50}, false, ""},
			{Float16, []int{1 << 18, 48}, false, ""},
			{Float32, []int{1 << 18, 33}, true, "softmax_bwd_staged48_f32"},
			{Float32, []int{1 << 18, 50}, true, ""}, // shifted (gpu.ShiftOn's short band)
			{Float32, []int{1 << 17, 50}, true, ""},
			{Float32, []int{1 << 18, 50}, false, "softmax_fwd_staged56_f32"},
			{Float32, []int{1 << 17, 50}, false, ""},
			{Float32, []int{1 << 18, 48}, false, ""}, // whole packs
		} {
			p := planWith(t, d, c.dt, c.shape, layout.Params{Axis: -1, Scale: 1, Log: c.bwd}, c.bwd, TierAuto)
			if got := p.names[0]; c.want == "" && stagedName(got) || c.want != "" && got != c.want {
				t.Errorf("%v %v bwd %v: kernel %s, want %q", c.dt, c.shape, c.bwd, got, c.want)
			}
		}
	}
	d.staged = true
	defer func() { d.staged = false }()
	rng := rand.New(rand.NewPCG(64, 64))
	defer func() { d.stagedRows = 0 }()
	for _, dt := range []Dtype{Float32, Float16, BFloat16} {
		for _, r := range gpu.StagedRs(false, gpu.StagedR2MaxN) { // the forward's; the backward's is 1
			d.stagedRows = r
			for i, n := range []int{1, 2, 3, 4, 5, 7, 8, 9, 10, 12, 15, 16, 17, 20, 24, 31, 32, 33, 40, 47, 48, 49, 50, 55, 56, 57, 60, 63, 64} {
				rows := []int{3, 5, 127, 128, 129, 256, 300, 1001}[(i+r)%8]
				N, _ := gpu.StagedShape(int64(n))
				if !slices.Contains(gpu.StagedRs(false, N), r) {
					continue // no such kernel: the rows ran at 1 row a thread
				}
				for _, bwd := range []bool{false, true} {
					params := layout.Params{Axis: -1, Scale: 1, Log: bwd}
					want := stagedKernel(dt, bwd, N, r)
					if p := planWith(t, d, dt, []int{rows, n}, params, bwd, TierRows); p.names[0] != want {
						t.Errorf("%v %dx%d bwd %v: kernel %s, want %s", dt, rows, n, bwd, p.names[0], want)
					}
				}
				for variant := range bwdVariants {
					if testing.Short() && (i+variant+r)%2 != 0 {
						continue
					}
					if msg := check(t, d, bwdVariantProblem(rng, rows, n, variant), dt, TierRows, 0); msg != "" {
						t.Errorf("%d rows a thread: %s", r, msg)
					}
				}
			}
		}
	}
	d.stagedRows = 0
	// Rows past 64 columns, masked or causal rows and buffers off 16
	// bytes keep other kernels.
	for _, c := range []struct {
		n      int
		params layout.Params
		off    cu.DevicePtr
	}{
		{65, layout.Params{Axis: -1, Scale: 1}, 0},
		{10, layout.Params{Axis: -1, Scale: 1, Causal: true}, 0},
		{10, layout.Params{Axis: -1, Scale: 1}, 4},
	} {
		v, err := layout.Resolve(c.params, []int{1000, c.n}, nil)
		if err != nil {
			t.Fatal(err)
		}
		bufs := []cu.DevicePtr{1 << 40, 2<<40 + c.off, 3 << 40}
		if p := planCall(t, d, &call{dt: Float32, v: v, bwd: true, bufs: bufs}); stagedName(p.names[0]) {
			t.Errorf("1000x%d %+v, dy %d bytes off: kernel %s, want no staged one", c.n, c.params, c.off, p.names[0])
		}
	}
	for i, dt := range []Dtype{Float32, BFloat16} {
		for _, r := range gpu.StagedRs(false, gpu.StagedR2MaxN) {
			d.stagedRows = r
			n := []int{10, 50}[i]
			N, _ := gpu.StagedShape(int64(n))
			stagedInPlace(t, d, dt, bwdVariantProblem(rng, 300+i, n, 1), func(bwd bool) string { return stagedKernel(dt, bwd, N, r) })
		}
	}
	d.stagedRows = 0
}

// TestGPUStagedWarp runs the staged kernels' warp form (a warp a row, a
// block's rows copied through shared memory: gpu.StagedWarpShape) over the
// half types' rows of 1-512 columns, blocks part full, the backward
// variants, and in place, against the reference; then checks where the
// rule (gpu.StagedWarpOn) takes it.
func TestGPUStagedWarp(t *testing.T) {
	d := device(t)
	rng := rand.New(rand.NewPCG(65, 65))
	defer func() { d.stagedWarp = false }()
	d.stagedWarp = true
	lengths := []int{1, 5, 8, 31, 33, 64, 65, 77, 100, 127, 128, 129, 150, 197, 200, 224, 255, 256, 257, 300, 385, 511, 512}
	for _, dt := range []Dtype{Float16, BFloat16} {
		for i, n := range lengths {
			rows := []int{3, 5, 7, 8, 9, 15, 16, 17, 33, 300, 1001}[i%11]
			for _, bwd := range []bool{false, true} {
				p := planWith(t, d, dt, []int{rows, n}, layout.Params{Axis: -1, Scale: 1, Log: bwd}, bwd, TierRows)
				e, rw, ok := gpu.StagedWarpShape(bwd, int64(n))
				switch {
				case ok && p.names[0] != gpu.StagedWarpKernel(dt, bwd, e, rw):
					t.Errorf("%v %dx%d bwd %v: kernel %s, want %s", dt, rows, n, bwd, p.names[0], gpu.StagedWarpKernel(dt, bwd, e, rw))
				case !ok && strings.Contains(p.names[0], "_stagedw"):
					t.Errorf("%v %dx%d bwd %v: kernel %s past the warp form's rows", dt, rows, n, bwd, p.names[0])
				}
			}
			for variant := range bwdVariants {
				if testing.Short() && (i+variant)%3 != 0 {
					continue
				}
				if msg := check(t, d, bwdVariantProblem(rng, rows, n, variant), dt, TierRows, 0); msg != "" {
					t.Error(msg)
				}
			}
		}
		for _, n := range []int{197, 77, 250} {
			kernel := func(bwd bool) string {
				e, rw, _ := gpu.StagedWarpShape(bwd, int64(n))
				return gpu.StagedWarpKernel(dt, bwd, e, rw)
			}
			stagedInPlace(t, d, dt, bwdVariantProblem(rng, 301, n, 1), kernel)
		}
	}
	// float32, masked or causal rows, rows past its longest and buffers
	// off 16 bytes keep other kernels.
	for _, c := range []struct {
		dt     Dtype
		n      int
		params layout.Params
		off    cu.DevicePtr
	}{
		{Float32, 197, layout.Params{Axis: -1, Scale: 1}, 0},
		{Float16, 197, layout.Params{Axis: -1, Scale: 1, Causal: true}, 0},
		{Float16, 513, layout.Params{Axis: -1, Scale: 1}, 0},
		{Float16, 197, layout.Params{Axis: -1, Scale: 1}, 2},
	} {
		v, err := layout.Resolve(c.params, []int{1000, c.n}, nil)
		if err != nil {
			t.Fatal(err)
		}
		bufs := []cu.DevicePtr{1 << 40, 2<<40 + c.off, 3 << 40}
		if p := planCall(t, d, &call{dt: c.dt, v: v, bwd: true, bufs: bufs}); stagedName(p.names[0]) {
			t.Errorf("%v 1000x%d %+v, dy %d bytes off: kernel %s, want no staged one", c.dt, c.n, c.params, c.off, p.names[0])
		}
	}
	d.stagedWarp = false
	if tierKnobsSet() {
		return // the knobs replace the rule
	}
	// The rule (gpu.StagedWarpOn): the half types' rows past 64 columns,
	// of a part pack forward (to 256 columns) from gpu.StagedWarpMinRows
	// rows and backward (to 512) from gpu.StagedWarpBwdMinRows, of whole
	// packs backward to 256 columns from gpu.StagedWarpWholeMinRows.
	for _, c := range []struct {
		dt   Dtype
		rows int
		n    int
		bwd  bool
		want string
	}{
		{Float16, 131072, 197, false, "softmax_fwd_stagedw8r4_f16"},
		{BFloat16, 65536, 197, true, "softmax_bwd_stagedw8r2_bf16"},
		{Float16, 65536, 77, true, "softmax_bwd_stagedw4r4_f16"},
		{BFloat16, 32768, 300, true, "softmax_bwd_stagedw16r2_bf16"},
		{Float16, 16384, 197, true, "softmax_bwd_stagedw8r2_f16"},
		{Float16, 262144, 128, true, "softmax_bwd_stagedw4r4_f16"},
		{BFloat16, 262144, 256, true, "softmax_bwd_stagedw8r2_bf16"},
		{BFloat16, 32768, 300, false, ""}, // forward past 256 columns
		{Float16, 262144, 128, false, ""}, // whole packs forward
		{Float16, 65536, 128, true, ""},   // whole packs, too few rows
		{Float16, 262144, 512, true, ""},  // whole packs past 256 columns
		{Float16, 16384, 197, false, ""},  // too few rows forward
		{Float16, 8192, 197, true, ""},    // too few rows backward
		{Float16, 262144, 63, false, ""},  // the staged kernels' rows
		{Float32, 131072, 197, false, ""}, // no float32 kernels
	} {
		p := planWith(t, d, c.dt, []int{c.rows, c.n}, layout.Params{Axis: -1, Scale: 1}, c.bwd, TierAuto)
		if got := p.names[0]; c.want != "" && got != c.want || c.want == "" && strings.Contains(got, "_stagedw") {
			t.Errorf("%v %dx%d bwd %v: kernel %s, want %q (\"\": not the warp form)", c.dt, c.rows, c.n, c.bwd, got, c.want)
		}
	}
}

// stagedKernel is the staged kernel a plan takes for rows up to N columns
// of dt with Device.stagedRows at r: r rows a thread where that kernel
// exists (gpu.StagedRs), else 1.
func stagedKernel(dt Dtype, bwd bool, N, r int) string {
	if !slices.Contains(gpu.StagedRs(bwd, N), r) {
		r = 1
	}
	return gpu.StagedKernel(dt, bwd, N, r)
}

// stagedInPlace runs p through the public API with y over x, then dx over
// dy and dx over y, on the kernels kernel names (forward and backward),
// and checks the results against the reference.
func stagedInPlace(t *testing.T, d *Device, dt Dtype, p problem, kernel func(bwd bool) string) {
	t.Helper()
	x, dy := gpucheck.Round(dt, p.x), gpucheck.Round(dt, p.dy)
	want := reference.Forward(p.spec, x)
	y := gpucheck.Round(dt, want)
	wantDX, terms := reference.Backward(p.spec, y, dy), reference.GradTerms(p.spec, y, dy)
	opt := Options{Axis: -1, Log: p.spec.Log, Scale: p.spec.Scale}
	for _, bwd := range []bool{false, true} {
		wantK := kernel(bwd)
		if pl := planWith(t, d, dt, p.spec.Shape, layout.Params{Axis: -1, Scale: 1}, bwd, TierAuto); pl.names[0] != wantK {
			t.Fatalf("%v %v bwd %v: kernel %s, want %s", dt, p.spec.Shape, bwd, pl.names[0], wantK)
		}
	}
	bx := upload(t, d, gpucheck.Encode(dt, x), 0)
	defer bx.free(t, d)
	if err := d.Forward(dt, p.spec.Shape, bx.ptr, bx.ptr, nil, opt); err != nil {
		t.Fatal(err)
	}
	for i, g := range gpucheck.Decode(dt, bx.read(t, d)) {
		if !gpucheck.FwdOK(dt, p.spec.Log, g, want[i]) {
			t.Errorf("%s %v, %s, y over x: y[%d]=%v want %v (x=%v)", p.name, dt, kernel(false), i, g, want[i], x[i])
			break
		}
	}
	for _, over := range []string{"dy", "y"} {
		by := upload(t, d, gpucheck.Encode(dt, y), 0)
		bdy := upload(t, d, gpucheck.Encode(dt, dy), 0)
		dx := bdy
		if over == "y" {
			dx = by
		}
		err := d.Backward(dt, p.spec.Shape, by.ptr, bdy.ptr, dx.ptr, nil, opt)
		got := gpucheck.Decode(dt, dx.read(t, d))
		by.free(t, d)
		bdy.free(t, d)
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range got {
			if !gpucheck.GradOK(dt, g, wantDX[i], terms[i]) {
				t.Errorf("%s %v, dx over %s: dx[%d]=%v want %v (y=%v dy=%v)", p.name, dt, over, i, g, wantDX[i], y[i], dy[i])
				break
			}
		}
	}
}

// TestGPUOnce runs tier 1's one-row kernel (gpu.OnceOn) over rows of
// two packs to the most its launch bound holds, rows that leave a block part
// empty, softmax and log-softmax, with special values (its exact pass runs
// after the other rows are stored) and with a scale, against the reference.
func TestGPUOnce(t *testing.T) {
	d := device(t)
	if !tierKnobsSet() {
		// The rule: float32 forward of aligned rows, no causal limit, in
		// groups of at most gpu.OnceMaxGroup threads (K = 2: of 8).
		for _, c := range []struct {
			dt     Dtype
			shape  []int
			causal bool
			bwd    bool
			once   bool
		}{
			{Float32, []int{65536, 128}, false, false, true},
			{Float32, []int{262144, 60}, false, false, true},
			{Float32, []int{4096, 36}, false, false, true},
			{Float32, []int{4096, 8}, false, false, false}, // K = 2 in groups of 1: fwd_rows
			{Float32, []int{2048, 2048}, false, false, true},
			{Float32, []int{3, 5, 7, 64}, false, false, true},
			{Float32, []int{16384, 4096}, false, false, false},
			{Float32, []int{65536, 130}, false, false, false},
			{Float32, []int{65536, 128}, true, false, false},
			{Float32, []int{65536, 128}, false, true, false},
			{Float64, []int{65536, 128}, false, false, false},
		} {
			params := layout.Params{Axis: -1, Scale: 1, Causal: c.causal}
			p := planWith(t, d, c.dt, c.shape, params, c.bwd, TierAuto)
			if got := p.names[0] == onceKernelAt(Float32, c.shape[len(c.shape)-1], p.group); got != c.once {
				t.Errorf("%v %v causal %v bwd %v: kernel %s, one-row kernel wanted: %v", c.dt, c.shape, c.causal, c.bwd, p.names[0], c.once)
			}
		}
		// An odd number of packs from 9 to 15 at K = 2 (gpu.OnceShape).
		for n, want := range map[int]string{36: "softmax_fwd_once2w8_f32", 60: "softmax_fwd_once2w8_f32", 56: "softmax_fwd_once4_f32", 68: "softmax_fwd_once4w8_f32"} {
			p := planWith(t, d, Float32, []int{65536, n}, layout.Params{Axis: -1, Scale: 1}, false, TierAuto)
			if p.names[0] != want || p.group != 8 && want != "softmax_fwd_once4_f32" {
				t.Errorf("65536x%d: kernel %s, group %d; want %s", n, p.names[0], p.group, want)
			}
		}
	}
	defer func() { d.once = false }()
	rng := rand.New(rand.NewPCG(33, 33))
	dt := Float32
	pk := 16 / dt.Size()
	// From 2 packs: rows of 1 take K = 1 (gpu.RowsShape), which has no
	// one-row kernel, and rows of 2 K = 2. Groups of 1, 2, 128, 160 and 256
	// threads take the kernel of any group, 8 to 64 their own
	// (gpu.OnceGroups); 11, 13 and 15 packs K = 2 in groups of 8
	// (gpu.OnceShape).
	ran := map[string]bool{}
	for i, packs := range []int{2, 3, 4, 8, 11, 13, 15, 31, 32, 33, 127, 128, 129, 255, 256, 511, 512, 513, 1000, 1024} {
		n := packs * pk
		rows := 5 + 3*(i%5) // blocks of 128 threads hold 4 to 64 rows: most are part empty
		d.once = true
		// Groups past the kernel's launch bound (K = 2 under SOFTMAX_ROWS_K
		// from 513 packs) take fwd_rows.
		if p := planAt(t, d, dt, []int{rows, n}, false, TierRows); p.threads <= gpu.OnceMaxThreads && p.names[0] != onceKernelAt(dt, n, p.group) {
			t.Errorf("%dx%d: kernel %s, want %s", rows, n, p.names[0], onceKernelAt(dt, n, p.group))
		} else {
			ran[p.names[0]] = true
		}
		for variant, name := range []string{"plain", "special", "logspecial", "log", "scale", "logscale"} {
			if testing.Short() && (i+variant)%2 != 0 {
				continue
			}
			p := rowsProblem(rng, rows, n, []int{0, 5, 6, 0, 0, 0}[variant])
			p.spec.Log = p.spec.Log || variant == 3 || variant == 5
			switch variant {
			case 4:
				p.spec.Scale = 0.7
			case 5: // fwd_row's log-softmax path for a scale other than 1
				p.spec.Scale = 2.5
			}
			p.name += "/" + name
			run(t, d, p, dt, TierRows)
		}
	}
	if !tierKnobsSet() {
		for _, name := range gpu.OnceGroupKernels(dt) {
			if !ran[name] {
				t.Errorf("%s did not run", name)
			}
		}
	}
}

// onceKernelAt names the one-row kernel tier 1 takes for forward rows of
// n columns of dt without mask or causal limit in groups of w threads, at
// the packs per thread gpu.OnceShape gives them.
func onceKernelAt(dt Dtype, n, w int) string {
	k, _, _ := gpu.OnceShape(dt, int64(n), warpSize)
	return gpu.OnceKernelFor(dt, k, w)
}

// TestGPUShifted runs tier 1's shifted kernels (rows that are not a whole
// number of packs, in aligned buffers, each read from the pack boundary
// before it): rows whose starts fall on every column of a pack, from one
// column to tier 1's longest, K = 1, 2 and 4; unmasked, under a full mask
// and a broadcast one (whose words do not line up with the row's packs),
// causal, special values and scales; forward and backward, on tier 1 and
// through dispatch, against the float64 reference, with the kernels taken
// wherever they fit (Device.shift), once in the plain kernels and once in
// the pipelined ones (unmasked and causal rows). It checks that tier 1
// plans them so, and that dispatch takes them where gpu.ShiftOn says.
func TestGPUShifted(t *testing.T) {
	d := device(t)
	if !tierKnobsSet() {
		defer func() { d.noStrided, d.noStaged = false, false }()
		for _, c := range []struct {
			dt     Dtype
			n      int
			causal bool
			bwd    bool
			shift  bool
			pipe   bool // the pipelined shifted form (gpu.PipeShiftOn); rows not shifted are not vec either: no pipe
		}{
			{Float32, 77, false, false, true, false},
			{Float32, 10, false, false, true, false},
			{Float32, 77, true, false, false, false},
			{Float32, 197, true, false, true, false}, // float32 causal forward: plain
			{Float32, 77, false, true, false, false},
			{Float32, 38, false, true, false, false}, // under gpu.ShiftBwdMinN
			{Float32, 50, false, true, true, false},  // gpu.ShiftOn's short band, K = 2
			{BFloat16, 63, false, true, true, true},
			{Float16, 41, false, true, true, true},
			{Float32, 150, false, true, true, true}, // K = 4 backward: pipelined
			{Float32, 197, false, true, true, true},
			{Float16, 33, false, false, false, false},
			{Float16, 77, false, false, true, true},
			{BFloat16, 33, true, false, true, true},
			{BFloat16, 10, true, false, false, false},
			{BFloat16, 77, false, true, false, false},
			{Float16, 1025, false, true, true, true},
		} {
			params := layout.Params{Axis: -1, Scale: 1, Causal: c.causal}
			keep := map[bool]gpu.Keep{false: gpu.KeepAll, true: gpu.KeepCausal}[c.causal]
			// 8 rows end on a pack boundary, 9 of these lengths do not: the
			// backward's pipelined kernels need the former (pipeShiftFits).
			for _, rows := range []int{8, 9} {
				// The shifted plan with the strided and staged rules off,
				// then, where a rule takes the row, its kernel
				// (TestGPUStrided, TestGPUStaged).
				d.noStrided, d.noStaged = true, true
				p := planWith(t, d, c.dt, []int{rows, c.n}, params, c.bwd, TierAuto)
				d.noStrided, d.noStaged = false, false
				want := c.pipe && (rows == 8 || !c.bwd)
				if pipe := strings.Contains(p.names[0], "_pipe"); p.shift != c.shift || pipe != want {
					t.Errorf("%v %dx%d causal %v bwd %v, strided and staged rules off: kernel %s, shifted %v, want %v, pipelined %v", c.dt, rows, c.n, c.causal, c.bwd, p.names[0], p.shift, c.shift, want)
				}
				if gpu.StridedOn(c.dt, c.bwd, keep, int64(c.n)) {
					if p := planWith(t, d, c.dt, []int{rows, c.n}, params, c.bwd, TierAuto); !strings.Contains(p.names[0], "_stronce") || p.shift {
						t.Errorf("%v %dx%d causal %v bwd %v: kernel %s, shifted %v, want a one-row strided kernel", c.dt, rows, c.n, c.causal, c.bwd, p.names[0], p.shift)
					}
				}
				// At gpu.StagedMinRows rows, where gpu.StagedOn takes these
				// lengths, the plan is a staged kernel.
				if _, ok := gpu.StagedShape(int64(c.n)); ok && gpu.StagedOn(c.dt, c.bwd, keep, gpu.StagedMinRows, int64(c.n)) {
					if p := planWith(t, d, c.dt, []int{gpu.StagedMinRows, c.n}, params, c.bwd, TierAuto); !stagedName(p.names[0]) {
						t.Errorf("%v %dx%d causal %v bwd %v: kernel %s, want a staged kernel", c.dt, gpu.StagedMinRows, c.n, c.causal, c.bwd, p.names[0])
					}
				}
			}
		}
	}
	d.shift = true
	defer func() { d.shift, d.noPipe, d.pipe, d.pipeBlocks = false, false, false, 0 }()
	rng := rand.New(rand.NewPCG(52, 52))
	ran := map[string]bool{}
	// Each row twice: in the plain shifted kernels and, where one exists
	// (unmasked and causal rows), the pipelined ones, each wherever it can
	// run, on two blocks, so that each group walks several rows (a row's
	// copy overlaps the row before's work). Masked rows take the plain
	// kernels either way, so only the first pass runs them.
	for _, pipe := range []bool{false, true} {
		d.noPipe, d.pipe = !pipe, pipe
		if pipe {
			d.pipeBlocks = 2
		}
		for _, dt := range dtypes {
			pk := 16 / dt.Size()
			most := gpu.RowsMaxThreads * 4 * pk // tier 1's longest row
			for i, n := range []int{1, 3, pk + 1, 2*pk - 1, 33, 50, 63, 77, 197, 577, 1025, 2047, 4099, 12345, most - pk + 1, most - 1} {
				if n%pk == 0 {
					continue
				}
				rows := 2*pk + 1 + i%3 // every shift of a pack, some rows twice
				if pipe && i%2 == 0 {
					// ending on a pack boundary, so the backward is pipelined
					// too (pipeShiftFits); elsewhere the forward's last rows
					// copy their last pack a byte at a time (fetch_tail)
					rows = (2 + i%4/2) * pk
				}
				for _, bwd := range []bool{false, true} {
					for _, keep := range []gpu.Keep{gpu.KeepAll, gpu.KeepCausal} {
						if _, _, ok := gpu.RowsShape(dt, bwd, keep, int64(n), warpSize); !ok {
							continue // not tier 1's
						}
						k, _, fits := gpu.RowsShape(dt, bwd, keep, int64(n+pk-1), warpSize)
						want := gpu.RowsShiftKernel(dt, bwd, k, keep)
						if pipe && (!bwd || rows*n%pk == 0) {
							want, _ = gpu.PipeShiftKernel(dt, bwd, k, keep)
						}
						params := layout.Params{Axis: -1, Scale: 1, Causal: keep == gpu.KeepCausal}
						p := planWith(t, d, dt, []int{rows, n}, params, bwd, TierRows)
						if p.shift != fits || p.vec || fits && p.names[0] != want {
							t.Errorf("%v %dx%d bwd %v causal %v pipe %v: kernel %s, shift %v vec %v; want shift %v (%s)", dt, rows, n, bwd, params.Causal, pipe, p.names[0], p.shift, p.vec, fits, want)
						} else if p.shift {
							ran[p.names[0]] = true
						}
					}
				}
				for variant, name := range []string{"plain", "full mask", "broadcast mask", "causal log", "causal full mask", "special", "logspecial", "causal middle", "scale", "logscale"} {
					if testing.Short() && (i+variant)%3 != 0 || pipe && (variant == 1 || variant == 2 || variant == 4) {
						continue
					}
					v := variant
					if v > 7 {
						v = 0
					}
					p := rowsProblem(rng, rows, n, v)
					switch variant {
					case 8:
						p.spec.Scale = 0.7
					case 9:
						p.spec.Scale, p.spec.Log = 2.5, true
					}
					p.name += "/" + name
					if pipe {
						p.name += "/pipe"
					}
					run(t, d, p, dt, TierAuto, TierRows)
				}
			}
		}
	}
	if !tierKnobsSet() {
		// Every shifted kernel dispatch can take: those of each K that
		// gpu.RowsShape gives some row (the rules leave some K unused, e.g.
		// K = 2 for the half types' unmasked backward but at 129-255 packs).
		for _, dt := range dtypes {
			for _, bwd := range []bool{false, true} {
				for _, keep := range []gpu.Keep{gpu.KeepAll, gpu.KeepCausal} {
					taken := map[int]bool{}
					for n := int64(1); ; n++ {
						k, _, ok := gpu.RowsShape(dt, bwd, keep, n, warpSize)
						if !ok {
							break
						}
						taken[k] = true
					}
					for _, k := range gpu.RowsKs() {
						pipe, _ := gpu.PipeShiftKernel(dt, bwd, k, keep)
						for _, name := range []string{gpu.RowsShiftKernel(dt, bwd, k, keep), pipe} {
							if taken[k] && !ran[name] {
								t.Errorf("%s was not planned", name)
							}
						}
					}
				}
			}
		}
	}
}

// tierKnobsSet says whether a tuning knob that changes tier 1's kernels or
// grid, or tier 8's, is set, so that the tests checking plans against the
// rules skip.
func tierKnobsSet() bool {
	for _, k := range []string{"SOFTMAX_PACKED", "SOFTMAX_ROWS_K", "SOFTMAX_ROWS_BLOCK", "SOFTMAX_PIPE", "SOFTMAX_PIPE_BLOCKS", "SOFTMAX_LSTREAM", "SOFTMAX_LSTREAM_PACKS", "SOFTMAX_CGRID_BLOCKS", "SOFTMAX_CGRID_LOG", "SOFTMAX_WIDE", "SOFTMAX_ONCE", "SOFTMAX_ONCE_GROUPS", "SOFTMAX_SHIFT", "SOFTMAX_CGRID_SHIFT", "SOFTMAX_STRIDED", "SOFTMAX_STRIDED_BATCH", "SOFTMAX_STAGED", "SOFTMAX_STAGED_ROWS", "SOFTMAX_STAGEDW"} {
		if os.Getenv(k) != "" {
			return true
		}
	}
	return false
}

// TestGPUSharedMemoryBoundary runs rows one shorter than, as long as, and
// one longer than what tier 2 holds in shared memory, forward and
// backward.
func TestGPUSharedMemoryBoundary(t *testing.T) {
	d := device(t)
	rng := rand.New(rand.NewPCG(3, 3))
	for _, dt := range dtypes {
		k := d.kernels["softmax_fwd_cached_"+dt.Suffix()]
		kb := d.kernels["softmax_bwd_cached_"+dt.Suffix()]
		for _, edge := range []int{k.dynSmem / dt.Size(), kb.dynSmem / (2 * dt.Size())} {
			for j, n := range []int{edge - 1, edge, edge + 1} {
				p := rowsProblem(rng, 3, n, []int{1, 5, 3}[j])
				run(t, d, p, dt, TierAuto, TierCached, TierBlock)
			}
		}
	}
}

// TestGPUSplit covers tier 4: few very long rows, and the row count at
// which dispatch stops splitting. The forward kernels walk every
// splits-th step of a row (LongTiles): 1<<20+8 columns are aligned for the
// 16-byte packs and end in a partial step of 8 columns; on the H200 (176
// blocks a row for 3 rows) float32 blocks take one or two steps, float64
// two or three, and the half types' 129 steps leave 47 blocks a row
// without one, as splitMinN columns do for all but float64.
func TestGPUSplit(t *testing.T) {
	d := device(t)
	// The two-kernel form; TestGPUSplitFused runs the fused kernel, which
	// dispatch takes for most forward rows here.
	defer func(s string) { splitFusedSetting = s }(splitFusedSetting)
	splitFusedSetting = "0"
	rng := rand.New(rand.NewPCG(4, 4))
	for _, dt := range dtypes {
		for j, n := range []int{splitMinN - 1, splitMinN, 1<<20 + 3, 1<<20 + 8} {
			run(t, d, rowsProblem(rng, 3, n, []int{0, 5, 1, 4}[j]), dt, TierAuto, TierSplit, TierBlock)
		}
		if testing.Short() {
			continue
		}
		// Unmasked (full steps, then the partial one), a broadcast mask
		// row, a causal limit near the start and one mid-row.
		for _, variant := range []int{0, 2, 3, 7, 8} {
			run(t, d, rowsProblem(rng, 3, 1<<20+8, variant), dt, TierSplit)
		}
		for _, rows := range []int{splitRowsPer*d.sms - 1, splitRowsPer * d.sms} {
			run(t, d, rowsProblem(rng, rows, splitMinN, 4), dt, TierAuto)
		}
		run(t, d, rowsProblem(rng, 2, 1<<22+1, 6), dt, TierAuto)
	}
}

// TestGPUSplitPieces runs the split tier's pieces kernel, whose blocks take
// pieces from a counter (splitPieces), which dispatch gives only float32 forward
// chunks of rows too long to check here, on short rows with every dtype,
// masks, a causal limit and special values; and checks which launches
// dispatch gives pieces.
func TestGPUSplitPieces(t *testing.T) {
	d := device(t)
	defer func(s, f string) { splitPiecesSetting, splitFusedSetting = s, f }(splitPiecesSetting, splitFusedSetting)
	splitPiecesSetting = "" // the rule, whatever SOFTMAX_SPLIT_PIECES says
	splitFusedSetting = "0" // the pieces kernel is the fused kernel's alternative
	for _, c := range []struct {
		dt     Dtype
		shape  []int
		bwd    bool
		pieces bool
	}{
		// On the H200 (132 SMs) chunks of 508404 columns: 62 steps of
		// 8192; at least 32 steps on any GPU of up to 256 SMs.
		{Float32, []int{4, 1 << 25}, false, true},
		{Float32, []int{4, 1 << 25}, true, false},
		// 15.5 steps of 4096 on the H200; 32 or more on GPUs of at most 64
		// SMs, whose chunks are longer.
		{Float32, []int{4, 1 << 23}, false, d.sms <= 64},
		{Float16, []int{4, 1 << 25}, false, false},
		{BFloat16, []int{4, 1 << 25}, false, false},
	} {
		p := planOf(t, d, c.dt, c.shape, c.bwd)
		if pieces := p.names[len(p.names)-1] == "softmax_fwd_split_pieces_"+c.dt.Suffix(); p.tier != TierSplit || pieces != c.pieces {
			t.Errorf("%v %v bwd %v: tier %v, kernels %v, want the split tier with pieces %v", c.dt, c.shape, c.bwd, p.tier, p.names, c.pieces)
		}
	}
	splitPiecesSetting = "1"
	rng := rand.New(rand.NewPCG(9, 4))
	for _, dt := range dtypes {
		// 1<<19+8: aligned for the 16-byte packs, with a last piece of 8
		// columns; the odd lengths take the scalar path.
		for j, n := range []int{splitMinN + 5, 1<<19 + 8, 1<<20 + 3, 1 << 20} {
			if testing.Short() && j >= 2 {
				break
			}
			run(t, d, rowsProblem(rng, 5, n, []int{5, 4, 1, 6}[j]), dt, TierSplit)
		}
	}
}

// TestGPUSplitFused checks where dispatch takes the split tier's fused
// forward kernel (one cooperative launch, a barrier a row, the row then
// written a warp step at a time from its queue, last step first) and runs
// it under SOFTMAX_SPLIT_FUSED=1 with the split tier forced,
// first making sure each shape takes it: 4 rows, whose grid of 4 blocks
// per SM is resident at once (5 rows would ask a few blocks more and get
// the two kernels). 16389 columns (the scalar path, 17 steps over 9
// blocks, the last step partial) and 2^20+3 (the scalar path, about 8
// steps a block); 2^19+8 (16-byte packs; the half types' 65 steps over
// 132 blocks leave 67 blocks with no step, float32's 129 leave 3, and the
// last step is partial); 2^22+8 (float32 at 512 threads; on the H200 the
// rows with neither mask nor causal limit take the head form, whose
// statistics pass loads all but their last 7.5 MB evict-first:
// fusedHead, and keep their blocks' first steps in shared memory: the
// plain rows at each depth splitStash allows; masked half rows take the
// masked form, the stash alone, at each depth too). Masks, causal limits
// and special values on each. Every launch reuses the rows' barrier words as
// the one before left them.
func TestGPUSplitFused(t *testing.T) {
	d := device(t)
	if !d.coop {
		t.Skip("no cooperative launch on this device")
	}
	defer func(s string, n, k int) { splitFusedSetting, splitThreadsSetting, splitStashSteps = s, n, k }(splitFusedSetting, splitThreadsSetting, splitStashSteps)
	splitFusedSetting, splitThreadsSetting, splitStashSteps = "", 0, 3 // the rules (unmasked rows: fused forward)
	for _, c := range []struct {
		dt      Dtype
		shape   []int
		bwd     bool
		fused   bool
		threads int  // fused rows: the block size
		head    bool // fused rows: evict-first loads (fusedHead) on the H200's 60 MB L2
	}{
		{Float32, []int{4, 1 << 23}, false, true, 512, true}, // 512 rather than the two kernels' 256
		{Float16, []int{4, 1 << 23}, false, true, 512, true},
		{Float16, []int{4, 1 << 25}, false, true, 512, false},
		{Float32, []int{4, 1 << 25}, false, true, 512, false}, // not the pieces kernel
		{Float32, []int{4, 1 << 23}, true, false, 0, false},
	} {
		p := planOf(t, d, c.dt, c.shape, c.bwd)
		head := p.names[0] == "softmax_fwd_split_fused_head_"+c.dt.Suffix()
		fused := head || p.names[0] == "softmax_fwd_split_fused_"+c.dt.Suffix()
		if p.tier != TierSplit || fused != c.fused || fused && (len(p.names) != 1 || !p.coop || p.threads != c.threads) {
			t.Errorf("%v %v bwd %v: tier %v, kernels %v, cooperative %v, %d threads; want the split tier, fused %v (%d threads)",
				c.dt, c.shape, c.bwd, p.tier, p.names, p.coop, p.threads, c.fused, c.threads)
		}
		if fused && (head != (p.group > 0) || d.l2 == 60<<20 && head != c.head) {
			t.Errorf("%v %v: kernel %s, evict-first below pack %d; want marks %v", c.dt, c.shape, p.names[0], p.group, c.head)
		}
		// the head form, and only it, stashes its blocks' first steps (on
		// the H200 three of them fit)
		if head && d.l2 == 60<<20 && p.smem != 3*p.threads*4*vecBytes || !head && p.smem != 0 {
			t.Errorf("%v %v: kernel %s, %d bytes of stash; want a stash with the head form only", c.dt, c.shape, p.names[0], p.smem)
		}
	}
	// Masked rows of whole packs take the fused kernel at any length, with
	// their keep bits after the queues; rows of odd length (no packs, no
	// bits) past splitFusedMaskedL2 times L2 of data and mask keep the two
	// kernels.
	for _, n := range []int{1 << 25, 1<<25 + 1} {
		v, err := layout.Resolve(layout.Params{Axis: -1, Scale: 1}, []int{4, n}, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := planCall(t, d, &call{dt: Float16, v: v, bufs: []cu.DevicePtr{1 << 40, 2 << 40}, mask: 3 << 40})
		vec := n%8 == 0
		fused := p.names[0] == "softmax_fwd_split_fused_f16"
		before := gpu.CeilDiv(4*p.splits*32, 128)*128 + 4*splitQueues*128
		if !fused {
			before = (4*p.splits + 1) * 32
		}
		want := before
		if vec {
			want = gpu.SplitBits(before, 4, int64(n))
		}
		big := int64(4*n*3) > splitFusedMaskedL2*int64(d.l2)
		if p.tier != TierSplit || fused != (vec || !big) || p.work != want {
			t.Errorf("masked float16 4x%d: tier %v, kernels %v, workspace %d; want the split tier, fused %v, workspace %d",
				n, p.tier, p.names, p.work, vec || !big, want)
		}
	}
	// Masked half rows of whole packs up to 2.5 times L2 of data take the
	// masked form for its stash (3 steps of 512-thread blocks on the
	// H200); float32 and causal rows take the plain form.
	for _, c := range []struct {
		dt     Dtype
		causal bool
		form   bool
	}{{Float16, false, true}, {BFloat16, false, true}, {Float16, true, false}, {Float32, false, false}} {
		v, err := layout.Resolve(layout.Params{Axis: -1, Scale: 1, Causal: c.causal}, []int{4, 1 << 23}, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := planCall(t, d, &call{dt: c.dt, v: v, bufs: []cu.DevicePtr{1 << 40, 2 << 40}, mask: 3 << 40})
		form := p.names[0] == "softmax_fwd_split_fused_masked_"+c.dt.Suffix()
		if form != c.form || form && p.group != 0 || !form && p.smem != 0 ||
			d.l2 == 60<<20 && form && (p.threads != 512 || p.smem != 3*p.threads*4*vecBytes) {
			t.Errorf("masked %v 4x%d causal %v: kernels %v, %d threads, evict-first below pack %d, %d bytes of stash; want the masked form %v",
				c.dt, 1<<23, c.causal, p.names, p.threads, p.group, p.smem, c.form)
		}
	}
	splitFusedSetting = "1" // masked rows too
	// A forced plan of fewer warps a row than the fused kernel has queues
	// (3 blocks of 256 threads: 24) keeps the two kernels; the plan must
	// have that few warps, or the check proves nothing.
	if p := planAt(t, d, Float32, []int{7, 4097}, false, TierSplit); p.splits*int64(p.threads/32) >= splitQueues || p.coop {
		t.Errorf("float32 7x4097: %d splits of %d threads, cooperative %v; want fewer than %d warps a row, not fused",
			p.splits, p.threads, p.coop, splitQueues)
	}
	// An automatic plan of as few warps (float64 176x50000 on the H200:
	// the split tier, 3 blocks a row) does too, where it is the split tier.
	if p := planOf(t, d, Float64, []int{176, 50000}, false); p.tier == TierSplit && p.splits*int64(p.threads/32) < splitQueues && p.coop {
		t.Errorf("float64 176x50000: %d splits of %d threads, fused; want the two kernels below %d warps a row",
			p.splits, p.threads, splitQueues)
	}
	rng := rand.New(rand.NewPCG(11, 4))
	for _, dt := range dtypes {
		for j, n := range []int{splitMinN + 5, 1<<19 + 8, 1<<20 + 3, 1<<22 + 8} {
			if testing.Short() && j >= 2 {
				continue
			}
			p := planAt(t, d, dt, []int{4, n}, false, TierSplit)
			head := p.names[0] == "softmax_fwd_split_fused_head_"+dt.Suffix()
			if !head && p.names[0] != "softmax_fwd_split_fused_"+dt.Suffix() || head != (p.group > 0) ||
				j == 3 && dt == Float32 && p.threads != 512 {
				t.Errorf("%v 4x%d: kernels %v, %d threads, evict-first below pack %d; want the fused kernel", dt, n, p.names, p.threads, p.group)
				continue
			}
			if j == 3 && d.l2 == 60<<20 && (!head || p.group == 0) {
				t.Errorf("%v 4x%d: kernel %s, evict-first below pack %d; want the head form on the unmasked rows", dt, n, p.names[0], p.group)
			}
			for variant := range 9 {
				skip := j == 3 && variant != 0 && variant != 1 && variant != 5 && variant != 7 && variant != 8 || // 16M elements a problem
					testing.Short() && (j == 0 && variant%2 == 1 || j == 1 && variant != 0 && variant != 1 && variant != 3 && variant != 4 && variant != 8)
				if skip {
					continue
				}
				// The head-form rows (unmasked) and the masked form's
				// (variant 1, its first row all masked; half types) once
				// at each stash depth, none to the 3 steps that fit on the
				// H200 (float64 takes none); the rest at 3.
				depths := []int{3}
				if head && (variant == 0 && dt != Float64 || variant == 1 && (dt == Float16 || dt == BFloat16)) {
					depths = []int{0, 1, 2, 3}
				}
				for _, k := range depths {
					splitStashSteps = k
					if q := planAt(t, d, dt, []int{4, n}, false, TierSplit); variant == 0 && d.l2 == 60<<20 && dt != Float64 && head && q.smem != k*q.threads*4*vecBytes {
						t.Errorf("%v 4x%d: %d bytes of stash at %d steps; want %d", dt, n, q.smem, k, k*q.threads*4*vecBytes)
					}
					run(t, d, rowsProblem(rng, 4, n, variant), dt, TierSplit)
				}
				splitStashSteps = 3
			}
		}
	}
}

// TestGPUCluster runs the cluster tier at and around each row length
// where it takes another block per cluster, and at its largest, forward and
// backward (backward as far as it reaches), with masks and causal limits;
// and with and without its pipelined kernels; then its shifted kernels
// (clusterShifted).
func TestGPUCluster(t *testing.T) {
	d := device(t)
	if !d.clusters {
		t.Skip("no thread block clusters on this device")
	}
	rng := rand.New(rand.NewPCG(8, 8))
	for _, dt := range []Dtype{Float32, Float16, BFloat16} {
		for _, bwd := range []bool{false, true} {
			edges := shapeEdges(1<<19, func(n int) (int, bool) {
				_, b, _, ok := gpu.ClusterShape(dt, bwd, int64(n), warpSize)
				return b, ok
			})
			for i, edge := range edges {
				for j, n := range []int{edge - 1, edge, edge + 1} {
					if testing.Short() && j != 1 {
						continue
					}
					for _, noPipe := range []bool{false, true} {
						d.noPipe = noPipe
						run(t, d, rowsProblem(rng, 3, n, (i+j)%7), dt, TierCluster)
					}
					d.noPipe = false
				}
			}
		}
	}
	clusterShifted(t, d, rng)
}

// clusterShifted runs the cluster tier's shifted kernels (tier 1's over a
// cluster, for rows of a part pack) on vocabulary rows, every shift of a
// pack, every variant, plain and pipelined, forced and through dispatch,
// and checks that both plan them.
func clusterShifted(t *testing.T, d *Device, rng *rand.Rand) {
	// Two clusters walk the rows, so each takes several (the pipelined
	// form copies the next while it computes one).
	d.pipeBlocks = 2
	defer func() { d.noPipe, d.pipeBlocks = false, 0 }()
	for _, dt := range []Dtype{Float32, Float16, BFloat16} {
		pk := 16 / dt.Size()
		for _, bwd := range []bool{false, true} {
			for i, n := range []int{32001, 50257} {
				if _, _, _, ok := gpu.ClusterShape(dt, bwd, int64(n+pk-1), warpSize); !ok {
					continue
				}
				rows := 2*pk + 1 + i // every shift of a pack
				if bwd {
					// ending on a pack boundary: the backward's pipelined
					// kernels need it (pipeShiftFits)
					rows = (2 + i) * pk
				}
				for _, noPipe := range []bool{false, true} {
					d.noPipe = noPipe
					for _, causal := range []bool{false, true} {
						if tierKnobsSet() {
							break
						}
						params := layout.Params{Axis: -1, Scale: 1, Causal: causal}
						want := gpu.ClusterShiftKernel(dt, bwd, causal, !noPipe && !causal)
						if p := planWith(t, d, dt, []int{rows, n}, params, bwd, TierCluster); !p.shift || p.names[0] != want {
							t.Errorf("%v %dx%d bwd %v causal %v: kernel %s, shift %v; want %s", dt, rows, n, bwd, causal, p.names[0], p.shift, want)
						}
						if bwd { // rows that end inside a pack: the plain shifted kernel
							want = gpu.ClusterShiftKernel(dt, bwd, causal, false)
							if p := planWith(t, d, dt, []int{rows + 1, n}, params, bwd, TierCluster); !p.shift || p.names[0] != want {
								t.Errorf("%v %dx%d bwd %v causal %v: kernel %s, shift %v; want %s", dt, rows+1, n, bwd, causal, p.names[0], p.shift, want)
							}
						}
					}
					for variant := range 8 {
						// check runs each problem forward and backward: the
						// forward's rows (every shift; the backward there
						// takes the plain kernels) and the backward's (ending
						// on a pack: its pipelined kernels), pipelined only.
						if bwd && noPipe || testing.Short() && (variant+i)%3 != 0 {
							continue
						}
						p := rowsProblem(rng, rows, n, variant)
						p.name += fmt.Sprintf("/shifted/nopipe=%v", noPipe)
						run(t, d, p, dt, TierCluster)
					}
				}
			}
		}
	}
	d.noPipe, d.pipeBlocks = false, 0
	if tierKnobsSet() || os.Getenv("SOFTMAX_CLUSTER") != "" || os.Getenv("SOFTMAX_CGRID") != "" {
		return
	}
	// Dispatch takes them for masked rows tier 1 does not hold, and tier
	// 8's shifted kernels for the others where tier 8 pays (they ran
	// 1.05-1.6x faster there, GPU entry 92).
	for _, c := range []struct {
		dt     Dtype
		shape  []int
		bwd    bool
		masked bool
		want   Tier
	}{
		{Float16, []int{512, 32001}, true, false, TierCGrid},
		{Float32, []int{1024, 50257}, false, false, TierCGrid},
		{BFloat16, []int{1024, 50257}, true, false, TierCGrid},
		{Float32, []int{1024, 50257}, false, true, TierCluster},
		{Float16, []int{256, 128257}, false, true, TierCluster},
	} {
		params := layout.Params{Axis: -1, Scale: 1, Masked: c.masked}
		var ms []int
		var mask cu.DevicePtr
		if c.masked {
			ms, mask = c.shape, 4<<40
		}
		v, err := layout.Resolve(params, c.shape, ms)
		if err != nil {
			t.Fatal(err)
		}
		p := planCall(t, d, &call{dt: c.dt, v: v, bwd: c.bwd, mask: mask})
		if p.tier != c.want || !p.shift {
			t.Errorf("%v %v bwd %v masked %v: tier %v kernel %s shift %v; want tier %v, shifted", c.dt, c.shape, c.bwd, c.masked, p.tier, p.names[0], p.shift, c.want)
		}
	}
}

// TestGPUGrid covers tier 7: few rows, each spread over several blocks,
// from one row to one per SM, with every variant, around chunk boundaries
// and at long rows; each launch reuses the barrier words the one before
// left.
func TestGPUGrid(t *testing.T) {
	d := device(t)
	if !d.coop {
		t.Skip("no cooperative launch on this device")
	}
	rng := rand.New(rand.NewPCG(10, 10))
	for _, dt := range dtypes {
		for i, c := range []struct{ rows, n int }{
			{1, 1}, {1, 1000}, {2, 33}, {3, 4097}, {d.sms / 3, 2000}, {d.sms/2 + 1, 5000}, {d.sms, 300},
			{7, 123457}, {4, 1<<20 + 3}, {1, 1 << 21},
		} {
			if testing.Short() && c.rows*c.n > 1<<18 {
				continue
			}
			for _, variant := range []int{i % 7, (i + 3) % 7} {
				run(t, d, rowsProblem(rng, c.rows, c.n, variant), dt, TierGrid)
			}
		}
	}
}

// TestGPUCGrid covers tier 8: rows over clusters of 2 to 16 blocks, with
// every variant, shares that are not whole packs, more clusters than fit
// the device at once, and rows long enough to need clusters of 16.
func TestGPUCGrid(t *testing.T) {
	d := device(t)
	if !d.clusters {
		t.Skip("no thread block clusters on this device")
	}
	rng := rand.New(rand.NewPCG(11, 11))
	// The tier must hold these (run skips tiers that cannot): float32 rows
	// of 600001 columns need clusters of 16 blocks, where the driver
	// allows them.
	for _, n := range []int{20000, 600001} {
		if n > 8*gpu.CGridSmemTarget/4 && d.cgridMost < 16 {
			t.Logf("largest cluster %d blocks: float32 rows of %d columns not checked", d.cgridMost, n)
			continue
		}
		if !eligible(d, &call{dt: Float32, v: rowsProblem(rng, 2, n, 0).view(t)}, TierCGrid) {
			t.Fatalf("tier 8 cannot compute float32 rows of %d columns (largest cluster %d)", n, d.cgridMost)
		}
	}
	for _, dt := range dtypes {
		for i, c := range []struct{ rows, n int }{
			{1, 9}, {3, 33}, {2, 4097}, {5, 16385}, {3, 40001}, {4 * d.sms, 3000}, {2*d.sms + 3, 20000},
			{3, 128256}, {2, 600001},
		} {
			if testing.Short() && c.rows*c.n > 1<<18 {
				continue
			}
			for _, variant := range []int{i % 7, (i + 3) % 7} {
				run(t, d, rowsProblem(rng, c.rows, c.n, variant), dt, TierCGrid)
			}
		}
		// A mask a byte per row (stride 0 along the row: the shares' mask
		// bytes copied one at a time, beside data copied in packs where n
		// is whole packs), every row but the first kept.
		for _, n := range []int{4096, 4097, 40000, 40001} {
			p := rowsProblem(rng, 3, n, 0)
			p.spec.MaskShape, p.spec.Mask = []int{3, 1}, []bool{false, true, true}
			run(t, d, p, dt, TierCGrid, TierGrid)
		}
		// Shares of -Inf alone beside normal ones: the first half of row 0,
		// all of row 1 but its last entry, and row 2 but its first; then
		// (variant 6) a NaN as row 1's last entry and +Inf as row 2's, so
		// shares of -Inf alone sit beside a NaN and a +Inf share. Rows of
		// whole packs (40000) and not (40001).
		for _, n := range []int{40000, 40001} {
			for _, variant := range []int{0, 6} {
				p := rowsProblem(rng, 3, n, variant)
				for k := range p.x {
					if k < n/2 || n <= k && k < 2*n-1 || 2*n < k {
						p.x[k] = math.Inf(-1)
					}
				}
				if variant == 6 {
					p.x[2*n-1], p.x[3*n-1] = math.NaN(), math.Inf(1)
				}
				run(t, d, p, dt, TierCGrid, TierGrid, TierAuto)
			}
		}
	}
	cgridShifted(t, d, rng)
	// Log-softmax backward on the kernel that holds dy alone
	// (gpu.CGridLogKernel) and on bwd_cgrid, over rows whose dx depends
	// on the check of rows of -Inf alone, which the dy-only kernel's
	// blocks make after the meet through the workspace: a normal row (y
	// from the forward), a row of -Inf alone (dx = 0), one whose only y
	// above -Inf is a NaN in its last share (the other shares' blocks wait
	// for its word), one of -Inf alone with a +Inf in dy (the sum not
	// finite), and a normal row with one (grad_out's arithmetic), at a
	// scale of 1 and of 0.3.
	for _, dt := range dtypes {
		const rows, n = 5, 40000
		for _, scale := range []float64{1, 0.3} {
			p := rowsProblem(rng, rows, n, 0)
			p.name = fmt.Sprintf("logbwd%dx%d", rows, n)
			p.spec.Log, p.spec.Scale = true, scale
			p.y = reference.Forward(p.spec, p.x)
			for k := n; k < 4*n; k++ {
				p.y[k] = math.Inf(-1)
			}
			p.y[3*n-1] = math.NaN()
			p.dy[3*n+n/3], p.dy[4*n+n/2] = math.Inf(1), math.Inf(1)
			for _, old := range []bool{false, true} {
				d.noCGridLog = old
				pl := planWith(t, d, dt, p.spec.Shape, layout.Params{Axis: -1, Scale: scale, Log: true}, true, TierCGrid)
				want := !old && gpu.CGridLogOn(dt)
				if got := strings.Contains(pl.names[0], "_cgrid_log_"); got != want && !tierKnobsSet() {
					t.Errorf("%v %dx%d log-softmax backward, noCGridLog %v: kernel %v, want the dy-only kernel %v", dt, rows, n, old, pl.names, want)
				}
				run(t, d, p, dt, TierCGrid)
			}
			d.noCGridLog = false
		}
	}
	// Dispatch: float32 log-softmax backward at 256x128256 takes the
	// dy-only kernel, but not where dx overlaps y or dy (y is read after
	// other blocks have written).
	if !tierKnobsSet() {
		v, err := layout.Resolve(layout.Params{Axis: -1, Scale: 1, Log: true}, []int{256, 128256}, nil)
		if err != nil {
			t.Fatal(err)
		}
		const size = 256 * 128256 * 4
		for _, bufs := range [][]cu.DevicePtr{
			{1 << 30, 2 << 30, 3 << 30},
			{1 << 30, 2 << 30, 2 << 30},
			{1 << 30, 2 << 30, 1 << 30},
			{1 << 30, 2 << 30, 2<<30 + size - 16},
		} {
			pl := planCall(t, d, &call{dt: Float32, v: v, bwd: true, bufs: bufs})
			want := bufs[2] == 3<<30
			if got := strings.Contains(pl.names[0], "_cgrid_log_"); got != want || pl.tier != TierCGrid {
				t.Errorf("y %#x, dy %#x, dx %#x: %v %v, want tier 8, dy-only kernel %v", bufs[0], bufs[1], bufs[2], pl.tier, pl.names, want)
			}
		}
	}
	// Cluster sizes that are not powers of two, which only
	// SOFTMAX_CGRID_BLOCKS (here cgridBlocks) asks for; every variant over
	// the sizes and shapes.
	defer func() { d.cgridBlocks = gpu.CGridBlocks }()
	for j, blocks := range []int{3, 5, 7, 9, 11, 13, 14, 15} {
		if blocks > d.cgridMost {
			continue
		}
		d.cgridBlocks = blocks
		for _, dt := range dtypes {
			for i, c := range []struct{ rows, n int }{{3, 40001}, {2, 40000}, {2*d.sms + 3, 20000}} {
				if c.rows*c.n > 1<<18 && (testing.Short() || j%3 != 0) {
					continue // many rows: three of the sizes, full suite
				}
				p := rowsProblem(rng, c.rows, c.n, (i+j)%7)
				var g gpu.CGrid
				var ok bool
				if err := d.do(func() error { g, ok = d.cgridShape(&call{dt: dt, v: p.view(t)}); return nil }); err != nil {
					t.Fatal(err)
				}
				if !ok || g.Blocks != blocks {
					t.Errorf("%v %dx%d: tier 8 layout %+v (ok %v), want clusters of %d", dt, c.rows, c.n, g, ok, blocks)
					continue
				}
				run(t, d, p, dt, TierCGrid)
			}
		}
	}
}

// cgridShifted runs tier 8's shifted kernels (rows of a part pack, their
// shares tiled from the pack boundary before each row's start) forced on
// rows that give every shift of a pack, whose buffer ends on a pack or
// inside one (the last row's last share then copies its part pack an
// element at a time), in clusters of 2 to 16: softmax and log-softmax
// (the latter at scales of 1 and 0.3), rows with NaN, +Inf and -Inf,
// forward and backward (check runs both); and checks that tier 8 plans
// them there, and its column-at-a-time path where asked (noCGridShift)
// and for masked and causal rows.
func cgridShifted(t *testing.T, d *Device, rng *rand.Rand) {
	defer func() { d.noCGridShift = false }()
	for _, dt := range dtypes {
		pk := 16 / dt.Size()
		for i, c := range []struct{ rows, n int }{
			{2*pk + 1, 4097}, {2 * pk, 20003}, {pk + 3, 50257}, {3, 600001},
		} {
			if testing.Short() && c.rows*c.n > 1<<19 || !eligible(d, &call{dt: dt, v: rowsProblem(rng, c.rows, c.n, 0).view(t)}, TierCGrid) {
				continue // (float64 rows of 600001 columns pass what clusters of 16 hold; check skips backward where it does not fit)
			}
			for _, bwd := range []bool{false, true} {
				if tierKnobsSet() || !eligible(d, &call{dt: dt, v: rowsProblem(rng, c.rows, c.n, 0).view(t), bwd: bwd}, TierCGrid) {
					continue // (float32 backward rows of 600001 columns pass what clusters of 16 hold)
				}
				for _, old := range []bool{false, true} {
					d.noCGridShift = old
					for _, params := range []layout.Params{{Axis: -1, Scale: 1}, {Axis: -1, Scale: 1, Causal: true}} {
						masked := params.Causal
						p := planWith(t, d, dt, []int{c.rows, c.n}, params, bwd, TierCGrid)
						want := gpu.TierKernelName(dt, bwd, "cgrid")
						if !old && !masked {
							want = gpu.CGridShiftKernel(dt, bwd)
						}
						if p.names[0] != want || p.shift != (want != gpu.TierKernelName(dt, bwd, "cgrid")) {
							t.Errorf("%v %dx%d bwd %v noCGridShift %v causal %v: kernel %s shift %v; want %s", dt, c.rows, c.n, bwd, old, masked, p.names[0], p.shift, want)
						}
					}
				}
			}
			if i == 0 { // the column-at-a-time path, which these rows took before
				d.noCGridShift = true
				run(t, d, rowsProblem(rng, c.rows, c.n, 5), dt, TierCGrid)
			}
			d.noCGridShift = false
			for _, variant := range []int{0, 5, 6, -1} {
				if testing.Short() && variant != []int{0, 5, 6, -1}[i%4] {
					continue
				}
				p := rowsProblem(rng, c.rows, c.n, max(variant, 0))
				if variant < 0 {
					p.spec.Log = true
					p.name += "/log"
				}
				p.name += "/cgridshift"
				run(t, d, p, dt, TierCGrid)
			}
		}
	}
	// Forced cluster sizes give shares that hold fewer than a pack of the
	// row (float32 rows of 1022 in 16 blocks: row 0's last share holds 2
	// columns) or none of it (float16 rows of 1007 in 15 blocks of 72
	// columns: row 0 ends at 1008, where its last share starts). (A layout
	// of b blocks leaves none empty for rows of n + P - 1 columns, and the
	// row that starts on a boundary ends within P - 2 columns of that: so
	// never float64, and float32 only in short rows, e.g. 222 in 8 blocks.)
	defer func() { d.cgridBlocks = gpu.CGridBlocks }()
	for _, c := range []struct {
		dt        Dtype
		n, blocks int
	}{{Float32, 1022, 16}, {Float16, 1007, 15}, {Float64, 1051, 12}, {BFloat16, 1039, 14}} {
		if c.blocks > d.cgridMost {
			continue
		}
		d.cgridBlocks = c.blocks
		for _, variant := range []int{0, 6} {
			p := rowsProblem(rng, 2*16/c.dt.Size()+1, c.n, variant)
			p.name += "/cgridshift"
			if pl := planWith(t, d, c.dt, p.spec.Shape, layout.Params{Axis: -1, Scale: 1}, false, TierCGrid); !pl.shift && !tierKnobsSet() {
				t.Errorf("%v %v in clusters of %d: kernel %s, not shifted", c.dt, p.spec.Shape, c.blocks, pl.names[0])
			}
			run(t, d, p, c.dt, TierCGrid)
		}
	}
}

// TestGPUCGridBalance checks which tier 8 launches ask for load-balanced
// cluster scheduling (gpu.CGridBalanced): forward ones, and backward ones
// in clusters of 16.
func TestGPUCGridBalance(t *testing.T) {
	d := device(t)
	if !d.clusters || d.cgridMost < 16 {
		t.Skip("needs clusters of 16 blocks")
	}
	for _, c := range []struct {
		shape   []int
		bwd     bool
		blocks  int
		balance bool
	}{
		{[]int{1024, 32000}, false, 4, true},
		{[]int{256, 128256}, false, 16, true},
		{[]int{1024, 32000}, true, 4, false},
		{[]int{256, 128256}, true, 16, true},
	} {
		v, err := layout.Resolve(layout.Params{Axis: 1, Scale: 1}, c.shape, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := planCall(t, d, &call{dt: Float32, v: v, bwd: c.bwd, force: TierCGrid})
		if p.cluster != c.blocks || p.balance != c.balance {
			t.Errorf("%v bwd=%v: clusters of %d, load-balanced %v; want %d, %v", c.shape, c.bwd, p.cluster, p.balance, c.blocks, c.balance)
		}
	}
}

// TestGPUDispatch pins the dispatch rules of docs/GPU.md.
func TestGPUDispatch(t *testing.T) {
	d := device(t)
	v := func(shape []int, axis int) *layout.View {
		w, err := layout.Resolve(layout.Params{Axis: axis, Scale: 1}, shape, nil)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	// plan runs planTier inside do: the grid tier asks the driver for
	// occupancy, which needs the device's context current.
	plan := func(c *call) (tier Tier) {
		if err := d.do(func() error { tier = d.planTier(c); return nil }); err != nil {
			t.Fatal(err)
		}
		return tier
	}
	sms := d.sms
	edge := d.kernels["softmax_fwd_cached_f32"].dynSmem / 4
	// grid is the grid tier where the device has cooperative launches,
	// else the split tier.
	grid := TierSplit
	if d.coop {
		grid = TierGrid
	}
	// cluster is the cluster tier where the device has clusters, else
	// the tier taken without.
	cluster := func(without Tier) Tier {
		if d.clusters {
			return TierCluster
		}
		return without
	}
	// cgrid is tier 8 where the device has clusters, else the tier taken
	// without; cgrid16 where it also runs clusters of 16 blocks.
	cgrid := func(without Tier) Tier {
		if d.clusters {
			return TierCGrid
		}
		return without
	}
	cgrid16 := func(without Tier) Tier {
		if d.cgridMost >= 16 {
			return cgrid(without)
		}
		return without
	}
	for _, c := range []struct {
		dt    Dtype
		shape []int
		axis  int
		want  Tier
	}{
		{Float32, []int{4, 5, 6}, 1, TierInner},
		{Float32, []int{100, 1}, -1, TierRows},
		{Float32, []int{100, 1025}, -1, TierRows},
		{Float32, []int{1000, 16384}, -1, TierRows},
		{Float32, []int{1000, 16388}, -1, cgrid(TierBlock)}, // past tier 1
		{Float32, []int{1000, edge + 4}, -1, cgrid(TierBlock)},
		{Float32, []int{2*sms - 1, splitMinN}, -1, TierSplit},            // tier 1 holds it: not tier 8
		{Float32, []int{2*sms - 1, splitMinN + 4}, -1, cgrid(TierSplit)}, // 4 blocks of 16 KB a row
		// Rows of a part pack past tier 1: tier 8's shifted kernels where
		// tier 8 pays (GPU entry 92), else the cluster tier's, where its
		// clusters give a block per SM.
		{Float32, []int{1000, 16385}, -1, cgrid(cluster(TierBlock))},
		{Float32, []int{1000, edge + 1}, -1, cgrid(cluster(TierBlock))},
		{Float32, []int{2*sms - 1, splitMinN + 1}, -1, cgrid(cluster(TierSplit))},
		{Float16, []int{1000, 32769}, -1, cgrid(cluster(TierBlock))},
		{Float16, []int{sms/4 - 1, 32769}, -1, cgrid(TierSplit)}, // 4 blocks a cluster: 128 blocks
		{Float32, []int{2 * sms, splitMinN}, -1, TierRows},
		{Float32, []int{4, splitMinN - 1}, -1, TierRows},
		{Float32, []int{4, 1 << 25}, -1, TierSplit}, // 4 MB per block: more than shared memory holds
		{Float32, []int{4, 1 << 20}, -1, grid},      // 32 KB per block at 4 per SM (127 KB at 1)
		{Float32, []int{8, 1 << 20}, -1, TierSplit}, // no grid layout fits (64 KB a block at 4 per SM)
		{Float32, []int{4, 1 << 18}, -1, grid},      // 32 KB per block
		{Float32, []int{1, 1 << 20}, -1, grid},
		{Float32, []int{1, splitMinN}, -1, grid},
		{Float32, []int{gridMaxRows, splitMinN}, -1, grid},
		{Float32, []int{gridMaxRows + 1, splitMinN}, -1, TierSplit},
		{Float16, []int{4, 1 << 20}, -1, grid}, // 32 KB per block at 2 per SM
		{Float16, []int{1000, 32768}, -1, TierRows},
		{Float16, []int{1000, 32776}, -1, cgrid(cluster(TierBlock))},
		{Float16, []int{1000, 131080}, -1, cgrid(TierBlock)},
		{Float16, []int{sms/4 - 1, 32776}, -1, cgrid(TierSplit)},
		{Float16, []int{2 * sms, 32776}, -1, cgrid(cluster(TierBlock))},
	} {
		if got := plan(&call{dt: c.dt, v: v(c.shape, c.axis)}); got != c.want {
			t.Errorf("%v shape %v axis %d: tier %v, want %v", c.dt, c.shape, c.axis, got, c.want)
		}
	}
	// Backward: tier 8 but for log-softmax's shares past the target on
	// bwd_cgrid (the kernel that holds dy alone takes them).
	for _, c := range []struct {
		dt    Dtype
		shape []int
		log   bool
		want  Tier
	}{
		{Float32, []int{1000, 32000}, false, cgrid(TierBlock)},
		{Float32, []int{1000, 32000}, true, cgrid(TierBlock)},
		{Float32, []int{256, 128256}, false, cgrid(TierSplit)},
		{Float32, []int{256, 128256}, true, cgrid16(TierSplit)}, // 32 KB of y and of dy a block
		{Float32, []int{64, 262144}, false, cgrid16(TierSplit)},
		{Float32, []int{32, splitMinN}, false, cgrid(TierSplit)}, // 2 blocks of 32 KB of each: 64
		{Float32, []int{31, splitMinN}, false, TierSplit},        // 62 blocks
		{Float32, []int{64, 262144}, true, cgrid16(TierSplit)},   // 64 KB of dy alone (gpu.CGridLogKernel)
		{Float16, []int{256, 128256}, false, cgrid(TierSplit)},
		{BFloat16, []int{256, 128256}, true, cgrid(TierSplit)},
		{Float16, []int{1000, 32776}, false, cgrid(cluster(TierBlock))},
		{Float16, []int{1000, 32769}, false, cgrid(cluster(TierBlock))}, // a part pack: tier 8's shifted kernels
		{Float32, []int{1000, 8192}, false, TierRows},
	} {
		w, err := layout.Resolve(layout.Params{Axis: -1, Log: c.log, Scale: 1}, c.shape, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := plan(&call{dt: c.dt, v: w, bwd: true}); got != c.want {
			t.Errorf("backward %v shape %v log %v: tier %v, want %v", c.dt, c.shape, c.log, got, c.want)
		}
	}
	// Masked forward rows past tier 1 take tier 8, and so do masked half
	// rows that tier 1 would run unpipelined (more than 512 threads at
	// K = 4); masked backward rows do not.
	for _, c := range []struct {
		dt    Dtype
		shape []int
		want  Tier
	}{
		{Float32, []int{1000, 32000}, cgrid(cluster(TierBlock))},
		{Float32, []int{1000, 16384}, TierRows}, // the pipelined kernel runs 1024 threads
		{Float16, []int{1000, 32000}, cgrid(TierRows)},
		{BFloat16, []int{1000, 16400}, cgrid(TierRows)},  // 544 threads
		{Float16, []int{1000, 32001}, cluster(TierRows)}, // a part pack: shifted
		{Float16, []int{1000, 16384}, TierRows},          // 512 threads: pipelined
		{Float16, []int{1000, 8192}, TierRows},
		{Float16, []int{256, 128256}, cgrid(TierSplit)},
		{Float16, []int{4, 1 << 20}, grid}, // 32 KB of data a block at 2 per SM (tier 8: 64 blocks, fewer than the SMs)
	} {
		w, err := layout.Resolve(layout.Params{Axis: -1, Masked: true, Scale: 1}, c.shape, c.shape)
		if err != nil {
			t.Fatal(err)
		}
		if got := plan(&call{dt: c.dt, v: w, mask: 1}); got != c.want {
			t.Errorf("masked %v shape %v: tier %v, want %v", c.dt, c.shape, got, c.want)
		}
	}
	w, err := layout.Resolve(layout.Params{Axis: -1, Masked: true, Scale: 1}, []int{1000, 32000}, []int{1000, 32000})
	if err != nil {
		t.Fatal(err)
	}
	for _, dt := range []Dtype{Float32, Float16} {
		if got := plan(&call{dt: dt, v: w, mask: 1, bwd: true}); got == TierCGrid {
			t.Errorf("masked %v backward 1000x32000: tier %v, want another", dt, got)
		}
	}
	// Causal rows do not take tier 8 either.
	w, err = layout.Resolve(layout.Params{Axis: -1, Causal: true, Scale: 1}, []int{1000, 32769}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := plan(&call{dt: Float16, v: w}); got != cluster(TierBlock) {
		t.Errorf("causal float16 1000x32769: tier %v, want %v", got, cluster(TierBlock))
	}
	// Float64 softmax backward past gpu.FarGrad64's bound takes the split
	// tier for fewer rows than SMs of at least splitMinN columns, the block
	// tier for other rows on the last axis (far_rows, a warp a row, to
	// gpu.FarRowsCols columns; then far_block, a block a row), tier 5 off
	// it; no tier but those three is eligible.
	for _, c := range []struct {
		shape    []int
		axis     int
		want     Tier
		eligible []Tier
		kernel   string // the plan's first kernel
	}{
		{[]int{65536, 128}, -1, TierBlock, []Tier{TierBlock, TierInner}, gpu.FarRowsKernel}, // past the split tier's 65535 rows
		{[]int{1000, 129}, -1, TierBlock, []Tier{TierBlock, TierSplit, TierInner}, "softmax_bwd_block_f64"},
		{[]int{4096, 4096}, -1, TierBlock, []Tier{TierBlock, TierSplit, TierInner}, "softmax_bwd_block_f64"},
		{[]int{4, 65536}, -1, TierSplit, []Tier{TierBlock, TierSplit, TierInner}, "softmax_bwd_split_stats_f64"},
		{[]int{sms - 1, splitMinN}, -1, TierSplit, []Tier{TierBlock, TierSplit, TierInner}, "softmax_bwd_split_stats_f64"},
		{[]int{sms, splitMinN}, -1, TierBlock, []Tier{TierBlock, TierSplit, TierInner}, "softmax_bwd_block_f64"},
		{[]int{sms - 1, splitMinN - 1}, -1, TierBlock, []Tier{TierBlock, TierSplit, TierInner}, "softmax_bwd_block_f64"},
		{[]int{256, 128256}, -1, TierBlock, []Tier{TierBlock, TierSplit, TierInner}, "softmax_bwd_block_f64"},
		{[]int{50, 3}, 0, TierInner, []Tier{TierInner}, "softmax_bwd_inner_f64"},
	} {
		w := v(c.shape, c.axis)
		w.Scale = 1e300
		fc := &call{dt: Float64, v: w, bwd: true, bufs: []cu.DevicePtr{1 << 40, 2 << 40, 3 << 40}}
		if got := plan(fc); got != c.want {
			t.Errorf("far float64 backward %v axis %d: tier %v, want %v", c.shape, c.axis, got, c.want)
		}
		if p := planCall(t, d, fc); p.names[0] != c.kernel {
			t.Errorf("far float64 backward %v axis %d: kernel %s, want %s", c.shape, c.axis, p.names[0], c.kernel)
		}
		for tier := TierRows; tier <= TierCGrid; tier++ {
			var ok bool
			if err := d.do(func() error { ok = d.eligible(fc, tier); return nil }); err != nil {
				t.Fatal(err)
			}
			if ok != slices.Contains(c.eligible, tier) {
				t.Errorf("far float64 backward %v axis %d: tier %v eligible %v", c.shape, c.axis, tier, ok)
			}
		}
	}
}

// TestGPUUnaligned shifts every buffer by one element, so the vector paths
// must not be taken.
func TestGPUUnaligned(t *testing.T) {
	d := device(t)
	rng := rand.New(rand.NewPCG(5, 5))
	for _, dt := range dtypes {
		for _, n := range []int{64, 1024, 4096, 40000} {
			p := rowsProblem(rng, 3, n, 1)
			for _, tier := range tiers(d, p, dt, p.view(t)) {
				if msg := check(t, d, p, dt, tier, dt.Size()); msg != "" {
					t.Error(msg)
				}
			}
		}
	}
}

// TestGPUConcurrent calls one device from many goroutines at once.
func TestGPUConcurrent(t *testing.T) {
	d := device(t)
	var wg sync.WaitGroup
	errs := make(chan string, 1000)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(6, uint64(g)))
			for i := range 8 {
				dt := dtypes[(g+i)%len(dtypes)]
				p := fromRandom(fmt.Sprintf("g%d/%d", g, i), randomProblem(rng, i%2 == 0))
				if msg := check(t, d, p, dt, TierAuto, 0); msg != "" {
					errs <- msg
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Error(msg)
	}
}

// TestGPUBackend runs the backend.Accelerator on host slices.
func TestGPUBackend(t *testing.T) {
	device(t)
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range 40 {
		rp := randomProblem(rng, i%2 == 1)
		p := fromRandom("backend", rp)
		v := p.view(t)
		var mask []bool
		if p.spec.Mask != nil {
			mask = p.spec.Mask
		}
		x32 := make([]float32, len(p.x))
		dy32 := make([]float32, len(p.x))
		for j := range x32 {
			x32[j], dy32[j] = float32(p.x[j]), float32(p.dy[j])
		}
		y32 := make([]float32, len(p.x))
		if err := (Backend{}).Forward(v, x32, y32, mask); err != nil {
			t.Fatal(err)
		}
		y64 := make([]float64, len(p.x))
		if err := (Backend{}).Forward(v, p.x, y64, mask); err != nil {
			t.Fatal(err)
		}
		want32 := reference.Forward(p.spec, reference.Float32(p.x))
		want64 := reference.Forward(p.spec, p.x)
		for j := range y32 {
			if !gpucheck.FwdOK(Float32, p.spec.Log, float64(y32[j]), want32[j]) || !gpucheck.FwdOK(Float64, p.spec.Log, y64[j], want64[j]) {
				t.Fatalf("%v: y[%d] = %v, %v; want %v, %v", p.spec.Shape, j, y32[j], y64[j], want32[j], want64[j])
			}
		}
		dx64 := make([]float64, len(p.x))
		if err := (Backend{}).Backward(v, want64, p.dy, dx64, mask); err != nil {
			t.Fatal(err)
		}
		wantDX := reference.Backward(p.spec, want64, p.dy)
		terms := reference.GradTerms(p.spec, want64, p.dy)
		for j := range dx64 {
			if !gpucheck.GradOK(Float64, dx64[j], wantDX[j], terms[j]) {
				t.Fatalf("%v: dx[%d] = %v; want %v", p.spec.Shape, j, dx64[j], wantDX[j])
			}
		}
	}
}

// TestGPUErrors checks that bad calls return errors.
func TestGPUErrors(t *testing.T) {
	d := device(t)
	if err := d.Forward(Dtype(9), []int{2}, 0, 0, nil, Options{}); err == nil {
		t.Error("unknown dtype: no error")
	}
	if err := d.Forward(Float32, []int{2, 3}, 0, 0, nil, Options{Axis: 2}); err == nil {
		t.Error("axis out of range: no error")
	}
	if err := d.Forward(Float32, []int{2, 3}, 0, 0, &Mask{Shape: []int{3, 3}}, Options{}); err == nil {
		t.Error("bad mask shape: no error")
	}
	if err := d.Forward(Float32, []int{2, 3}, 0, 0, nil, Options{Scale: -1}); err == nil {
		t.Error("negative scale: no error")
	}
	// Scales past float32's range: refused for the float32-computed types,
	// forward and backward, before any buffer is looked at; float64 takes
	// them (the null pointers are then what is wrong).
	for _, dt := range dtypes {
		o := Options{Scale: 1e39}
		errs := []error{d.Forward(dt, []int{2, 3}, 0, 0, nil, o), d.Backward(dt, []int{2, 3}, 0, 0, 0, nil, o)}
		for _, err := range errs {
			if refused := err != nil && strings.Contains(err.Error(), "scale"); refused != (dt != Float64) {
				t.Errorf("%v at scale 1e39: %v", dt, err)
			}
		}
	}
}
