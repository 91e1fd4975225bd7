package cuda

// This file has no build tag, so CI tests the mask addressing without a
// GPU (maskdims_test.go).

import "github.com/gosoftmax/softmax/internal/layout"

// maskDims is the mask addressing as the kernels take it: the outer index
// over up to 4 (size, stride) dimensions and the inner index over up to 4,
// innermost first.
type maskDims struct {
	outerSize, outerStride [4]int64
	innerSize, innerStride [4]int64
}

// mergeDims drops x's size-1 dimensions in [lo, hi) and merges neighbours
// that the mask addresses as one (both broadcast, or contiguous), innermost
// first. ok is false when more than max dimensions remain.
func mergeDims(shape, strides []int, lo, hi, max int) (size, stride []int64, ok bool) {
	for d := hi - 1; d >= lo; d-- {
		s, t := int64(shape[d]), int64(strides[d])
		if s == 1 {
			continue
		}
		if n := len(size); n > 0 && t == stride[n-1]*size[n-1] {
			size[n-1] *= s
			continue
		}
		size, stride = append(size, s), append(stride, t)
	}
	return size, stride, len(size) <= max
}

func newMaskDims(v *layout.View) (maskDims, bool) {
	var m maskDims
	for i := range m.outerSize {
		m.outerSize[i] = 1
	}
	for i := range m.innerSize {
		m.innerSize[i] = 1
	}
	if !v.Masked {
		return m, true
	}
	st := v.MaskStrides()
	os, ot, ok1 := mergeDims(v.Shape, st, 0, v.Axis, 4)
	is, it, ok2 := mergeDims(v.Shape, st, v.Axis+1, len(v.Shape), 4)
	if !ok1 || !ok2 {
		return m, false
	}
	copy(m.outerSize[:], os)
	copy(m.outerStride[:], ot)
	copy(m.innerSize[:], is)
	copy(m.innerStride[:], it)
	return m, true
}

// supported reports whether the kernels can address v's mask.
func supported(v *layout.View) bool {
	_, ok := newMaskDims(v)
	return ok
}

// offset is the mask offset of element (o, k, i) as the kernels compute it
// (View::mask_row and View::mask_inner in cukernels/softmax.cuh).
func (m maskDims) offset(o, k, i int64, kStride int64) int64 {
	off := k * kStride
	for d := range m.outerSize {
		off += o % m.outerSize[d] * m.outerStride[d]
		o /= m.outerSize[d]
	}
	for d := range m.innerSize {
		off += i % m.innerSize[d] * m.innerStride[d]
		i /= m.innerSize[d]
	}
	return off
}
