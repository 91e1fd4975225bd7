package gpu

import (
	"math/rand/v2"
	"testing"

	"github.com/gosoftmax/softmax/internal/layout"
	"github.com/gosoftmax/softmax/internal/reference"
)

// TestMaskDims checks that the merged (size, stride) dimensions the
// kernels take address the same mask element as the layout view, for
// random shapes, axes and broadcast masks. It needs no GPU.
func TestMaskDims(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for range 2000 {
		p := reference.Random(rng, true)
		v, err := layout.Resolve(layout.Params{Axis: p.UserAxis, Masked: true, Scale: 1}, p.Shape, p.MaskShape)
		if err != nil {
			t.Fatal(err)
		}
		md, ok := NewMaskDims(v)
		if !ok {
			t.Fatalf("shape %v mask %v axis %d: more than 4 merged dimensions", p.Shape, p.MaskShape, v.Axis)
		}
		for o := range min(v.Outer, 50) {
			for k := range min(v.N, 5) {
				for i := range min(v.Inner, 50) {
					want := v.MaskOuter(o) + k*v.MaskStride + v.MaskInner(i)
					if got := md.Offset(int64(o), int64(k), int64(i), int64(v.MaskStride)); got != int64(want) {
						t.Fatalf("shape %v mask %v axis %d: element (%d, %d, %d) at %d, want %d", p.Shape, p.MaskShape, v.Axis, o, k, i, got, want)
					}
				}
			}
		}
	}
}

// TestMaskDimsMerge checks the merging itself: broadcast runs and
// contiguous runs become one dimension, size-1 dimensions vanish, and the
// outermost has size 0 (no division).
func TestMaskDimsMerge(t *testing.T) {
	for _, c := range []struct {
		shape, mask []int
		axis        int
		outer       [4]int64
	}{
		{[]int{2, 3, 4, 5}, []int{2, 3, 4, 5}, 3, [4]int64{0, 1, 1, 1}},
		{[]int{2, 3, 4, 5}, []int{2, 1, 4, 5}, 3, [4]int64{4, 3, 0, 1}},
		{[]int{2, 3, 4, 5}, []int{1, 1, 4, 5}, 3, [4]int64{4, 0, 1, 1}},
		{[]int{2, 1, 4, 5}, []int{2, 1, 1, 5}, 3, [4]int64{4, 0, 1, 1}},
	} {
		v, err := layout.Resolve(layout.Params{Axis: c.axis, Masked: true, Scale: 1}, c.shape, c.mask)
		if err != nil {
			t.Fatal(err)
		}
		md, ok := NewMaskDims(v)
		if !ok || md.OuterSize != c.outer {
			t.Errorf("shape %v mask %v: outer sizes %v (ok %v), want %v", c.shape, c.mask, md.OuterSize, ok, c.outer)
		}
	}
}

// TestMaskRowsAligned: a mask's rows start on a pack boundary when every
// row stride is a multiple of the pack, broadcast rows included, and only
// when the softmax axis is the mask's contiguous one.
func TestMaskRowsAligned(t *testing.T) {
	for _, c := range []struct {
		shape, mask []int
		axis        int
		want        bool
	}{
		{[]int{4, 8}, []int{4, 8}, 1, true},
		{[]int{4, 6}, []int{4, 6}, 1, false},
		{[]int{4, 6}, []int{1, 6}, 1, true},
		{[]int{2, 3, 8}, []int{2, 1, 8}, 2, true},
		{[]int{2, 3, 6}, []int{2, 1, 6}, 2, false},
		{[]int{4, 8}, []int{4, 8}, 0, false},
	} {
		v, err := layout.Resolve(layout.Params{Axis: c.axis, Masked: true, Scale: 1}, c.shape, c.mask)
		if err != nil {
			t.Fatal(err)
		}
		if got := MaskRowsAligned(v, 4); got != c.want {
			t.Errorf("shape %v mask %v axis %d: aligned %v, want %v", c.shape, c.mask, c.axis, got, c.want)
		}
	}
}
