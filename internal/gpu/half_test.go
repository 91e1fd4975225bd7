package gpu

import (
	"math"
	"testing"
)

func TestFloat16(t *testing.T) {
	for _, c := range []struct {
		f    float32
		bits uint16
	}{
		{0, 0}, {1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {65520, 0x7c00}, // rounds up to Inf
		{float32(math.Ldexp(1, -24)), 0x0001}, {float32(math.Ldexp(1, -25)), 0}, // ties to even
		{float32(math.Ldexp(3, -26)), 0x0001}, {float32(math.Ldexp(1, -14)), 0x0400},
		{1 + 1.0/2048, 0x3c00}, {1 + 3.0/2048, 0x3c02}, {float32(math.Inf(-1)), 0xfc00},
	} {
		if got := Float16Bits(c.f); got != c.bits {
			t.Errorf("Float16Bits(%v) = %#04x, want %#04x", c.f, got, c.bits)
		}
	}
	for h := range 1 << 16 { // every finite float16 survives the round trip
		f := Float16From(uint16(h))
		if f != f {
			if Float16Bits(f)&0x7c00 != 0x7c00 || Float16Bits(f)&0x3ff == 0 {
				t.Fatalf("NaN %#04x came back as %#04x", h, Float16Bits(f))
			}
			continue
		}
		if got := Float16Bits(f); got != uint16(h) {
			t.Fatalf("Float16Bits(Float16From(%#04x)) = %#04x", h, got)
		}
	}
}

func TestBFloat16(t *testing.T) {
	for _, c := range []struct {
		f    float32
		bits uint16
	}{
		{1, 0x3f80}, {-2, 0xc000}, {1 + 1.0/256, 0x3f80}, {1 + 3.0/256, 0x3f82},
		{math.MaxFloat32, 0x7f80}, {float32(math.Inf(1)), 0x7f80},
	} {
		if got := BFloat16Bits(c.f); got != c.bits {
			t.Errorf("BFloat16Bits(%v) = %#04x, want %#04x", c.f, got, c.bits)
		}
	}
	if f := BFloat16From(BFloat16Bits(float32(math.NaN()))); f == f {
		t.Errorf("NaN came back as %v", f)
	}
	for h := range 1 << 16 {
		f := BFloat16From(uint16(h))
		if f == f && BFloat16Bits(f) != uint16(h) {
			t.Fatalf("BFloat16Bits(BFloat16From(%#04x)) = %#04x", h, BFloat16Bits(f))
		}
	}
}
