package cpu

import (
	"math"
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
