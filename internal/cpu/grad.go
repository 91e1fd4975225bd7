package cpu

import "math"

// gradRow is one row of the backward pass: y is the forward output, dy the
// incoming gradient, dx the gradient written for x. Masked columns get 0 and
// take no part in the sums.
//
//	softmax:     dx = scale * y * (dy - sum(dy*y))
//	log-softmax: dx = scale * (dy - exp(y) * sum(dy))
type gradRow[T float] struct {
	y, dy, dx []T
	mask      []bool
	ms        int
	kept      int
	scale     float64
	log       bool
}

func (r *gradRow[T]) keep(k int) bool {
	return k < r.kept && (r.mask == nil || r.mask[k*r.ms])
}

// gradPart is a block's contribution to the row sum; top is the largest
// kept y, used to spot log-softmax rows with nothing kept.
type gradPart struct{ sum, top float64 }

func (r *gradRow[T]) reduce(lo, hi int) gradPart {
	y, dy := r.y, r.dy
	end := max(lo, min(hi, r.kept))
	p := gradPart{top: math.Inf(-1)}
	switch {
	case r.mask == nil && r.log:
		p.sum, p.top = sum(dy[lo:end]), float64(maxOf(y[lo:end]))
	case r.mask == nil:
		p.sum = dot(dy[lo:end], y[lo:end])
	default:
		for k := lo; k < end; k++ {
			if !r.keep(k) {
				continue
			}
			if r.log {
				p.sum += float64(dy[k])
				p.top = max(p.top, float64(y[k]))
			} else {
				p.sum += float64(dy[k]) * float64(y[k])
			}
		}
	}
	return p
}

func (r *gradRow[T]) combine(parts []gradPart) gradPart {
	t := gradPart{top: math.Inf(-1)}
	for _, p := range parts {
		t.sum += p.sum
		t.top = max(t.top, p.top)
	}
	return t
}

func (r *gradRow[T]) apply(lo, hi int, t gradPart) {
	y, dy, dx := r.y, r.dy, r.dx
	s, c := r.scale, t.sum
	if r.log && math.IsInf(t.top, -1) { // nothing kept: gradient 0
		clear(dx[lo:hi])
		return
	}
	end := max(lo, min(hi, r.kept))
	far := farGrad64[T](r.log, c, s, r.kept)
	if r.mask == nil && !far {
		if r.log {
			logGrad(y[lo:end], dy[lo:end], dx[lo:end], c, s)
		} else {
			softmaxGrad(y[lo:end], dy[lo:end], dx[lo:end], c, s)
		}
		clear(dx[end:hi])
		return
	}
	var lcs float64 // log|c*s|, for logGradFar
	if far && r.log {
		lcs = math.Log(math.Abs(c)) + math.Log(s)
	}
	for k := lo; k < hi; k++ {
		switch {
		case !r.keep(k):
			dx[k] = 0
		case far && r.log:
			dx[k] = T(logGradFar(float64(y[k]), float64(dy[k]), c, s, lcs))
		case far:
			dx[k] = T(softmaxGradFar(float64(y[k]), float64(dy[k])-c, s))
		case r.log:
			dx[k] = T((float64(dy[k]) - gradExp[T](float64(y[k]))*c) * s)
		default:
			dx[k] = T(float64(y[k]) * (float64(dy[k]) - c) * s)
		}
	}
}

func (r *gradRow[T]) backward() {
	if r.exactSoftmax64() {
		return
	}
	n := len(r.y)
	if n <= block {
		r.apply(0, n, r.reduce(0, n))
		return
	}
	parts := make([]gradPart, (n+block-1)/block)
	for b := range parts {
		parts[b] = r.reduce(b*block, min(n, (b+1)*block))
	}
	t := r.combine(parts)
	for b := range parts {
		r.apply(b*block, min(n, (b+1)*block), t)
	}
}

func (r *gradRow[T]) backwardSplit() {
	if r.exactSoftmax64() {
		return
	}
	n := len(r.y)
	parts := make([]gradPart, (n+block-1)/block)
	forEach(len(parts), 1, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			parts[b] = r.reduce(b*block, min(n, (b+1)*block))
		}
	})
	t := r.combine(parts)
	forEach(len(parts), 1, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			r.apply(b*block, min(n, (b+1)*block), t)
		}
	})
}
