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

// DiffWRT: the backward op is differentiable with respect to y and dy, not
// the mask, so graphs can take gradients of gradients.
func (o *Op) DiffWRT(inputs int) []bool {
	d := make([]bool, inputs)
	for i := range min(inputs, 2) {
		d[i] = true
	}
	return d
}

// SymDiff returns the gradients with respect to y and dy given h, the
// gradient arriving at dx (see secondOp).
func (o *Op) SymDiff(inputs gorgonia.Nodes, output, h *gorgonia.Node) (gorgonia.Nodes, error) {
	if err := o.sig().Check(o, len(inputs)); err != nil {
		return nil, err
	}
	out := make(gorgonia.Nodes, len(inputs))
	for i, wrtY := range []bool{true, false} {
		args := gorgonia.Nodes{inputs[0], inputs[1], h}
		if o.p.Masked {
			args = append(args, inputs[2])
		}
		n, err := gorgonia.ApplyOp(&secondOp{p: o.p, wrtY: wrtY}, args...)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// secondOp is the derivative of the backward op: inputs y, dy, h (the
// gradient arriving at dx) and the mask when masked; output dL/dy or
// dL/ddy. It runs on the CPU and is not differentiable again.
type secondOp struct {
	p    layout.Params
	wrtY bool
}

func (o *secondOp) sig() opkit.Signature  { return opkit.Signature{Floats: 3, Masked: o.p.Masked} }
func (o *secondOp) Arity() int            { return o.sig().Arity() }
func (o *secondOp) Type() hm.Type         { return o.sig().Type() }
func (o *secondOp) ReturnsPtr() bool      { return false }
func (o *secondOp) CallsExtern() bool     { return false }
func (o *secondOp) OverwritesInput() int  { return -1 }
func (o *secondOp) WriteHash(h hash.Hash) { opkit.WriteHash(h, o) }
func (o *secondOp) Hashcode() uint32      { return opkit.Hashcode(o) }

func (o *secondOp) String() string {
	wrt := "dy"
	if o.wrtY {
		wrt = "y"
	}
	return fmt.Sprintf("grad2.%v/d%s", o.p, wrt)
}

func (o *secondOp) InferShape(inputs ...gorgonia.DimSizer) (tensor.Shape, error) {
	shapes, err := o.sig().Shapes(o, inputs)
	if err != nil {
		return nil, err
	}
	return shapes[0].Clone(), nil
}

func (o *secondOp) Do(inputs ...gorgonia.Value) (gorgonia.Value, error) {
	if err := o.sig().Check(o, len(inputs)); err != nil {
		return nil, err
	}
	var mask gorgonia.Value
	if o.p.Masked {
		mask = inputs[3]
	}
	return compute.SecondOrder(o.p, inputs[0], inputs[1], inputs[2], mask, o.wrtY)
}
