package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gosoftmax/softmax/internal/layout"
	"github.com/gosoftmax/softmax/internal/reference"
)

func view(t testing.TB, p reference.Problem) *layout.View {
	t.Helper()
	v, err := layout.Resolve(layout.Params{Axis: p.UserAxis, Log: p.Log, Masked: p.Mask != nil, Scale: p.Scale, Causal: p.Causal, Offset: p.Offset}, p.Shape, p.MaskShape)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func convert[T float](v []float64) []T {
	out := make([]T, len(v))
	for i, e := range v {
		out[i] = T(e)
	}
	return out
}

func widen[T float](v []T) []float64 {
	out := make([]float64, len(v))
	for i, e := range v {
		out[i] = float64(e)
	}
	return out
}

// poisoned returns n NaNs, so an element a kernel forgets to write shows.
func poisoned[T float](n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = T(math.NaN())
	}
	return out
}

// checkProblem runs forward and backward in T and compares with the
// reference on the same (rounded) inputs.
func checkProblem[T float](t *testing.T, p reference.Problem) {
	t.Helper()
	is32 := len(convert[T]([]float64{0})) == 1 && T(1)+T(1e-10) == T(1)
	x, dy := p.X, p.DY
	if is32 {
		x, dy = reference.Float32(x), reference.Float32(dy)
	}
	v := view(t, p)
	xt := convert[T](x)
	y := poisoned[T](len(x))
	Forward(v, xt, y, p.Mask)
	want := reference.Forward(p.Spec, x)
	for i := range want {
		rel, abs := reference.Tolerance(is32, p.Log, want[i])
		if !reference.Close(float64(y[i]), want[i], rel, abs) && !saturated(is32, float64(y[i]), want[i], rel, abs) {
			t.Fatalf("%+v: forward y[%d] = %v, want %v", p.Spec, i, y[i], want[i])
		}
	}
	if !equal(xt, convert[T](x)) {
		t.Fatalf("forward modified x")
	}
	yw := widen(y)
	dyt := convert[T](dy)
	dx := poisoned[T](len(x))
	Backward(v, y, dyt, dx, p.Mask)
	wantDX := reference.Backward(p.Spec, yw, dy)
	terms := reference.GradTerms(p.Spec, yw, dy)
	for i := range wantDX {
		if tol := reference.GradTolerance(is32, terms[i]); !reference.Close(float64(dx[i]), wantDX[i], 0, tol) && !saturated(is32, float64(dx[i]), wantDX[i], 0, tol) {
			t.Fatalf("%+v: backward dx[%d] = %v, want %v", p.Spec, i, dx[i], wantDX[i])
		}
	}
}

// saturated reports whether got is the infinity a float32 output takes for
// a want past float32's range.
func saturated(is32 bool, got, want, rel, abs float64) bool {
	return is32 && reference.Saturated(got, want, math.MaxFloat32, func(g float64) bool { return reference.Close(g, want, rel, abs) })
}

func equal[T float](a, b []T) bool {
	for i := range a {
		if a[i] != b[i] && !(a[i] != a[i] && b[i] != b[i]) {
			return false
		}
	}
	return true
}

func TestRandomProblems(t *testing.T) { checkRandom(t, 1, 400) }

// checkRandom checks count random problems (reference.Random, masked or
// not) in both dtypes, drawn from seed.
func checkRandom(t *testing.T, seed uint64, count int) {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	for range count {
		p := reference.Random(rng, rng.IntN(2) == 0)
		checkProblem[float64](t, p)
		checkProblem[float32](t, p)
	}
}

// TestRandomProblemsEachLevel runs random problems at each instruction-set
// level (eachLevel), so every vector helper's fallback runs on this
// machine: the float64 backward helpers once skipped the first len&^7
// elements where AVX-512 was missing (a review's probe), and the float32
// ones where AVX2 was.
func TestRandomProblemsEachLevel(t *testing.T) {
	eachLevel(t, func(t *testing.T) { checkRandom(t, 54, 150) })
}

// TestFloat32LogGradFarTail: float32 log-softmax backward where y is far
// below the row's top (exp(y) a float32 subnormal, or under its range) and
// the row's sum of gradients is large: exp(y)*c is taken in float64 (a
// review's probe: y = -100 beside c = 1e8 was 1.7% off, y = -110 beside
// 1e30 gave 0 for -1.7e-18), at each level, masked or not, in rows that
// reach the vector kernels (16 and 40 columns) and rows that do not (2).
func TestFloat32LogGradFarTail(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		for _, c := range []struct{ far, dy float64 }{{-100, 1e8}, {-110, 1e30}, {-95, 3e20}, {-88, 1e10}} {
			for _, n := range []int{2, 16, 40} {
				for _, masked := range []bool{false, true} {
					x, dy := make([]float64, n), make([]float64, n)
					for i := 1; i < n; i++ {
						x[i] = c.far - float64(i%3)
					}
					dy[0] = c.dy
					p := reference.Problem{Spec: reference.Spec{Shape: []int{1, n}, Axis: 1, Log: true, Scale: 1}, UserAxis: 1, X: x, DY: dy}
					if masked {
						p.Mask, p.MaskShape = make([]bool, n), []int{1, n}
						for i := range p.Mask {
							p.Mask[i] = i != n-1 || n == 2
						}
					}
					checkProblem[float32](t, p)
				}
			}
		}
	})
}

// TestExtremeValues runs rows whose entries reach each type's largest
// value (differences past its range, -max as a mask score) and its
// subnormals, with gradients near the largest that keep their sums in
// range (reference.Extreme), at scales under and over 1, in blocks and
// across several. At 1e-38 and 1e-40 (a float32 subnormal) the far end of
// a row spanning past float32's range still adds to the sum.
func TestExtremeValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{33, 3*block + 5} {
		for _, scale := range []float64{0.125, 1, 3, 1e-30, 1e-38, 1e-40} {
			for _, log := range []bool{false, true} {
				p := reference.Extreme(rng, 12, n, math.MaxFloat32)
				p.Scale, p.Log = scale, log
				checkProblem[float32](t, p)
				p = reference.Extreme(rng, 12, n, 1e300)
				p.Scale, p.Log = scale, log
				checkProblem[float64](t, p)
			}
		}
	}
}

// TestFloat32GradRanges runs float32 backward rows that the vector kernels,
// which take the row's sum and the scale in float32, cannot finish: a sum
// of gradients past float32's range (log-softmax, dy all 3e38: dx is 0),
// dy - c past it at a scale under 1 with dx back in range, and scales
// that are float32 subnormals. Rows of 16 columns and more reach the
// vector kernels; such rows take the float64 loop (vecGrad32).
func TestFloat32GradRanges(t *testing.T) {
	for _, n := range []int{16, 33, 3*block + 5} {
		row := func(scale float64, log bool, x, dy func(i int) float64) {
			t.Helper()
			p := reference.Problem{Spec: reference.Spec{Shape: []int{3, n}, Axis: 1, Scale: scale, Log: log}, UserAxis: 1}
			p.X, p.DY = make([]float64, 3*n), make([]float64, 3*n)
			for i := range p.X {
				p.X[i], p.DY[i] = x(i%n), dy(i%n)
			}
			checkProblem[float32](t, p)
		}
		flat := func(int) float64 { return 0 }
		for _, log := range []bool{false, true} {
			row(1, log, flat, func(int) float64 { return 3e38 })
			row(0.5, log, flat, func(int) float64 { return 3e38 })
			// y nearly all on column 0, whose dy is -3e38: c near -3e38, so
			// dy - c is 6e38 on the others, and dx there y*6e38*s, in
			// range at scales under 1 and, for softmax, at 1 and 2 too
			// (y is under 1e-4 there).
			for _, scale := range []float64{0.5, 1, 2} {
				row(scale, log, func(i int) float64 {
					if i == 0 {
						return 10
					}
					return 0
				}, func(i int) float64 {
					if i == 0 {
						return -3e38
					}
					return 3e38
				})
			}
			for _, scale := range []float64{1e-39, 1e-41, 1e-43, 1e-44} {
				row(scale, log, flat, func(i int) float64 { return 1e38 * float64(1-2*(i%2)) })
			}
		}
	}
}

// TestFloat32GradGuards runs the float32 backward's row kernels on rows
// whose answer the vector kernels' float32 arithmetic would miss, with c
// and s given: c just under 2^103, which float32 rounds to 2^103, beside
// dy -3.4e38 (dy - c was -Inf, softmax at scale 1 and log-softmax at 0.5),
// and softmax at a scale of 2^30 on products under 2^-126 (the scale
// multiplied their rounding: 4e-4 off). Each failed before 2^102 and 2^22
// bounded vecGrad32. Rows of 16 reach the vector kernels.
func TestFloat32GradGuards(t *testing.T) {
	const n = 16
	for _, c := range []struct {
		name     string
		log      bool
		y, dy, c float64
		s        float64
	}{
		{"softmax c under 2^103", false, 1e-4, -math.MaxFloat32, 0x1p103 - 0x1p76, 1},
		{"log-softmax c under 2^103", true, 0, -math.MaxFloat32, 0x1p103 - 0x1p76, 0.5},
		{"softmax scale 2^30", false, 0x1p-100, 1.33e-12, 1e-30, 0x1p30},
	} {
		y, dy, dx := make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range y {
			y[i], dy[i] = float32(c.y), float32(c.dy)
		}
		if c.log {
			logGrad32(y, dy, dx, c.c, c.s)
		} else {
			softmaxGrad32(y, dy, dx, c.c, c.s)
		}
		yv, dv := float64(y[0]), float64(dy[0])
		want, terms := yv*(dv-c.c)*c.s, math.Abs(yv)*(math.Abs(dv)+math.Abs(c.c))*c.s
		if c.log {
			want, terms = (dv-math.Exp(yv)*c.c)*c.s, (math.Abs(dv)+math.Exp(yv)*math.Abs(c.c))*c.s
		}
		for i, got := range dx {
			if tol := reference.GradTolerance(true, terms); !reference.Close(float64(got), want, 0, tol) {
				t.Errorf("%s: dx[%d] = %v, want %v", c.name, i, got, want)
				break
			}
		}
	}
}

// TestFarRows64 runs float64 rows whose entries lie more than float64's
// range apart (1e308 beside -1e308) at scales under 1, where x - m passes
// its range but scale*(x - m) does not: in one block and across several
// (the parts' maxima then lie that far apart too), masked or not.
func TestFarRows64(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{2, 33, 3*block + 5} {
		for _, scale := range []float64{0.5, 1e-300, 1e-308} {
			for _, log := range []bool{false, true} {
				for _, masked := range []bool{false, true} {
					p := reference.Problem{Spec: reference.Spec{Shape: []int{4, n}, Axis: 1, Scale: scale, Log: log}, UserAxis: 1}
					p.X, p.DY = make([]float64, 4*n), make([]float64, 4*n)
					for i := range p.X {
						c := i % n
						switch {
						case c < n/2 || c == 0: // the first half near the top, the rest near the bottom
							p.X[i] = math.MaxFloat64 * (1 - 0.5*rng.Float64())
						default:
							p.X[i] = -math.MaxFloat64 * (1 - 0.5*rng.Float64())
						}
						p.DY[i] = rng.NormFloat64()
					}
					if masked {
						p.MaskShape = []int{4, n}
						p.Mask = make([]bool, 4*n)
						for i := range p.Mask {
							p.Mask[i] = i%n == 0 || rng.IntN(3) > 0
						}
					}
					checkProblem[float64](t, p)
				}
			}
		}
	}
}

// TestHugeScales runs scales up to float32's largest value (float64: past
// it), where log-softmax outputs pass float32's range and saturate.
func TestHugeScales(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 7))
	for _, n := range []int{33, 3*block + 5} {
		for _, scale := range []float64{1e30, 1e38, math.MaxFloat32, 1e39, 1e300} {
			for _, log := range []bool{false, true} {
				p := reference.Problem{Spec: reference.Spec{Shape: []int{4, n}, Axis: 1}, UserAxis: 1}
				p.X, p.DY = make([]float64, 4*n), make([]float64, 4*n)
				for i := range p.X {
					p.X[i], p.DY[i] = rng.NormFloat64()*3, rng.NormFloat64()
				}
				p.Scale, p.Log = scale, log
				if scale <= layout.MaxScale32 {
					checkProblem[float32](t, p)
				}
				checkProblem[float64](t, p)
			}
		}
	}
}

// TestLongRows covers rows of several blocks, split across goroutines when
// rows are few, and non-last axes with long rows.
func TestLongRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	shapes := []struct {
		shape []int
		axis  int
	}{
		{[]int{block - 1}, 0}, {[]int{block + 1}, 0}, {[]int{2, 5*block + 3}, 1},
		{[]int{3, 2*block + 7}, 1}, {[]int{4*block + 1, 3}, 0}, {[]int{9, 1000, 2}, 1},
	}
	for _, s := range shapes {
		for _, log := range []bool{false, true} {
			for _, masked := range []bool{false, true} {
				p := reference.Random(rng, masked)
				p.Shape, p.Axis, p.UserAxis, p.Log, p.Causal = s.shape, s.axis, s.axis, log, false
				n := 1
				for _, d := range s.shape {
					n *= d
				}
				p.X, p.DY = make([]float64, n), make([]float64, n)
				for i := range p.X {
					p.X[i], p.DY[i] = rng.NormFloat64()*4, rng.NormFloat64()
				}
				if masked {
					p.MaskShape = append([]int(nil), s.shape...)
					p.Mask = make([]bool, n)
					for i := range p.Mask {
						p.Mask[i] = rng.IntN(4) > 0
					}
				}
				checkProblem[float64](t, p)
				checkProblem[float32](t, p)
			}
		}
	}
}
