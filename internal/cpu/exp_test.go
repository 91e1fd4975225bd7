package cpu

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ulps is the distance in float32 steps between a and b (both finite, same sign).
func ulps(a, b float32) int64 {
	d := int64(math.Float32bits(a)) - int64(math.Float32bits(b))
	if d < 0 {
		d = -d
	}
	return d
}

// TestExp32Accuracy walks every float32 in [-104, 0] (every 97th with
// -short or -race) and some above, and
// compares exp32 with math.Exp rounded to float32.
func TestExp32Accuracy(t *testing.T) {
	worst := int64(0)
	check := func(f float32) {
		want := float32(math.Exp(float64(f)))
		got := exp32(float64(f))
		if d := ulps(got, want); d > worst {
			worst = d
			if d > 1 {
				t.Fatalf("exp32(%v) = %v, want %v (%d ulp)", f, got, want, d)
			}
		}
	}
	step := uint32(1) // every float32: about 15 s
	if testing.Short() || raceEnabled {
		step = 97
	}
	for b := uint32(0x80000000); b <= math.Float32bits(-104); b += step { // -0 down to -104
		check(math.Float32frombits(b))
	}
	for f := float32(0); f < 88; f += 0.001 {
		check(f)
	}
	t.Logf("worst error: %d ulp", worst)
}

func TestExp32Special(t *testing.T) {
	cases := []struct{ in, want float64 }{
		{math.Inf(-1), 0}, {-1e30, 0}, {-800, 0}, {0, 1}, {89, math.Inf(1)}, {math.Inf(1), math.Inf(1)},
	}
	for _, c := range cases {
		if got := exp32(c.in); float64(got) != c.want {
			t.Errorf("exp32(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	if got := exp32(math.NaN()); got == got {
		t.Errorf("exp32(NaN) = %v, want NaN", got)
	}
}

func BenchmarkExp32(b *testing.B) {
	xs := make([]float64, 4096)
	for i := range xs {
		xs[i] = -float64(i) / 100
	}
	var s float32
	for b.Loop() {
		for _, x := range xs {
			s += exp32(x)
		}
	}
	_ = s
}

func BenchmarkExpGeneric32(b *testing.B) {
	xs := make([]float64, 4096)
	for i := range xs {
		xs[i] = -float64(i) / 100
	}
	var s float32
	for b.Loop() {
		for _, x := range xs {
			s += exp[float32](x)
		}
	}
	_ = s
}

func BenchmarkMathExp(b *testing.B) {
	xs := make([]float64, 4096)
	for i := range xs {
		xs[i] = -float64(i) / 100
	}
	var s float64
	for b.Loop() {
		for _, x := range xs {
			s += math.Exp(x)
		}
	}
	_ = s
}

// TestVectorExpAccuracy checks the float32 exp used by expStore32 (AVX-512,
// AVX2 or exp32, whichever this CPU runs, and each lesser one) on every
// float32 in [-104, 0] (every 97th with -short or -race): within 2 ulp of
// the float64 result rounded to float32.
func TestVectorExpAccuracy(t *testing.T) { eachLevel(t, checkVectorExp) }

// eachLevel runs check as a subtest at each instruction-set level this
// machine has (AVX-512, AVX2, Go), forcing the lower ones.
func eachLevel(t *testing.T, check func(*testing.T)) {
	defer func(a2, a512 bool) { hasAVX2, hasAVX512 = a2, a512 }(hasAVX2, hasAVX512)
	levels := []struct {
		name      string
		avx2, avx bool
	}{{"avx512", hasAVX2, hasAVX512}, {"avx2", hasAVX2, false}, {"go", false, false}}
	for _, l := range levels {
		if (l.name == "avx512" && !hasAVX512) || (l.name == "avx2" && !l.avx2) {
			continue
		}
		hasAVX2, hasAVX512 = l.avx2, l.avx
		t.Run(l.name, check)
	}
}

func checkVectorExp(t *testing.T) {
	step := uint32(1)
	if testing.Short() || raceEnabled {
		step = 97
	}
	const chunk = 1 << 16
	x := make([]float32, 0, chunk)
	y := make([]float32, chunk)
	worst := int64(0)
	flush := func() {
		expStore32(x, y[:len(x)], 0, 1)
		for i, f := range x {
			want := float32(math.Exp(float64(f)))
			if d := ulps(y[i], want); d > worst {
				worst = d
				if d > 2 {
					t.Fatalf("exp(%v) = %v, want %v (%d ulp)", f, y[i], want, d)
				}
			}
		}
		x = x[:0]
	}
	for b := uint32(0x80000000); b <= math.Float32bits(-104); b += step {
		x = append(x, math.Float32frombits(b))
		if len(x) == chunk {
			flush()
		}
	}
	flush()
	t.Logf("worst error: %d ulp", worst)
	in := []float32{float32(math.Inf(-1)), -1e30, -88, -100, 0, -1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, float32(math.Inf(-1))}
	y = y[:len(in)]
	expStore32(in, y, 0, 1)
	for i, want := range []float32{0, 0, 0, 0, 1} {
		if y[i] != want && !(want == 0 && y[i] < 0x1p-126) { // e**-88, e**-100: subnormal
			t.Errorf("exp of special input %d = %v, want %v", i, y[i], want)
		}
	}
	nan := float32(math.NaN())
	in = []float32{nan, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, nan}
	y = y[:len(in)]
	expStore32(in, y, 0, 1)
	if y[0] == y[0] || y[16] == y[16] {
		t.Errorf("exp(NaN) = %v, %v; want NaN", y[0], y[16])
	}
}

// TestVectorExpScaled holds the float32 exp loops to e**((x - m)*s) at
// scales float32 cannot hold exactly and maxima away from 0, with the
// argument formed in float64: within 6e-8*|a| relative (one rounding of the
// argument) plus 4 ulps, for every normal result, at each level. In
// float32, (x - m)*s rounded three times, 1.25e-5 off at a = -85 (a
// review's probe: softmax of [-26.58, -584.4, ...] at scale 0.1527).
func TestVectorExpScaled(t *testing.T) { eachLevel(t, checkVectorExpScaled) }

func checkVectorExpScaled(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 54))
	const n = 4096
	x, y := make([]float32, n), make([]float32, n)
	worst := 0.0
	for _, s := range []float64{0.15267122549940249, 1 / math.Sqrt(96), 1 / math.Sqrt(48), 0.1, 0.7, 3.3, 1e-3, 1, 1.882634310205264e-36, 1.828e-37, 0x1p-102 * 1.3, 0x1p-120} {
		for _, m := range []float64{0, -26.580719, 26.580719, 1000.5, -3e5, 5e5 / s, 0x1p16 / s, -0x1p16 / s, 6e4 / s, 3e20, -1e-30} {
			mf := float32(max(-1e38, min(m, 1e38))) // the row's maximum, finite
			for i := range x {
				// a = (x - m)*s spread over [-104, 0], half of it past -55
				// where three roundings passed 1e-5; x[0] is the maximum.
				a := -rng.Float64() * 104
				if i == 0 {
					a = 0
				}
				x[i] = min(mf, float32(float64(mf)+a/s))
			}
			m := float64(mf)
			for _, store := range []bool{true, false} {
				out := y
				if !store {
					out = nil
				}
				sum := expStore32(x, out, m, s)
				var want float64
				for i, v := range x {
					a := (float64(v) - m) * s
					e := math.Exp(a)
					want += e
					if !store || e < 0x1p-126 {
						continue
					}
					tol := 6e-8*math.Abs(a) + 4*0x1p-24
					if d := math.Abs(float64(y[i])-e) / e; !(d <= tol) {
						t.Fatalf("s %v m %v: exp((%v - m)*s) = exp(%v) = %v, want %v: %.3g relative, over %.3g", s, m, v, a, y[i], e, d, tol)
					} else {
						worst = max(worst, d/tol)
					}
				}
				if math.Abs(sum-want) > 1e-6*want {
					t.Fatalf("s %v m %v: sum %v, want %v", s, m, sum, want)
				}
			}
		}
	}
	t.Logf("worst error: %.2f of the bound", worst)
	// A row of equal entries: every e**0 exactly 1, vector lanes and tail
	// alike (at scales under 2^-102, sl's rounding once made the vector
	// lanes 0.99999994 beside the tail's 1).
	tie := make([]float32, 17)
	for _, s := range []float64{1.882634310205264e-36, 0x1p-102, 0x1p-101 * 1.7, 0.15267122549940249, 3.3} {
		for _, m := range []float64{-1.2811543e38, 3.3e38, -26.580719, 0, 1e-38} {
			for i := range tie {
				tie[i] = float32(m)
			}
			expStore32(tie, y[:len(tie)], float64(float32(m)), s)
			for i, v := range y[:len(tie)] {
				if v != 1 {
					t.Fatalf("s %v m %v: e**0 in lane %d = %v, want 1", s, m, i, v)
				}
			}
		}
	}
}

// TestVectorExp64Accuracy compares the float64 exp loop with math.Exp on
// random arguments over [-745, 0] and near the ends: within 4 ulp (the
// float64 kernels promise 1e-12 relative; this is ~1e-15).
func TestVectorExp64Accuracy(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	n := 1 << 20
	if testing.Short() || raceEnabled {
		n = 1 << 14
	}
	x := make([]float64, n)
	for i := range x {
		switch i % 4 {
		case 0:
			x[i] = -rng.Float64() * 745
		case 1:
			x[i] = -rng.Float64() * 2
		case 2:
			x[i] = -708 - rng.Float64()*37 // subnormal results
		default:
			x[i] = -math.Ldexp(rng.Float64(), -rng.IntN(60))
		}
	}
	y := make([]float64, n)
	rest, ones := expStore64(x, y, 0, 1)
	sum := rest + ones
	var want, worst float64
	for i, v := range x {
		e := math.Exp(v)
		want += e
		d := math.Abs(y[i] - e)
		if e > 0x1p-1022 {
			d /= e * 0x1p-52 // in ulps
		} else {
			d /= 0x1p-1074 // subnormal: absolute steps
		}
		worst = max(worst, d)
		if d > 4 {
			t.Fatalf("exp(%v) = %v, want %v (%.1f ulp)", v, y[i], e, d)
		}
	}
	if math.Abs(sum-want) > 1e-12*want {
		t.Errorf("sum %v, want %v", sum, want)
	}
	t.Logf("worst %.2f ulp (AVX-512: %v)", worst, hasAVX512)
}
