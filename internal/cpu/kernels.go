package cpu

import (
	"runtime"

	"github.com/gosoftmax/softmax/internal/layout"
)

// serialWork is the element count below which a call runs on one goroutine:
// starting goroutines costs more than the work.
const serialWork = 1 << 15

// tileWidth is how many neighbouring rows of a non-last axis are gathered
// into one contiguous tile, so that reading them is a run of short
// contiguous loads instead of a stride-Inner walk per row.
func tileWidth(v *layout.View) int {
	return max(min(v.Inner, 64, (1<<16)/max(v.N, 1)), min(v.Inner, 8))
}

// Forward computes softmax or log-softmax of x into y over the view.
func Forward[T float](v *layout.View, x, y []T, mask []bool) {
	if v.Len() == 0 {
		return
	}
	if v.Inner == 1 {
		forwardRows(v, x, y, mask)
		return
	}
	forwardTiles(v, x, y, mask)
}

// newRow describes outer row o of a last-axis view.
func newRow[T float](v *layout.View, x, y []T, mask []bool, o int) row[T] {
	r := row[T]{x: x[o*v.N : (o+1)*v.N], y: y[o*v.N : (o+1)*v.N], kept: v.Kept(o), scale: v.Scale, log: v.Log}
	if mask != nil {
		r.mask, r.ms = mask[v.MaskOuter(o):], v.MaskStride
	}
	return r
}

func forwardRows[T float](v *layout.View, x, y []T, mask []bool) {
	if v.Outer < runtime.GOMAXPROCS(0) && v.N >= 4*block {
		for o := range v.Outer { // few long rows: split each row
			r := newRow(v, x, y, mask, o)
			r.forwardSplit()
		}
		return
	}
	forEach(v.Outer, rowsPerWorker(v), func(lo, hi int) {
		for o := lo; o < hi; o++ {
			r := newRow(v, x, y, mask, o)
			r.forward()
		}
	})
}

func rowsPerWorker(v *layout.View) int { return max(1, serialWork/max(v.N, 1)) }

// forwardTiles handles a non-last axis: width neighbouring rows are gathered
// into a tile, computed as contiguous rows and scattered back.
func forwardTiles[T float](v *layout.View, x, y []T, mask []bool) {
	w := tileWidth(v)
	perOuter := (v.Inner + w - 1) / w
	forEach(v.Outer*perOuter, max(1, serialWork/(v.N*w)), func(lo, hi int) {
		t := newTile[T](v, w, mask != nil)
		for item := lo; item < hi; item++ {
			o, i0 := item/perOuter, (item%perOuter)*w
			width := min(w, v.Inner-i0)
			t.gather(v, x, mask, o, i0, width)
			for c := range width {
				r := row[T]{x: t.a[c*v.N : (c+1)*v.N], y: t.b[c*v.N : (c+1)*v.N], kept: v.N, scale: v.Scale, log: v.Log}
				if mask != nil {
					r.mask, r.ms = t.mask[c*v.N:(c+1)*v.N], 1
				}
				r.forward()
			}
			t.scatter(v, y, o, i0, width)
		}
	})
}

// tile holds width rows of a non-last axis, each contiguous: a and c are
// inputs (x, or y and dy), b the output.
type tile[T float] struct {
	a, b, c []T
	mask    []bool
}

func newTile[T float](v *layout.View, w int, masked bool) *tile[T] {
	t := &tile[T]{a: make([]T, w*v.N), b: make([]T, w*v.N)}
	if masked {
		t.mask = make([]bool, w*v.N)
	}
	return t
}

// gather copies rows (o, :, i0..i0+width) of src into t.a (and of src2 into
// t.c when given), and their mask.
func (t *tile[T]) gather(v *layout.View, src []T, mask []bool, o, i0, width int, src2 ...[]T) {
	n, inner := v.N, v.Inner
	transpose(t.a, src, n, inner, o*n*inner+i0, width)
	if len(src2) > 0 {
		transpose(t.c, src2[0], n, inner, o*n*inner+i0, width)
	}
	if mask == nil {
		return
	}
	mo := v.MaskOuter(o)
	for c := range width {
		mi := mo + v.MaskInner(i0+c)
		for k := range n {
			t.mask[c*n+k] = mask[mi+k*v.MaskStride]
		}
	}
}

// scatter copies t.b back to rows (o, :, i0..i0+width) of dst.
func (t *tile[T]) scatter(v *layout.View, dst []T, o, i0, width int) {
	n, inner := v.N, v.Inner
	base := o*n*inner + i0
	block := dst[base : base+(n-1)*inner+width]
	for c := range width {
		col, row := block[c:], t.b[c*n:(c+1)*n]
		for k, j := 0, 0; k < len(row); k, j = k+1, j+inner {
			col[j] = row[k]
		}
	}
}

// transpose copies the width columns starting at base of an n x inner
// block of src into the rows of dst (column c to dst[c*n:(c+1)*n]), one
// column at a time: each row of dst is written in order, and the block's
// columns are read with stride inner from lines already in cache.
func transpose[T float](dst, src []T, n, inner, base, width int) {
	block := src[base : base+(n-1)*inner+width]
	for c := range width {
		col, row := block[c:], dst[c*n:(c+1)*n]
		for k, j := 0, 0; k < len(row); k, j = k+1, j+inner {
			row[k] = col[j]
		}
	}
}

// Backward computes dx from the forward output y and the incoming gradient
// dy over the view.
func Backward[T float](v *layout.View, y, dy, dx []T, mask []bool) {
	if v.Len() == 0 {
		return
	}
	if v.Inner == 1 {
		backwardRows(v, y, dy, dx, mask)
		return
	}
	backwardTiles(v, y, dy, dx, mask)
}

func newGradRow[T float](v *layout.View, y, dy, dx []T, mask []bool, o int) gradRow[T] {
	lo, hi := o*v.N, (o+1)*v.N
	r := gradRow[T]{y: y[lo:hi], dy: dy[lo:hi], dx: dx[lo:hi], kept: v.Kept(o), scale: v.Scale, log: v.Log}
	if mask != nil {
		r.mask, r.ms = mask[v.MaskOuter(o):], v.MaskStride
	}
	return r
}

func backwardRows[T float](v *layout.View, y, dy, dx []T, mask []bool) {
	if v.Outer < runtime.GOMAXPROCS(0) && v.N >= 4*block {
		for o := range v.Outer {
			r := newGradRow(v, y, dy, dx, mask, o)
			r.backwardSplit()
		}
		return
	}
	forEach(v.Outer, rowsPerWorker(v), func(lo, hi int) {
		for o := lo; o < hi; o++ {
			r := newGradRow(v, y, dy, dx, mask, o)
			r.backward()
		}
	})
}

func backwardTiles[T float](v *layout.View, y, dy, dx []T, mask []bool) {
	w := tileWidth(v)
	perOuter := (v.Inner + w - 1) / w
	forEach(v.Outer*perOuter, max(1, serialWork/(v.N*w)), func(lo, hi int) {
		t := newTile[T](v, w, mask != nil)
		t.c = make([]T, w*v.N)
		for item := lo; item < hi; item++ {
			o, i0 := item/perOuter, (item%perOuter)*w
			width := min(w, v.Inner-i0)
			t.gather(v, y, mask, o, i0, width, dy)
			for c := range width {
				s := c * v.N
				r := gradRow[T]{y: t.a[s : s+v.N], dy: t.c[s : s+v.N], dx: t.b[s : s+v.N], kept: v.N, scale: v.Scale, log: v.Log}
				if mask != nil {
					r.mask, r.ms = t.mask[s:s+v.N], 1
				}
				r.backward()
			}
			t.scatter(v, dx, o, i0, width)
		}
	})
}
