package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gosoftmax/softmax/internal/reference"
)

// TestSecondOrder compares SecondOrder with central differences of
// L = sum(h * Backward(y, g)) with respect to g and to y, on random masked,
// scaled, causal problems in float64.
func TestSecondOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 60 {
		p := reference.Random(rng, rng.IntN(2) == 0)
		v := view(t, p)
		n := v.Len()
		if n > 400 {
			continue
		}
		y := make([]float64, n)
		Forward(v, p.X, y, p.Mask)
		g, h := p.DY, make([]float64, n)
		for i := range h {
			h[i] = rng.NormFloat64()
		}
		loss := func(y, g []float64) float64 {
			dx := make([]float64, n)
			Backward(v, y, g, dx, p.Mask)
			s := 0.0
			for i := range dx {
				s += h[i] * dx[i]
			}
			return s
		}
		for _, wrtY := range []bool{false, true} {
			got := make([]float64, n)
			SecondOrder(v, y, g, h, got, p.Mask, wrtY)
			for i := range n {
				in := g
				if wrtY {
					in = y
				}
				if math.IsInf(in[i], 0) {
					continue // a masked log-softmax output: not a point to differentiate at
				}
				const step = 1e-6
				old := in[i]
				in[i] = old + step
				up := loss(y, g)
				in[i] = old - step
				down := loss(y, g)
				in[i] = old
				num := (up - down) / (2 * step)
				if math.Abs(got[i]-num) > 1e-6*(1+math.Abs(num)) {
					t.Fatalf("%+v wrtY=%v: d[%d] = %v, central difference %v", p.Spec, wrtY, i, got[i], num)
				}
			}
		}
	}
}
