package cpu

import (
	"math"
	"math/big"
	"unsafe"
)

// The float64 backward rounds each product once, but a product under
// 2^-1022 (float64's subnormals) rounds to a fixed 2^-1075, not to its
// own size, and exp(y) under e**-708 does the same. The scale and c then
// multiply that rounding: y = -800 beside c = 1e300 gave dx = 0 for
// -3.7e-48, and a subnormal y at a scale of 1e300 came out 1e-4 to 43%
// off (a review's probes). The rows where this can pass 2^-1022, the
// gradient's absolute floor, are rare (huge scales or sums of gradients),
// so only they take the loops below; float32 rows never do, as their
// float64 intermediates reach 2^-1022 only far under float32's floor.

// subnormalRounding bounds the scale times the terms that a product's
// 2^-1075 rounding meets on the way to dx: 2^52 keeps it within 2^-1023.
const subnormalRounding = 0x1p52

// minNormal64 is float64's smallest normal number, 2^-1022.
const minNormal64 = 0x1p-1022

// underflowed reports whether p = a*b fell under 2^-1022 from non-zero
// factors: it was rounded to 2^-1075, not to its own size.
func underflowed(p, a, b float64) bool { return math.Abs(p) < minNormal64 && a != 0 && b != 0 }

// farGrad64 reports whether a float64 backward row with sum c, scale s
// and kept kept elements must take the loops of this file: for
// log-softmax, exp(y)'s rounding meets c*s; for softmax, y*(dy - c)'s
// meets s, and each product of c's meets y*s.
func farGrad64[T float](log bool, c, s float64, kept int) bool {
	var z T
	if unsafe.Sizeof(z) == 4 {
		return false
	}
	if log {
		return s*(1+math.Abs(c)) > subnormalRounding
	}
	return s*float64(kept+1) > subnormalRounding
}

// logGradFar is s*(dy - exp(y)*c) for one element. Where exp(y) or its
// product with c falls under 2^-1022 (and y is finite, c not 0), it takes
// the term s*exp(y)*c whole as exp(y + lcs), lcs = log|c| + log s: its
// argument carries about 5e-13 absolute, so the term 5e-13 relative.
func logGradFar(y, dy, c, s, lcs float64) float64 {
	e := math.Exp(y)
	t := e * c
	if (e < minNormal64 || math.Abs(t) < minNormal64) && c != 0 && !math.IsInf(y, -1) {
		return dy*s - math.Copysign(math.Exp(y+lcs), c)
	}
	return (dy - t) * s
}

// softmaxGradFar is y*d*s, d = dy - c, for one element. Where y*d falls
// under 2^-1022 it multiplies the three fractions first and the powers of
// two last (no product leaves float64's range: |y*d*s| < 4 there).
func softmaxGradFar(y, d, s float64) float64 {
	t := y * d
	if underflowed(t, y, d) {
		fy, ey := math.Frexp(y)
		fd, ed := math.Frexp(d)
		fs, es := math.Frexp(s)
		return math.Ldexp(fy*fd*fs, ey+ed+es)
	}
	return t * s
}

// exactSoftmax64 finishes a float64 softmax backward row whose sum
// sum(dy*y) takes a product under 2^-1022 at a scale that farGrad64 says
// would carry its rounding: c's error, up to kept*2^-1075, becomes
// s*y*that in each dx. It redoes the row in big.Float (exact products,
// 256-bit sums), one rounding to float64 per dx. It reports false, doing
// nothing, for other rows and for rows holding an infinity or NaN, whose
// answer that rounding does not move.
func (r *gradRow[T]) exactSoftmax64() bool {
	if r.log || !farGrad64[T](false, 0, r.scale, r.kept) {
		return false
	}
	lossy := false
	for k := range r.y {
		if !r.keep(k) {
			continue
		}
		y, dy := float64(r.y[k]), float64(r.dy[k])
		if !isFinite(y) || !isFinite(dy) {
			return false
		}
		if underflowed(y*dy, y, dy) {
			lossy = true
		}
	}
	if !lossy {
		return false
	}
	c, p := wide(0), wide(0)
	for k := range r.y {
		if r.keep(k) {
			c.Add(c, p.Mul(wide(float64(r.y[k])), wide(float64(r.dy[k]))))
		}
	}
	s := wide(r.scale)
	for k := range r.y {
		if !r.keep(k) {
			r.dx[k] = 0
			continue
		}
		p.Sub(wide(float64(r.dy[k])), c)
		p.Mul(p, wide(float64(r.y[k])))
		v, _ := p.Mul(p, s).Float64()
		r.dx[k] = T(v)
	}
	return true
}

// widePrec is the exact rows' precision: products of two float64s are
// exact in it, and big.Float's exponent has no float64 bounds.
const widePrec = 256

// wide is v as a big.Float of widePrec bits.
func wide(v float64) *big.Float { return new(big.Float).SetPrec(widePrec).SetFloat64(v) }

func isFinite(v float64) bool { return !math.IsInf(v, 0) && v == v }
