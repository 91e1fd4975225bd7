package main

import (
	"io"
	"math"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gosoftmax/softmax"
)

// TestRun checks the tour's values and gradients against the eager API:
// each graph output must equal the ...Tensor function's and each gradient
// the ...Grad function's for the loss's one-hot incoming gradient.
func TestRun(t *testing.T) {
	outs, err := run(io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.New(tensor.WithShape(2, 4), tensor.WithBacking(xData))
	mask := tensor.New(tensor.WithShape(2, 4), tensor.WithBacking(maskData))
	dyData := make([]float64, 8)
	for _, p := range picks {
		dyData[p[0]*4+p[1]] = 1
	}
	dy := tensor.New(tensor.WithShape(2, 4), tensor.WithBacking(dyData))
	half := softmax.Scale(0.5)
	eager := []struct {
		fwd  func() (*tensor.Dense, error)
		back func(y *tensor.Dense) (*tensor.Dense, error)
	}{
		{func() (*tensor.Dense, error) { return softmax.SoftMaxTensor(x) },
			func(y *tensor.Dense) (*tensor.Dense, error) { return softmax.SoftMaxGrad(y, dy) }},
		{func() (*tensor.Dense, error) { return softmax.LogSoftMaxTensor(x) },
			func(y *tensor.Dense) (*tensor.Dense, error) { return softmax.LogSoftMaxGrad(y, dy) }},
		{func() (*tensor.Dense, error) { return softmax.MaskedSoftMaxTensor(x, mask) },
			func(y *tensor.Dense) (*tensor.Dense, error) { return softmax.MaskedSoftMaxGrad(y, dy, mask) }},
		{func() (*tensor.Dense, error) { return softmax.MaskedLogSoftMaxTensor(x, mask, half) },
			func(y *tensor.Dense) (*tensor.Dense, error) { return softmax.MaskedLogSoftMaxGrad(y, dy, mask, half) }},
	}
	if len(outs) != len(eager) {
		t.Fatalf("run returned %d outputs; want %d", len(outs), len(eager))
	}
	for i, e := range eager {
		y, err := e.fwd()
		if err != nil {
			t.Fatal(err)
		}
		dx, err := e.back(y)
		if err != nil {
			t.Fatal(err)
		}
		same(t, outs[i].Name+" values", outs[i].Y, y.Float64s())
		same(t, outs[i].Name+" gradient", outs[i].DX, dx.Float64s())
	}
	// The masked outputs follow the contract: 0 for softmax, -Inf for
	// log-softmax, and no gradient.
	for i, keep := range maskData {
		if keep {
			continue
		}
		if outs[2].Y[i] != 0 || !math.IsInf(outs[3].Y[i], -1) || outs[2].DX[i] != 0 || outs[3].DX[i] != 0 {
			t.Errorf("masked element %d: softmax %v, log-softmax %v, gradients %v and %v; want 0, -Inf, 0, 0",
				i, outs[2].Y[i], outs[3].Y[i], outs[2].DX[i], outs[3].DX[i])
		}
	}
}

func same(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if got[i] == want[i] || math.Abs(got[i]-want[i]) <= 1e-12*math.Max(1, math.Abs(want[i])) {
			continue
		}
		t.Errorf("%s[%d] = %v; want %v", what, i, got[i], want[i])
	}
}
