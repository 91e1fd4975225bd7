package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gosoftmax/softmax"
)

// checkResult holds the largest differences the check found.
type checkResult struct{ Values, Grads float64 }

// checkAgainstGorgonia computes the attention core softmax(q·kᵀ/√d)·v with
// a causal mask and a padding mask twice, in float64: with
// softmax.MaskedSoftMax, and with Gorgonia's own ops the way one writes it
// without this library (scale, add -1e9 where masked, gorgonia.SoftMax). It
// compares the outputs and the gradients of a weighted sum of the outputs
// with respect to q, k and v.
//
// Two limits of Gorgonia's softmax shape the inputs. A fully masked row
// gives 0/0 there (MaskedSoftMax gives zeros), so the sequences here are
// padded on the right, which under the causal mask leaves every row a key.
// And its row maximum starts from the tensor's first element, so inputs are
// kept moderate (the shift cancels unless exponentials overflow).
func checkAgainstGorgonia(seed uint64) (checkResult, error) {
	const batch, heads, seqLen, headDim = 3, 2, 5, 4
	lengths := []int{5, 3, 1} // the first sequence is full: its [0,0,0,0] score is kept
	rng := rand.New(rand.NewPCG(seed, 0xc4ec))
	qkv := make([][]float64, 3)
	for i := range qkv {
		qkv[i] = make([]float64, batch*heads*seqLen*headDim)
		for j := range qkv[i] {
			qkv[i][j] = rng.NormFloat64()
		}
	}
	weights := make([]float64, batch*heads*seqLen*headDim)
	for j := range weights {
		weights[j] = rng.NormFloat64()
	}
	keep := make([]bool, batch*seqLen) // [B, 1, 1, S]
	bias := make([]float64, batch*heads*seqLen*seqLen)
	for b := 0; b < batch; b++ {
		for j := 0; j < lengths[b]; j++ {
			keep[b*seqLen+j] = true
		}
		for h := 0; h < heads; h++ {
			for i := 0; i < seqLen; i++ {
				for j := 0; j < seqLen; j++ {
					if j > i || j >= lengths[b] {
						bias[((b*heads+h)*seqLen+i)*seqLen+j] = -1e9
					}
				}
			}
		}
	}
	scale := 1 / math.Sqrt(headDim)
	shape := []int{batch, heads, seqLen, headDim}

	// run builds the attention core in a graph of its own with the given
	// softmax and returns the output and the gradients for q, k and v.
	run := func(probs func(g *G.ExprGraph, scores *G.Node) (*G.Node, error)) ([][]float64, error) {
		g := G.NewGraph()
		var in G.Nodes
		for i, name := range []string{"q", "k", "v"} {
			in = append(in, G.NewTensor(g, tensor.Float64, 4, G.WithShape(shape...), G.WithName(name),
				G.WithValue(tensor.New(tensor.WithShape(shape...), tensor.WithBacking(append([]float64(nil), qkv[i]...))))))
		}
		out, err := attention(in[0], in[1], in[2], func(s *G.Node) (*G.Node, error) { return probs(g, s) })
		if err != nil {
			return nil, err
		}
		w := G.NewConstant(tensor.New(tensor.WithShape(shape...), tensor.WithBacking(weights)))
		loss, err := G.Sum(G.Must(G.HadamardProd(out, w)))
		if err != nil {
			return nil, err
		}
		grads, err := G.Grad(loss, in...)
		if err != nil {
			return nil, err
		}
		vm := G.NewTapeMachine(g)
		defer vm.Close()
		if err := vm.RunAll(); err != nil {
			return nil, err
		}
		res := [][]float64{out.Value().(*tensor.Dense).Float64s()}
		for _, gr := range grads {
			res = append(res, gr.Value().(*tensor.Dense).Float64s())
		}
		return res, nil
	}

	ours, err := run(func(g *G.ExprGraph, scores *G.Node) (*G.Node, error) {
		mask := G.NewTensor(g, tensor.Bool, 4, G.WithShape(batch, 1, 1, seqLen), G.WithName("keep"),
			G.WithValue(tensor.New(tensor.WithShape(batch, 1, 1, seqLen), tensor.WithBacking(keep))))
		return softmax.MaskedSoftMax(scores, mask, softmax.Scale(scale), softmax.Causal(0))
	})
	if err != nil {
		return checkResult{}, fmt.Errorf("check, MaskedSoftMax: %w", err)
	}
	theirs, err := run(func(g *G.ExprGraph, scores *G.Node) (*G.Node, error) {
		scaled := G.Must(G.HadamardProd(scores, G.NewConstant(scale)))
		b := G.NewConstant(tensor.New(tensor.WithShape(batch, heads, seqLen, seqLen), tensor.WithBacking(bias)))
		return G.SoftMax(G.Must(G.Add(scaled, b)))
	})
	if err != nil {
		return checkResult{}, fmt.Errorf("check, Gorgonia's ops: %w", err)
	}
	var res checkResult
	for i := range ours {
		d := maxDiff(ours[i], theirs[i])
		if i == 0 {
			res.Values = d
		} else {
			res.Grads = math.Max(res.Grads, d)
		}
	}
	if !(res.Values <= 1e-12 && res.Grads <= 1e-12) {
		return res, fmt.Errorf("check: MaskedSoftMax and Gorgonia's ops differ: values by %g, gradients by %g", res.Values, res.Grads)
	}
	return res, nil
}

// maxDiff returns the largest absolute difference (NaN if any element is).
func maxDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		e := math.Abs(a[i] - b[i])
		if math.IsNaN(e) {
			return math.NaN()
		}
		d = math.Max(d, e)
	}
	return d
}
