// Package gpu holds what the CUDA and HIP backends share and can be tested
// without a GPU: float16/bfloat16 conversions and the mask addressing the
// kernels take.
package gpu

import "math"

// Float16 and bfloat16 device buffers hold 16-bit patterns; these convert
// them from and to float32, rounding to nearest even (NaN stays NaN,
// overflow goes to ±Inf, float16 keeps subnormals).

// Float16Bits returns the float16 nearest to f.
func Float16Bits(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	e := int((b>>23)&0xff) - 127 + 15
	m := b & 0x7fffff
	if (b>>23)&0xff == 0xff {
		if m != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	if e >= 31 {
		return sign | 0x7c00
	}
	round := func(v, rem, half uint32) uint32 {
		if rem > half || (rem == half && v&1 == 1) {
			v++
		}
		return v
	}
	if e <= 0 { // subnormal or zero
		if e < -10 {
			return sign
		}
		m |= 0x800000
		shift := uint(14 - e)
		return sign | uint16(round(m>>shift, m&(1<<shift-1), 1<<(shift-1)))
	}
	return sign | uint16(round(uint32(e)<<10|m>>13, m&0x1fff, 0x1000))
}

// Float16From returns the value of float16 bits h.
func Float16From(h uint16) float32 {
	sign := float32(1)
	if h&0x8000 != 0 {
		sign = -1
	}
	e, m := int(h>>10)&0x1f, float64(h&0x3ff)
	switch e {
	case 0:
		return sign * float32(math.Ldexp(m, -24))
	case 31:
		if m == 0 {
			return float32(math.Inf(int(sign)))
		}
		return float32(math.NaN())
	}
	return sign * float32(math.Ldexp(1+m/1024, e-15))
}

// BFloat16Bits returns the bfloat16 nearest to f.
func BFloat16Bits(f float32) uint16 {
	b := math.Float32bits(f)
	if f != f {
		return uint16(b>>16) | 0x40
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}

// BFloat16From returns the value of bfloat16 bits h.
func BFloat16From(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }
