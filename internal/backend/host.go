package backend

import (
	"fmt"

	"github.com/gosoftmax/softmax/internal/layout"
)

// Host is Backend's Forward and Backward for an accelerator that computes
// on host buffers, one function an element type (the cuda and hip
// packages). It checks the buffers' element types and lengths and the
// mask against the view, then hands the function the inputs and then the
// output: x, y forward; y, dy, dx backward. Empty problems call nothing.
type Host struct {
	Float32 func(v *layout.View, bwd bool, mask []bool, bufs ...[]float32) error
	Float64 func(v *layout.View, bwd bool, mask []bool, bufs ...[]float64) error
}

func (h Host) Forward(v *layout.View, x, y any, mask []bool) error {
	switch x := x.(type) {
	case []float32:
		yy, ok := y.([]float32)
		if !ok {
			return fmt.Errorf("softmax: y has element type %T; want []float32", y)
		}
		return hostCall(h.Float32, v, false, mask, x, yy)
	case []float64:
		yy, ok := y.([]float64)
		if !ok {
			return fmt.Errorf("softmax: y has element type %T; want []float64", y)
		}
		return hostCall(h.Float64, v, false, mask, x, yy)
	}
	return fmt.Errorf("softmax: x has element type %T; want []float32 or []float64", x)
}

func (h Host) Backward(v *layout.View, y, dy, dx any, mask []bool) error {
	switch y := y.(type) {
	case []float32:
		g, ok1 := dy.([]float32)
		o, ok2 := dx.([]float32)
		if !ok1 || !ok2 {
			return fmt.Errorf("softmax: dy, dx have element types %T, %T; want []float32", dy, dx)
		}
		return hostCall(h.Float32, v, true, mask, y, g, o)
	case []float64:
		g, ok1 := dy.([]float64)
		o, ok2 := dx.([]float64)
		if !ok1 || !ok2 {
			return fmt.Errorf("softmax: dy, dx have element types %T, %T; want []float64", dy, dx)
		}
		return hostCall(h.Float64, v, true, mask, y, g, o)
	}
	return fmt.Errorf("softmax: y has element type %T; want []float32 or []float64", y)
}

// hostCall checks bufs' lengths, the mask against v and, for float32, the
// scale (layout.CheckScale32), and runs f, unless the problem is empty.
func hostCall[T float32 | float64](f func(*layout.View, bool, []bool, ...[]T) error, v *layout.View, bwd bool,
	mask []bool, bufs ...[]T) error {
	for i, b := range bufs {
		if len(b) != v.Len() {
			return fmt.Errorf("softmax: buffer %d has %d elements; shape %v needs %d", i, len(b), v.Shape, v.Len())
		}
	}
	switch {
	case !v.Masked && mask != nil:
		return fmt.Errorf("softmax: mask given to an unmasked op")
	case v.Masked && len(mask) != v.MaskLen():
		return fmt.Errorf("softmax: mask has %d elements; shape %v needs %d", len(mask), v.MaskShape, v.MaskLen())
	}
	if _, ok := any(bufs[0]).([]float32); ok {
		if err := layout.CheckScale32(v.Scale); err != nil {
			return err
		}
	}
	if v.Len() == 0 {
		return nil
	}
	return f(v, bwd, mask, bufs...)
}
