//go:build hip

package hip

import (
	"github.com/gosoftmax/softmax/internal/gpu"
	"github.com/gosoftmax/softmax/internal/layout"
)

// Dtype is the element type of device buffers.
type Dtype = gpu.Dtype

const (
	Float32  = gpu.Float32  // float32
	Float64  = gpu.Float64  // float64
	Float16  = gpu.Float16  // IEEE 754 half precision, stored as uint16 bits
	BFloat16 = gpu.BFloat16 // bfloat16, stored as uint16 bits
)

// Options are a softmax's parameters: Axis (0 is the FIRST axis, -1 the
// last), Log, Scale (0 means 1), Causal and Offset.
type Options = gpu.Options

// Mask is a device buffer of one byte per element (non-zero keeps),
// row-major over Shape, which has x's rank with each dimension equal to
// x's or 1 (broadcast).
type Mask struct {
	Ptr   DevicePtr
	Shape []int
}

func resolve(t Dtype, shape []int, mask *Mask, o Options) (*layout.View, DevicePtr, error) {
	if mask == nil {
		v, err := gpu.Resolve("hip", t, shape, nil, false, o)
		return v, 0, err
	}
	v, err := gpu.Resolve("hip", t, shape, mask.Shape, true, o)
	return v, mask.Ptr, err
}

// Forward computes y = softmax(x) (or log-softmax) over the shape, for x and
// y device buffers of dtype t holding the shape's elements row-major. mask
// is nil for no mask. It returns when y is written.
func (d *Device) Forward(t Dtype, shape []int, x, y DevicePtr, mask *Mask, o Options) error {
	v, mp, err := resolve(t, shape, mask, o)
	if err == nil {
		err = gpu.NonNull("hip", v, mp, []string{"x", "y"}, x, y)
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
		err = gpu.NonNull("hip", v, mp, []string{"y", "dy", "dx"}, y, dy, dx)
	}
	if err != nil {
		return err
	}
	return d.do(func() error { return d.run(&call{dt: t, v: v, bwd: true, bufs: []DevicePtr{y, dy, dx}, mask: mp}) })
}
