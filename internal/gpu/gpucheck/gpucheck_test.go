package gpucheck

import (
	"bytes"
	"math"
	"testing"

	"github.com/gosoftmax/softmax/internal/gpu"
)

// TestEncode checks the little-endian bytes of each dtype and that Decode
// reads them back.
func TestEncode(t *testing.T) {
	for _, c := range []struct {
		t    gpu.Dtype
		vals []float64
		want []byte
	}{
		{gpu.Float32, []float64{1, -2}, []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0}},
		{gpu.Float64, []float64{1}, []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}},
		{gpu.Float16, []float64{1, -2, 65504}, []byte{0, 0x3c, 0, 0xc0, 0xff, 0x7b}},
		{gpu.BFloat16, []float64{1, -2}, []byte{0x80, 0x3f, 0, 0xc0}},
	} {
		got := Encode(c.t, c.vals)
		if !bytes.Equal(got, c.want) {
			t.Errorf("%v %v: % x, want % x", c.t, c.vals, got, c.want)
		}
		back := Decode(c.t, got)
		for i, v := range c.vals {
			if back[i] != v {
				t.Errorf("%v: decoded %v, want %v", c.t, back, c.vals)
				break
			}
		}
	}
}

// TestRound checks that Round gives the value each dtype holds.
func TestRound(t *testing.T) {
	for _, c := range []struct {
		t        gpu.Dtype
		in, want float64
	}{
		{gpu.Float32, 0.1, float64(float32(0.1))},
		{gpu.Float64, 0.1, 0.1},
		{gpu.Float16, 1 + 0x1p-12, 1},        // under half of float16's spacing at 1 (2^-10)
		{gpu.BFloat16, 1 + 0x1p-6, 1.015625}, // bfloat16's spacing at 1 is 2^-7: rounds up
		{gpu.Float16, math.Inf(-1), math.Inf(-1)},
	} {
		if got := Round(c.t, []float64{c.in})[0]; got != c.want {
			t.Errorf("Round(%v, %v) = %v, want %v", c.t, c.in, got, c.want)
		}
	}
	if got := Round(gpu.Float32, []float64{math.NaN()})[0]; !math.IsNaN(got) {
		t.Errorf("Round(float32, NaN) = %v, want NaN", got)
	}
}

// TestFwdOK checks the forward accuracy each dtype is held to, and the
// cases decided by NaN and infinities.
func TestFwdOK(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		t         gpu.Dtype
		log       bool
		got, want float64
		ok        bool
	}{
		{gpu.Float32, false, nan, nan, true},
		{gpu.Float32, false, 0.5, nan, false},
		{gpu.Float32, false, nan, 0.5, false},
		{gpu.Float64, true, inf, inf, true},
		{gpu.Float64, true, -inf, inf, false},
		{gpu.Float32, false, 0.5 * (1 + 5e-6), 0.5, true},
		{gpu.Float32, false, 0.5 * (1 + 5e-5), 0.5, false},
		{gpu.Float64, false, 0.5 * (1 + 5e-13), 0.5, true},
		{gpu.Float64, false, 0.5 * (1 + 5e-12), 0.5, false},
		{gpu.Float16, false, 1 + 1.5*0x1p-10, 1, true}, // within 2 units in the last place
		{gpu.Float16, false, 1 + 3*0x1p-10, 1, false},  // past them
		{gpu.BFloat16, false, 1 + 3*0x1p-7, 1, false},  // bfloat16's unit at 1 is 2^-7
		{gpu.BFloat16, false, 1 + 1.5*0x1p-7, 1, true}, // within 2
		{gpu.Float16, true, 1e-7 + 2e-6, 1e-7, true},   // log: 2e-6 absolute more, besides 2 units (2^-24 each, subnormal) at 1e-7
		{gpu.Float16, true, 1e-7 + 2.5e-6, 1e-7, false},
		// A want past the type's range matches the infinity it rounds to,
		// and only that; one just inside it matches within the tolerance.
		{gpu.Float32, true, -inf, -6.2e38, true},
		{gpu.Float32, true, inf, -6.2e38, false},
		{gpu.Float32, true, -math.MaxFloat32, -6.2e38, false},
		{gpu.Float32, false, inf, math.MaxFloat32 * (1 - 5e-6), true},
		{gpu.Float32, false, inf, math.MaxFloat32 * (1 - 5e-5), false},
		{gpu.Float16, true, -inf, -70000, true},
		{gpu.Float16, true, -inf, -60000, false},
		{gpu.BFloat16, true, -inf, -3.39e38, true}, // within 2 units of 0x1.fep127
		{gpu.BFloat16, true, -inf, -3.3e38, false},
	} {
		if got := FwdOK(c.t, c.log, c.got, c.want); got != c.ok {
			t.Errorf("FwdOK(%v, log %v, %v, %v) = %v, want %v", c.t, c.log, c.got, c.want, got, c.ok)
		}
	}
}

// TestGradOK checks the backward accuracy against the terms' magnitude.
func TestGradOK(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		t                gpu.Dtype
		got, want, terms float64
		ok               bool
	}{
		{gpu.Float32, 0, 0, nan, true}, // exact, though the terms are NaN
		{gpu.Float32, nan, 0, 1, false},
		{gpu.Float32, 0.1 + 5e-6, 0.1, 1, true}, // 1e-5 of the terms, not of dx
		{gpu.Float32, 0.1 + 2e-5, 0.1, 1, false},
		{gpu.Float64, 0.1 + 5e-13, 0.1, 1, true},
		{gpu.Float64, 0.1 + 5e-12, 0.1, 1, false},
		{gpu.Float16, 0.01 + 0x1p-10, 0.01, 1, true}, // 2 units at the terms (2^-10 at 1)
		{gpu.Float16, 0.01 + 0x1p-8, 0.01, 1, false},
		{gpu.Float16, math.Inf(1), 8.5e28, 1e30, true}, // past float16's range
		{gpu.Float16, math.Inf(-1), 8.5e28, 1e30, false},
		{gpu.Float32, math.Inf(1), 1e38, 1e38, false},
		{gpu.Float32, nan, 1e38, 1e39, true}, // terms past float32's range: an intermediate may overflow
		{gpu.BFloat16, math.Inf(-1), 1e38, 1e39, true},
		{gpu.Float64, nan, 1e38, 1e39, false},
		{gpu.Float32, 5e37, 1e38, 1e39, false}, // a finite dx is still held to the tolerance
	} {
		if got := GradOK(c.t, c.got, c.want, c.terms); got != c.ok {
			t.Errorf("GradOK(%v, %v, %v, terms %v) = %v, want %v", c.t, c.got, c.want, c.terms, got, c.ok)
		}
	}
}

// TestSpanOverflow checks where a -Inf log output stands for a row that
// spans past float32's range, and only there.
func TestSpanOverflow(t *testing.T) {
	inf := math.Inf(-1)
	for _, c := range []struct {
		t                gpu.Dtype
		log              bool
		got, want, scale float64
		ok               bool
	}{
		{gpu.Float32, true, inf, -5e37, 0.125, true}, // x - m about -4e38
		{gpu.BFloat16, true, inf, -5e37, 0.125, true},
		{gpu.Float32, true, inf, -3e37, 0.125, false}, // x - m about -2.4e38: in range
		{gpu.Float32, true, inf, -6.93, 1e-40, false}, // log(1024) alone: x - m may be 0
		{gpu.Float32, true, inf, -6.93 - 0.05, 1e-40, true},
		{gpu.Float16, true, inf, -5e37, 0.125, false},
		{gpu.Float64, true, inf, -5e37, 0.125, false},
		{gpu.Float32, false, inf, -5e37, 0.125, false},
		{gpu.Float32, true, -4e37, -5e37, 0.125, false}, // a finite wrong value is still wrong
	} {
		if got := SpanOverflow(c.t, c.log, c.got, c.want, c.scale, 1024); got != c.ok {
			t.Errorf("SpanOverflow(%v, log %v, %v, %v, scale %v, 1024) = %v, want %v", c.t, c.log, c.got, c.want, c.scale, got, c.ok)
		}
	}
}
