package cpu

import (
	"math"

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
			for k := range v.N {
				idx[k] = (o*v.N+k)*v.Inner + i
				kept[k] = k < v.Kept(o) && (mask == nil || mask[v.MaskOuter(o)+k*v.MaskStride+v.MaskInner(i)])
				if !kept[k] {
					continue
				}
				yv, gv, hv := float64(y[idx[k]]), float64(g[idx[k]]), float64(h[idx[k]])
				any = true
				top = max(top, yv)
				gy += gv * yv
				hy += hv * yv
				gs += gv
				he += hv * math.Exp(yv)
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
					out[e] = T(s * yv * (hv - hy))
				case !v.Log:
					out[e] = T(s * (hv*(gv-gy) - gv*hy))
				case !wrtY:
					out[e] = T(s * (hv - he))
				default:
					out[e] = T(-s * hv * math.Exp(yv) * gs)
				}
			}
		}
	}
}
