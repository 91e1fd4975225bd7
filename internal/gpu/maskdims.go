package gpu

import "github.com/gosoftmax/softmax/internal/layout"

// MaskDims is the mask addressing as the kernels take it: the outer index
// over up to 4 (size, stride) dimensions and the inner index over up to 4,
// innermost first. The outermost merged outer dimension has size 0: the
// row index left for it is below its size, so the kernels take it without
// a division (tier 1 computes a row's mask offset once per row, and a
// division is about 20 instructions).
type MaskDims struct {
	OuterSize, OuterStride [4]int64
	InnerSize, InnerStride [4]int64
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

// NewMaskDims merges v's mask addressing into MaskDims; ok is false when
// more than 4 outer or 4 inner dimensions remain.
func NewMaskDims(v *layout.View) (m MaskDims, ok bool) {
	for i := range m.OuterSize {
		m.OuterSize[i] = 1
	}
	for i := range m.InnerSize {
		m.InnerSize[i] = 1
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
	copy(m.OuterSize[:], os)
	if len(os) > 0 {
		m.OuterSize[len(os)-1] = 0
	}
	copy(m.OuterStride[:], ot)
	copy(m.InnerSize[:], is)
	copy(m.InnerStride[:], it)
	return m, true
}

// MaskRowsAligned says whether every row of v's mask is a run of bytes
// (stride 1 along the softmax axis) that starts a multiple of align bytes
// from the mask's base: what the pipelined masked kernels need to copy a
// row's mask bytes in packs. The base's own alignment is the caller's.
func MaskRowsAligned(v *layout.View, align int64) bool {
	if !v.Masked || v.MaskStride != 1 || v.Inner != 1 {
		return false
	}
	m, ok := NewMaskDims(v)
	if !ok {
		return false
	}
	for d, size := range m.OuterSize {
		if size != 1 && m.OuterStride[d]%align != 0 {
			return false
		}
	}
	return true
}

// Supported reports whether the kernels can address v's mask.
func Supported(v *layout.View) bool {
	_, ok := NewMaskDims(v)
	return ok
}

// Offset is the mask offset of element (o, k, i) as the kernels compute it
// (View::mask_row and View::mask_inner in cukernels/softmax.cuh).
func (m MaskDims) Offset(o, k, i int64, kStride int64) int64 {
	off := k * kStride
	for d := range m.OuterSize {
		if m.OuterSize[d] == 0 {
			off += o * m.OuterStride[d]
			break
		}
		off += o % m.OuterSize[d] * m.OuterStride[d]
		o /= m.OuterSize[d]
	}
	for d := range m.InnerSize {
		off += i % m.InnerSize[d] * m.InnerStride[d]
		i /= m.InnerSize[d]
	}
	return off
}
