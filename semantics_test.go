package softmax_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gosoftmax/softmax"
	"github.com/gosoftmax/softmax/internal/reference"
)

var (
	inf  = math.Inf(1)
	ninf = math.Inf(-1)
	nan  = math.NaN()
)

func dense64(shape []int, v ...float64) *tensor.Dense {
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(append([]float64(nil), v...)))
}

func approxEqual(got, want []float64, tol float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !reference.Close(got[i], want[i], tol, tol) {
			return false
		}
	}
	return true
}

// TestSpecialValues pins the documented rules for NaN, +Inf, -Inf and huge
// entries, in both dtypes, against hand-computed values.
func TestSpecialValues(t *testing.T) {
	e := math.Exp(1)
	cases := []struct {
		name     string
		x        []float64
		soft     []float64
		log      []float64
		softGrad []float64 // for dy = [1, 0, 0, ...]
	}{
		{"inf and one", []float64{inf, 1}, []float64{1, 0}, []float64{0, ninf}, nil},
		{"two infs", []float64{inf, inf, 1}, []float64{0.5, 0.5, 0}, []float64{-math.Ln2, -math.Ln2, ninf}, nil},
		{"nan", []float64{1, nan, 2}, []float64{nan, nan, nan}, []float64{nan, nan, nan}, nil},
		{"nan and inf", []float64{inf, nan}, []float64{nan, nan}, []float64{nan, nan}, nil},
		{"minus inf", []float64{ninf, 0, 1}, []float64{0, 1 / (1 + e), e / (1 + e)}, []float64{ninf, -math.Log(1 + e), 1 - math.Log(1+e)}, nil},
		{"all minus inf", []float64{ninf, ninf}, []float64{0, 0}, []float64{ninf, ninf}, []float64{0, 0}},
		{"1e4", []float64{1e4, -1e4, 1e4 - 1}, []float64{e / (1 + e), 0, 1 / (1 + e)}, []float64{-math.Log(1 + 1/e), -2e4 - math.Log(1+1/e), -1 - math.Log(1+1/e)}, nil},
		{"1e30", []float64{1e30, -1e30, 0}, []float64{1, 0, 0}, []float64{0, -2e30, -1e30}, nil},
		{"-1e30 only", []float64{-1e30, -1e30}, []float64{0.5, 0.5}, []float64{-math.Ln2, -math.Ln2}, nil},
	}
	for _, c := range cases {
		for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
			if dt == tensor.Float32 && c.name == "1e30" {
				continue // -2e30 is fine in float32, but keep float32 to its range below
			}
			x := tensor.New(tensor.WithShape(len(c.x)), tensor.WithBacking(floatsOf(dt, c.x)))
			y, err := softmax.SoftMaxTensor(x)
			if err != nil {
				t.Fatal(err)
			}
			if got := widen(y.Data()); !approxEqual(got, c.soft, 1e-6) {
				t.Errorf("%s %v: softmax = %v, want %v", c.name, dt, got, c.soft)
			}
			ly, err := softmax.LogSoftMaxTensor(x)
			if err != nil {
				t.Fatal(err)
			}
			if got := widen(ly.Data()); !approxEqual(got, c.log, 1e-6) {
				t.Errorf("%s %v: log-softmax = %v, want %v", c.name, dt, got, c.log)
			}
			if c.softGrad != nil {
				dy := make([]float64, len(c.x))
				dy[0] = 1
				g := tensor.New(tensor.WithShape(len(c.x)), tensor.WithBacking(floatsOf(dt, dy)))
				for _, run := range []func() (*tensor.Dense, error){
					func() (*tensor.Dense, error) { return softmax.SoftMaxGrad(y, g) },
					func() (*tensor.Dense, error) { return softmax.LogSoftMaxGrad(ly, g) },
				} {
					dx, err := run()
					if err != nil {
						t.Fatal(err)
					}
					if got := widen(dx.Data()); !approxEqual(got, c.softGrad, 0) {
						t.Errorf("%s %v: gradient = %v, want %v", c.name, dt, got, c.softGrad)
					}
				}
			}
		}
	}
}

// TestFullyMaskedRows: all-zero outputs (log: -Inf), never NaN, and zero
// gradients, through a graph.
func TestFullyMaskedRows(t *testing.T) {
	for _, log := range []bool{false, true} {
		g := gorgonia.NewGraph()
		x := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(2, 3), gorgonia.WithName("x"),
			gorgonia.WithValue(dense64([]int{2, 3}, 1, 2, 3, 4, 5, 6)))
		mask := gorgonia.NewMatrix(g, tensor.Bool, gorgonia.WithShape(2, 1), gorgonia.WithName("mask"),
			gorgonia.WithValue(tensor.New(tensor.WithShape(2, 1), tensor.WithBacking([]bool{true, false}))))
		f := softmax.MaskedSoftMax
		if log {
			f = softmax.MaskedLogSoftMax
		}
		y, err := f(x, mask)
		if err != nil {
			t.Fatal(err)
		}
		// A weighted sum of the kept outputs; for log, -Inf outputs are
		// selected away by a zero-free path: use Exp(y) to stay finite.
		out := y
		if log {
			out = gorgonia.Must(gorgonia.Exp(y))
		}
		w := gorgonia.NewConstant(dense64([]int{2, 3}, 1, -2, 3, 5, 7, 11))
		loss := gorgonia.Must(gorgonia.Sum(gorgonia.Must(gorgonia.HadamardProd(out, w))))
		if _, err := gorgonia.Grad(loss, x); err != nil {
			t.Fatal(err)
		}
		vm := gorgonia.NewTapeMachine(g)
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		vm.Close()
		got := y.Value().(*tensor.Dense).Float64s()
		want := 0.0
		if log {
			want = ninf
		}
		for _, v := range got[3:] {
			if v != want {
				t.Errorf("log=%v: fully masked row = %v, want all %v", log, got[3:], want)
			}
		}
		dx, _ := x.Grad()
		for _, v := range dx.(*tensor.Dense).Float64s()[3:] {
			if v != 0 {
				t.Errorf("log=%v: gradient of a fully masked row = %v, want 0", log, dx.(*tensor.Dense).Float64s()[3:])
			}
		}
		for _, v := range got[:3] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("log=%v: kept row = %v", log, got[:3])
			}
		}
	}
}

// TestAllNegInfRowGradient pins the documented gradient of a row whose
// entries are all -Inf: 0 for a finite dy; softmax gives NaN where dy is
// infinite or NaN (0*Inf), log-softmax 0 whatever dy.
func TestAllNegInfRowGradient(t *testing.T) {
	x := dense64([]int{2, 3}, ninf, ninf, ninf, 1, 2, 3)
	for _, log := range []bool{false, true} {
		fwd, grad := softmax.SoftMaxTensor, softmax.SoftMaxGrad
		if log {
			fwd, grad = softmax.LogSoftMaxTensor, softmax.LogSoftMaxGrad
		}
		y, err := fwd(x)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			dy      []float64
			wantNaN bool
		}{
			{[]float64{1, -2, 3}, false},
			{[]float64{inf, 1, nan}, !log},
		} {
			dx, err := grad(y, dense64([]int{2, 3}, append(c.dy, 1, 2, 3)...))
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range dx.Float64s()[:3] {
				if c.wantNaN && !math.IsNaN(v) || !c.wantNaN && v != 0 {
					t.Errorf("log=%v dy %v: dx = %v, want all %v", log, c.dy, dx.Float64s()[:3], map[bool]string{true: "NaN", false: "0"}[c.wantNaN])
					break
				}
			}
		}
	}
}

// TestGorgoniaRowMaxBug: Gorgonia's built-in softmax starts every row's
// maximum from the tensor's first element, so row 2 here comes out NaN.
func TestGorgoniaRowMaxBug(t *testing.T) {
	x := dense64([]int{2, 3}, 0, 0, 0, 1000, 0, 0)
	y, err := softmax.SoftMaxTensor(x)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1.0 / 3, 1.0 / 3, 1.0 / 3, 1, 0, 0}
	if got := y.Float64s(); !approxEqual(got, want, 1e-15) {
		t.Errorf("softmax = %v, want %v", got, want)
	}
	builtin, err := tensor.SoftMax(x, 1)
	if err == nil && !math.IsNaN(builtin.(*tensor.Dense).Float64s()[3]) {
		t.Logf("note: Gorgonia's built-in softmax no longer shows the row-maximum bug: %v", builtin.Data())
	}
}

// TestSoftMaxAndLogSoftMaxInOneGraph: Gorgonia's own op hashes softmax and
// log-softmax alike, so one graph collapses them into one node. Ours stay
// two nodes with their own values.
func TestSoftMaxAndLogSoftMaxInOneGraph(t *testing.T) {
	g := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(2, 3), gorgonia.WithName("x"),
		gorgonia.WithValue(dense64([]int{2, 3}, 1, 2, 3, 0, 0, 0)))
	s, err := softmax.SoftMax(x)
	if err != nil {
		t.Fatal(err)
	}
	l, err := softmax.LogSoftMax(x)
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := softmax.SoftMax(x, softmax.Scale(2))
	s3, _ := softmax.SoftMax(x, softmax.Axis(0))
	if s == l || s == s2 || s == s3 || s.Hashcode() == l.Hashcode() {
		t.Fatalf("ops with different parameters share a node")
	}
	s4, _ := softmax.SoftMax(x)
	if s4 != s {
		t.Errorf("identical ops should be one node (Gorgonia deduplicates by hash)")
	}
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	sv, lv := s.Value().(*tensor.Dense).Float64s(), l.Value().(*tensor.Dense).Float64s()
	for i := range sv {
		if math.Abs(math.Log(sv[i])-lv[i]) > 1e-12 {
			t.Fatalf("log-softmax %v is not the log of softmax %v", lv, sv)
		}
	}
}

// TestBadInput: every bad argument gives an error that names it; nothing
// panics.
func TestBadInput(t *testing.T) {
	g := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(2, 3), gorgonia.WithName("x"))
	vec := gorgonia.NewVector(g, tensor.Float64, gorgonia.WithShape(3), gorgonia.WithName("v"))
	ints := gorgonia.NewMatrix(g, tensor.Int, gorgonia.WithShape(2, 3), gorgonia.WithName("i"))
	fmask := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(2, 3), gorgonia.WithName("fm"))
	badMask := gorgonia.NewMatrix(g, tensor.Bool, gorgonia.WithShape(2, 2), gorgonia.WithName("bm"))
	rank1Mask := gorgonia.NewVector(g, tensor.Bool, gorgonia.WithShape(3), gorgonia.WithName("r1"))
	x32 := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(2, 3), gorgonia.WithName("x32"))
	graphCases := []struct {
		name, want string
		run        func() (*gorgonia.Node, error)
	}{
		{"int x", "x has type", func() (*gorgonia.Node, error) { return softmax.SoftMax(ints) }},
		{"nil x", "x is nil", func() (*gorgonia.Node, error) { return softmax.SoftMax(nil) }},
		{"axis", "axis 2 out of range", func() (*gorgonia.Node, error) { return softmax.SoftMax(x, softmax.Axis(2)) }},
		{"axis neg", "axis -3 out of range", func() (*gorgonia.Node, error) { return softmax.LogSoftMax(x, softmax.Axis(-3)) }},
		{"scale 0", "scale", func() (*gorgonia.Node, error) { return softmax.SoftMax(x, softmax.Scale(0)) }},
		{"scale neg", "scale", func() (*gorgonia.Node, error) { return softmax.SoftMax(x, softmax.Scale(-1)) }},
		{"scale nan", "scale", func() (*gorgonia.Node, error) { return softmax.SoftMax(x, softmax.Scale(nan)) }},
		{"scale inf", "scale", func() (*gorgonia.Node, error) { return softmax.SoftMax(x, softmax.Scale(inf)) }},
		{"scale past float32", "scale 1e+39 is past float32's largest value", func() (*gorgonia.Node, error) {
			return softmax.SoftMax(x32, softmax.Scale(1e39))
		}},
		{"scale inf float32", "scale must be finite and > 0", func() (*gorgonia.Node, error) {
			return softmax.SoftMax(x32, softmax.Scale(inf))
		}},
		{"causal rank 1", "causal needs x of rank >= 2", func() (*gorgonia.Node, error) { return softmax.SoftMax(vec, softmax.Causal(0)) }},
		{"causal axis", "causal needs axis = last", func() (*gorgonia.Node, error) {
			return softmax.SoftMax(x, softmax.Causal(0), softmax.Axis(0))
		}},
		{"float mask", "mask has type", func() (*gorgonia.Node, error) { return softmax.MaskedSoftMax(x, fmask) }},
		{"nil mask", "mask is nil", func() (*gorgonia.Node, error) { return softmax.MaskedLogSoftMax(x, nil) }},
		{"mask shape", "does not broadcast", func() (*gorgonia.Node, error) { return softmax.MaskedSoftMax(x, badMask) }},
		{"mask rank", "mask has rank 1", func() (*gorgonia.Node, error) { return softmax.MaskedSoftMax(x, rank1Mask) }},
		{"into on graph", "Into applies", func() (*gorgonia.Node, error) {
			return softmax.SoftMax(x, softmax.Into(dense64([]int{2, 3}, 0, 0, 0, 0, 0, 0)))
		}},
	}
	for _, c := range graphCases {
		wantError(t, c.name, c.want, func() error { _, err := c.run(); return err })
	}

	good := dense64([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	before := append([]float64(nil), good.Float64s()...)
	intT := tensor.New(tensor.WithShape(2, 3), tensor.WithBacking([]int{1, 2, 3, 4, 5, 6}))
	boolMask := tensor.New(tensor.WithShape(1, 2), tensor.WithBacking([]bool{true, false}))
	f32 := tensor.New(tensor.WithShape(2, 3), tensor.Of(tensor.Float32))
	eagerCases := []struct {
		name, want string
		run        func() (*tensor.Dense, error)
	}{
		{"int x", "x has dtype", func() (*tensor.Dense, error) { return softmax.SoftMaxTensor(intT) }},
		{"nil x", "x is", func() (*tensor.Dense, error) { return softmax.SoftMaxTensor(nil) }},
		{"scalar x", "scalar", func() (*tensor.Dense, error) { return softmax.SoftMaxTensor(tensor.New(tensor.FromScalar(1.0))) }},
		{"axis", "axis 5 out of range", func() (*tensor.Dense, error) { return softmax.SoftMaxTensor(good, softmax.Axis(5)) }},
		{"mask shape", "does not broadcast", func() (*tensor.Dense, error) { return softmax.MaskedSoftMaxTensor(good, boolMask) }},
		{"mask dtype", "mask has dtype", func() (*tensor.Dense, error) { return softmax.MaskedSoftMaxTensor(good, good) }},
		{"nil mask", "mask is", func() (*tensor.Dense, error) { return softmax.MaskedLogSoftMaxTensor(good, nil) }},
		{"dy shape", "dy has shape", func() (*tensor.Dense, error) { return softmax.SoftMaxGrad(good, f32) }},
		{"nil dy", "dy is nil", func() (*tensor.Dense, error) { return softmax.LogSoftMaxGrad(good, nil) }},
		{"into aliases", "shares memory with an input", func() (*tensor.Dense, error) { return softmax.SoftMaxTensor(good, softmax.Into(good)) }},
		{"into shares backing", "shares memory with an input", func() (*tensor.Dense, error) {
			return softmax.SoftMaxTensor(good, softmax.Into(tensor.New(tensor.WithShape(2, 3), tensor.WithBacking(good.Data()))))
		}},
		{"empty dense", "empty", func() (*tensor.Dense, error) { return softmax.SoftMaxTensor(&tensor.Dense{}) }},
		{"overflowing shape", "more elements than an int", func() (*tensor.Dense, error) {
			return softmax.SoftMaxTensor(tensor.New(tensor.WithShape(274177, 67280421310721), tensor.Of(tensor.Float64)))
		}},
		{"causal rank 1", "causal", func() (*tensor.Dense, error) {
			return softmax.SoftMaxTensor(dense64([]int{3}, 1, 2, 3), softmax.Causal(1))
		}},
		{"scale past float32", "scale 1e+39 is past float32's largest value", func() (*tensor.Dense, error) {
			return softmax.SoftMaxTensor(f32, softmax.Scale(1e39))
		}},
		{"scale past float32, grad", "scale 1e+300 is past float32's largest value", func() (*tensor.Dense, error) {
			return softmax.LogSoftMaxGrad(f32, f32, softmax.Scale(1e300))
		}},
	}
	for _, c := range eagerCases {
		wantError(t, c.name, c.want, func() error { _, err := c.run(); return err })
	}
	if got := good.Float64s(); !approxEqual(got, before, 0) {
		t.Errorf("input modified: %v", got)
	}
}

// wantError checks that run returns an error containing want, and does not
// panic.
func wantError(t *testing.T, name, want string, run func() error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: panic %v", name, r)
		}
	}()
	if err := run(); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%s: error %v, want one containing %q", name, err, want)
	}
}

// function is one of the four public functions, in its eager form.
type function struct {
	name        string
	masked, log bool
}

var functions = []function{{"SoftMax", false, false}, {"LogSoftMax", false, true}, {"MaskedSoftMax", true, false}, {"MaskedLogSoftMax", true, true}}

// forward runs f's ...Tensor function (mask is ignored unless f is masked).
func (f function) forward(x, mask *tensor.Dense, opts ...softmax.Option) (*tensor.Dense, error) {
	switch {
	case f.masked && f.log:
		return softmax.MaskedLogSoftMaxTensor(x, mask, opts...)
	case f.masked:
		return softmax.MaskedSoftMaxTensor(x, mask, opts...)
	case f.log:
		return softmax.LogSoftMaxTensor(x, opts...)
	}
	return softmax.SoftMaxTensor(x, opts...)
}

// grad runs f's ...Grad function.
func (f function) grad(y, dy, mask *tensor.Dense, opts ...softmax.Option) (*tensor.Dense, error) {
	switch {
	case f.masked && f.log:
		return softmax.MaskedLogSoftMaxGrad(y, dy, mask, opts...)
	case f.masked:
		return softmax.MaskedSoftMaxGrad(y, dy, mask, opts...)
	case f.log:
		return softmax.LogSoftMaxGrad(y, dy, opts...)
	}
	return softmax.SoftMaxGrad(y, dy, opts...)
}

// node applies f's graph function.
func (f function) node(x, mask *gorgonia.Node, opts ...softmax.Option) (*gorgonia.Node, error) {
	switch {
	case f.masked && f.log:
		return softmax.MaskedLogSoftMax(x, mask, opts...)
	case f.masked:
		return softmax.MaskedSoftMax(x, mask, opts...)
	case f.log:
		return softmax.LogSoftMax(x, opts...)
	}
	return softmax.SoftMax(x, opts...)
}

// TestNumericalGradient checks each function's gradient against central
// differences of the float64 forward, on a masked, scaled, causal problem.
func TestNumericalGradient(t *testing.T) {
	shape := []int{2, 3, 4}
	x := []float64{0.3, -1.2, 2.1, 0.7, 1.5, -0.4, 0.2, 0.9, -2.2, 0.1, 1.1, -0.6,
		0.5, 0.8, -0.3, 1.9, -1.1, 0.4, 0.6, -0.8, 1.3, -0.2, 0.05, 0.75}
	w := []float64{1, -2, 0.5, 3, -1, 2, 0.25, -0.5, 1.5, -3, 2.5, 1,
		-1.5, 0.75, 2, -0.25, 1.25, -2.5, 0.5, 3, -1, 0.1, 1.7, -0.9}
	maskT := tensor.New(tensor.WithShape(2, 1, 4), tensor.WithBacking([]bool{true, true, false, true, true, false, true, true}))
	opts := []softmax.Option{softmax.Scale(0.7), softmax.Causal(1)}
	for _, f := range functions {
		// loss(x) = sum(w * y) over finite outputs (masked log outputs are
		// -Inf and constant).
		loss := func(xv []float64) float64 {
			y, err := f.forward(dense64(shape, xv...), maskT, opts...)
			if err != nil {
				t.Fatal(err)
			}
			s := 0.0
			for i, v := range y.Float64s() {
				if !math.IsInf(v, -1) {
					s += w[i] * v
				}
			}
			return s
		}
		y, err := f.forward(dense64(shape, x...), maskT, opts...)
		if err != nil {
			t.Fatal(err)
		}
		dyv := make([]float64, len(w)) // w on finite outputs, 0 on masked ones
		for i, v := range y.Float64s() {
			if !math.IsInf(v, -1) {
				dyv[i] = w[i]
			}
		}
		dx, err := f.grad(y, dense64(shape, dyv...), maskT, opts...)
		if err != nil {
			t.Fatal(err)
		}
		const h = 1e-6
		for i := range x {
			xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
			xp[i] += h
			xm[i] -= h
			num := (loss(xp) - loss(xm)) / (2 * h)
			if got := dx.Float64s()[i]; math.Abs(got-num) > 1e-7*(1+math.Abs(num)) {
				t.Errorf("%s: dx[%d] = %v, central difference %v", f.name, i, got, num)
			}
		}
	}
}

// TestHugeScales: float32 data take scales up to float32's largest value
// and float64 data any finite scale; outputs past the output type's range
// saturate to -Inf, ties keep sharing the mass.
func TestHugeScales(t *testing.T) {
	inf := math.Inf(-1)
	ln2 := math.Log(2)
	for _, c := range []struct {
		dt    tensor.Dtype
		scale float64
		log   bool
		want  []float64
	}{
		{tensor.Float64, 1e300, false, []float64{0, 0, 0.5, 0.5}},
		{tensor.Float64, 1e300, true, []float64{-2e300 - ln2, -1e300 - ln2, -ln2, -ln2}},
		{tensor.Float32, math.MaxFloat32, false, []float64{0, 0, 0.5, 0.5}},
		{tensor.Float32, math.MaxFloat32, true, []float64{inf, -math.MaxFloat32, float64(float32(-ln2)), float64(float32(-ln2))}},
	} {
		vals := []float64{1, 2, 3, 3}
		var x *tensor.Dense
		if c.dt == tensor.Float32 {
			x = tensor.New(tensor.WithShape(4), tensor.WithBacking([]float32{1, 2, 3, 3}))
		} else {
			x = dense64([]int{4}, vals...)
		}
		f := softmax.SoftMaxTensor
		if c.log {
			f = softmax.LogSoftMaxTensor
		}
		y, err := f(x, softmax.Scale(c.scale))
		if err != nil {
			t.Fatalf("%v scale %g log %v: %v", c.dt, c.scale, c.log, err)
		}
		for i, w := range c.want {
			var got float64
			if c.dt == tensor.Float32 {
				got = float64(y.Float32s()[i])
			} else {
				got = y.Float64s()[i]
			}
			if !(got == w || !math.IsInf(w, 0) && math.Abs(got-w) <= 1e-6*math.Abs(w)) { // NaN fails
				t.Errorf("%v scale %g log %v: y[%d] = %v, want %v", c.dt, c.scale, c.log, i, got, w)
			}
		}
	}
}

// TestFloat32FarFromMax: float32 softmax outputs far below the row's
// largest, at a scale float32 cannot hold exactly, keep the documented 1e-5
// relative accuracy, wherever they sit in the row (a review's probe: at
// scale 0.1527 an output of 1e-37 came out 1.25e-5 off on the vector path
// and 5e-8 off on the tail's scalar path).
func TestFloat32FarFromMax(t *testing.T) {
	const s = 0.15267122549940249
	for _, n := range []int{7, 8, 16, 17, 33, 100} {
		x := make([]float32, n)
		x[0] = -26.580719
		for k := 1; k < n; k++ {
			x[k] = -584.39734 + float32(k%5) // a = -85.2 to -84.6: outputs near 1e-37
		}
		y, err := softmax.SoftMaxTensor(tensor.New(tensor.WithShape(n), tensor.WithBacking(x)), softmax.Scale(s))
		if err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		for _, v := range x {
			sum += math.Exp(s * (float64(v) - float64(x[0])))
		}
		for k, got := range y.Float32s() {
			want := math.Exp(s*(float64(x[k])-float64(x[0]))) / sum
			if d := math.Abs(float64(got)-want) / want; !(d <= 1e-5) {
				t.Errorf("n %d: y[%d] = %v, want %v (%.3g relative)", n, k, got, want, d)
			}
		}
	}
}

// TestInto: a result written into a caller's tensor, a strided view of a
// larger tensor included; a mismatched destination is an error.
func TestInto(t *testing.T) {
	x := dense64([]int{2, 3}, 1, 2, 3, 0, 0, 5)
	want, err := softmax.SoftMaxTensor(x)
	if err != nil {
		t.Fatal(err)
	}
	dst := tensor.New(tensor.WithShape(2, 3), tensor.Of(tensor.Float64))
	got, err := softmax.SoftMaxTensor(x, softmax.Into(dst))
	if err != nil || got != dst {
		t.Fatalf("Into: %v, returned %p want %p", err, got, dst)
	}
	if !approxEqual(dst.Float64s(), want.Float64s(), 0) {
		t.Errorf("Into wrote %v, want %v", dst.Data(), want.Data())
	}
	// a transposed view: the result lands in it, element for element
	big := tensor.New(tensor.WithShape(3, 2), tensor.Of(tensor.Float64))
	view, err := big.SafeT()
	if err != nil {
		t.Fatal(err)
	}
	got, err = softmax.SoftMaxTensor(x, softmax.Into(view))
	if err != nil {
		t.Fatalf("Into a transposed view: %v", err)
	}
	for i := range 2 {
		for j := range 3 {
			g, _ := got.At(i, j)
			w, _ := want.At(i, j)
			if g.(float64) != w.(float64) {
				t.Errorf("view[%d,%d] = %v, want %v", i, j, g, w)
			}
		}
	}
	wantError(t, "wrong shape", "Into's tensor has shape (3, 2)", func() error {
		_, err := softmax.SoftMaxTensor(x, softmax.Into(tensor.New(tensor.WithShape(3, 2), tensor.Of(tensor.Float64))))
		return err
	})
	wantError(t, "wrong dtype", "Into's tensor has shape (2, 3) and dtype float32", func() error {
		_, err := softmax.SoftMaxTensor(x, softmax.Into(tensor.New(tensor.WithShape(2, 3), tensor.Of(tensor.Float32))))
		return err
	})
	// A zero tensor.Dense has no dtype, whose String panics: the error says
	// so in words.
	wantError(t, "zero tensor", "Into's tensor has shape () and dtype none", func() error {
		_, err := softmax.SoftMaxTensor(x, softmax.Into(&tensor.Dense{}))
		return err
	})
	wantError(t, "backward, wrong shape", "Into's tensor has shape (3, 2)", func() error {
		_, err := softmax.SoftMaxGrad(x, x.Clone().(*tensor.Dense), softmax.Into(tensor.New(tensor.WithShape(3, 2), tensor.Of(tensor.Float64))))
		return err
	})
}

// TestZeroSize: shapes with a 0 dimension give empty results, eagerly and
// through a graph, masked and causal included (tensor.Dense.Data panics on
// them, so the library must not call it).
func TestZeroSize(t *testing.T) {
	for _, shape := range [][]int{{0}, {0, 3}, {3, 0}, {2, 0, 3}} {
		for _, f := range functions {
			x := tensor.New(tensor.WithShape(shape...), tensor.Of(tensor.Float64))
			mask := tensor.New(tensor.WithShape(shape...), tensor.Of(tensor.Bool))
			var opts []softmax.Option
			if len(shape) >= 2 {
				opts = append(opts, softmax.Causal(0))
			}
			y, err := f.forward(x, mask, opts...)
			if err != nil {
				t.Fatalf("%s %v: %v", f.name, shape, err)
			}
			dx, err := f.grad(y, x, mask, opts...)
			if err != nil || dx.Shape().TotalSize() != 0 || !dx.Shape().Eq(tensor.Shape(shape)) {
				t.Fatalf("%s %v: grad %v, %v", f.name, shape, dx, err)
			}
		}
		g := gorgonia.NewGraph()
		x := gorgonia.NewTensor(g, tensor.Float64, len(shape), gorgonia.WithShape(shape...), gorgonia.WithName("x"),
			gorgonia.WithValue(tensor.New(tensor.WithShape(shape...), tensor.Of(tensor.Float64))))
		if _, err := softmax.SoftMax(x); err != nil {
			t.Fatalf("graph %v: %v", shape, err)
		}
		vm := gorgonia.NewTapeMachine(g)
		if err := vm.RunAll(); err != nil {
			t.Fatalf("graph %v: %v", shape, err)
		}
		vm.Close()
	}
}

// TestCausalOffsetExtremes: offsets past either end keep everything or
// nothing, without overflowing.
func TestCausalOffsetExtremes(t *testing.T) {
	x := dense64([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	plain, _ := softmax.SoftMaxTensor(x)
	for _, off := range []int{3, 1 << 40, math.MaxInt, math.MaxInt - 1} {
		y, err := softmax.SoftMaxTensor(x, softmax.Causal(off))
		if err != nil || !approxEqual(y.Float64s(), plain.Float64s(), 0) {
			t.Errorf("Causal(%d) = %v, %v; want the plain softmax", off, y, err)
		}
	}
	for _, off := range []int{-3, -1 << 40, math.MinInt} {
		y, err := softmax.SoftMaxTensor(x, softmax.Causal(off))
		if err != nil || !approxEqual(y.Float64s(), make([]float64, 6), 0) {
			t.Errorf("Causal(%d) = %v, %v; want all masked (zeros)", off, y, err)
		}
	}
}

// TestConcurrentCallers: many goroutines calling at once (each call itself
// splits rows across goroutines) get the same results as one at a time.
// It once failed: gorgonia.org/tensor v0.9.24's Dense.Data rebuilds its
// slice from a uintptr, so a tensor not used after the call could be
// collected during it (see internal/dense.data); this library and this
// test now read tensors through the typed accessors.
func TestConcurrentCallers(t *testing.T) {
	shapes := [][]int{{64, 300}, {3, 5000}, {16, 9, 7}}
	inputs := make([]*tensor.Dense, len(shapes))
	want := make([][]float64, len(shapes))
	for i, s := range shapes {
		inputs[i] = randomDense(tensor.Float64, s, uint64(i+1))
		y, err := softmax.LogSoftMaxTensor(inputs[i], softmax.Axis(1))
		if err != nil {
			t.Fatal(err)
		}
		want[i] = y.Float64s()
	}
	errs := make(chan error, 16)
	for g := range 16 {
		go func() {
			for k := range 20 {
				i := (g + k) % len(shapes)
				y, err := softmax.LogSoftMaxTensor(inputs[i], softmax.Axis(1))
				// Float64s, not Data: see internal/dense.data.
				if err == nil && !approxEqual(y.Float64s(), want[i], 0) {
					err = fmt.Errorf("goroutine %d call %d: result differs", g, k)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 16 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
