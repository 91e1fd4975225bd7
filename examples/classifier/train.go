package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gosoftmax/softmax/examples/internal/lossplot"
)

// config is what one run does.
type config struct {
	Epochs    int
	Seed      uint64
	Plot      string // PNG of the loss curve; "" for none
	Classes   int
	TrainSize int // training points per class
	TestSize  int // held-out points per class
	Noise     float64
	Hidden    int
	Batch     int
	LearnRate float64
}

// defaultConfig is what `go run ./examples/classifier` does.
func defaultConfig() config {
	return config{
		Epochs:    30,
		Seed:      1,
		Classes:   5,
		TrainSize: 1000,
		TestSize:  400,
		Noise:     0.2,
		Hidden:    64,
		Batch:     100,
		LearnRate: 0.01,
	}
}

// result is what a run measured.
type result struct {
	Losses   []float64     // mean training loss of each epoch
	Accuracy float64       // held-out accuracy after the last epoch
	Train    time.Duration // time spent training and evaluating
}

// run trains the classifier, printing one line per epoch and a summary to w.
func run(cfg config, w io.Writer) (result, error) {
	var res result
	if (cfg.Classes*cfg.TrainSize)%cfg.Batch != 0 || (cfg.Classes*cfg.TestSize)%cfg.Batch != 0 {
		return res, fmt.Errorf("training (%d) and held-out (%d) points must be multiples of the batch size %d",
			cfg.Classes*cfg.TrainSize, cfg.Classes*cfg.TestSize, cfg.Batch)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0xc1a55))
	train := spirals(rng, cfg.Classes, cfg.TrainSize, cfg.Noise)
	test := spirals(rng, cfg.Classes, cfg.TestSize, cfg.Noise)
	m, err := newModel(cfg.Batch, cfg.Hidden, cfg.Classes, rng)
	if err != nil {
		return res, err
	}
	vm := G.NewTapeMachine(m.g, G.BindDualValues(m.params...))
	defer vm.Close()
	solver := G.NewAdamSolver(G.WithLearnRate(cfg.LearnRate))

	fmt.Fprintf(w, "task: %d interleaved spirals (angle noise %g); %d training and %d held-out points\n",
		cfg.Classes, cfg.Noise, len(train), len(test))
	fmt.Fprintf(w, "model: 2-%d-%d-%d perceptron, LogSoftMax + negative log-likelihood; batch %d, Adam lr %g\n",
		cfg.Hidden, cfg.Hidden, cfg.Classes, cfg.Batch, cfg.LearnRate)
	start := time.Now()
	for epoch := 1; epoch <= cfg.Epochs; epoch++ {
		t0 := time.Now()
		rng.Shuffle(len(train), func(i, j int) { train[i], train[j] = train[j], train[i] })
		var sum float64
		for b := 0; b < len(train); b += cfg.Batch {
			if err := m.let(train[b : b+cfg.Batch]); err != nil {
				return res, err
			}
			if err := vm.RunAll(); err != nil {
				return res, fmt.Errorf("epoch %d: %w", epoch, err)
			}
			loss := m.lossVal.Data().(float64)
			if math.IsNaN(loss) || math.IsInf(loss, 0) {
				return res, fmt.Errorf("epoch %d: loss is %v", epoch, loss)
			}
			sum += loss
			if err := solver.Step(G.NodesToValueGrads(m.params)); err != nil {
				return res, err
			}
			vm.Reset()
		}
		trainTime := time.Since(t0)
		acc, err := evaluate(m, vm, test)
		if err != nil {
			return res, err
		}
		res.Losses = append(res.Losses, sum/float64(len(train)/cfg.Batch))
		res.Accuracy = acc
		fmt.Fprintf(w, "epoch %2d/%d  loss %.4f  held-out accuracy %5.1f%%  %6.0f examples/s\n",
			epoch, cfg.Epochs, res.Losses[epoch-1], 100*acc, float64(len(train))/trainTime.Seconds())
	}
	res.Train = time.Since(start)
	fmt.Fprintf(w, "done: held-out accuracy %.1f%% (chance %.1f%%) after %d epochs in %.1fs\n",
		100*res.Accuracy, 100/float64(cfg.Classes), cfg.Epochs, res.Train.Seconds())
	if cfg.Plot != "" {
		if err := lossplot.Write(cfg.Plot, "spiral classifier: training loss", res.Losses); err != nil {
			return res, err
		}
		fmt.Fprintf(w, "wrote %s\n", cfg.Plot)
	}
	return res, nil
}

// evaluate returns the accuracy on the held-out points. The machine also
// computes gradients, which accumulate into the weights' derivatives; they
// are cleared so that the next training step does not see them.
func evaluate(m *model, vm G.VM, test []point) (float64, error) {
	correct := 0
	for b := 0; b < len(test); b += m.batch {
		pts := test[b : b+m.batch]
		if err := m.let(pts); err != nil {
			return 0, err
		}
		if err := vm.RunAll(); err != nil {
			return 0, err
		}
		correct += m.correct(pts)
		vm.Reset()
	}
	for _, p := range m.params {
		g, err := p.Grad()
		if err != nil {
			return 0, err
		}
		g.(tensor.Tensor).Zero()
	}
	return float64(correct) / float64(len(test)), nil
}
