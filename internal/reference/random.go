package reference

import (
	"math"
	"math/rand/v2"
)

// Problem is a random test case: a Spec, its resolved-axis counterpart as a
// user would pass it (possibly negative), and inputs.
type Problem struct {
	Spec
	UserAxis int       // the axis as passed to the API (may be negative)
	X, DY    []float64 // input and incoming gradient
}

// sizes favours odd lengths, 1 and lengths around the kernels' block size.
var sizes = []int{1, 1, 2, 3, 5, 7, 8, 13, 17, 31, 33, 64, 100}

// Random draws a problem of rank 1..4 with odd and size-1 dimensions, any
// axis, a scale that is often not 1, and, when masked is set, a broadcast
// mask with some fully masked rows; causal is added where the axis allows.
func Random(rng *rand.Rand, masked bool) Problem {
	rank := 1 + rng.IntN(4)
	shape := make([]int, rank)
	for d := range shape {
		shape[d] = sizes[rng.IntN(len(sizes))]
	}
	for size(shape) > 20000 { // keep the reference quick
		shape[rng.IntN(rank)] = sizes[rng.IntN(5)]
	}
	p := Problem{Spec: Spec{Shape: shape, Axis: rng.IntN(rank), Scale: 1}}
	p.UserAxis = p.Axis
	if rng.IntN(2) == 0 {
		p.UserAxis -= rank
	}
	p.Log = rng.IntN(2) == 0
	if rng.IntN(3) > 0 {
		p.Scale = []float64{0.125, 0.5, 0.3, 2, 7.5}[rng.IntN(5)]
	}
	if rank >= 2 && p.Axis == rank-1 && rng.IntN(2) == 0 {
		p.Causal = true
		p.Offset = rng.IntN(7) - 3
	}
	if masked {
		p.MaskShape = make([]int, rank)
		for d := range shape {
			p.MaskShape[d] = shape[d]
			if rng.IntN(3) == 0 {
				p.MaskShape[d] = 1
			}
		}
		p.Mask = make([]bool, size(p.MaskShape))
		density := rng.Float64()
		for i := range p.Mask {
			p.Mask[i] = rng.Float64() < density
		}
	}
	n := size(shape)
	p.X, p.DY = make([]float64, n), make([]float64, n)
	spread := []float64{1, 3, 10}[rng.IntN(3)]
	for i := range p.X {
		p.X[i] = rng.NormFloat64() * spread
		p.DY[i] = rng.NormFloat64()
	}
	return p
}

// Extreme draws a rows x n problem over the last axis whose entries reach
// big (a type's largest finite value) and its subnormal range, a row kind
// for each row in turn:
//   - entries spread over +-big, so differences from the maximum pass the
//     type's range (a kernel working in the type overflows them);
//   - -big everywhere (how many mask scores: finfo.min) but a few
//     ordinary entries;
//   - -big everywhere;
//   - entries within a few parts in a thousand under big;
//   - entries about 1e-42 (subnormal in float32, 0 in float16);
//   - ordinary entries with dy up to big/(2n), so that sum(dy*y) and
//     sum(dy) stay in range.
//
// dy is ordinary elsewhere. The scale is the caller's.
func Extreme(rng *rand.Rand, rows, n int, big float64) Problem {
	p := Problem{Spec: Spec{Shape: []int{rows, n}, Axis: 1, Scale: 1}, UserAxis: 1}
	p.X, p.DY = make([]float64, rows*n), make([]float64, rows*n)
	for r := range rows {
		x, dy := p.X[r*n:(r+1)*n], p.DY[r*n:(r+1)*n]
		for i := range x {
			dy[i] = rng.NormFloat64()
			switch r % 6 {
			case 0:
				x[i] = big * (2*rng.Float64() - 1)
			case 1, 2:
				x[i] = -big
			case 3:
				x[i] = big * (1 - 0.004*rng.Float64())
			case 4:
				x[i] = 1e-42 * rng.NormFloat64()
			case 5:
				x[i] = rng.NormFloat64()
				dy[i] = big / float64(2*n) * (2*rng.Float64() - 1)
			}
		}
		if r%6 == 1 {
			for range 1 + n/100 {
				x[rng.IntN(n)] = rng.NormFloat64()
			}
		}
	}
	return p
}

// Float32 rounds values to float32 and back, so a float32 kernel and the
// float64 reference see the same inputs.
func Float32(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, e := range v {
		out[i] = float64(float32(e))
	}
	return out
}

// Close reports whether got is within rel*|want| + abs of want, treating
// NaN as equal to NaN and equal infinities as equal.
func Close(got, want, rel, abs float64) bool {
	switch {
	case got == want:
		return true
	case math.IsNaN(want):
		return math.IsNaN(got)
	case math.IsInf(want, 0):
		return got == want
	}
	return math.Abs(got-want) <= rel*math.Abs(want)+abs
}

// Saturated reports whether got is the infinity that a finite want past
// big, a type's largest finite value, rounds to, or that one within
// tolerance of big may (close says whether a value is within tolerance of
// want): the reference works in float64, a float32 or half output
// saturates.
func Saturated(got, want, big float64, close func(got float64) bool) bool {
	if !math.IsInf(got, 0) || math.IsInf(want, 0) || math.IsNaN(want) || math.Signbit(got) != math.Signbit(want) {
		return false
	}
	return math.Abs(want) >= big || close(math.Copysign(big, want))
}

// Tolerance is the documented accuracy: 1e-12 relative for float64 (plus
// 1e-15 absolute for log-softmax), 1e-5
// relative for float32 softmax (outputs below float32's smallest normal,
// 2**-126, may flush to 0), and for float32 log-softmax 1e-5 absolute plus
// 2**-22 relative, about four float32 roundings (the GPU's one-row kernel
// forms x - max, the scale's float32 form, their product and the
// difference in float32; visible only on outputs past about 100 in
// magnitude, from large scales).
func Tolerance(float32 bool, log bool, want float64) (rel, abs float64) {
	switch {
	case !float32 && log:
		// log(sum) of a sum near 1 (one dominant element) carries the sum's
		// rounding as an absolute error of ~1e-16 on outputs near 0.
		return 1e-12, 1e-15
	case !float32:
		return 1e-12, 1e-300
	case log:
		return 0x1p-22, 1e-5
	default:
		return 1e-5, 0x1p-126
	}
}

// GradTolerance bounds a gradient element whose terms (before cancellation)
// have magnitude terms: relative to that magnitude, 1e-12 in float64 and
// 1e-5 in float32, and absolute the bottom of the type's normal range
// (2^-1022, 2^-126), where the documented accuracy stops.
func GradTolerance(float32 bool, terms float64) float64 {
	if float32 {
		return 1e-5*terms + 0x1p-126
	}
	return 1e-12*terms + 0x1p-1022
}

// GradTerms is the magnitude of the terms that make up dx[i], for
// GradTolerance: |scale| * (|y*dy| + |y*sum|) for softmax and
// |scale| * (|dy| + exp(y)*|sum|) for log-softmax, with sum the row sum.
func GradTerms(s Spec, y, dy []float64) []float64 {
	terms := make([]float64, len(y))
	s.rows(func(idx []int, kept []bool) {
		sum := 0.0
		for j, i := range idx {
			if kept[j] {
				if s.Log {
					sum += math.Abs(dy[i])
				} else {
					sum += math.Abs(dy[i] * y[i])
				}
			}
		}
		for j, i := range idx {
			if !kept[j] {
				continue // exactly 0
			}
			if s.Log {
				terms[i] = s.Scale * (math.Abs(dy[i]) + math.Exp(y[i])*sum)
			} else {
				terms[i] = s.Scale * math.Abs(y[i]) * (math.Abs(dy[i]) + sum)
			}
		}
	})
	return terms
}

// FarY fills y with a backward row's outputs reaching float64's
// subnormals: log-softmax outputs uniform down to -depth (exp(y) under
// 2^-1022 below -708), softmax outputs exp(-745u) for u uniform; y[0] is
// the row's top (0 for log-softmax, 0.5 for softmax).
func FarY(rng *rand.Rand, y []float64, log bool, depth float64) {
	for k := range y {
		if log {
			y[k] = -rng.Float64() * depth
		} else {
			y[k] = math.Exp(-rng.Float64() * 745)
		}
	}
	if len(y) > 0 {
		y[0] = 0
		if !log {
			y[0] = 0.5
		}
	}
}
