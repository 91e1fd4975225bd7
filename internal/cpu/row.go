package cpu

import "math"

type float interface{ ~float32 | ~float64 }

// block is the number of columns a row kernel handles at a time: its passes
// (maximum, then exponentials and sum) run over data that is still in the L1
// or L2 cache, so a row is read from memory once however long it is. Long
// rows are several blocks whose partial (max, sum) pairs are combined, the
// block-level form of the online softmax.
const block = 4096

// part is one block's maximum (scaled units not applied) and its sum of
// exp(scale*(x-max)) over kept elements, as ones (the count of elements
// equal to the maximum, where kept apart) plus the rest.
type part struct{ max, ones, rest float64 }

// sum is the block's whole sum.
func (p part) sum() float64 { return p.ones + p.rest }

// logSum is log(sum) accurate to an ulp or so even when the sum is close to
// 1 (one dominant element: log-softmax outputs near 0).
func (p part) logSum() float64 {
	if p.ones > 0 {
		return math.Log(p.ones) + math.Log1p(p.rest/p.ones)
	}
	return math.Log(p.rest)
}

// row is one row of the reduced axis, contiguous in memory.
type row[T float] struct {
	x, y  []T    // input and output
	mask  []bool // nil, or mask[k*ms] says whether column k is kept
	ms    int
	kept  int // columns >= kept are masked (causal); len(x) without causal
	scale float64
	log   bool
}

func (r *row[T]) keep(k int) bool {
	return k < r.kept && (r.mask == nil || r.mask[k*r.ms])
}

// stats is the first pass over columns [lo, hi): the block's maximum and
// sum. For softmax it also stores exp(scale*(x-max)) in y (masked: 0), to be
// rescaled by apply. A block whose maximum is NaN or +Inf returns early; the
// row is then finished by special.
func (r *row[T]) stats(lo, hi int) part {
	x, y := r.x, r.y
	end := max(lo, min(hi, r.kept))
	m := T(math.Inf(-1))
	if r.mask == nil {
		m = maxOf(x[lo:end])
	} else {
		for k := lo; k < end; k++ {
			if r.mask[k*r.ms] {
				m = max(m, x[k])
			}
		}
	}
	mf := float64(m)
	if math.IsNaN(mf) || math.IsInf(mf, 1) {
		return part{max: mf}
	}
	if math.IsInf(mf, -1) { // nothing kept, or every kept entry is -Inf
		if !r.log {
			clear(y[lo:hi])
		}
		return part{max: mf}
	}
	s := r.scale
	p := part{max: mf}
	switch {
	case r.mask == nil && r.log:
		p.rest, p.ones = expStore(x[lo:end], nil, mf, s)
	case r.mask == nil:
		p.rest, p.ones = expStore(x[lo:end], y[lo:end], mf, s)
		clear(y[end:hi])
	default:
		for k := lo; k < hi; k++ {
			var e T
			switch {
			case !r.keep(k):
			case x[k] == m:
				e = 1
				p.ones++
			default:
				e = exp[T](scaledDiff(float64(x[k]), mf, s))
				p.rest += float64(e)
			}
			if !r.log {
				y[k] = e
			}
		}
	}
	return p
}

// combine folds block parts into the row's maximum and sum.
func (r *row[T]) combine(parts []part) part {
	total := part{max: math.Inf(-1)}
	for _, p := range parts {
		total.max = max(total.max, p.max)
	}
	if math.IsNaN(total.max) || math.IsInf(total.max, 0) {
		return total
	}
	for _, p := range parts {
		switch {
		case p.max == total.max:
			total.ones += p.ones
			total.rest += p.rest
		case p.sum() != 0:
			total.rest += p.sum() * math.Exp(scaledDiff(p.max, total.max, r.scale))
		}
	}
	return total
}

// apply is the second pass over [lo, hi), given the block's own part and
// the row's total. Rows whose maximum is not finite go to special instead.
func (r *row[T]) apply(lo, hi int, own, total part) {
	x, y := r.x, r.y
	if !r.log {
		// A block holding the row's maximum (every row of one block) has
		// exp(0) = 1 for its factor: math.Exp costs ~12 ns, 10% of a row of
		// 128 float32 columns.
		f := T(1 / total.sum())
		if own.max != total.max {
			f = T(math.Exp(scaledDiff(own.max, total.max, r.scale)) / total.sum())
		}
		if own.sum() == 0 {
			f = 0
		}
		scale(y[lo:hi], f)
		return
	}
	// Both terms are <= 0, so the subtraction never cancels.
	m, s, lse := total.max, r.scale, total.logSum()
	ninf := T(math.Inf(-1))
	if r.mask == nil {
		end := max(lo, min(hi, r.kept))
		logApply(x[lo:end], y[lo:end], m, s, lse)
		for k := end; k < hi; k++ {
			y[k] = ninf
		}
		return
	}
	for k := lo; k < hi; k++ {
		if r.keep(k) {
			y[k] = T(scaledDiff(float64(x[k]), m, s) - lse)
		} else {
			y[k] = ninf
		}
	}
}

// special finishes a row whose maximum over kept entries is NaN (kept
// outputs NaN), +Inf (the +Inf entries share the mass equally: softmax
// [+Inf, +Inf, 1] = [1/2, 1/2, 0], the limit of equal large entries) or -Inf
// (nothing kept, or every kept entry is -Inf: treated as fully masked, all 0,
// log all -Inf). Masked outputs are always 0 (log: -Inf).
func (r *row[T]) special(m float64) {
	x, y := r.x, r.y
	zero := T(0)
	if r.log {
		zero = T(math.Inf(-1))
	}
	var in T // value of a kept entry that is not +Inf
	var inf T
	switch {
	case math.IsNaN(m):
		in = T(math.NaN())
	case math.IsInf(m, 1):
		n := 0
		for k := range x {
			if r.keep(k) && math.IsInf(float64(x[k]), 1) {
				n++
			}
		}
		in, inf = zero, T(1/float64(n))
		if r.log {
			inf = T(-math.Log(float64(n)))
		}
	default:
		in = zero
	}
	for k := range y {
		switch {
		case !r.keep(k):
			y[k] = zero
		case math.IsInf(m, 1) && math.IsInf(float64(x[k]), 1):
			y[k] = inf
		default:
			y[k] = in
		}
	}
}

// forward computes the whole row on the calling goroutine.
func (r *row[T]) forward() {
	n := len(r.x)
	if n <= block {
		total := r.stats(0, n)
		if r.settle(total) {
			r.apply(0, n, total, total)
		}
		return
	}
	var buf [16]part // rows up to 64K columns need no allocation
	parts := buf[:0]
	for lo := 0; lo < n; lo += block {
		parts = append(parts, r.stats(lo, min(n, lo+block)))
	}
	total := r.combine(parts)
	if r.settle(total) {
		for b, p := range parts {
			r.apply(b*block, min(n, (b+1)*block), p, total)
		}
	}
}

// forwardSplit computes one long row with all workers: blocks are shared
// out for each pass.
func (r *row[T]) forwardSplit() {
	n := len(r.x)
	parts := make([]part, (n+block-1)/block)
	forEach(len(parts), 1, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			parts[b] = r.stats(b*block, min(n, (b+1)*block))
		}
	})
	total := r.combine(parts)
	if r.settle(total) {
		forEach(len(parts), 1, func(lo, hi int) {
			for b := lo; b < hi; b++ {
				r.apply(b*block, min(n, (b+1)*block), parts[b], total)
			}
		})
	}
}

// settle finishes a row whose maximum is not finite (see special) and
// reports whether the second pass, apply, is still to run.
func (r *row[T]) settle(total part) bool {
	if !math.IsNaN(total.max) && !math.IsInf(total.max, 0) {
		return true
	}
	if !math.IsInf(total.max, -1) || r.log { // softmax -Inf rows: stats wrote zeros
		r.special(total.max)
	}
	return false
}
