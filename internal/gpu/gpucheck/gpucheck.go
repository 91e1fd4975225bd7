// Package gpucheck is what the GPU backends' tests share to check device
// results against the float64 reference: the host encodings of the four
// dtypes and the accuracy each dtype is held to.
package gpucheck

import (
	"math"

	"github.com/gosoftmax/softmax/internal/gpu"
	"github.com/gosoftmax/softmax/internal/reference"
)

// Encode stores vals as dtype t in little-endian bytes.
func Encode(t gpu.Dtype, vals []float64) []byte {
	out := make([]byte, len(vals)*t.Size())
	for i, v := range vals {
		switch t {
		case gpu.Float32:
			putU(out[i*4:], uint64(math.Float32bits(float32(v))), 4)
		case gpu.Float64:
			putU(out[i*8:], math.Float64bits(v), 8)
		case gpu.Float16:
			putU(out[i*2:], uint64(gpu.Float16Bits(float32(v))), 2)
		case gpu.BFloat16:
			putU(out[i*2:], uint64(gpu.BFloat16Bits(float32(v))), 2)
		}
	}
	return out
}

func putU(b []byte, v uint64, n int) {
	for i := range n {
		b[i] = byte(v >> (8 * i))
	}
}

func getU(b []byte, n int) uint64 {
	var v uint64
	for i := range n {
		v |= uint64(b[i]) << (8 * i)
	}
	return v
}

// Decode reads b as values of dtype t (Encode's inverse).
func Decode(t gpu.Dtype, b []byte) []float64 {
	out := make([]float64, len(b)/t.Size())
	for i := range out {
		switch t {
		case gpu.Float32:
			out[i] = float64(math.Float32frombits(uint32(getU(b[i*4:], 4))))
		case gpu.Float64:
			out[i] = math.Float64frombits(getU(b[i*8:], 8))
		case gpu.Float16:
			out[i] = float64(gpu.Float16From(uint16(getU(b[i*2:], 2))))
		case gpu.BFloat16:
			out[i] = float64(gpu.BFloat16From(uint16(getU(b[i*2:], 2))))
		}
	}
	return out
}

// Round returns vals as dtype t holds them.
func Round(t gpu.Dtype, vals []float64) []float64 { return Decode(t, Encode(t, vals)) }

// ulp is the spacing of dtype t (a half type) at w.
func ulp(t gpu.Dtype, w float64) float64 {
	mant, minExp := 10, -14 // float16
	if t == gpu.BFloat16 {
		mant, minExp = 7, -126
	}
	_, e := math.Frexp(math.Abs(w)) // |w| = f * 2^e, f in [0.5, 1)
	e--
	if w == 0 || e < minExp {
		e = minExp
	}
	return math.Ldexp(1, e-mant)
}

// MaxFinite is dtype t's largest finite value.
func MaxFinite(t gpu.Dtype) float64 {
	switch t {
	case gpu.Float32:
		return math.MaxFloat32
	case gpu.Float16:
		return 65504
	case gpu.BFloat16:
		return 0x1.fep127
	}
	return math.MaxFloat64
}

func same(got, want float64) (bool, bool) { // (decided, equal)
	switch {
	case math.IsNaN(want) || math.IsNaN(got):
		return true, math.IsNaN(want) && math.IsNaN(got)
	case math.IsInf(want, 0) || math.IsInf(got, 0):
		return true, got == want
	}
	return false, false
}

// FwdOK is the forward accuracy: float32 and float64 1e-5 and 1e-12
// relative (reference.Tolerance; log outputs near 0 also an absolute term,
// since log y = scale*(x-m) - log(sum) cancels there), half types 2 units in
// the last place of the output type (log: plus 2e-6 absolute for the same
// cancellation in float32). An output that saturates to infinity matches a
// want past the type's range.
func FwdOK(t gpu.Dtype, log bool, got, want float64) bool {
	if reference.Saturated(got, want, MaxFinite(t), func(g float64) bool { return FwdOK(t, log, g, want) }) {
		return true
	}
	if dec, eq := same(got, want); dec {
		return eq
	}
	switch t {
	case gpu.Float32:
		rel, abs := reference.Tolerance(true, log, want)
		return reference.Close(got, want, rel, abs)
	case gpu.Float64:
		rel, abs := reference.Tolerance(false, log, want)
		if log {
			abs = 1e-14
		}
		return reference.Close(got, want, rel, abs)
	}
	tol := 2 * ulp(t, want)
	if log {
		tol += 2e-6
	}
	return math.Abs(got-want) <= tol
}

// ScaleCases calls fn for each row length, scale of scales that dtype t's
// kernels take (gpu.ScaleFits) and kind of rows (the suites' rowsProblem
// variants 1, a mask, and 5, NaN and infinities) at which the GPU suites
// check scales; log-softmax at every other scale of a length. short takes
// half of the cases, softmax and log-softmax alike.
func ScaleCases(t gpu.Dtype, scales []float64, short bool, fn func(n int, scale float64, variant int, log bool)) {
	for i, n := range []int{33, 1024, 5000, 70000} {
		for j, s := range scales {
			if !gpu.ScaleFits(t, s) {
				continue
			}
			for v, variant := range []int{1, 5} {
				if short && (i+j+v)%2 != 0 {
					continue
				}
				fn(n, s, variant, (i+j)%2 == 1)
			}
		}
	}
}

// ExtremeCases calls fn for each row length, scale and direction at which
// the GPU suites run reference.Extreme rows of dtype t, with big the
// largest value they reach: t's largest, but 1e300 for float64, whose
// default kernels take x - m as it is (rows past float64's range take
// CUDA's span kernels, TestGPUSpanFloat64; HIP has none: README). short, and rows
// past 1024 columns, take half the scales and directions.
func ExtremeCases(t gpu.Dtype, short bool, fn func(n int, big, scale float64, log bool)) {
	ExtremeCasesAt(t, []float64{0.125, 1, 3, 1e-30}, short, fn)
}

// ExtremeCasesAt is ExtremeCases at the given scales.
func ExtremeCasesAt(t gpu.Dtype, scales []float64, short bool, fn func(n int, big, scale float64, log bool)) {
	big := MaxFinite(t)
	if t == gpu.Float64 {
		big = 1e300
	}
	for i, n := range []int{33, 1024, 5000, 70000} {
		for j, s := range scales {
			for k, lg := range []bool{false, true} {
				if (i+j+k)%2 != 0 && (short || n > 1024) {
					continue
				}
				fn(n, big, s, lg)
			}
		}
	}
}

// SpanOverflow reports whether got is the -Inf that the HIP kernels give
// for a float32 or bfloat16 log-softmax output of a row of n columns that
// spans past float32's range: they form x - m in float32, which rounds to
// -Inf there, though scale*(x - m) is finite for a scale under 1. want is
// scale*(x - m) - log(sum) with the sum in [1, n], so |x - m| is at least
// (-want - log n)/scale, and only where that passes float32's largest
// value is -Inf allowed. A documented limitation of the HIP build
// (docs/GPU.md, Not done yet); the CUDA build takes such calls on its span
// kernels and its suite allows nothing of the kind. float16 rows cannot
// span so far.
func SpanOverflow(t gpu.Dtype, log bool, got, want, scale float64, n int) bool {
	return log && (t == gpu.Float32 || t == gpu.BFloat16) && math.IsInf(got, -1) &&
		(-want-math.Log(float64(n)))/scale >= math.MaxFloat32*(1-0x1p-20)
}

// GradOK is the backward accuracy relative to the terms that make up dx
// (reference.GradTerms): 1e-5 (float32), 1e-12 (float64), and for half
// types 2 units in the last place of the output type at the terms'
// magnitude, plus 2 at dx's own; saturation as in FwdOK. Where the terms
// pass float32's range, the float32-computed types may give an infinity or
// NaN (docs/GPU.md, Accuracy).
func GradOK(t gpu.Dtype, got, want, terms float64) bool {
	if got == want {
		return true // exact, even where terms is NaN (y = -Inf beside a sum of +Inf: 0 x Inf)
	}
	if reference.Saturated(got, want, MaxFinite(t), func(g float64) bool { return GradOK(t, g, want, terms) }) {
		return true
	}
	if t != gpu.Float64 && terms > math.MaxFloat32 && (math.IsInf(got, 0) || math.IsNaN(got)) {
		return true // log-softmax's backward forms scale*dy and scale*sum(dy) in float32, past whose range the terms are
	}
	if dec, eq := same(got, want); dec {
		return eq
	}
	var tol float64
	switch t {
	case gpu.Float32:
		tol = reference.GradTolerance(true, terms)
	case gpu.Float64:
		tol = reference.GradTolerance(false, terms)
	default:
		tol = 2*ulp(t, terms) + 2*ulp(t, want)
	}
	return math.Abs(got-want) <= tol
}
