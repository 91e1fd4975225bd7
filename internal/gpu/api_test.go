package gpu

import (
	"math"
	"strings"
	"testing"

	"github.com/gosoftmax/softmax/internal/layout"
)

// TestHostDtype checks the dtype of each host element type.
func TestHostDtype(t *testing.T) {
	if got := HostDtype[float32](); got != Float32 {
		t.Errorf("HostDtype[float32]() = %v, want float32", got)
	}
	if got := HostDtype[float64](); got != Float64 {
		t.Errorf("HostDtype[float64]() = %v, want float64", got)
	}
}

// TestKernelScale checks the floor the float32-computed types take under
// their scale, and that float64 and ordinary scales pass unchanged.
func TestKernelScale(t *testing.T) {
	for _, c := range []struct {
		dt          Dtype
		scale, want float64
	}{
		{Float32, 1, 1},
		{Float32, 0.125, 0.125},
		{Float16, 0x1p-149, 0x1p-149},
		{Float16, 1e-46, 0x1p-149},
		{BFloat16, 1e-300, 0x1p-149},
		{Float32, 5e-324, 0x1p-149},
		{Float64, 1e-300, 1e-300},
		{Float64, 5e-324, 5e-324},
	} {
		if got := KernelScale(c.dt, c.scale); got != c.want {
			t.Errorf("KernelScale(%v, %g) = %g, want %g", c.dt, c.scale, got, c.want)
		}
	}
}

// TestBackwardScale checks that the backward of the float32-computed
// types runs tiny scales rescaled into [2^-61, 2^-60), that kernel scale
// times factor is the scale exactly, and that float64, scales from 2^-61
// up and those already in [2^-61, 2^-60) run as KernelScale has them.
func TestBackwardScale(t *testing.T) {
	for _, c := range []struct {
		dt      Dtype
		scale   float64
		rescale bool
	}{
		{Float32, 1, false},
		{Float32, 0x1p-60, false},
		{BFloat16, math.Nextafter(0x1p-60, 0), false}, // in [2^-61, 2^-60) already: no pass over dx
		{BFloat16, math.Nextafter(0x1p-61, 0), true},
		{Float32, 1e-37, true},
		{Float16, 1e-44, true},
		{Float32, 1e-300, true},
		{BFloat16, 5e-324, true},
		{Float64, 1e-300, false},
		{Float64, 5e-324, false},
	} {
		kernel, factor := BackwardScale(c.dt, c.scale)
		switch {
		case !c.rescale:
			if kernel != KernelScale(c.dt, c.scale) || factor != 0 {
				t.Errorf("BackwardScale(%v, %g) = %g, %g, want %g, 0", c.dt, c.scale, kernel, factor, KernelScale(c.dt, c.scale))
			}
		case kernel < 0x1p-61 || kernel >= 0x1p-60 || kernel*factor != c.scale:
			t.Errorf("BackwardScale(%v, %g) = %g, %g: want a kernel scale in [2^-61, 2^-60) whose product with the factor is the scale", c.dt, c.scale, kernel, factor)
		}
	}
}

// TestScaleFits checks where the float32-computed types' scales end, and
// that device calls past it fail naming the scale while float64 takes any.
func TestScaleFits(t *testing.T) {
	past := math.Nextafter(math.MaxFloat32, math.Inf(1))
	for _, c := range []struct {
		dt    Dtype
		scale float64
		ok    bool
	}{
		{Float32, math.MaxFloat32, true},
		{Float32, past, false},
		{Float16, 1e39, false},
		{BFloat16, 1e300, false},
		{Float64, 1e300, true},
		{Float64, math.MaxFloat64, true},
	} {
		if got := ScaleFits(c.dt, c.scale); got != c.ok {
			t.Errorf("ScaleFits(%v, %g) = %v, want %v", c.dt, c.scale, got, c.ok)
		}
		_, err := Resolve("gpu", c.dt, []int{2, 3}, nil, false, Options{Axis: -1, Scale: c.scale})
		if c.ok != (err == nil) {
			t.Errorf("Resolve(%v, scale %g): error %v, want ok %v", c.dt, c.scale, err, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "scale") {
			t.Errorf("Resolve(%v, scale %g): %q does not name the scale", c.dt, c.scale, err)
		}
	}
}

// TestFarGrad64 checks which calls take tier 5 for their subnormal
// products: float64 softmax backward past 2^52 over the row length plus
// one, and nothing else.
func TestFarGrad64(t *testing.T) {
	view := func(log bool, scale float64, n int) *layout.View {
		v, err := layout.Resolve(layout.Params{Axis: -1, Log: log, Scale: scale}, []int{3, n}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	edge := 0x1p52 / 1024 // n = 1023: the largest scale that stays
	for _, c := range []struct {
		dt    Dtype
		bwd   bool
		log   bool
		scale float64
		want  bool
	}{
		{Float64, true, false, edge, false},
		{Float64, true, false, math.Nextafter(edge, math.Inf(1)), true},
		{Float64, true, false, 1e300, true},
		{Float64, true, true, 1e300, false},   // log-softmax's term is formed whole by every tier
		{Float64, false, false, 1e300, false}, // forward
		{Float32, true, false, 1e30, false},   // float32's floor is far above 2^-1022
		{BFloat16, true, false, 1e30, false},
	} {
		if got := FarGrad64(c.dt, c.bwd, view(c.log, c.scale, 1023)); got != c.want {
			t.Errorf("FarGrad64(%v, bwd %v, log %v, scale %g, n 1023) = %v, want %v", c.dt, c.bwd, c.log, c.scale, got, c.want)
		}
	}
}
