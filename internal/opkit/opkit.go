// Package opkit holds what the forward, backward and second-order ops share
// as Gorgonia ops: their type signature, hashing and input checks. Each op
// keeps its Gorgonia methods as one-liners over these.
package opkit

import (
	"fmt"
	"hash"
	"hash/fnv"

	"github.com/chewxy/hm"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Signature is an op's inputs: some float tensors of one type, then the
// Bool mask when Masked. The output has the floats' type.
type Signature struct {
	Floats int
	Masked bool
}

// Arity is the number of inputs.
func (s Signature) Arity() int {
	if s.Masked {
		return s.Floats + 1
	}
	return s.Floats
}

// Type is a -> ... -> a, with the mask's own variable before the result.
// The mask's variable must not be 'b': Gorgonia's type inference uses 'b'
// for the result.
func (s Signature) Type() hm.Type {
	a := hm.TypeVariable('a')
	ts := make([]hm.Type, 0, s.Arity()+1)
	for range s.Floats {
		ts = append(ts, a)
	}
	if s.Masked {
		ts = append(ts, hm.TypeVariable('m'))
	}
	return hm.NewFnType(append(ts, a)...)
}

// Check returns an error unless n inputs were given.
func (s Signature) Check(op fmt.Stringer, n int) error {
	if n != s.Arity() {
		return fmt.Errorf("softmax: %v takes %d inputs, got %d", op, s.Arity(), n)
	}
	return nil
}

// Shapes checks the input count and returns the inputs' shapes.
func (s Signature) Shapes(op fmt.Stringer, inputs []gorgonia.DimSizer) ([]tensor.Shape, error) {
	if err := s.Check(op, len(inputs)); err != nil {
		return nil, err
	}
	shapes := make([]tensor.Shape, len(inputs))
	for i, in := range inputs {
		sh, ok := in.(tensor.Shape)
		if !ok {
			return nil, fmt.Errorf("softmax: input %d of %v has no known shape (%T)", i, op, in)
		}
		shapes[i] = sh
	}
	return shapes, nil
}

// WriteHash writes the op's full name, which names every parameter, so ops
// that differ in any parameter never hash alike.
func WriteHash(h hash.Hash, op fmt.Stringer) { fmt.Fprintf(h, "gosoftmax.%v", op) }

// Hashcode is the FNV-1a hash of what WriteHash writes.
func Hashcode(op fmt.Stringer) uint32 {
	h := fnv.New32a()
	WriteHash(h, op)
	return h.Sum32()
}
