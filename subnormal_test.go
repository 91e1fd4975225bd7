package softmax_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gosoftmax/softmax"
	"github.com/gosoftmax/softmax/internal/reference"
)

// TestFloat64GradSubnormals: float64 gradients whose intermediates fall
// under 2^-1022 keep 1e-12 relative to their terms, down to that floor.
// A review's probes: log-softmax's exp(-800) beside a sum of 1e300 gave
// dx = 0 for -3.7e-48, and softmax at a scale of 1e300 on a subnormal y
// was 1e-4 to 43% off, as was a subnormal product in sum(dy*y). Rows of
// 2 and 37 columns (Go loops) and 16 (the vector kernels), masked or not,
// one row split across goroutines, and a non-last axis.
func TestFloat64GradSubnormals(t *testing.T) {
	rows := slices.Clone(reference.FarRows)
	rng := rand.New(rand.NewPCG(72, 1))
	for i := range 40 {
		n := []int{2, 16, 37}[i%3]
		s := math.Pow(10, float64(rng.IntN(31)*10)) // 1 to 1e300
		r := reference.FarRow{Log: i%2 == 0, Y: make([]float64, n), DY: make([]float64, n), Scale: s}
		r.Name = fmt.Sprintf("random %d (n %d, scale %g, log %v)", i, n, s, r.Log)
		for k := range n {
			// |dy| up to 1e300/s keeps s*dy in range.
			r.DY[k] = math.Pow(10, rng.Float64()*(600-math.Log10(s))-300) * float64(1-2*rng.IntN(2))
		}
		reference.FarY(rng, r.Y, r.Log, 1400)
		rows = append(rows, r)
	}
	for _, r := range rows {
		n := len(r.Y)
		for _, masked := range []bool{false, true} {
			keep := make([]bool, n)
			for k := range keep {
				keep[k] = !masked || k != n-1 || n == 2
			}
			want, terms := reference.ExactGrad(r.Log, r.Y, r.DY, keep, r.Scale)
			y, dy := dense64([]int{1, n}, r.Y...), dense64([]int{1, n}, r.DY...)
			var got *tensor.Dense
			var err error
			switch {
			case masked && r.Log:
				got, err = softmax.MaskedLogSoftMaxGrad(y, dy, tensor.New(tensor.WithShape(1, n), tensor.WithBacking(keep)), softmax.Scale(r.Scale))
			case masked:
				got, err = softmax.MaskedSoftMaxGrad(y, dy, tensor.New(tensor.WithShape(1, n), tensor.WithBacking(keep)), softmax.Scale(r.Scale))
			case r.Log:
				got, err = softmax.LogSoftMaxGrad(y, dy, softmax.Scale(r.Scale))
			default:
				got, err = softmax.SoftMaxGrad(y, dy, softmax.Scale(r.Scale))
			}
			if err != nil {
				t.Fatalf("%s: %v", r.Name, err)
			}
			checkGrad(t, fmt.Sprintf("%s masked %v", r.Name, masked), got.Float64s(), want, terms)
		}
	}
}

func checkGrad(t *testing.T, name string, got, want, terms []float64) {
	t.Helper()
	for k := range want {
		if d := math.Abs(got[k] - want[k]); !(d <= 1e-12*terms[k]+0x1p-1022) { // NaN fails
			t.Errorf("%s: dx[%d] = %.17g, want %.17g (terms %.3g)", name, k, got[k], want[k], terms[k])
		}
	}
}

// TestFloat64GradSubnormalsLayouts runs the far rows of
// TestFloat64GradSubnormals in a row long enough to be split across
// goroutines and along a non-last axis (rows gathered into tiles).
func TestFloat64GradSubnormalsLayouts(t *testing.T) {
	const n = 5*4096 + 3
	for _, log := range []bool{false, true} {
		y, dy := make([]float64, n), make([]float64, n)
		for k := range y {
			if log { // exp(y) under 2^-1022 beside a sum of 1e300
				y[k] = -700 - float64(k%300)
			} else { // y*(dy - c) under 2^-1022 at a scale of 1e300
				y[k], dy[k] = 5e-324*float64(k%7+1), float64(k%5)-2
			}
		}
		y[0], dy[0] = 0, 1e300
		s := 1.0
		if !log {
			y[0], dy[0], s = 0.5, 1, 1e300
		}
		keep := make([]bool, n)
		for k := range keep {
			keep[k] = true
		}
		want, terms := reference.ExactGrad(log, y, dy, keep, s)
		grad := softmax.SoftMaxGrad
		if log {
			grad = softmax.LogSoftMaxGrad
		}
		got, err := grad(dense64([]int{1, n}, y...), dense64([]int{1, n}, dy...), softmax.Scale(s))
		if err != nil {
			t.Fatal(err)
		}
		checkGrad(t, fmt.Sprintf("split row, log %v", log), got.Float64s(), want, terms)

		const m = 50 // the same values along axis 0 of an m x 3 tensor
		yt, dyt := make([]float64, 3*m), make([]float64, 3*m)
		for k := range m {
			for j := range 3 {
				yt[3*k+j], dyt[3*k+j] = y[k], dy[k]
			}
		}
		keep = keep[:m]
		want, terms = reference.ExactGrad(log, y[:m], dy[:m], keep, s)
		got, err = grad(dense64([]int{m, 3}, yt...), dense64([]int{m, 3}, dyt...), softmax.Scale(s), softmax.Axis(0))
		if err != nil {
			t.Fatal(err)
		}
		g := got.Float64s()
		col := make([]float64, m)
		for j := range 3 {
			for k := range m {
				col[k] = g[3*k+j]
			}
			checkGrad(t, fmt.Sprintf("axis 0 column %d, log %v", j, log), col, want, terms)
		}
	}
}
