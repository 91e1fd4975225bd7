package cpu

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/gosoftmax/softmax/internal/layout"
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

// TestSecondOrderSubnormals: float64 second-order outputs whose terms are
// formed from values under 2^-1022 keep 1e-12 of their terms, down to
// that floor (log-softmax's -s*h*exp(y)*sum(g) was 0 at y = -800 beside a
// sum of 1e300). The reference sums in big.Float and takes h*exp(y) as
// exp(y + log|h|), and the like, with the sign apart.
func TestSecondOrderSubnormals(t *testing.T) {
	type row struct {
		log     bool
		y, g, h []float64
		s       float64
	}
	rows := []row{
		{true, []float64{0, -800}, []float64{1e300, 0}, []float64{0, 1}, 1},
		{true, []float64{0, -800}, []float64{1, 0}, []float64{0, 1e300}, 1},
		{false, []float64{0.7, 5e-324}, []float64{1, 0}, []float64{1, 0}, 1e300},
		{false, []float64{0.7, 0.3, 7e-321}, []float64{0, 0, 0.3}, []float64{1, 0, 0}, 1e300},
	}
	rng := rand.New(rand.NewPCG(72, 2))
	for i := range 30 {
		n := 2 + i%5
		s := math.Pow(10, float64(rng.IntN(16)*10)) // 1 to 1e150
		r := row{log: i%2 == 0, y: make([]float64, n), g: make([]float64, n), h: make([]float64, n), s: s}
		for k := range n {
			r.g[k] = math.Pow(10, rng.Float64()*200-100) * float64(1-2*rng.IntN(2))
			r.h[k] = math.Pow(10, rng.Float64()*200-100) * float64(1-2*rng.IntN(2))
		}
		reference.FarY(rng, r.y, r.log, 1200)
		rows = append(rows, r)
	}
	wide := func(v float64) *big.Float { return new(big.Float).SetPrec(512).SetFloat64(v) }
	// expTimes is a*exp(y) as a big.Float, through exp(y + log|a|).
	expTimes := func(a, y float64) *big.Float {
		if a == 0 {
			return wide(0)
		}
		return wide(math.Copysign(math.Exp(y+math.Log(math.Abs(a))), a))
	}
	f64 := func(b *big.Float) float64 { f, _ := b.Float64(); return f }
	for ri, r := range rows {
		n := len(r.y)
		v, err := layout.Resolve(layout.Params{Axis: 1, Log: r.log, Scale: r.s}, []int{1, n}, nil)
		if err != nil {
			t.Fatal(err)
		}
		gy, hy, gs, he := wide(0), wide(0), wide(0), wide(0)
		var agy, ahy, ags, ahe float64 // sums of magnitudes, for the terms
		for k := range n {
			gy.Add(gy, new(big.Float).Mul(wide(r.g[k]), wide(r.y[k])))
			hy.Add(hy, new(big.Float).Mul(wide(r.h[k]), wide(r.y[k])))
			gs.Add(gs, wide(r.g[k]))
			he.Add(he, expTimes(r.h[k], r.y[k]))
			agy += math.Abs(f64(new(big.Float).Mul(wide(r.g[k]), wide(r.y[k]))))
			ahy += math.Abs(f64(new(big.Float).Mul(wide(r.h[k]), wide(r.y[k]))))
			ags += math.Abs(r.g[k])
			ahe += math.Abs(f64(expTimes(r.h[k], r.y[k])))
		}
		for _, wrtY := range []bool{false, true} {
			got := make([]float64, n)
			SecondOrder(v, r.y, r.g, r.h, got, nil, wrtY)
			for k := range n {
				yv, gv, hv, s := wide(r.y[k]), wide(r.g[k]), wide(r.h[k]), wide(r.s)
				w := new(big.Float).SetPrec(512)
				var terms *big.Float
				switch {
				case !r.log && !wrtY: // s*y*(h - hy)
					w.Sub(hv, hy).Mul(w, yv).Mul(w, s)
					terms = wide(math.Abs(r.h[k]) + ahy)
					terms.Mul(terms, wide(math.Abs(r.y[k]))).Mul(terms, s)
				case !r.log: // s*(h*(g - gy) - g*hy)
					w.Sub(gv, gy).Mul(w, hv).Sub(w, new(big.Float).Mul(gv, hy)).Mul(w, s)
					terms = wide(math.Abs(r.h[k]) * (math.Abs(r.g[k]) + agy))
					terms.Add(terms, wide(math.Abs(r.g[k])*ahy)).Mul(terms, s)
				case !wrtY: // s*(h - he)
					w.Sub(hv, he).Mul(w, s)
					terms = wide(math.Abs(r.h[k]) + ahe)
					terms.Mul(terms, s)
				default: // -s*h*exp(y)*sum(g), whole: h*exp(y) alone may underflow
					w = expTimes(-r.h[k]*r.s, r.y[k]+math.Log(math.Abs(f64(gs))))
					if gs.Sign() < 0 {
						w.Neg(w)
					}
					terms = new(big.Float).Abs(expTimes(r.h[k]*r.s, r.y[k]+math.Log(ags)))
				}
				want, tol := f64(w), 1e-12*f64(terms)+0x1p-1022
				if d := math.Abs(got[k] - want); !(d <= tol) {
					t.Errorf("row %d (log %v, scale %g) wrtY %v: out[%d] = %.17g, want %.17g", ri, r.log, r.s, wrtY, k, got[k], want)
				}
			}
		}
	}
}
