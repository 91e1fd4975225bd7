//go:build amd64 && !purego

package cpu

import "math"

// AVX2+FMA versions of the float32 hot loops (hot_amd64.s). They work on a
// multiple of 8 elements; the Go loops take the tail. Build with -tags
// purego to leave them out.

//go:noescape
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

//go:noescape
func xgetbv() (eax, edx uint32)

//go:noescape
func maxAVX2(x []float32) (m float32, nan bool)

//go:noescape
func expStoreAVX2(x, y []float32, a expArg) float64

//go:noescape
func expSumAVX2(x []float32, a expArg) float64

//go:noescape
func scaleAVX2(y []float32, f float32)

//go:noescape
func logApplyAVX2(x, y []float32, m, s, lse float64)

//go:noescape
func dotAVX2(a, b []float32) float64

//go:noescape
func sumAVX2(a []float32) float64

//go:noescape
func softmaxGradAVX2(y, dy, dx []float32, c, s float32)

//go:noescape
func logGradAVX2(y, dy, dx []float32, c, s float32)

//go:noescape
func expStoreAVX512(x, y []float32, a expArg) float64

//go:noescape
func expSumAVX512(x []float32, a expArg) float64

//go:noescape
func maxAVX512(x []float32) (m float32, nan bool)

func xcr0AVX512() bool

//go:noescape
func expStore64AVX512(x, y []float64, m, s float64) (rest, ones float64)

//go:noescape
func expSum64AVX512(x []float64, m, s float64) (rest, ones float64)

//go:noescape
func max64AVX512(x []float64) (m float64, nan bool)

//go:noescape
func dot64AVX512(a, b []float64) float64

//go:noescape
func sum64AVX512(a []float64) float64

//go:noescape
func softmaxGrad64AVX512(y, dy, dx []float64, c, s float64)

//go:noescape
func logGrad64AVX512(y, dy, dx []float64, c, s float64)

//go:noescape
func logGradAVX512(y, dy, dx []float32, c, s float32)

var (
	hasAVX2   = detectAVX2()
	hasAVX512 = hasAVX2 && detectAVX512()
)

// detectAVX512 looks for AVX-512 F and DQ (VEXTRACTF32X8) and an OS that
// saves the opmask and ZMM registers.
func detectAVX512() bool {
	_, b7, _, _ := cpuid(7, 0)
	const f, dq = 1 << 16, 1 << 17
	return b7&(f|dq) == f|dq && xcr0AVX512()
}

func detectAVX2() bool {
	_, _, c1, _ := cpuid(1, 0)
	const fma, osxsave, avx = 1 << 12, 1 << 27, 1 << 28
	if c1&(fma|osxsave|avx) != fma|osxsave|avx {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 { // the OS saves XMM and YMM state
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	return b7&(1<<5) != 0
}

// The vector exp is within 2 ulp of the float64 result rounded to float32,
// subnormal results included (TestVectorExpAccuracy); below -103.97 it is 0.

func max32(x []float32) float32 {
	var m float32
	var nan bool
	switch n16, n8 := len(x)&^15, len(x)&^7; {
	case hasAVX512 && n16 > 0:
		m, nan = maxAVX512(x[:n16])
		x = x[n16:]
	case hasAVX2 && n8 > 0:
		m, nan = maxAVX2(x[:n8])
		x = x[n8:]
	default:
		return maxGo(x)
	}
	if nan {
		return float32(math.NaN())
	}
	return max(m, maxGo(x))
}

// expArg is the exponent s*(x - m) as the float32 vector kernels form it
// (SCALED8, SCALED16): x*sh - ph in one fma, plus x*sl - pl added to the
// reduced argument, where sh + sl = s and ph + pl = m*s (so nph = -ph and
// npl = -pl). The fma rounds once where (x - m)*s in float32 rounded three
// times: e**a within 6e-8*|a| relative plus an ulp or two (for the rows
// newExpArg admits), 5.3e-6 at the bottom of float32's normal range, where
// it was 1.25e-5 (at scales float32 cannot hold exactly).
type expArg struct{ sh, sl, nph, npl float32 }

// vecExpSpan bounds |m*s| for the vector kernels. The correction x*sl -
// pl is at most (|x*s| + |m*s|)*2^-24, under 2^-7 here for every lane not
// below exp's floor; it joins the reduced argument after n is taken from
// x*sh - ph alone (one add fewer a vector, 8% of the loop on rows in
// cache), so it must stay small for the polynomial's interval. pl's own
// rounding (2^-48 of m*s) stays under 2^-32 of the exponent. Rows with a
// larger |max*scale| take the float64 loop.
const vecExpSpan = 0x1p16

// newExpArg splits s and m*s for the vector kernels; ok is false where
// the float64 loop takes the row instead: |m*s| past vecExpSpan, or s
// under 2^-102, where sl (about s*2^-24) is a float32 subnormal and its
// rounding, 2^-150 absolute, times an x near 2^124 put 2^-26 into the
// exponent: a row of equal entries came out 0.99999994 where the Go tail
// gives 1 (a review's probe). From 2^-102 up, with |m*s| within
// vecExpSpan, every x a lane keeps is under 2^119, so sl's, sh's and pl's
// roundings each stay under 2^-31 of the exponent.
func newExpArg(m, s float64) (a expArg, ok bool) {
	ms := m * s
	if s < 0x1p-102 || math.Abs(ms) > vecExpSpan {
		return a, false
	}
	sh, ph := float32(s), float32(ms)
	return expArg{sh: sh, sl: float32(s - float64(sh)), nph: -ph, npl: -float32(ms - float64(ph))}, true
}

func expStore32(x, y []float32, m, s float64) float64 {
	a, ok := newExpArg(m, s)
	if !ok {
		return expStoreGo(x, y, m, s)
	}
	var sum float64
	if n := len(x) &^ 15; hasAVX512 && n > 0 {
		if y == nil {
			sum = expSumAVX512(x[:n], a)
		} else {
			sum = expStoreAVX512(x[:n], y[:n], a)
			y = y[n:]
		}
		x = x[n:]
	}
	if n := len(x) &^ 7; hasAVX2 && n > 0 {
		if y == nil {
			sum += expSumAVX2(x[:n], a)
		} else {
			sum += expStoreAVX2(x[:n], y[:n], a)
			y = y[n:]
		}
		x = x[n:]
	}
	if y != nil {
		y = y[:len(x)]
	}
	return sum + expStoreGo(x, y, m, s)
}

// avx2Len and avx512Len8 are the elements of a slice of length l that
// the AVX2 kernels (8 float32 lanes) and the float64 AVX-512 kernels (8
// lanes) take: a whole number of vectors, or none where the machine lacks
// the instructions, so the Go loop after them takes the rest, which is then
// everything. (Taking l&^7 whatever the machine skipped those elements on
// machines without them: float64 backward gave 0 on AVX2-only CPUs.)
func avx2Len(l int) int {
	if !hasAVX2 {
		return 0
	}
	return l &^ 7
}

func avx512Len8(l int) int {
	if !hasAVX512 {
		return 0
	}
	return l &^ 7
}

func scale32(y []float32, f float32) {
	n := avx2Len(len(y))
	if n > 0 {
		scaleAVX2(y[:n], f)
		y = y[n:]
	}
	for k := range y {
		y[k] *= f
	}
}

func logApply32(x, y []float32, m, s, lse float64) {
	n := avx2Len(len(x))
	if n > 0 {
		logApplyAVX2(x[:n], y[:n], m, s, lse)
	}
	logApplyGo(x[n:], y[n:len(x)], m, s, lse)
}

func dot32(a, b []float32) float64 {
	n := avx2Len(len(a))
	var sum float64
	if n > 0 {
		sum = dotAVX2(a[:n], b[:n])
	}
	return sum + dotGo(a[n:], b[n:len(a)])
}

func sum32(a []float32) float64 {
	n := avx2Len(len(a))
	var sum float64
	if n > 0 {
		sum = sumAVX2(a[:n])
	}
	return sum + sumGo(a[n:])
}

// vecGrad32 says whether the float32 backward's vector kernels, which take
// c and s in float32 and form dy - c (softmax) or dy - exp(y)*c
// (log-softmax) in float32 before the scale, give the float64 loop's answer
// but for rounding. Other rows take the float64 loop:
//   - c past float32's range (a row's sum of gradients near float32's
//     largest may pass it: dx came out -Inf where it is 0);
//   - s not a normal float32 (a subnormal keeps too few bits: 2% off at
//     1e-44) or past 2^22 (what the bracket lost under 2^-126, the scale
//     multiplies: 5e-4 off at 2^30);
//   - |c| at 2^102 or more (float32(c) reaches 2^103 from just under it,
//     and dy - c passes float32's range from there), where an intermediate
//     past that range could come back into it: softmax's dy - c at any
//     scale, since y (under 1) multiplies it (dy 3e38 beside c -3e38 at
//     scale 1 gave +Inf where dx is 3e34), and log-softmax's dy -
//     exp(y)*c at scales under 1.
func vecGrad32(c, s float64, log bool) bool {
	ac := math.Abs(c)
	return s >= 0x1p-126 && s <= 0x1p22 && ac <= math.MaxFloat32 && (log && s >= 1 || ac < 0x1p102)
}

// farTailY is where the float32 exp(y) of the log-softmax backward's
// vector kernels leaves float32's normal range (e**-87.34 = 2^-126): below
// it, exp(y) is a subnormal (2^-150 absolute) and from -104 on 0.
const farTailY = -87.3

// farTailC is the |c*s| past which that rounding, scaled by c*s, passes
// half the gradient tolerance's 2^-126 (y = -100 beside c = 1e8 was 1.7%
// off, y = -110 beside 1e30 gave 0; a review's probe).
const farTailC = 0x1p23

// fixFarTail redoes, in float64, the entries of a log-softmax backward row
// that the vector kernels finished with a float32 exp(y) under float32's
// normal range (rows whose |c*s| passes farTailC). A scan after the
// kernels: sending such rows to the Go loop whole ran 11x slower (256x4096
// with dy near 1e6: 345 -> 3774 us). It reads dy after dx is written, so
// logGrad32 does not take this path where dx is dy.
func fixFarTail(y, dy, dx []float32, c, s float64) {
	dy, dx = dy[:len(y)], dx[:len(y)]
	for k, v := range y {
		if v < farTailY {
			dx[k] = float32((float64(dy[k]) - expWide(float64(v))*c) * s)
		}
	}
}

func softmaxGrad32(y, dy, dx []float32, c, s float64) {
	if !vecGrad32(c, s, false) {
		softmaxGradGo(y, dy, dx, c, s)
		return
	}
	n := avx2Len(len(y))
	if n > 0 {
		softmaxGradAVX2(y[:n], dy[:n], dx[:n], float32(c), float32(s))
	}
	softmaxGradGo(y[n:], dy[n:len(y)], dx[n:len(y)], c, s)
}

func logGrad32(y, dy, dx []float32, c, s float64) {
	far := math.Abs(c)*s > farTailC
	if !vecGrad32(c, s, true) || far && len(y) > 0 && &dx[0] == &dy[0] {
		logGradGo(y, dy, dx, c, s)
		return
	}
	if far {
		defer fixFarTail(y, dy, dx, c, s) // the whole row, once the kernels are done
	}
	if n := len(y) &^ 15; hasAVX512 && n > 0 {
		logGradAVX512(y[:n], dy[:n], dx[:n], float32(c), float32(s))
		y, dy, dx = y[n:], dy[n:], dx[n:]
	}
	n := avx2Len(len(y))
	if n > 0 {
		logGradAVX2(y[:n], dy[:n], dx[:n], float32(c), float32(s))
	}
	logGradGo(y[n:], dy[n:len(y)], dx[n:len(y)], c, s)
}

func dot64(a, b []float64) float64 {
	n := avx512Len8(len(a))
	var sum float64
	if n > 0 {
		sum = dot64AVX512(a[:n], b[:n])
	}
	return sum + dotGo(a[n:], b[n:len(a)])
}

func sum64(a []float64) float64 {
	n := avx512Len8(len(a))
	var sum float64
	if n > 0 {
		sum = sum64AVX512(a[:n])
	}
	return sum + sumGo(a[n:])
}

func softmaxGrad64(y, dy, dx []float64, c, s float64) {
	n := avx512Len8(len(y))
	if n > 0 {
		softmaxGrad64AVX512(y[:n], dy[:n], dx[:n], c, s)
	}
	softmaxGradGo(y[n:], dy[n:len(y)], dx[n:len(y)], c, s)
}

func logGrad64(y, dy, dx []float64, c, s float64) {
	n := avx512Len8(len(y))
	if n > 0 {
		logGrad64AVX512(y[:n], dy[:n], dx[:n], c, s)
	}
	logGradGo(y[n:], dy[n:len(y)], dx[n:len(y)], c, s)
}

func max64(x []float64) float64 {
	n := avx512Len8(len(x))
	if n == 0 {
		return maxGo(x)
	}
	m, nan := max64AVX512(x[:n])
	if nan {
		return math.NaN()
	}
	return max(m, maxGo(x[n:]))
}

func expStore64(x, y []float64, m, s float64) (rest, ones float64) {
	n := avx512Len8(len(x))
	if n == 0 || farScale(m, s) {
		return expStore64Go(x, y, m, s)
	}
	if y == nil {
		rest, ones = expSum64AVX512(x[:n], m, s)
	} else {
		rest, ones = expStore64AVX512(x[:n], y[:n], m, s)
		y = y[n:len(x)]
	}
	r, o := expStore64Go(x[n:], y, m, s)
	return rest + r, ones + o
}
