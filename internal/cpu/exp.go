package cpu

import (
	"math"
	"unsafe"
)

// exp2Frac[j] holds the bits of 2**(j/64).
var exp2Frac [64]uint64

func init() {
	for j := range exp2Frac {
		exp2Frac[j] = math.Float64bits(math.Exp2(float64(j) / 64))
	}
}

// expWide is e**a in float64, to within 3e-9 relative (0 below e**-708;
// NaN stays NaN). It reduces a = (64m + j)*ln2/64 + r with |r| <= ln2/128,
// takes 2**(j/64) from a table and e**r from a cubic (relative error below
// 3e-9, a twentieth of a float32 ulp), all in float64. About 1.6x faster
// than math.Exp. The float32 log-softmax backward takes it unrounded for
// exp(y)*c: a float32 exp(y) under 2^-126 keeps too few bits, and c, up to
// 3.4e38, scales that rounding (y = -100 beside c = 1e8 was 1.7% off;
// y = -110 beside 1e30 gave 0 for -1.7e-18).
func expWide(a float64) float64 {
	const (
		toIdx = 64 / math.Ln2
		step  = math.Ln2 / 64
		round = 6755399441055744.0 // 1.5 * 2**52: adding it rounds to an integer
	)
	if !(a > -708) { // also catches NaN: NaN compares false
		if a != a {
			return a
		}
		return 0
	}
	if a > 709 {
		return math.Inf(1)
	}
	t := a*toIdx + round
	bits := math.Float64bits(t) // low bits hold 64m + j as two's complement
	k := t - round
	r := a - k*step
	p := 1 + r*(1+r*(0.5+r*(1.0/6)))
	m := int64(int32(uint32(bits))) >> 6
	return p * math.Float64frombits(exp2Frac[bits&63]+uint64(m)<<52)
}

// exp32 returns e**a rounded to float32: expWide's value, within 1 ulp of
// the float64 result rounded to float32 (TestExp32Accuracy walks every
// float32 in [-104, 0]). Results below float32's range flush to 0, above
// it +Inf; NaN stays NaN.
func exp32(a float64) float32 { return float32(expWide(a)) }

// gradExp is exp(y) as the log-softmax backward's Go loops take it:
// expWide for float32 (the full float64 value, see expWide), math.Exp for
// float64.
func gradExp[T float](y float64) float64 {
	var z T
	if unsafe.Sizeof(z) == 4 {
		return expWide(y)
	}
	return math.Exp(y)
}

// exp is e**a in the precision of T: exp32 for float32, math.Exp for float64.
// The size test is folded by the compiler per instantiation.
func exp[T float](a float64) T {
	var z T
	if unsafe.Sizeof(z) == 4 {
		return T(exp32(a))
	}
	return T(math.Exp(a))
}
