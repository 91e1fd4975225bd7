// Package cpu holds the pure-Go softmax kernels and the CPU backend. The
// kernels are written once, generic over float32 and float64; float32 uses a
// polynomial exp (exp32) and accumulates sums in float64.
package cpu

import (
	"fmt"

	"github.com/gosoftmax/softmax/internal/backend"
	"github.com/gosoftmax/softmax/internal/layout"
)

func init() { backend.SetCPU(Backend{}) }

// Backend runs the kernels on the calling goroutine plus up to GOMAXPROCS-1
// helpers.
type Backend struct{}

func (Backend) Name() string { return "cpu" }

func (Backend) Forward(v *layout.View, x, y any, mask []bool) error {
	if err := checkMask(v, mask); err != nil {
		return err
	}
	switch x := x.(type) {
	case []float32:
		y, err := same(v, "y", x, y)
		if err != nil {
			return err
		}
		Forward(v, x, y, mask)
	case []float64:
		y, err := same(v, "y", x, y)
		if err != nil {
			return err
		}
		Forward(v, x, y, mask)
	default:
		return fmt.Errorf("softmax: x has element type %T; want []float32 or []float64", x)
	}
	return nil
}

func (Backend) Backward(v *layout.View, y, dy, dx any, mask []bool) error {
	if err := checkMask(v, mask); err != nil {
		return err
	}
	switch y := y.(type) {
	case []float32:
		return backward(v, y, dy, dx, mask)
	case []float64:
		return backward(v, y, dy, dx, mask)
	default:
		return fmt.Errorf("softmax: y has element type %T; want []float32 or []float64", y)
	}
}

func backward[T float](v *layout.View, y []T, dy, dx any, mask []bool) error {
	g, err := same(v, "dy", y, dy)
	if err != nil {
		return err
	}
	out, err := same(v, "dx", y, dx)
	if err != nil {
		return err
	}
	Backward(v, y, g, out, mask)
	return nil
}

// same checks that other is a slice of ref's type and both have v.Len()
// elements.
func same[T float](v *layout.View, name string, ref []T, other any) ([]T, error) {
	o, ok := other.([]T)
	if !ok {
		return nil, fmt.Errorf("softmax: %s has element type %T; want %T", name, other, ref)
	}
	if len(ref) != v.Len() || len(o) != v.Len() {
		return nil, fmt.Errorf("softmax: %s has %d elements and its input %d; shape %v needs %d", name, len(o), len(ref), v.Shape, v.Len())
	}
	return o, nil
}

func checkMask(v *layout.View, mask []bool) error {
	switch {
	case !v.Masked && mask != nil:
		return fmt.Errorf("softmax: mask given to an unmasked op")
	case v.Masked && len(mask) != v.MaskLen():
		return fmt.Errorf("softmax: mask has %d elements; shape %v needs %d", len(mask), v.MaskShape, v.MaskLen())
	}
	return nil
}
