//go:build hip

package hip

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gosoftmax/softmax/internal/gpu/gpucheck"
	"github.com/gosoftmax/softmax/internal/layout"
	"github.com/gosoftmax/softmax/internal/reference"
)

// The TestGPU* tests need an AMD GPU with a code object for its
// architecture; elsewhere they skip, saying why. On an AMD machine, with
// the HIP runtime installed:
//
//	go test -tags hip -count=1 -v -run GPU ./hip -args -gpu
//
// (-gpu turns the skip into a failure, so a run that sees no GPU cannot
// pass). -test.short runs a smaller set. The port of cuda/cuda_test.go:
// the same problems, tolerances and reference.

var (
	seeds     = flag.Int("seeds", 120, "random problems per dtype (short: 20)")
	requireGP = flag.Bool("gpu", false, "fail, instead of skipping, when no AMD GPU is usable")
)

var dtypes = []Dtype{Float32, Float64, Float16, BFloat16}

// device returns GPU 0, or skips the test when the backend's start-up
// probe found no usable GPU (the reason is in the message). A probe that
// passed followed by a failing Default is a failure.
func device(t testing.TB) *Device {
	t.Helper()
	if _, err := probe(); err != nil {
		if *requireGP {
			t.Fatalf("no usable AMD GPU (-gpu): %v", err)
		}
		t.Skipf("no usable AMD GPU: %v", err)
	}
	d, err := Default()
	if err != nil {
		t.Fatalf("the GPU passed the probe but did not start: %v", err)
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
	base, ptr DevicePtr
	n         int
}

func upload(t testing.TB, d *Device, b []byte, off int) buffer {
	t.Helper()
	base, err := d.Alloc(len(b) + off + 16)
	if err != nil {
		t.Fatal(err)
	}
	buf := buffer{base: base, ptr: base + DevicePtr(off), n: len(b)}
	if err := Upload(d, buf.ptr, b); err != nil {
		t.Fatal(err)
	}
	return buf
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
	wantDX := reference.Backward(p.spec, yIn, dy)
	terms := reference.GradTerms(p.spec, yIn, dy)

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
	var mp DevicePtr
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
			return d.run(&call{dt: dt, v: v, bufs: []DevicePtr{bx.ptr, by.ptr}, mask: mp, force: tier})
		})
	}
	if err != nil {
		return where + ": forward: " + err.Error()
	}
	got := gpucheck.Decode(dt, by.read(t, d))
	var bad []string
	for i := range got {
		if !gpucheck.FwdOK(dt, p.spec.Log, got[i], want[i]) && !gpucheck.SpanOverflow(dt, p.spec.Log, got[i], want[i], p.spec.Scale, p.spec.Shape[p.spec.Axis]) {
			bad = append(bad, fmt.Sprintf("y[%d]=%v want %v (x=%v)", i, got[i], want[i], x[i]))
		}
	}
	if len(bad) > 0 {
		return fmt.Sprintf("%s: forward: %d of %d wrong: %s", where, len(bad), len(got), strings.Join(bad[:min(4, len(bad))], "; "))
	}

	bwdIn := upload(t, d, gpucheck.Encode(dt, yIn), off)
	bufs = append(bufs, bwdIn)
	if tier == TierAuto {
		err = d.Backward(dt, p.spec.Shape, bwdIn.ptr, bdy.ptr, bdx.ptr, mask, opt)
	} else {
		err = d.do(func() error {
			return d.run(&call{dt: dt, v: v, bwd: true, bufs: []DevicePtr{bwdIn.ptr, bdy.ptr, bdx.ptr}, mask: mp, force: tier})
		})
	}
	if err != nil {
		return where + ": backward: " + err.Error()
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

// tiers lists TierAuto and every tier that can compute p.
func tiers(d *Device, p problem, dt Dtype, v *layout.View) []Tier {
	out := []Tier{TierAuto}
	for t := TierRows; t <= TierInner; t++ {
		if d.eligible(&call{dt: dt, v: v}, t) && d.eligible(&call{dt: dt, v: v, bwd: true}, t) {
			out = append(out, t)
		}
	}
	return out
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
// softmax with scale and special values.
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

// TestGPUTierBoundaries runs row lengths at and around every tier
// boundary, with every variant, on every tier that can take them.
func TestGPUTierBoundaries(t *testing.T) {
	d := device(t)
	rng := rand.New(rand.NewPCG(2, 2))
	ns := []int{1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257,
		511, 512, 513, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4097}
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
// which dispatch stops splitting.
func TestGPUSplit(t *testing.T) {
	d := device(t)
	rng := rand.New(rand.NewPCG(4, 4))
	for _, dt := range dtypes {
		for j, n := range []int{splitMinN - 1, splitMinN, 1<<20 + 3} {
			run(t, d, rowsProblem(rng, 3, n, []int{0, 5, 1}[j]), dt, TierAuto, TierSplit, TierBlock)
		}
		if testing.Short() {
			continue
		}
		for _, rows := range []int{splitRowsPer*d.sms - 1, splitRowsPer * d.sms} {
			run(t, d, rowsProblem(rng, rows, splitMinN, 4), dt, TierAuto)
		}
		run(t, d, rowsProblem(rng, 2, 1<<22+1, 6), dt, TierAuto)
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
	sms := d.sms
	for _, c := range []struct {
		shape []int
		axis  int
		want  Tier
	}{
		{[]int{4, 5, 6}, 1, TierInner},
		{[]int{100, 1}, -1, TierRows},
		{[]int{1000, 16384}, -1, TierRows},
		{[]int{1000, 16385}, -1, TierBlock},
		{[]int{2*sms - 1, splitMinN}, -1, TierSplit},
		{[]int{2 * sms, splitMinN}, -1, TierRows},
		{[]int{4, splitMinN - 1}, -1, TierRows},
		{[]int{4, 1 << 25}, -1, TierSplit},
	} {
		if got := d.planTier(&call{dt: Float32, v: v(c.shape, c.axis)}); got != c.want {
			t.Errorf("shape %v axis %d: tier %v, want %v", c.shape, c.axis, got, c.want)
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

// TestGPUScales runs the scales where the float32-computed types' float32
// forms of the scale end: subnormal or 0 (1e-40 to 1e-300), and from 1e30
// up to float32's largest value (float64: to 1e300), on rows with a mask
// or with NaN, +Inf and -Inf entries, every tier (the cuda suite's
// TestGPUTinyScale and TestGPUHugeScale; the limits are docs/GPU.md's).
func TestGPUScales(t *testing.T) {
	d := device(t)
	rng := rand.New(rand.NewPCG(12, 4))
	scales := []float64{1e-40, 1e-46, 1e-300, 1e30, 1e38, math.MaxFloat32, 1e39, 1e300}
	for _, dt := range dtypes {
		gpucheck.ScaleCases(dt, scales, testing.Short(), func(n int, s float64, variant int, lg bool) {
			p := rowsProblem(rng, 5, n, variant)
			p.spec.Scale, p.spec.Log = s, lg
			run(t, d, p, dt)
		})
	}
}

// TestGPUExtremeValues runs rows whose entries reach each dtype's largest
// value and float32's subnormals (reference.Extreme), as the cuda suite's
// test of the name does.
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
	// Scales past float32's range: refused for the float32-computed types
	// (gpu.ScaleFits); float64 takes them (the null pointers are then what
	// is wrong).
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
