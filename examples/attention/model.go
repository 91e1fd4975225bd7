package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gosoftmax/softmax"
)

// dtype is the precision the model trains in.
var dtype = tensor.Float32

// shape holds the sizes of the model.
type shape struct {
	batch, seqLen, vocab int // B, S, and the number of real tokens
	dim, heads           int // model width D and heads H; each head has D/H
}

func (s shape) rows() int    { return s.batch * s.seqLen }
func (s shape) headDim() int { return s.dim / s.heads }

// model is one causal self-attention block with token and position
// embeddings and a classifier on top, built as one Gorgonia graph for a
// fixed batch size:
//
//	x      = tokens·E + positions·P                       [B·S, D]
//	q,k,v  = heads(x·Wq), heads(x·Wk), heads(x·Wv)          [B, H, S, D/H]
//	probs  = MaskedSoftMax(q·kᵀ, keep, Scale(1/√(D/H)), Causal(0))   [B, H, S, S]
//	h      = x + merge(probs·v)·Wo                        [B·S, D]
//	logp   = LogSoftMax(h·Wout)                           [B·S, vocab]
//	loss   = -Σ logp·targets                              (targets holds 1/count at each answer)
type model struct {
	shape
	g *G.ExprGraph

	// inputs, set per batch
	tokens  *G.Node // [B·S, vocab+1] one-hot tokens
	keep    *G.Node // [B, 1, 1, S] padding mask, true on real positions
	targets *G.Node // [B·S, vocab]: 1/count at each answer, 0 elsewhere

	params         G.Nodes // learnables
	loss, logProbs *G.Node
	lossVal        G.Value
	logProbsVal    G.Value
}

// newModel builds the graph with weights drawn from rng.
func newModel(s shape, rng *rand.Rand) (*model, error) {
	if s.dim%s.heads != 0 {
		return nil, fmt.Errorf("dim %d is not a multiple of heads %d", s.dim, s.heads)
	}
	g := G.NewGraph()
	m := &model{shape: s, g: g}
	n := s.rows()
	m.tokens = G.NewMatrix(g, dtype, G.WithShape(n, s.vocab+1), G.WithName("tokens"))
	m.keep = G.NewTensor(g, tensor.Bool, 4, G.WithShape(s.batch, 1, 1, s.seqLen), G.WithName("keep"))
	m.targets = G.NewMatrix(g, dtype, G.WithShape(n, s.vocab), G.WithName("targets"))

	weight := func(name string, rows, cols int) *G.Node {
		w := G.NewMatrix(g, dtype, G.WithShape(rows, cols), G.WithName(name),
			G.WithValue(randomMatrix(rng, rows, cols, 1/math.Sqrt(float64(rows)))))
		m.params = append(m.params, w)
		return w
	}
	embed := weight("E", s.vocab+1, s.dim)
	posEmbed := weight("P", s.seqLen, s.dim)
	wq, wk, wv := weight("Wq", s.dim, s.dim), weight("Wk", s.dim, s.dim), weight("Wv", s.dim, s.dim)
	wo := weight("Wo", s.dim, s.dim)
	wout := weight("Wout", s.dim, s.vocab)

	// The same position one-hot rows for every sequence: a constant.
	positions := G.NewConstant(positionOneHot(s.batch, s.seqLen), G.WithName("positions"))

	x := G.Must(G.Add(G.Must(G.Mul(m.tokens, embed)), G.Must(G.Mul(positions, posEmbed))))
	q, err := m.splitHeads(G.Must(G.Mul(x, wq)))
	if err != nil {
		return nil, err
	}
	k, err := m.splitHeads(G.Must(G.Mul(x, wk)))
	if err != nil {
		return nil, err
	}
	v, err := m.splitHeads(G.Must(G.Mul(x, wv)))
	if err != nil {
		return nil, err
	}
	scale := 1 / math.Sqrt(float64(s.headDim()))
	ctx, err := attention(q, k, v, func(scores *G.Node) (*G.Node, error) {
		return softmax.MaskedSoftMax(scores, m.keep, softmax.Scale(scale), softmax.Causal(0))
	})
	if err != nil {
		return nil, err
	}
	merged, err := m.mergeHeads(ctx)
	if err != nil {
		return nil, err
	}
	h := G.Must(G.Add(x, G.Must(G.Mul(merged, wo))))
	if m.logProbs, err = softmax.LogSoftMax(G.Must(G.Mul(h, wout))); err != nil {
		return nil, err
	}
	m.loss = G.Must(G.Neg(G.Must(G.Sum(G.Must(G.HadamardProd(m.logProbs, m.targets))))))
	G.Read(m.loss, &m.lossVal)
	G.Read(m.logProbs, &m.logProbsVal)
	if _, err := G.Grad(m.loss, m.params...); err != nil {
		return nil, fmt.Errorf("gradient: %w", err)
	}
	return m, nil
}

// attention is softmax(q·kᵀ)·v for q, k, v of shape [B, H, S, D/H], with
// the softmax (scaling and masking included) supplied by the caller: the
// model passes MaskedSoftMax, the start-up check also Gorgonia's own ops.
func attention(q, k, v *G.Node, probs func(scores *G.Node) (*G.Node, error)) (*G.Node, error) {
	scores, err := G.BatchedMatMul(q, k, false, true) // [B, H, S, S]
	if err != nil {
		return nil, fmt.Errorf("scores: %w", err)
	}
	p, err := probs(scores)
	if err != nil {
		return nil, fmt.Errorf("softmax: %w", err)
	}
	return G.BatchedMatMul(p, v)
}

// splitHeads turns [B·S, D] into [B, H, S, D/H].
func (m *model) splitHeads(x *G.Node) (*G.Node, error) {
	r, err := G.Reshape(x, tensor.Shape{m.batch, m.seqLen, m.heads, m.headDim()})
	if err != nil {
		return nil, err
	}
	return G.Transpose(r, 0, 2, 1, 3)
}

// mergeHeads turns [B, H, S, D/H] back into [B·S, D].
func (m *model) mergeHeads(x *G.Node) (*G.Node, error) {
	t, err := G.Transpose(x, 0, 2, 1, 3)
	if err != nil {
		return nil, err
	}
	return G.Reshape(t, tensor.Shape{m.rows(), m.dim})
}

// randomMatrix returns a rows×cols matrix of normal values with the given
// standard deviation.
func randomMatrix(rng *rand.Rand, rows, cols int, std float64) *tensor.Dense {
	t := tensor.New(tensor.Of(dtype), tensor.WithShape(rows, cols))
	switch data := t.Data().(type) {
	case []float32:
		for i := range data {
			data[i] = float32(rng.NormFloat64() * std)
		}
	case []float64:
		for i := range data {
			data[i] = rng.NormFloat64() * std
		}
	}
	return t
}

// positionOneHot returns the [B·S, S] matrix whose row b·S+i is one-hot at i.
func positionOneHot(batch, seqLen int) *tensor.Dense {
	t := tensor.New(tensor.Of(dtype), tensor.WithShape(batch*seqLen, seqLen))
	for r := 0; r < batch*seqLen; r++ {
		setFloat(t, r*seqLen+r%seqLen, 1)
	}
	return t
}

// setFloat sets element i of a float tensor's backing array.
func setFloat(t *tensor.Dense, i int, v float64) {
	switch data := t.Data().(type) {
	case []float32:
		data[i] = float32(v)
	case []float64:
		data[i] = v
	}
}

// batchInputs holds the values fed to the graph's inputs for one batch.
type batchInputs struct {
	tokens, keep, targets *tensor.Dense
}

func newBatchInputs(s shape) batchInputs {
	return batchInputs{
		tokens:  tensor.New(tensor.Of(dtype), tensor.WithShape(s.rows(), s.vocab+1)),
		keep:    tensor.New(tensor.Of(tensor.Bool), tensor.WithShape(s.batch, 1, 1, s.seqLen)),
		targets: tensor.New(tensor.Of(dtype), tensor.WithShape(s.rows(), s.vocab)),
	}
}

// fill writes a batch of sequences into in and returns the number of
// answers it holds. Each answer's target weight is 1/count, so the loss is
// the mean negative log-likelihood over real answers.
func (in batchInputs) fill(s shape, seqs []sequence) int {
	in.tokens.Zero()
	in.targets.Zero()
	keep := in.keep.Bools()
	count := 0
	for _, q := range seqs {
		for _, t := range q.targets {
			if t >= 0 {
				count++
			}
		}
	}
	for b, q := range seqs {
		for i := 0; i < s.seqLen; i++ {
			r := b*s.seqLen + i
			setFloat(in.tokens, r*(s.vocab+1)+q.tokens[i], 1)
			keep[b*s.seqLen+i] = q.keep[i]
			if t := q.targets[i]; t >= 0 {
				setFloat(in.targets, r*s.vocab+t-1, 1/float64(count))
			}
		}
	}
	return count
}

// let binds the batch to the model's inputs.
func (m *model) let(in batchInputs) error {
	for _, p := range []struct {
		n *G.Node
		v *tensor.Dense
	}{{m.tokens, in.tokens}, {m.keep, in.keep}, {m.targets, in.targets}} {
		if err := G.Let(p.n, p.v); err != nil {
			return err
		}
	}
	return nil
}

// correct counts the answers in seqs that the last run's log-probabilities
// get right (arg max equals the target).
func (m *model) correct(seqs []sequence) int {
	lp := m.logProbsVal.Data()
	n := 0
	for b, q := range seqs {
		for i, t := range q.targets {
			if t < 0 {
				continue
			}
			row := (b*m.seqLen + i) * m.vocab
			best := 0
			for c := 1; c < m.vocab; c++ {
				if at(lp, row+c) > at(lp, row+best) {
					best = c
				}
			}
			if best+1 == t {
				n++
			}
		}
	}
	return n
}

// at reads element i of a []float32 or []float64.
func at(data any, i int) float64 {
	switch d := data.(type) {
	case []float32:
		return float64(d[i])
	case []float64:
		return d[i]
	}
	panic(fmt.Sprintf("unexpected data %T", data))
}
