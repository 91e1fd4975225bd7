package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gosoftmax/softmax"
)

// model is a small multilayer perceptron whose last layer is the classifier
// layer: logits, LogSoftMax, and the negative log-likelihood of the true
// class, built as one Gorgonia graph for a fixed batch size:
//
//	h1   = relu(x·W1 + b1)          [N, hidden]
//	h2   = relu(h1·W2 + b2)         [N, hidden]
//	logp = LogSoftMax(h2·W3 + b3)   [N, classes]
//	loss = -Σ logp·targets / N      (targets one-hot)
type model struct {
	batch, classes int
	g              *G.ExprGraph
	x, targets     *G.Node // inputs: [N, 2] points and [N, classes] one-hot classes
	params         G.Nodes
	loss, logProbs *G.Node
	lossVal        G.Value
	logProbsVal    G.Value
}

// newModel builds the graph with weights drawn from rng.
func newModel(batch, hidden, classes int, rng *rand.Rand) (*model, error) {
	g := G.NewGraph()
	m := &model{batch: batch, classes: classes, g: g}
	m.x = G.NewMatrix(g, tensor.Float64, G.WithShape(batch, 2), G.WithName("x"))
	m.targets = G.NewMatrix(g, tensor.Float64, G.WithShape(batch, classes), G.WithName("targets"))

	// layer is an affine map x·W + b; b is a [1, out] row added to every row.
	layer := func(x *G.Node, name string, in, out int) (*G.Node, error) {
		w := G.NewMatrix(g, tensor.Float64, G.WithShape(in, out), G.WithName("W"+name),
			G.WithValue(randomMatrix(rng, in, out, math.Sqrt(2/float64(in)))))
		b := G.NewMatrix(g, tensor.Float64, G.WithShape(1, out), G.WithName("b"+name),
			G.WithValue(tensor.New(tensor.Of(tensor.Float64), tensor.WithShape(1, out))))
		m.params = append(m.params, w, b)
		xw, err := G.Mul(x, w)
		if err != nil {
			return nil, err
		}
		return G.BroadcastAdd(xw, b, nil, []byte{0})
	}
	h, err := layer(m.x, "1", 2, hidden)
	if err != nil {
		return nil, err
	}
	h = G.Must(G.Rectify(h))
	if h, err = layer(h, "2", hidden, hidden); err != nil {
		return nil, err
	}
	h = G.Must(G.Rectify(h))
	logits, err := layer(h, "3", hidden, classes)
	if err != nil {
		return nil, err
	}

	// The classifier layer: log-probabilities over the classes (the last
	// axis, the default), then the mean negative log-likelihood.
	if m.logProbs, err = softmax.LogSoftMax(logits); err != nil {
		return nil, err
	}
	nll := G.Must(G.Neg(G.Must(G.Sum(G.Must(G.HadamardProd(m.logProbs, m.targets))))))
	m.loss = G.Must(G.HadamardDiv(nll, G.NewConstant(float64(batch))))
	G.Read(m.loss, &m.lossVal)
	G.Read(m.logProbs, &m.logProbsVal)
	if _, err := G.Grad(m.loss, m.params...); err != nil {
		return nil, fmt.Errorf("gradient: %w", err)
	}
	return m, nil
}

// let binds a batch of points to the model's inputs.
func (m *model) let(pts []point) error {
	x := make([]float64, 2*len(pts))
	t := make([]float64, m.classes*len(pts))
	for i, p := range pts {
		x[2*i], x[2*i+1] = p.x, p.y
		t[i*m.classes+p.class] = 1
	}
	if err := G.Let(m.x, tensor.New(tensor.WithShape(len(pts), 2), tensor.WithBacking(x))); err != nil {
		return err
	}
	return G.Let(m.targets, tensor.New(tensor.WithShape(len(pts), m.classes), tensor.WithBacking(t)))
}

// correct counts the points of the last run whose most probable class is
// their class.
func (m *model) correct(pts []point) int {
	lp := m.logProbsVal.(*tensor.Dense).Float64s()
	n := 0
	for i, p := range pts {
		row := lp[i*m.classes : (i+1)*m.classes]
		best := 0
		for c := range row {
			if row[c] > row[best] {
				best = c
			}
		}
		if best == p.class {
			n++
		}
	}
	return n
}

// randomMatrix returns a rows×cols matrix of normal values with the given
// standard deviation.
func randomMatrix(rng *rand.Rand, rows, cols int, std float64) *tensor.Dense {
	data := make([]float64, rows*cols)
	for i := range data {
		data[i] = rng.NormFloat64() * std
	}
	return tensor.New(tensor.WithShape(rows, cols), tensor.WithBacking(data))
}
