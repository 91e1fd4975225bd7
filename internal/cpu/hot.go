package cpu

import "math"

// The hot loops of the unmasked last-axis path, written per dtype: the
// float32 ones inline exp32's body by hand (the compiler will not inline a
// function that large), and all keep several independent accumulators so
// that consecutive elements do not wait on each other.

// maxOf returns the largest element of x, NaN if any is NaN, -Inf if empty.
func maxOf[T float](x []T) T {
	switch x := any(x).(type) {
	case []float32:
		return T(max32(x))
	case []float64:
		return T(max64(x))
	}
	return maxGo(x)
}

func maxGo[T float](x []T) T {
	ninf := T(math.Inf(-1))
	m0, m1, m2, m3 := ninf, ninf, ninf, ninf
	k := 0
	for ; k+4 <= len(x); k += 4 {
		m0 = max(m0, x[k])
		m1 = max(m1, x[k+1])
		m2 = max(m2, x[k+2])
		m3 = max(m3, x[k+3])
	}
	for ; k < len(x); k++ {
		m0 = max(m0, x[k])
	}
	return max(m0, m1, m2, m3)
}

// expStore sets y[k] = exp(s*(x[k]-m)) (y == nil: only sums, for
// log-softmax). It returns the sum as rest + ones, where ones counts the
// elements equal to m (each exactly 1) when the dtype keeps them apart
// (float64), so log-softmax can take log1p(rest/ones); float32 returns the
// whole sum in rest. m is finite and >= every x[k].
func expStore[T float](x, y []T, m, s float64) (rest, ones float64) {
	switch x := any(x).(type) {
	case []float32:
		y, _ := any(y).([]float32)
		return expStore32(x, y, m, s), 0
	case []float64:
		y, _ := any(y).([]float64)
		return expStore64(x, y, m, s)
	}
	panic("unreachable")
}

// scaledDiff is (v - m)*s for v <= m. Where v - m passes float64's range
// (a float64 row holding both 1e308 and -1e308) at a scale under 1, it is
// v*s - m*s: v is then negative and m positive, so the two products add
// and nothing cancels (softmax of [1e308, -1e308] at scale 1e-308 is
// [0.881, 0.119], where -Inf gave [1, 0]). float32 entries, taken to
// float64, never pass its range.
func scaledDiff(v, m, s float64) float64 {
	d := v - m
	if d < -math.MaxFloat64 && s < 1 {
		return v*s - m*s
	}
	return d * s
}

// farScale says whether (x - m)*s may need scaledDiff for float64 entries
// x <= m: s under 1 and m at least 2^969, since x - m passes float64's
// range only where m - x reaches 2^1024 - 2^970 and x >= -MaxFloat64.
// The vector kernels leave such rows to the Go loops.
func farScale(m, s float64) bool { return s < 1 && m >= 0x1p969 }

func expStore64Go(x, y []float64, m, s float64) (rest, ones float64) {
	if y != nil {
		y = y[:len(x)]
	}
	for k, v := range x {
		if v == m {
			ones++
			if y != nil {
				y[k] = 1
			}
			continue
		}
		e := math.Exp(scaledDiff(v, m, s))
		rest += e
		if y != nil {
			y[k] = e
		}
	}
	return rest, ones
}

// expStoreGo is exp32 inlined; see exp32 for the method and its accuracy.
func expStoreGo(x, y []float32, m, s float64) float64 {
	const (
		toIdx = 64 / math.Ln2
		step  = math.Ln2 / 64
		round = 6755399441055744.0
	)
	var s0, s1 float64
	store := y != nil
	if store {
		y = y[:len(x)]
	}
	for k, v := range x {
		a := (float64(v) - m) * s
		var e float32
		if a > -745 {
			t := a*toIdx + round
			bits := math.Float64bits(t)
			kf := t - round
			r := a - kf*step
			p := 1 + r*(1+r*(0.5+r*(1.0/6)))
			if n := int64(int32(uint32(bits))) >> 6; n >= -1022 {
				e = float32(p * math.Float64frombits(exp2Frac[bits&63]+uint64(n)<<52))
			}
		} else if a != a {
			e = float32(a) // NaN stays NaN
		}
		if store {
			y[k] = e
		}
		if k&1 == 0 {
			s0 += float64(e)
		} else {
			s1 += float64(e)
		}
	}
	return s0 + s1
}

// scale multiplies y by f.
func scale[T float](y []T, f T) {
	if y32, ok := any(y).([]float32); ok {
		scale32(y32, float32(f))
		return
	}
	for k := range y {
		y[k] *= f
	}
}

// logApply sets y = (x-m)*s - lse; both terms are <= 0, so nothing cancels.
func logApply[T float](x, y []T, m, s, lse float64) {
	if x32, ok := any(x).([]float32); ok {
		logApply32(x32, any(y).([]float32), m, s, lse)
		return
	}
	logApplyGo(x, y, m, s, lse)
}

func logApplyGo[T float](x, y []T, m, s, lse float64) {
	y = y[:len(x)]
	if farScale(m, s) { // apart, so that the common loop keeps no compare (9% at float64 4096 columns)
		for k, v := range x {
			y[k] = T(scaledDiff(float64(v), m, s) - lse)
		}
		return
	}
	for k, v := range x {
		y[k] = T((float64(v)-m)*s - lse)
	}
}

// dot is the float64 sum of a[k]*b[k].
func dot[T float](a, b []T) float64 {
	switch a := any(a).(type) {
	case []float32:
		return dot32(a, any(b).([]float32))
	case []float64:
		return dot64(a, any(b).([]float64))
	}
	return dotGo(a, b)
}

func dotGo[T float](a, b []T) float64 {
	b = b[:len(a)]
	var s0, s1 float64
	k := 0
	for ; k+2 <= len(a); k += 2 {
		s0 += float64(a[k]) * float64(b[k])
		s1 += float64(a[k+1]) * float64(b[k+1])
	}
	if k < len(a) {
		s0 += float64(a[k]) * float64(b[k])
	}
	return s0 + s1
}

// sum is the float64 sum of a.
func sum[T float](a []T) float64 {
	switch a := any(a).(type) {
	case []float32:
		return sum32(a)
	case []float64:
		return sum64(a)
	}
	return sumGo(a)
}

func sumGo[T float](a []T) float64 {
	var s float64
	for _, v := range a {
		s += float64(v)
	}
	return s
}

// softmaxGrad sets dx = (dy - c) * y * s.
func softmaxGrad[T float](y, dy, dx []T, c, s float64) {
	switch yy := any(y).(type) {
	case []float32:
		softmaxGrad32(yy, any(dy).([]float32), any(dx).([]float32), c, s)
	case []float64:
		softmaxGrad64(yy, any(dy).([]float64), any(dx).([]float64), c, s)
	default:
		softmaxGradGo(y, dy, dx, c, s)
	}
}

func softmaxGradGo[T float](y, dy, dx []T, c, s float64) {
	dy, dx = dy[:len(y)], dx[:len(y)]
	for k, v := range y {
		dx[k] = T(float64(v) * (float64(dy[k]) - c) * s)
	}
}

// logGrad sets dx = (dy - exp(y)*c) * s.
func logGrad[T float](y, dy, dx []T, c, s float64) {
	switch yy := any(y).(type) {
	case []float32:
		logGrad32(yy, any(dy).([]float32), any(dx).([]float32), c, s)
	case []float64:
		logGrad64(yy, any(dy).([]float64), any(dx).([]float64), c, s)
	default:
		logGradGo(y, dy, dx, c, s)
	}
}

func logGradGo[T float](y, dy, dx []T, c, s float64) {
	dy, dx = dy[:len(y)], dx[:len(y)]
	for k, v := range y {
		dx[k] = T((float64(dy[k]) - gradExp[T](float64(v))*c) * s)
	}
}
