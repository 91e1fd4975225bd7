// Package reference is the float64 softmax that the tests compare every
// kernel against. It is written for clarity, not speed, and shares no code
// with the kernels: it walks multi-indices directly, with math.Exp and
// math.Log, and encodes the documented semantics case by case.
package reference

import (
	"math"
	"math/big"
)

// Spec is one softmax problem.
type Spec struct {
	Shape     []int
	Axis      int // resolved, 0 <= Axis < len(Shape)
	Log       bool
	Scale     float64
	Mask      []bool // nil, or row-major over MaskShape
	MaskShape []int  // same rank as Shape, each dimension equal or 1
	Causal    bool
	Offset    int
}

func size(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

// rows calls fn with the flat indices of every row along the axis, and a
// function telling whether element j of that row is kept.
func (s Spec) rows(fn func(idx []int, kept []bool)) {
	rank := len(s.Shape)
	strides := make([]int, rank)
	st := 1
	for d := rank - 1; d >= 0; d-- {
		strides[d] = st
		st *= s.Shape[d]
	}
	n := s.Shape[s.Axis]
	multi := make([]int, rank)
	total := size(s.Shape)
	for flat := 0; flat < total; flat++ {
		rem := flat
		for d := 0; d < rank; d++ {
			multi[d] = rem / strides[d]
			rem %= strides[d]
		}
		if multi[s.Axis] != 0 {
			continue
		}
		idx := make([]int, n)
		kept := make([]bool, n)
		for j := range n {
			multi[s.Axis] = j
			idx[j] = flat + j*strides[s.Axis]
			kept[j] = s.keep(multi)
		}
		multi[s.Axis] = 0
		fn(idx, kept)
	}
}

func (s Spec) keep(multi []int) bool {
	rank := len(multi)
	if s.Causal && multi[rank-1] > multi[rank-2]+s.Offset {
		return false
	}
	if s.Mask == nil {
		return true
	}
	off, st := 0, 1
	for d := rank - 1; d >= 0; d-- {
		if s.MaskShape[d] != 1 {
			off += multi[d] * st
		}
		st *= s.MaskShape[d]
	}
	return s.Mask[off]
}

// Forward returns softmax (or log-softmax) of x.
func Forward(s Spec, x []float64) []float64 {
	y := make([]float64, len(x))
	masked := 0.0
	if s.Log {
		masked = math.Inf(-1)
	}
	s.rows(func(idx []int, kept []bool) {
		m := math.Inf(-1)
		nan, infs := false, 0
		for j, i := range idx {
			if !kept[j] {
				continue
			}
			v := x[i]
			nan = nan || math.IsNaN(v)
			if math.IsInf(v, 1) {
				infs++
			}
			if v > m {
				m = v
			}
		}
		for j, i := range idx {
			v := x[i]
			switch {
			case !kept[j]:
				y[i] = masked
			case nan:
				y[i] = math.NaN()
			case infs > 0: // +Inf entries share the mass equally
				if math.IsInf(v, 1) {
					y[i] = 1 / float64(infs)
				} else {
					y[i] = 0
				}
				if s.Log {
					y[i] = math.Log(y[i])
				}
			case math.IsInf(m, -1): // nothing kept, or all kept are -Inf
				y[i] = masked
			}
		}
		if nan || infs > 0 || math.IsInf(m, -1) {
			return
		}
		// The sum is ones (entries equal to the maximum, exactly 1 each)
		// plus the rest, so that log(sum) = log(ones) + log1p(rest/ones)
		// stays accurate when one entry dominates and the sum is near 1.
		ones, rest := 0.0, 0.0
		for j, i := range idx {
			switch {
			case !kept[j]:
			case x[i] == m:
				ones++
			default:
				rest += math.Exp(scaledGap(s.Scale, x[i], m))
			}
		}
		logSum := math.Log(ones) + math.Log1p(rest/ones)
		for j, i := range idx {
			if !kept[j] {
				continue
			}
			if s.Log {
				y[i] = scaledGap(s.Scale, x[i], m) - logSum
			} else {
				y[i] = math.Exp(scaledGap(s.Scale, x[i], m)) / (ones + rest)
			}
		}
	})
	return y
}

// Backward returns the gradient with respect to x given the forward output
// y and the incoming gradient dy. Masked elements get 0, and so does every
// element of a row with nothing kept.
func Backward(s Spec, y, dy []float64) []float64 {
	dx := make([]float64, len(y))
	s.rows(func(idx []int, kept []bool) {
		sum, any := 0.0, false
		for j, i := range idx {
			if !kept[j] {
				continue
			}
			if s.Log {
				sum += dy[i]
				any = any || !math.IsInf(y[i], -1)
			} else {
				sum += dy[i] * y[i]
			}
		}
		for j, i := range idx {
			switch {
			case !kept[j]:
				dx[i] = 0
			case s.Log && !any:
				dx[i] = 0
			case s.Log:
				dx[i] = s.Scale * (dy[i] - math.Exp(y[i])*sum)
			default:
				dx[i] = s.Scale * y[i] * (dy[i] - sum)
			}
		}
	})
	return dx
}

// scaledGap is scale*(x - m), from the exact difference where x - m passes
// float64's range (a row holding both 1e308 and -1e308): big.Float
// subtracts and multiplies with no overflow, and the product is rounded
// once.
func scaledGap(scale, x, m float64) float64 {
	d := x - m
	if !math.IsInf(d, 0) || math.IsInf(x, 0) || math.IsInf(m, 0) {
		return scale * d
	}
	g := new(big.Float).Sub(big.NewFloat(x), big.NewFloat(m))
	r, _ := g.Mul(g, big.NewFloat(scale)).Float64()
	return r
}
