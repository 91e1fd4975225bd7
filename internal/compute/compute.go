// Package compute runs one softmax forward or backward on Gorgonia values:
// it checks them, resolves the view, picks a backend and fills the output.
// The graph ops (op/, grad/) and the eager API all come through here.
package compute

import (
	"fmt"

	"gorgonia.org/tensor"

	"github.com/gosoftmax/softmax/internal/backend"
	"github.com/gosoftmax/softmax/internal/cpu" // also installs the CPU backend
	"github.com/gosoftmax/softmax/internal/dense"
	"github.com/gosoftmax/softmax/internal/layout"
)

// Forward computes softmax (or log-softmax) of x under p. mask is nil unless
// p.Masked. The result goes into prealloc when it is a usable tensor.
func Forward(p layout.Params, prealloc, x, mask any) (*tensor.Dense, error) {
	xt, xd, err := dense.Floats("x", x)
	if err != nil {
		return nil, err
	}
	v, md, err := resolve(p, xt, mask)
	if err != nil {
		return nil, err
	}
	out, yd := dense.Output(prealloc, xt)
	b, err := backend.Select(v.Len(), int(xt.Dtype().Size()))
	if err != nil {
		return nil, err
	}
	if err := b.Forward(v, xd, yd, md); err != nil {
		return nil, err
	}
	return dense.Deliver(prealloc, out)
}

// Backward computes the gradient with respect to x from the forward output
// y and the incoming gradient dy.
func Backward(p layout.Params, prealloc, y, dy, mask any) (*tensor.Dense, error) {
	yt, yd, err := dense.Floats("y", y)
	if err != nil {
		return nil, err
	}
	gt, gd, err := dense.Floats("dy", dy)
	if err != nil {
		return nil, err
	}
	if !dense.Alike(gt, yt) {
		return nil, fmt.Errorf("softmax: dy has shape %v and dtype %v; want y's %v and %v", gt.Shape(), gt.Dtype(), yt.Shape(), yt.Dtype())
	}
	v, md, err := resolve(p, yt, mask)
	if err != nil {
		return nil, err
	}
	out, dxd := dense.Output(prealloc, yt)
	b, err := backend.Select(v.Len(), int(yt.Dtype().Size()))
	if err != nil {
		return nil, err
	}
	if err := b.Backward(v, yd, gd, dxd, md); err != nil {
		return nil, err
	}
	return dense.Deliver(prealloc, out)
}

// resolve checks the mask and, for float32 data t, the scale, and resolves
// the view of t's shape.
func resolve(p layout.Params, t *tensor.Dense, mask any) (*layout.View, []bool, error) {
	if t.Dtype() == tensor.Float32 {
		if err := layout.CheckScale32(p.Scale); err != nil {
			return nil, nil, err
		}
	}
	shape := t.Shape()
	if !p.Masked {
		if mask != nil {
			return nil, nil, fmt.Errorf("softmax: mask given to an unmasked op")
		}
		v, err := layout.Resolve(p, shape, nil)
		return v, nil, err
	}
	mt, md, err := dense.Mask(mask)
	if err != nil {
		return nil, nil, err
	}
	v, err := layout.Resolve(p, shape, mt.Shape())
	return v, md, err
}

// SecondOrder computes the derivative of L = sum(h * backward(y, g)) with
// respect to g (wrtY false) or y (wrtY true), on the CPU.
func SecondOrder(p layout.Params, y, g, h, mask any, wrtY bool) (*tensor.Dense, error) {
	yt, yd, err := dense.Floats("y", y)
	if err != nil {
		return nil, err
	}
	ins := []any{yd}
	for _, in := range []struct {
		name string
		v    any
	}{{"dy", g}, {"gradient of dx", h}} {
		t, d, err := dense.Floats(in.name, in.v)
		if err != nil {
			return nil, err
		}
		if !t.Shape().Eq(yt.Shape()) || t.Dtype() != yt.Dtype() {
			return nil, fmt.Errorf("softmax: %s has shape %v and dtype %v; want y's %v and %v", in.name, t.Shape(), t.Dtype(), yt.Shape(), yt.Dtype())
		}
		ins = append(ins, d)
	}
	v, md, err := resolve(p, yt, mask)
	if err != nil {
		return nil, err
	}
	out, od := dense.Output(nil, yt)
	switch od := od.(type) {
	case []float32:
		cpu.SecondOrder(v, ins[0].([]float32), ins[1].([]float32), ins[2].([]float32), od, md, wrtY)
	case []float64:
		cpu.SecondOrder(v, ins[0].([]float64), ins[1].([]float64), ins[2].([]float64), od, md, wrtY)
	}
	return out, nil
}
