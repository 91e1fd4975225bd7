package gpu

import (
	"fmt"
	"math"

	"github.com/gosoftmax/softmax/internal/layout"
)

// Dtype is the element type of device buffers (packages cuda and hip
// export it under their own name).
type Dtype int

const (
	Float32  Dtype = iota // float32
	Float64               // float64
	Float16               // IEEE 754 half precision, stored as uint16 bits
	BFloat16              // bfloat16, stored as uint16 bits
)

// Size is the element size in bytes (0 for an unknown dtype).
func (t Dtype) Size() int {
	if !t.Valid() {
		return 0
	}
	return [...]int{4, 8, 2, 2}[t]
}

func (t Dtype) String() string {
	if !t.Valid() {
		return fmt.Sprintf("Dtype(%d)", int(t))
	}
	return [...]string{"float32", "float64", "float16", "bfloat16"}[t]
}

// Suffix is the dtype's part of a kernel name (softmax_fwd_warp32_f32).
func (t Dtype) Suffix() string { return [...]string{"f32", "f64", "f16", "bf16"}[t] }

// Valid reports whether t is one of the four dtypes.
func (t Dtype) Valid() bool { return t >= Float32 && t <= BFloat16 }

// minKernelScale is float32's least subnormal, 2^-149.
const minKernelScale = 0x1p-149

// KernelScale is the scale the kernels of element type t take for scale:
// scale itself for float64, at least 2^-149 (float32's least subnormal)
// for the types computed in float32. Below it the scale's float32 form and
// the float32 parts of scale*log2(e) round to 0, and -Inf entries times 0
// became NaN. The larger scale moves scale*d by under 2^-149 * 2^129 =
// 2^-20 for any float32 difference d: exp(scale*d) by about 1e-6 relative,
// a log-softmax output by 1e-6, under every float tolerance.
func KernelScale(t Dtype, scale float64) float64 {
	if t == Float64 || scale >= minKernelScale {
		return scale
	}
	return minKernelScale
}

// tinyBackwardScale is the scale under which the backward of the types
// computed in float32 runs rescaled (BackwardScale).
const tinyBackwardScale = 0x1p-60

// BackwardScale is the scale a backward call's kernels of element type t
// take for scale, and the factor by which dx is multiplied after them (0:
// none). The kernels' fast paths hold the scale in float32 for every type
// but float64, and a scale under 2^-126 keeps fewer bits there (under
// 2^-149, KernelScale's floor, none), while dx may still be a normal
// float32 (gradients near 1e38). The backward is linear in the scale, so
// under 2^-60 they run at scale*2^k in [2^-61, 2^-60) and dx is
// multiplied by 2^-k (exactly scale over the kernels' scale). Softmax's
// fast paths apply the scale last (SoftGrad in cukernels/softmax.cuh), so
// tiny y keep their bits at the scales the kernels take.
func BackwardScale(t Dtype, scale float64) (kernel, factor float64) {
	if t == Float64 || scale >= tinyBackwardScale {
		return KernelScale(t, scale), 0
	}
	frac, exp := math.Frexp(scale) // scale = frac * 2^exp, frac in [0.5, 1)
	if exp == -60 {
		return scale, 0 // in [2^-61, 2^-60) already
	}
	return math.Ldexp(frac, -60), math.Ldexp(1, exp+60)
}

// farGrad64 bounds a float64 softmax backward call's scale times its row
// length plus one: past it a product under 2^-1022, rounded to a fixed
// 2^-1075 rather than to its own size, can carry that rounding past dx's
// floor of 2^-1022 (the CPU's bound, internal/cpu/subnormal.go).
const farGrad64 = 0x1p52

// FarGrad64 reports whether a call must take a tier whose float64 kernel
// forms such products whole (Far64 in cukernels/softmax.cuh): the split
// tier (4) or the block tier (3) on the last axis, the non-last-axis tier
// (5) off it. It holds for float64 softmax backward past farGrad64. The
// other tiers keep plain float64 products. Log-softmax needs no such
// rule: every tier forms its term exp(y)*s*c whole where exp(y) falls
// under 2^-1022.
func FarGrad64(t Dtype, bwd bool, v *layout.View) bool {
	return t == Float64 && bwd && !v.Log && v.Scale*(float64(v.N)+1) > farGrad64
}

// FarRowsCols bounds the rows of a FarGrad64 call that the block tier
// gives a warp each (FarRowsKernel; longer rows take a block each): a
// warp's one step of four loads a lane. Measured on an H100
// (docs/PERFORMANCE.md, GPU entry 115): a warp a row 1.9x faster than a
// block a row at 65536x128, but 1.4x slower at 1024x1000 and 1.6x at
// 32768x512, where a lane walks its columns in steps one after another.
const FarRowsCols = 128

// FarRowsKernel is the float64 backward kernel that gives a FarGrad64
// call's rows a warp each (far_rows in cukernels/long.cuh).
const FarRowsKernel = "softmax_bwd_far_rows_f64"

// FarRowsThreads is FarRowsKernel's block: a row a warp, so 8 rows at
// once on CUDA (4 on AMD's 64-wide wavefronts).
const FarRowsThreads = 256

// SplitPartBytes is the size of a split tier's part, a block's sums in
// the workspace: Part's 32 bytes forward; backward GradPart's 8, and for
// float64 a Far64's 16 (its far rows' sums in two).
func SplitPartBytes(t Dtype, bwd bool) int64 {
	switch {
	case !bwd:
		return 32
	case t == Float64:
		return 16
	}
	return 8
}

// ScaleFits reports whether the kernels of element type t take scale: any
// for float64, at most float32's largest value (layout.MaxScale32) for the
// types computed in float32, whose float32 forms of the scale (the parts
// of scale*log2(e), the half types' log-softmax and backward factor) would
// overflow past it.
func ScaleFits(t Dtype, scale float64) bool { return t == Float64 || scale <= layout.MaxScale32 }

// HostDtype is the dtype of host buffers of T.
func HostDtype[T float32 | float64]() Dtype {
	var zero T
	if _, ok := any(zero).(float32); ok {
		return Float32
	}
	return Float64
}

// Options are a softmax's parameters.
type Options struct {
	Axis int  // reduced axis; negative counts from the end: 0 is the FIRST axis, -1 the last
	Log  bool // log-softmax instead of softmax
	// softmax(Scale*x); 0 means 1, otherwise finite and > 0, and at most
	// float32's largest value unless the data are float64 (ScaleFits)
	Scale  float64
	Causal bool // mask (..., i, j) when j > i+Offset (last axis, rank >= 2)
	Offset int  // causal offset
}

// Resolve checks a device-level call (pkg names the package in errors) and
// returns its view. maskShape is nil when there is no mask.
func Resolve(pkg string, t Dtype, shape, maskShape []int, masked bool, o Options) (*layout.View, error) {
	if !t.Valid() {
		return nil, fmt.Errorf("%s: unknown dtype %d", pkg, int(t))
	}
	if masked && maskShape == nil {
		maskShape = []int{}
	}
	p := layout.Params{Axis: o.Axis, Log: o.Log, Masked: masked, Scale: o.Scale, Causal: o.Causal, Offset: o.Offset}
	if p.Scale == 0 {
		p.Scale = 1
	}
	v, err := layout.Resolve(p, shape, maskShape)
	if err == nil && !ScaleFits(t, v.Scale) {
		return nil, fmt.Errorf("%s: scale %v is past float32's largest value (%v), and the %v kernels compute in float32; use float64 data", pkg, v.Scale, layout.MaxScale32, t)
	}
	return v, err
}

// NonNull rejects a null device pointer for a problem with elements: a
// kernel that reads address 0 leaves a sticky error that poisons the context
// for every later call.
func NonNull[P ~uintptr](pkg string, v *layout.View, mask P, names []string, ptrs ...P) error {
	if v.Len() == 0 {
		return nil
	}
	for i, p := range ptrs {
		if p == 0 {
			return fmt.Errorf("%s: %s is a null device pointer", pkg, names[i])
		}
	}
	if v.Masked && v.MaskLen() > 0 && mask == 0 {
		return fmt.Errorf("%s: mask.Ptr is a null device pointer", pkg)
	}
	return nil
}
