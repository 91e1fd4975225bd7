// Package grad is the backward softmax operator as a Gorgonia op: given the
// forward output y and the incoming gradient dy (and the mask, when the
// forward op was masked) it computes the gradient with respect to x:
//
//	softmax:     dx = scale * y * (dy - sum(dy*y))
//	log-softmax: dx = scale * (dy - exp(y) * sum(dy))
//
// with sums along the axis over kept elements; masked elements get 0.
//
// The backward op is itself differentiable with respect to y and dy (see
// SymDiff), so graphs can take gradients of gradients. Gorgonia v0.9.18's
// Grad will not differentiate a graph twice (it skips nodes that already
// have a gradient); build the first gradient by hand instead, with the
// forward node's SymDiff:
//
//	dx, err := y.Op().(gorgonia.SDOp).SymDiff(gorgonia.Nodes{x}, y, dy)
//	loss2 := ... dx[0] ...
//	gorgonia.Grad(loss2, x)
package grad

import (
	"fmt"
	"hash"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gosoftmax/softmax/internal/compute"
	"github.com/gosoftmax/softmax/internal/layout"
	"github.com/gosoftmax/softmax/internal/opkit"
)

// Op is the backward of the forward op with the same parameters. Its inputs
// are y, dy, and the mask when Masked.
type Op struct{ p layout.Params }

// New returns the backward op for p.
func New(p layout.Params) (*Op, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	return &Op{p: p}, nil
}

// Params returns the op's parameters.
func (o *Op) Params() layout.Params { return o.p }

func (o *Op) sig() opkit.Signature  { return opkit.Signature{Floats: 2, Masked: o.p.Masked} }
func (o *Op) Arity() int            { return o.sig().Arity() }
func (o *Op) Type() hm.Type         { return o.sig().Type() }
func (o *Op) ReturnsPtr() bool      { return false }
func (o *Op) CallsExtern() bool     { return false }
func (o *Op) OverwritesInput() int  { return -1 }
func (o *Op) String() string        { return "grad." + o.p.String() }
func (o *Op) WriteHash(h hash.Hash) { opkit.WriteHash(h, o) }
func (o *Op) Hashcode() uint32      { return opkit.Hashcode(o) }

// InferShape checks that y and dy agree and the mask broadcasts, and
// returns y's shape.
func (o *Op) InferShape(inputs ...gorgonia.DimSizer) (tensor.Shape, error) {
	shapes, err := o.sig().Shapes(o, inputs)
	if err != nil {
		return nil, err
	}
	if !shapes[0].Eq(shapes[1]) {
		return nil, fmt.Errorf("softmax: dy has shape %v; want y's %v", shapes[1], shapes[0])
	}
	var maskShape []int
	if o.p.Masked {
		maskShape = shapes[2]
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
		mask = inputs[2]
	}
	return compute.Backward(o.p, prealloc, inputs[0], inputs[1], mask)
}
