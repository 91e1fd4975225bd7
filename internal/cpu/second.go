package cpu

import (
	"math"
	"math/big"
	"unsafe"

	"github.com/gosoftmax/softmax/internal/layout"
)

// SecondOrder differentiates the backward pass, for graphs that take
// gradients of gradients. With dx = backward(y, g) and h the gradient
// arriving at dx, it writes into out either dL/dg (wrtY false) or dL/dy
// (wrtY true). Sums run along the axis over kept elements; masked elements
// get 0, as does every element of a log-softmax row with nothing kept:
//
//	softmax      dL/dg = s*y*(h - sum(h*y))
//	             dL/dy = s*(h*(g - sum(g*y)) - g*sum(h*y))
//	log-softmax  dL/dg = s*(h - sum(h*exp(y)))
//	             dL/dy = -s*h*exp(y)*sum(g)
//
// It is plain Go on one goroutine: second-order graphs are small.
func SecondOrder[T float](v *layout.View, y, g, h, out []T, mask []bool, wrtY bool) {
	s := v.Scale
	idx := make([]int, v.N)
	kept := make([]bool, v.N)
	for o := range v.Outer {
		for i := range v.Inner {
			any := false
			top := math.Inf(-1)
			var gy, hy, gs, he float64
			var u underflow
			for k := range v.N {
				idx[k] = (o*v.N+k)*v.Inner + i
				kept[k] = k < v.Kept(o) && (mask == nil || mask[v.MaskOuter(o)+k*v.MaskStride+v.MaskInner(i)])
				if !kept[k] {
					continue
				}
				yv, gv, hv := float64(y[idx[k]]), float64(g[idx[k]]), float64(h[idx[k]])
				any = true
				top = max(top, yv)
				gy += u.mul(gv, yv)
				hy += u.mul(hv, yv)
				gs += gv
				he += u.mul(hv, u.exp(yv))
			}
			dead := !any || (v.Log && math.IsInf(top, -1))
			for k, e := range idx {
				if dead || !kept[k] {
					out[e] = 0
					continue
				}
				yv, gv, hv := float64(y[e]), float64(g[e]), float64(h[e])
				switch {
				case !v.Log && !wrtY:
					out[e] = T(u.mul(u.mul(s, yv), hv-hy))
				case !v.Log:
					out[e] = T(s * (u.mul(hv, gv-gy) - u.mul(gv, hy)))
				case !wrtY:
					out[e] = T(s * (hv - he))
				default:
					out[e] = T(u.mul(u.mul(u.mul(-s, hv), u.exp(yv)), gs))
				}
			}
			if u.lost && unsafe.Sizeof(out[0]) == 8 {
				secondExact(v, y, g, h, out, idx, kept, dead, wrtY)
			}
		}
	}
}

// underflow notes whether a float64 product or exp fell under 2^-1022,
// where it rounds to a fixed 2^-1075 that the scale and the sums may
// multiply past the gradient's floor (exp(-800) beside a sum of 1e300
// gave 0 for -3.7e-48). Rows that met one are redone by secondExact
// (float64 only: float32's floor is far above such rounding).
type underflow struct{ lost bool }

func (u *underflow) mul(a, b float64) float64 {
	p := a * b
	u.lost = u.lost || underflowed(p, a, b)
	return p
}

func (u *underflow) exp(y float64) float64 {
	e := math.Exp(y)
	if e < minNormal64 && !math.IsInf(y, -1) {
		u.lost = true
	}
	return e
}

// secondExact redoes one row of SecondOrder in big.Float (256 bits), one
// rounding to float64 per output. exp(y) is exp(y/8)^8: exp(y/8) is a
// normal float64 down to y = -5664 (y/8 exact), and below that the term
// is under 2^-1022 whatever the scale and sums. Rows holding an infinity
// or NaN keep the float64 answer, which that rounding does not move.
func secondExact[T float](v *layout.View, y, g, h, out []T, idx []int, kept []bool, dead, wrtY bool) {
	if dead {
		return
	}
	for k, e := range idx {
		if kept[k] && !(isFinite(float64(y[e])) && isFinite(float64(g[e])) && isFinite(float64(h[e]))) {
			return
		}
	}
	mul := func(a, b *big.Float) *big.Float { return new(big.Float).SetPrec(widePrec).Mul(a, b) }
	exp := func(y float64) *big.Float {
		e := wide(math.Exp(y / 8))
		for range 3 {
			e = mul(e, e)
		}
		return e
	}
	gy, hy, gs, he := wide(0), wide(0), wide(0), wide(0)
	for k, e := range idx {
		if !kept[k] {
			continue
		}
		yv, gv, hv := wide(float64(y[e])), wide(float64(g[e])), wide(float64(h[e]))
		gy.Add(gy, mul(gv, yv))
		hy.Add(hy, mul(hv, yv))
		gs.Add(gs, gv)
		he.Add(he, mul(hv, exp(float64(y[e]))))
	}
	s := wide(v.Scale)
	for k, e := range idx {
		if !kept[k] {
			continue
		}
		yv, gv, hv := wide(float64(y[e])), wide(float64(g[e])), wide(float64(h[e]))
		r := new(big.Float).SetPrec(widePrec)
		switch {
		case !v.Log && !wrtY: // s*y*(h - hy)
			r.Sub(hv, hy)
			r = mul(mul(r, yv), s)
		case !v.Log: // s*(h*(g - gy) - g*hy)
			r.Sub(gv, gy)
			r.Sub(mul(r, hv), mul(gv, hy))
			r = mul(r, s)
		case !wrtY: // s*(h - he)
			r.Sub(hv, he)
			r = mul(r, s)
		default: // -s*h*exp(y)*sum(g)
			r = mul(mul(mul(hv, exp(float64(y[e]))), gs), s)
			r.Neg(r)
		}
		f, _ := r.Float64()
		out[e] = T(f)
	}
}
