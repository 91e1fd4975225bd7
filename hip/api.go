//go:build hip

package hip

import (
	"fmt"

	"github.com/gosoftmax/softmax/internal/layout"
)

// Dtype is the element type of device buffers.
type Dtype int

const (
	Float32  Dtype = iota // float32
	Float64               // float64
	Float16               // IEEE 754 half precision, stored as uint16 bits
	BFloat16              // bfloat16, stored as uint16 bits
)

// Size is the element size in bytes.
func (t Dtype) Size() int {
	if !t.valid() {
		return 0
	}
	return [...]int{4, 8, 2, 2}[t]
}

func (t Dtype) String() string {
	if !t.valid() {
		return fmt.Sprintf("Dtype(%d)", int(t))
	}
	return [...]string{"float32", "float64", "float16", "bfloat16"}[t]
}

func (t Dtype) suffix() string { return [...]string{"f32", "f64", "f16", "bf16"}[t] }

func (t Dtype) valid() bool { return t >= Float32 && t <= BFloat16 }

// Options are a softmax's parameters.
type Options struct {
	Axis   int     // reduced axis; negative counts from the end: 0 is the FIRST axis, -1 the last
	Log    bool    // log-softmax instead of softmax
	Scale  float64 // softmax(Scale*x); 0 means 1, otherwise finite and > 0
	Causal bool    // mask (..., i, j) when j > i+Offset (last axis, rank >= 2)
	Offset int     // causal offset
}

// Mask is a device buffer of one byte per element (non-zero keeps),
// row-major over Shape, which has x's rank with each dimension equal to
// x's or 1 (broadcast).
type Mask struct {
	Ptr   DevicePtr
	Shape []int
}

func (o Options) params(masked bool) layout.Params {
	p := layout.Params{Axis: o.Axis, Log: o.Log, Masked: masked, Scale: o.Scale, Causal: o.Causal, Offset: o.Offset}
	if p.Scale == 0 {
		p.Scale = 1
	}
	return p
}

func resolve(t Dtype, shape []int, mask *Mask, o Options) (*layout.View, DevicePtr, error) {
	if !t.valid() {
		return nil, 0, fmt.Errorf("hip: unknown dtype %d", int(t))
	}
	var maskShape []int
	var ptr DevicePtr
	if mask != nil {
		maskShape, ptr = mask.Shape, mask.Ptr
		if maskShape == nil {
			maskShape = []int{}
		}
	}
	v, err := layout.Resolve(o.params(mask != nil), shape, maskShape)
	if err != nil {
		return nil, 0, err
	}
	return v, ptr, nil
}

// Forward computes y = softmax(x) (or log-softmax) over the shape, for x and
// y device buffers of dtype t holding the shape's elements row-major. mask
// is nil for no mask. It returns when y is written.
func (d *Device) Forward(t Dtype, shape []int, x, y DevicePtr, mask *Mask, o Options) error {
	v, mp, err := resolve(t, shape, mask, o)
	if err == nil {
		err = nonNull(v, mp, []string{"x", "y"}, x, y)
	}
	if err != nil {
		return err
	}
	return d.do(func() error { return d.run(&call{dt: t, v: v, bufs: []DevicePtr{x, y}, mask: mp}) })
}

// Backward computes dx, the gradient with respect to x, from the forward
// output y and the incoming gradient dy, with the same options and mask as
// the forward call.
func (d *Device) Backward(t Dtype, shape []int, y, dy, dx DevicePtr, mask *Mask, o Options) error {
	v, mp, err := resolve(t, shape, mask, o)
	if err == nil {
		err = nonNull(v, mp, []string{"y", "dy", "dx"}, y, dy, dx)
	}
	if err != nil {
		return err
	}
	return d.do(func() error { return d.run(&call{dt: t, v: v, bwd: true, bufs: []DevicePtr{y, dy, dx}, mask: mp}) })
}

// nonNull rejects a null device pointer for a problem with elements: a
// kernel that reads address 0 leaves a sticky error that poisons the context
// for every later call.
func nonNull(v *layout.View, mask DevicePtr, names []string, ptrs ...DevicePtr) error {
	if v.Len() == 0 {
		return nil
	}
	for i, p := range ptrs {
		if p == 0 {
			return fmt.Errorf("hip: %s is a null device pointer", names[i])
		}
	}
	if v.Masked && v.MaskLen() > 0 && mask == 0 {
		return fmt.Errorf("hip: mask.Ptr is a null device pointer")
	}
	return nil
}
