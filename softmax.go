// Package softmax provides fast, correct softmax, log-softmax and masked
// softmax operators for Gorgonia graphs, with their gradients, and the same
// operations on plain *tensor.Dense values.
//
// # Graph functions
//
// SoftMax, LogSoftMax, MaskedSoftMax and MaskedLogSoftMax add a node to x's
// graph. They work with the TapeMachine (symbolic gradients through
// gorgonia.Grad) and the LispMachine (gradients during the run), on Float32
// and Float64 tensors of any rank >= 1, along any axis:
//
//	probs, err := softmax.MaskedSoftMax(scores, keep, softmax.Scale(1/math.Sqrt(d)), softmax.Causal(0))
//
// SoftMaxTensor and the other ...Tensor functions compute the same on
// *tensor.Dense values without a graph, and the ...Grad functions compute
// the gradient with respect to x from the forward output and the incoming
// gradient.
//
// # Semantics
//
// Softmax along the axis is y = exp(s*x - max) / sum(exp(s*x - max)), where s
// is the Scale option and max is each row's own maximum, so no input
// overflows. Log-softmax is s*x - max - log(sum(...)).
//
// The mask is a Bool tensor of x's rank whose every dimension equals x's or
// is 1 (it broadcasts: a [B,1,1,S] mask serves [B,H,S,S] scores). true KEEPS
// an element, false masks it out. This is the convention of a "keep" or
// "attention" mask (Hugging Face's attention_mask, PyTorch's boolean attn_mask
// in scaled_dot_product_attention). Note that PyTorch's
// nn.MultiheadAttention key_padding_mask and masked_fill take the opposite
// convention (true = masked out), and Apex/Megatron's fused scale-mask-softmax
// takes a mask where 1 means masked out: invert those masks before passing
// them here. Causal(offset) masks element (..., i, j) when j > i+offset and is
// combined with the mask by logical and.
//
// A masked element's softmax output is exactly 0 and its log-softmax output
// -Inf, and its gradient is 0. A row in which every element is masked gives
// all zeros (log-softmax: all -Inf), never NaN, and a zero gradient.
//
// Special values, among the kept elements of a row:
//   - NaN anywhere makes every kept output of the row NaN (masked outputs
//     stay 0, or -Inf).
//   - +Inf entries follow the limit: softmax of [+Inf, 1] is [1, 0]. Several
//     +Inf entries share the mass equally: [+Inf, +Inf, 1] gives
//     [0.5, 0.5, 0] (the limit of equal large entries), log-softmax
//     [-log 2, -log 2, -Inf].
//   - -Inf entries get 0 (log: -Inf). A row whose kept entries are all -Inf
//     is treated as fully masked: all 0, gradient 0 (PyTorch gives NaN);
//     for softmax, 0 where dy is finite: an infinite or NaN dy on such a
//     row gives NaN, as 0*Inf does (log-softmax: 0 whatever dy).
//
// Gradients flow to x only; the mask is not differentiable. The backward is
// dx = s*y*(dy - sum(dy*y)) for softmax and dx = s*(dy - exp(y)*sum(dy)) for
// log-softmax, sums along the axis over kept elements.
//
// # Accuracy
//
// Float64: within 1e-12 relative of an exact float64 evaluation (sums in
// float64, exp within a few ulp); log-softmax outputs near 0 also within
// 1e-15 absolute, the rounding of a sum near 1 (the CPU kernels take
// log1p and do better; the GPU kernels take log). Float32: softmax outputs within 1e-5
// relative (the argument scale*(x - max) carries one float32 rounding,
// 6e-8*|scale*(x - max)| relative in the output, 5.3e-6 at the bottom of
// float32's normal range and a few ulps near the maximum; the exponential
// adds an ulp or two and sums are kept in float64); log-softmax within 1e-5 absolute plus
// 2^-22 relative (about four float32 roundings: on the GPU, x - max and
// its product with the scale are formed in float32). Gradients: 1e-12
// (float64) and 1e-5 (float32) relative to the magnitude of the terms
// that make them up, or 2^-1022 (float64) and 2^-126 (float32) absolute
// where that is larger, the bottom of each type's normal range (on the
// GPU, a float64 gradient term formed from a value under 2^-1022 may lose
// more: README, Known issues); on the GPU, a float32 log-softmax gradient
// whose terms pass float32's range (scale*dy is formed in float32) may be
// an infinity or NaN. Rows whose entries lie more than float32's range apart
// (near +3e38 and -3e38 at once) are exact on the CPU and on NVIDIA GPUs,
// which take such calls on span kernels; on AMD GPUs a float32 or
// bfloat16 row of that kind loses its far entries at a scale under 1
// (README, Known issues).
//
// # Errors
//
// Bad input never panics: a non-float x, a mask that is not Bool or does not
// broadcast, an axis out of range, a scale that is not finite and > 0 (or,
// for Float32 x, is past float32's range), and
// Causal on a rank-1 x or a non-last axis all return an error that names the
// argument. Inputs are never modified.
//
// # Backends and build tags
//
// The default build is pure Go and runs anywhere: kernels split rows across
// GOMAXPROCS goroutines and long rows across goroutines too. Build with
// -tags cu for NVIDIA GPUs through gorgonia.org/cu (needs the CUDA driver
// and a visible GPU: gorgonia.org/cu exits the process at start-up without
// one), or -tags hip for AMD GPUs. GPU builds send large tensors to the GPU
// and keep small ones on the CPU; the environment variable SOFTMAX_BACKEND
// (cpu, gpu or auto) forces the choice, and Backend names what is in use.
package softmax

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gosoftmax/softmax/internal/backend"
	"github.com/gosoftmax/softmax/internal/compute"
	"github.com/gosoftmax/softmax/internal/dense"
	"github.com/gosoftmax/softmax/internal/layout"
	"github.com/gosoftmax/softmax/op"
)

// Config holds the options of one call. It is built by the Option
// functions (Axis, Scale, Causal, Into); its zero value is not used.
type Config struct {
	axis   int
	scale  float64
	causal bool
	offset int
	into   *tensor.Dense
}

// Option sets one option of a call.
type Option func(*Config)

// Axis sets the reduced axis; negative values count from the end. Default -1
// (the last axis).
func Axis(axis int) Option { return func(c *Config) { c.axis = axis } }

// Scale makes the op compute softmax(s*x); s must be finite and > 0, and
// for Float32 x at most float32's largest value (3.4e38), since float32
// data are computed with it in float32. Default 1. Attention uses
// Scale(1/sqrt(d)).
func Scale(s float64) Option { return func(c *Config) { c.scale = s } }

// Causal masks element (..., i, j) when j > i+offset, along the last two
// dimensions. It needs the last axis as the reduced axis and rank >= 2.
// Causal(0) is the usual decoder mask.
func Causal(offset int) Option {
	return func(c *Config) { c.causal, c.offset = true, offset }
}

// Into makes a ...Tensor or ...Grad call write its result into dst, which
// must be a *tensor.Dense of the result's shape and dtype, instead of
// allocating a new tensor; the call returns dst. Reusing an output saves the
// allocation, which for large tensors costs more than the softmax itself.
// dst must not share memory with an input: the check compares the address
// ranges the tensors span, so two interleaved views of one array (columns
// 0 and 2, say) are refused too. Graph functions reject it: a graph's
// machine owns its outputs.
func Into(dst *tensor.Dense) Option { return func(c *Config) { c.into = dst } }

func config(opts []Option) Config {
	c := Config{axis: -1, scale: 1}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

func params(log, masked bool, opts []Option) layout.Params {
	c := config(opts)
	return layout.Params{Axis: c.axis, Log: log, Masked: masked, Scale: c.scale, Causal: c.causal, Offset: c.offset}
}

// grad runs a backward call on tensors.
func grad(log, masked bool, opts []Option, y, dy, mask *tensor.Dense) (*tensor.Dense, error) {
	if dy == nil {
		return nil, fmt.Errorf("softmax: dy is nil")
	}
	return eager(log, masked, opts, y, dy, mask)
}

// eager runs a forward (dy == nil) or backward call on tensors.
func eager(log, masked bool, opts []Option, in, dy, mask *tensor.Dense) (*tensor.Dense, error) {
	p := params(log, masked, opts)
	var dst any
	if c := config(opts); c.into != nil {
		if err := dense.CheckInto(c.into, in); err != nil {
			return nil, err
		}
		if dense.Overlap(c.into, in) || dense.Overlap(c.into, dy) || dense.Overlap(c.into, mask) {
			return nil, fmt.Errorf("softmax: Into's tensor shares memory with an input; pass a separate output")
		}
		dst = c.into
	}
	if !masked && mask != nil {
		return nil, fmt.Errorf("softmax: mask given to an unmasked call")
	}
	var m any
	if masked {
		m = nilable(mask)
	}
	if dy == nil {
		return compute.Forward(p, dst, nilable(in), m)
	}
	return compute.Backward(p, dst, nilable(in), nilable(dy), m)
}

// SoftMax returns a node computing the softmax of x along the axis.
func SoftMax(x *gorgonia.Node, opts ...Option) (*gorgonia.Node, error) {
	return apply(params(false, false, opts), x, nil, opts)
}

// LogSoftMax returns a node computing the log-softmax of x along the axis.
func LogSoftMax(x *gorgonia.Node, opts ...Option) (*gorgonia.Node, error) {
	return apply(params(true, false, opts), x, nil, opts)
}

// MaskedSoftMax returns a node computing the softmax of x along the axis
// over the elements mask keeps (true keeps; see the package doc).
func MaskedSoftMax(x, mask *gorgonia.Node, opts ...Option) (*gorgonia.Node, error) {
	return apply(params(false, true, opts), x, mask, opts)
}

// MaskedLogSoftMax returns a node computing the log-softmax of x along the
// axis over the elements mask keeps.
func MaskedLogSoftMax(x, mask *gorgonia.Node, opts ...Option) (*gorgonia.Node, error) {
	return apply(params(true, true, opts), x, mask, opts)
}

func apply(p layout.Params, x, mask *gorgonia.Node, opts []Option) (*gorgonia.Node, error) {
	if config(opts).into != nil {
		return nil, fmt.Errorf("softmax: Into applies to the ...Tensor and ...Grad functions, not to graph nodes")
	}
	if x == nil {
		return nil, fmt.Errorf("softmax: x is nil")
	}
	dt, err := dtypeOf(x)
	if err != nil || (dt != tensor.Float32 && dt != tensor.Float64) {
		return nil, fmt.Errorf("softmax: x has type %v; want a Float32 or Float64 tensor", x.Type())
	}
	if dt == tensor.Float32 {
		if err := layout.CheckScale32(p.Scale); err != nil {
			return nil, err
		}
	}
	args := gorgonia.Nodes{x}
	var maskShape []int
	if p.Masked {
		if mask == nil {
			return nil, fmt.Errorf("softmax: mask is nil")
		}
		if dt, err := dtypeOf(mask); err != nil || dt != tensor.Bool {
			return nil, fmt.Errorf("softmax: mask has type %v; want a Bool tensor", mask.Type())
		}
		maskShape = mask.Shape()
		args = append(args, mask)
	}
	if _, err := layout.Resolve(p, x.Shape(), maskShape); err != nil {
		return nil, err
	}
	o, err := op.New(p)
	if err != nil {
		return nil, err
	}
	return gorgonia.ApplyOp(o, args...)
}

func dtypeOf(n *gorgonia.Node) (dt tensor.Dtype, err error) {
	defer func() { // Node.Dtype panics on a node without a type
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return n.Dtype(), nil
}

// SoftMaxTensor returns the softmax of x along the axis, as a new tensor.
func SoftMaxTensor(x *tensor.Dense, opts ...Option) (*tensor.Dense, error) {
	return eager(false, false, opts, x, nil, nil)
}

// LogSoftMaxTensor returns the log-softmax of x along the axis.
func LogSoftMaxTensor(x *tensor.Dense, opts ...Option) (*tensor.Dense, error) {
	return eager(true, false, opts, x, nil, nil)
}

// MaskedSoftMaxTensor returns the softmax of x over the elements mask keeps.
func MaskedSoftMaxTensor(x, mask *tensor.Dense, opts ...Option) (*tensor.Dense, error) {
	return eager(false, true, opts, x, nil, mask)
}

// MaskedLogSoftMaxTensor returns the log-softmax of x over the elements mask
// keeps.
func MaskedLogSoftMaxTensor(x, mask *tensor.Dense, opts ...Option) (*tensor.Dense, error) {
	return eager(true, true, opts, x, nil, mask)
}

// SoftMaxGrad returns the gradient with respect to x of a softmax whose
// output is y, given the incoming gradient dy. Pass the same options as to
// the forward call.
func SoftMaxGrad(y, dy *tensor.Dense, opts ...Option) (*tensor.Dense, error) {
	return grad(false, false, opts, y, dy, nil)
}

// LogSoftMaxGrad is SoftMaxGrad for log-softmax.
func LogSoftMaxGrad(y, dy *tensor.Dense, opts ...Option) (*tensor.Dense, error) {
	return grad(true, false, opts, y, dy, nil)
}

// MaskedSoftMaxGrad is SoftMaxGrad for MaskedSoftMax; masked elements get 0.
func MaskedSoftMaxGrad(y, dy, mask *tensor.Dense, opts ...Option) (*tensor.Dense, error) {
	return grad(false, true, opts, y, dy, mask)
}

// MaskedLogSoftMaxGrad is SoftMaxGrad for MaskedLogSoftMax.
func MaskedLogSoftMaxGrad(y, dy, mask *tensor.Dense, opts ...Option) (*tensor.Dense, error) {
	return grad(true, true, opts, y, dy, mask)
}

// nilable keeps a nil *tensor.Dense from becoming a non-nil interface.
func nilable(t *tensor.Dense) any {
	if t == nil {
		return nil
	}
	return t
}

// Backend names the backends in use: "cpu" in the default build; with -tags
// cu or hip, the GPU backend and the threshold rule, or why there is no GPU.
func Backend() string { return backend.Describe() }
