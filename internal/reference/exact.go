package reference

import (
	"math"
	"math/big"
)

// exactPrec is the exact gradients' precision: products of two float64s
// are exact in it, and big.Float's exponent has no float64 bounds.
const exactPrec = 512

func exact(v float64) *big.Float { return new(big.Float).SetPrec(exactPrec).SetFloat64(v) }

// ExactGrad is dx of one float64 row, evaluated in big.Float (products
// exact, sums in 512 bits) and rounded once, with the magnitude of its
// terms: s*y*(dy - sum(dy*y)) for softmax, s*(dy - exp(y)*sum(dy)) for
// log-softmax (0 where every kept y is -Inf), columns keep does not keep
// 0. exp(y) is exp(y/4)^4, so it stays exact to float64's rounding down
// to y = -2800, where math.Exp(y) is subnormal or 0 (y/4 is exact
// there). The terms are GradTerms', exact: s*|y|*(|dy| + sum|dy*y|) and
// s*(|dy| + exp(y)*sum|dy|). For rows whose products fall under 2^-1022,
// which Backward (float64 throughout) rounds as the kernels under test
// once did.
func ExactGrad(log bool, y, dy []float64, keep []bool, s float64) (dx, terms []float64) {
	dx, terms = make([]float64, len(y)), make([]float64, len(y))
	c, mag, any := exact(0), exact(0), false // mag: the sum of the terms' magnitudes
	for k := range y {
		if !keep[k] {
			continue
		}
		any = any || !math.IsInf(y[k], -1)
		p := exact(dy[k])
		if !log {
			p.Mul(p, exact(y[k]))
		}
		c.Add(c, p)
		mag.Add(mag, p.Abs(p))
	}
	if log && !any {
		return dx, terms
	}
	for k := range y {
		if !keep[k] {
			continue
		}
		v := new(big.Float).SetPrec(exactPrec)
		if log {
			q := exact(math.Exp(y[k] / 4))
			e := new(big.Float).SetPrec(exactPrec).Mul(q, q)
			e.Mul(e, e)
			v.Mul(e, c)
			t := new(big.Float).SetPrec(exactPrec).Mul(e, mag)
			t.Add(t, exact(math.Abs(dy[k])))
			terms[k], _ = t.Mul(t, exact(s)).Float64()
			v.Sub(exact(dy[k]), v)
		} else {
			v.Sub(exact(dy[k]), c)
			v.Mul(v, exact(y[k]))
			t := exact(math.Abs(dy[k]))
			t.Add(t, mag)
			t.Mul(t, exact(math.Abs(y[k])))
			terms[k], _ = t.Mul(t, exact(s)).Float64()
		}
		dx[k], _ = v.Mul(v, exact(s)).Float64()
	}
	return dx, terms
}

// ExactBackward is Backward through ExactGrad, row by row of s: finite
// float64 rows only (big.Float holds no NaN).
func ExactBackward(s Spec, y, dy []float64) (dx, terms []float64) {
	dx, terms = make([]float64, len(y)), make([]float64, len(y))
	s.rows(func(idx []int, kept []bool) {
		ry, rdy := make([]float64, len(idx)), make([]float64, len(idx))
		for j, i := range idx {
			ry[j], rdy[j] = y[i], dy[i]
		}
		rdx, rterms := ExactGrad(s.Log, ry, rdy, kept, s.Scale)
		for j, i := range idx {
			dx[i], terms[i] = rdx[j], rterms[j]
		}
	})
	return dx, terms
}

// FarRow is a float64 backward row whose gradient meets terms under
// 2^-1022, named for what it probes.
type FarRow struct {
	Name  string
	Log   bool
	Y, DY []float64
	Scale float64
}

// FarRows are the probes that found float64 gradients losing such terms
// (session 72's review): exp(y) under e^-708 beside a large sum, a
// subnormal y at a huge scale, a subnormal product in sum(dy*y).
var FarRows = []FarRow{
	{"log exp(-800) beside 1e300", true, []float64{0, -800}, []float64{1e300, 0}, 1},
	{"log exp(-720) beside 1e10", true, []float64{0, -720}, []float64{1e10, 0}, 1},
	{"log exp(-1000) at scale 1e200", true, []float64{0, -1000}, []float64{1e100, 0}, 1e200},
	{"softmax subnormal y at 1e300", false, []float64{0.69994, 0.30006, 7.194e-321}, []float64{1, 0, 0}, 1e300},
	{"softmax 5e-324 at 1e300", false, []float64{0.7, 5e-324}, []float64{1, 0}, 1e300},
	{"softmax subnormal product in the sum", false, []float64{0.7, 0.3, 7e-321}, []float64{0, 0, 0.3}, 1e300},
}
