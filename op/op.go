// Package op is the forward softmax operator as a Gorgonia op: one type
// covers softmax and log-softmax, masked or not, any axis, scale and causal
// masking. Most users call the root package's SoftMax, LogSoftMax,
// MaskedSoftMax and MaskedLogSoftMax, which build it.
package op

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gosoftmax/softmax/grad"
	"github.com/gosoftmax/softmax/internal/compute"
	"github.com/gosoftmax/softmax/internal/layout"
	"github.com/gosoftmax/softmax/internal/opkit"
)

// Op computes softmax(Scale*x) (or its logarithm) along Axis. Its inputs
// are x, and the Bool mask when Masked.
type Op struct{ p layout.Params }

// New returns the op for p, or an error when p is invalid.
func New(p layout.Params) (*Op, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	return &Op{p: p}, nil
}

// Params returns the op's parameters.
func (o *Op) Params() layout.Params { return o.p }

func (o *Op) sig() opkit.Signature  { return opkit.Signature{Floats: 1, Masked: o.p.Masked} }
func (o *Op) Arity() int            { return o.sig().Arity() }
func (o *Op) Type() hm.Type         { return o.sig().Type() }
func (o *Op) ReturnsPtr() bool      { return false }
func (o *Op) CallsExtern() bool     { return false }
func (o *Op) OverwritesInput() int  { return -1 }
func (o *Op) String() string        { return o.p.String() }
func (o *Op) WriteHash(h hash.Hash) { opkit.WriteHash(h, o) }
func (o *Op) Hashcode() uint32      { return opkit.Hashcode(o) }

// InferShape checks that the mask broadcasts to x and returns x's shape.
func (o *Op) InferShape(inputs ...gorgonia.DimSizer) (tensor.Shape, error) {
	shapes, err := o.sig().Shapes(o, inputs)
	if err != nil {
		return nil, err
	}
	var maskShape []int
	if o.p.Masked {
		maskShape = shapes[1]
	}
	if _, err := layout.Resolve(o.p, shapes[0], maskShape); err != nil {
		return nil, err
	}
	return shapes[0].Clone(), nil
}

func (o *Op) Do(inputs ...gorgonia.Value) (gorgonia.Value, error) {
	return o.UsePreallocDo(nil, inputs...)
}

func (o *Op) UsePreallocDo(prealloc gorgonia.Value, inputs ...gorgonia.Value) (gorgonia.Value, error) {
	if err := o.sig().Check(o, len(inputs)); err != nil {
		return nil, err
	}
	var mask gorgonia.Value
	if o.p.Masked {
		mask = inputs[1]
	}
	return compute.Forward(o.p, prealloc, inputs[0], mask)
}

// DiffWRT says the gradient flows to x only; the mask is not differentiable.
func (o *Op) DiffWRT(inputs int) []bool {
	d := make([]bool, inputs)
	if inputs > 0 {
		d[0] = true
	}
	return d
}

// SymDiff builds the backward node for the TapeMachine: dx from y and dy.
func (o *Op) SymDiff(inputs gorgonia.Nodes, output, g *gorgonia.Node) (gorgonia.Nodes, error) {
	if err := o.sig().Check(o, len(inputs)); err != nil {
		return nil, err
	}
	b, err := grad.New(o.p)
	if err != nil {
		return nil, err
	}
	args := gorgonia.Nodes{output, g}
	if o.p.Masked {
		args = append(args, inputs[1])
	}
	dx, err := gorgonia.ApplyOp(b, args...)
	if err != nil {
		return nil, err
	}
	out := make(gorgonia.Nodes, len(inputs))
	out[0] = dx
	return out, nil
}

// DoDiff computes dx for the LispMachine and adds it to x's gradient.
func (o *Op) DoDiff(ctx gorgonia.ExecutionContext, inputs gorgonia.Nodes, output *gorgonia.Node) error {
	if err := o.sig().Check(o, len(inputs)); err != nil {
		return err
	}
	dy, err := output.Grad()
	if err != nil {
		return fmt.Errorf("softmax: gradient of %v: %w", o.p, err)
	}
	var mask gorgonia.Value
	if o.p.Masked {
		mask = inputs[1].Value()
	}
	dx, err := compute.Backward(o.p, nil, output.Value(), dy, mask)
	if err != nil {
		return err
	}
	acc, err := inputs[0].Grad()
	if err != nil {
		return fmt.Errorf("softmax: gradient of x: %w", err)
	}
	accT, ok := acc.(tensor.Tensor)
	if !ok {
		return fmt.Errorf("softmax: gradient of x is %T; want a tensor", acc)
	}
	if _, err := tensor.Add(accT, dx, tensor.UseUnsafe()); err != nil {
		return fmt.Errorf("softmax: accumulating the gradient of x: %w", err)
	}
	return nil
}
