// Package layout turns a softmax call (a tensor shape, an axis, an optional
// broadcast mask and the causal option) into the view every kernel works on:
// the tensor seen as outer x n x inner, where n is the length of the reduced
// axis. CPU and GPU kernels take this view; nothing is transposed.
package layout

import (
	"fmt"
	"math"
)

// Params are the parameters of one softmax operator, shared by the forward
// and backward ops and by every backend.
type Params struct {
	Axis   int     // reduced axis; negative counts from the end
	Log    bool    // log-softmax instead of softmax
	Masked bool    // a Bool mask input follows x
	Scale  float64 // softmax(Scale*x); must be finite and > 0
	Causal bool    // mask (..., i, j) when j > i+Offset
	Offset int     // causal offset
}

// Defaults returns the parameters of a plain softmax over the last axis.
func Defaults() Params { return Params{Axis: -1, Scale: 1} }

// Check validates the parameters that do not depend on a shape.
func (p Params) Check() error {
	if math.IsNaN(p.Scale) || math.IsInf(p.Scale, 0) || p.Scale <= 0 {
		return fmt.Errorf("softmax: scale must be finite and > 0, got %v", p.Scale)
	}
	return nil
}

// MaxScale32 is the largest scale float32 data take: float32's largest
// value. The GPU kernels, and the CPU's vector kernels, hold the scale of
// float32 data, or parts of it, in float32, where a larger one overflows
// to +Inf (and 0 times +Inf is NaN). float64 data take any finite scale.
const MaxScale32 = math.MaxFloat32

// CheckScale32 rejects a finite scale that float32 data cannot take
// (Check rejects the rest).
func CheckScale32(scale float64) error {
	if scale > MaxScale32 && !math.IsInf(scale, 1) {
		return fmt.Errorf("softmax: scale %v is past float32's largest value (%v), which float32 data are computed in; use float64 data", scale, MaxScale32)
	}
	return nil
}

// String names every parameter, so two ops that differ in any of them never
// hash or print alike.
func (p Params) String() string {
	kind := "softmax"
	if p.Log {
		kind = "logsoftmax"
	}
	s := fmt.Sprintf("%s{axis=%d, scale=%v, masked=%v", kind, p.Axis, p.Scale, p.Masked)
	if p.Causal {
		s += fmt.Sprintf(", causal=%d", p.Offset)
	}
	return s + "}"
}

// View is Params resolved against a concrete shape.
type View struct {
	Params
	Shape []int // x's shape
	Axis  int   // resolved axis, 0 <= Axis < len(Shape)
	Outer int   // product of the dimensions before Axis
	N     int   // length of the reduced axis
	Inner int   // product of the dimensions after Axis

	// Mask addressing. A mask element for x's element (o, k, i) lives at
	// MaskOuter(o) + k*MaskStride + MaskInner(i); broadcast dimensions have
	// stride 0. Zero values when there is no mask.
	MaskShape   []int
	MaskStride  int
	maskStrides []int // per dimension of x, 0 on broadcast dimensions

	// CausalRows is the length of the second-to-last dimension (the query
	// index i of element (..., i, j)), when Causal is set.
	CausalRows int
}

// Resolve checks shape, axis, mask shape and causal setting against p and
// builds the view. maskShape must be nil exactly when p.Masked is false.
func Resolve(p Params, shape, maskShape []int) (*View, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	rank := len(shape)
	if rank < 1 {
		return nil, fmt.Errorf("softmax: x must have rank >= 1, got a scalar")
	}
	if err := checkSize("x", shape); err != nil {
		return nil, err
	}
	axis := p.Axis
	if axis < 0 {
		axis += rank
	}
	if axis < 0 || axis >= rank {
		return nil, fmt.Errorf("softmax: axis %d out of range for x of rank %d", p.Axis, rank)
	}
	if p.Causal {
		if rank < 2 {
			return nil, fmt.Errorf("softmax: causal needs x of rank >= 2, got rank %d", rank)
		}
		if axis != rank-1 {
			return nil, fmt.Errorf("softmax: causal needs axis = last (%d), got axis %d", rank-1, p.Axis)
		}
	}
	v := &View{Params: p, Shape: append([]int(nil), shape...), Axis: axis, Outer: 1, N: shape[axis], Inner: 1}
	for d := 0; d < axis; d++ {
		v.Outer *= shape[d]
	}
	for d := axis + 1; d < rank; d++ {
		v.Inner *= shape[d]
	}
	if p.Causal {
		v.CausalRows = shape[rank-2]
		// Offsets past either end mask nothing or everything; clamping
		// keeps i+Offset+1 from overflowing (here and in the GPU kernels):
		// it is at most CausalRows+N-1, no more than the element count.
		v.Offset = min(max(p.Offset, -v.CausalRows-1), v.N-1)
	}
	if !p.Masked {
		if maskShape != nil {
			return nil, fmt.Errorf("softmax: mask given to an unmasked op")
		}
		return v, nil
	}
	if err := checkSize("mask", maskShape); err != nil {
		return nil, err
	}
	if len(maskShape) != rank {
		return nil, fmt.Errorf("softmax: mask has rank %d, x has rank %d (they must match; use size-1 dimensions to broadcast)", len(maskShape), rank)
	}
	v.MaskShape = append([]int(nil), maskShape...)
	v.maskStrides = make([]int, rank)
	stride := 1
	for d := rank - 1; d >= 0; d-- {
		switch maskShape[d] {
		case shape[d]:
			if shape[d] != 1 {
				v.maskStrides[d] = stride
			}
		case 1:
			// broadcast: stride stays 0
		default:
			return nil, fmt.Errorf("softmax: mask shape %v does not broadcast to x shape %v (dimension %d is %d, want %d or 1)", maskShape, shape, d, maskShape[d], shape[d])
		}
		stride *= maskShape[d]
	}
	v.MaskStride = v.maskStrides[axis]
	return v, nil
}

// checkSize rejects negative dimensions and shapes whose element count
// overflows an int.
func checkSize(name string, shape []int) error {
	n := 1
	for d, s := range shape {
		if s < 0 {
			return fmt.Errorf("softmax: %s has negative dimension %d (%d)", name, d, s)
		}
		if s != 0 && n > math.MaxInt/s {
			return fmt.Errorf("softmax: %s shape %v has more elements than an int can count", name, shape)
		}
		n *= s
	}
	return nil
}

// MaskInner is the mask offset of inner index i (the dimensions after Axis).
func (v *View) MaskInner(i int) int {
	off := 0
	for d := len(v.Shape) - 1; d > v.Axis; d-- {
		s := v.Shape[d]
		off += (i % s) * v.maskStrides[d]
		i /= s
	}
	return off
}

// MaskOuter is the mask offset of outer row o (the dimensions before Axis).
func (v *View) MaskOuter(o int) int {
	if v.maskStrides == nil {
		return 0
	}
	off := 0
	for d := v.Axis - 1; d >= 0; d-- {
		s := v.Shape[d]
		off += (o % s) * v.maskStrides[d]
		o /= s
	}
	return off
}

// Kept is the number of leading columns of row o that causal masking keeps
// (N when Causal is off). Only meaningful when Inner == 1, which Causal
// guarantees.
func (v *View) Kept(o int) int {
	if !v.Causal {
		return v.N
	}
	i := o % v.CausalRows
	k := i + v.Offset + 1
	return min(max(k, 0), v.N)
}

// MaskStrides returns the mask's stride for each dimension of x, in mask
// elements, 0 on broadcast dimensions (nil without a mask). Backends that
// address the mask per dimension (the GPU kernels) use it.
func (v *View) MaskStrides() []int { return append([]int(nil), v.maskStrides...) }

// Len is the number of elements of x.
func (v *View) Len() int { return v.Outer * v.N * v.Inner }

// MaskLen is the number of elements the mask must have.
func (v *View) MaskLen() int {
	n := 1
	for _, s := range v.MaskShape {
		n *= s
	}
	return n
}
