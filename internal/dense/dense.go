// Package dense turns Gorgonia values into the flat row-major buffers the
// backends take, checking types and never writing to a caller's tensor.
package dense

import (
	"fmt"

	"gorgonia.org/tensor"
)

// Floats returns v as a *tensor.Dense of Float32 or Float64 and its data in
// row-major order ([]float32 or []float64). A strided view is copied first;
// otherwise the slice aliases the tensor. name says which argument v is.
func Floats(name string, v any) (*tensor.Dense, any, error) {
	t, err := denseOf(name, v)
	if err != nil {
		return nil, nil, err
	}
	if t.Dtype() != tensor.Float32 && t.Dtype() != tensor.Float64 {
		return nil, nil, fmt.Errorf("softmax: %s has dtype %v; want Float32 or Float64", name, t.Dtype())
	}
	if t.Shape().IsScalar() {
		return nil, nil, fmt.Errorf("softmax: %s is a scalar; softmax needs rank >= 1", name)
	}
	t = contiguous(t)
	return t, data(t), nil
}

// Mask returns v as a Bool *tensor.Dense and its data in row-major order.
func Mask(v any) (*tensor.Dense, []bool, error) {
	t, err := denseOf("mask", v)
	if err != nil {
		return nil, nil, err
	}
	if t.Dtype() != tensor.Bool {
		return nil, nil, fmt.Errorf("softmax: mask has dtype %v; want Bool (true keeps an element)", t.Dtype())
	}
	if t.Shape().IsScalar() {
		return nil, nil, fmt.Errorf("softmax: mask is a scalar; it must have x's rank")
	}
	t = contiguous(t)
	return t, data(t).([]bool), nil
}

// Output returns a row-major buffer for a result of x's shape and dtype: the
// data of prealloc when it is a contiguous *tensor.Dense of that shape and
// dtype, or of a new tensor otherwise.
func Output(prealloc any, like *tensor.Dense) (*tensor.Dense, any) {
	if p, ok := prealloc.(*tensor.Dense); ok && p != nil && p.Dtype() == like.Dtype() &&
		p.Shape().Eq(like.Shape()) && !p.RequiresIterator() && !p.IsMaterializable() {
		return p, data(p)
	}
	n := like.Shape().TotalSize()
	var backing any
	switch like.Dtype() {
	case tensor.Float32:
		backing = make([]float32, n)
	default:
		backing = make([]float64, n)
	}
	out := tensor.New(tensor.WithShape(like.Shape().Clone()...), tensor.WithBacking(backing))
	return out, backing
}

// Overlap reports whether two tensors share any memory (an output that
// aliases an input would overwrite it).
func Overlap(a, b *tensor.Dense) bool {
	if a == nil || b == nil || a.MemSize() == 0 || b.MemSize() == 0 {
		return false
	}
	a0, b0 := a.Uintptr(), b.Uintptr()
	return a0 < b0+b.MemSize() && b0 < a0+a.MemSize()
}

// data is t's flat data, read through the tensor's typed accessors rather
// than Dense.Data. gorgonia.org/tensor v0.9.24's Data rebuilds the slice
// from a uintptr: a tensor that its caller does not use after the call can
// be collected in between, and the garbage collector then finds a pointer
// to freed memory ("found bad pointer in Go heap"; reproduced with the
// tensor package alone, 16 goroutines, Go 1.26). The typed accessors
// reinterpret the backing slice itself, so the array stays reachable, and
// they return an empty slice for a shape with a 0 dimension, where Data
// panics.
func data(t *tensor.Dense) any {
	switch t.Dtype() {
	case tensor.Float32:
		return t.Float32s()
	case tensor.Float64:
		return t.Float64s()
	case tensor.Bool:
		return t.Bools()
	}
	return t.Data() // not reached: callers check the dtype first
}

// CheckInto says why dst cannot take the result of a call on like (the
// Into option), before any work: the result has like's shape and dtype.
// Where like is not a float tensor the call's own checks name it instead.
func CheckInto(dst, like *tensor.Dense) error {
	if like == nil || like.Dtype() != tensor.Float32 && like.Dtype() != tensor.Float64 {
		return nil
	}
	if !Alike(dst, like) {
		return fmt.Errorf("softmax: Into's tensor has shape %v and dtype %s; want %v and %v", dst.Shape(), dtypeName(dst), like.Shape(), like.Dtype())
	}
	return nil
}

// Alike says whether a and b have the same shape and dtype.
func Alike(a, b *tensor.Dense) bool { return a.Shape().Eq(b.Shape()) && a.Dtype() == b.Dtype() }

// dtypeName is t's dtype as text; a zero tensor.Dense has none, and its
// Dtype's String would panic.
func dtypeName(t *tensor.Dense) string {
	if t.Dtype().Type == nil {
		return "none"
	}
	return t.Dtype().String()
}

// Deliver puts result into prealloc when prealloc is a tensor other than
// result (a strided view, say), and returns the value to hand back.
func Deliver(prealloc any, result *tensor.Dense) (*tensor.Dense, error) {
	p, ok := prealloc.(*tensor.Dense)
	if !ok || p == nil || p == result {
		return result, nil
	}
	if !Alike(p, result) {
		return nil, fmt.Errorf("softmax: preallocated output has shape %v and dtype %s; want %v and %v", p.Shape(), dtypeName(p), result.Shape(), result.Dtype())
	}
	if err := tensor.Copy(p, result); err != nil {
		return nil, fmt.Errorf("softmax: copying into the preallocated output: %w", err)
	}
	return p, nil
}

func denseOf(name string, v any) (*tensor.Dense, error) {
	t, ok := v.(*tensor.Dense)
	if !ok || t == nil {
		return nil, fmt.Errorf("softmax: %s is %T; want a *tensor.Dense", name, v)
	}
	if t.Dtype().Type == nil {
		return nil, fmt.Errorf("softmax: %s is an empty *tensor.Dense (no dtype); build it with tensor.New", name)
	}
	return t, nil
}

func contiguous(t *tensor.Dense) *tensor.Dense {
	if t.RequiresIterator() || t.IsMaterializable() {
		return t.Materialize().(*tensor.Dense)
	}
	return t
}
