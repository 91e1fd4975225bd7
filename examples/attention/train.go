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
	TrainSize int    // training sequences, a multiple of the batch size
	TestSize  int    // held-out sequences, a multiple of the batch size
	LearnRate float64
	task      task
	shape     shape
}

// defaultConfig is what `go run ./examples/attention` does.
func defaultConfig() config {
	return config{
		Epochs:    8,
		Seed:      1,
		TrainSize: 2048,
		TestSize:  1024,
		LearnRate: 0.005,
		task:      task{vocab: 16, seqLen: 24, minLen: 8, lag: 4},
		shape:     shape{batch: 64, dim: 32, heads: 4},
	}
}

// result is what a run measured.
type result struct {
	Losses   []float64     // mean training loss of each epoch
	Accuracy float64       // held-out accuracy after the last epoch
	Train    time.Duration // time spent training and evaluating
	Check    checkResult
}

// run checks MaskedSoftMax against Gorgonia's own ops, then trains the
// model, printing one line per epoch and a summary to w.
func run(cfg config, w io.Writer) (result, error) {
	var res result
	s := cfg.shape
	s.seqLen, s.vocab = cfg.task.seqLen, cfg.task.vocab
	if cfg.TrainSize%s.batch != 0 || cfg.TestSize%s.batch != 0 || cfg.TrainSize == 0 || cfg.TestSize == 0 {
		return res, fmt.Errorf("train size %d and test size %d must be positive multiples of the batch size %d", cfg.TrainSize, cfg.TestSize, s.batch)
	}

	var err error
	if res.Check, err = checkAgainstGorgonia(cfg.Seed); err != nil {
		return res, err
	}
	fmt.Fprintf(w, "check: MaskedSoftMax matches Gorgonia's own ops (scale, add -1e9 where masked, gorgonia.SoftMax) on causal padded attention: outputs within %.1e, gradients within %.1e\n",
		res.Check.Values, res.Check.Grads)

	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5eed))
	train := cfg.task.dataset(rng, cfg.TrainSize)
	test := cfg.task.dataset(rng, cfg.TestSize)
	m, err := newModel(s, rng)
	if err != nil {
		return res, err
	}
	vm := G.NewTapeMachine(m.g, G.BindDualValues(m.params...))
	defer vm.Close()
	solver := G.NewAdamSolver(G.WithLearnRate(cfg.LearnRate))
	in := newBatchInputs(s)

	fmt.Fprintf(w, "task: repeat the token seen %d steps earlier; vocab %d, %d positions, lengths %d-%d, left-padded\n",
		cfg.task.lag, cfg.task.vocab, cfg.task.seqLen, cfg.task.minLen, cfg.task.seqLen)
	fmt.Fprintf(w, "model: 1 causal self-attention block, D=%d, %d heads; %d training and %d held-out sequences, batch %d; Adam lr %g\n",
		s.dim, s.heads, cfg.TrainSize, cfg.TestSize, s.batch, cfg.LearnRate)

	start := time.Now()
	for epoch := 1; epoch <= cfg.Epochs; epoch++ {
		t0 := time.Now()
		rng.Shuffle(len(train), func(i, j int) { train[i], train[j] = train[j], train[i] })
		var sum float64
		for b := 0; b < len(train); b += s.batch {
			in.fill(s, train[b:b+s.batch])
			if err := m.let(in); err != nil {
				return res, err
			}
			if err := vm.RunAll(); err != nil {
				return res, fmt.Errorf("epoch %d: %w", epoch, err)
			}
			loss := scalar(m.lossVal)
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
		acc, err := evaluate(m, vm, in, test)
		if err != nil {
			return res, err
		}
		res.Losses = append(res.Losses, sum/float64(len(train)/s.batch))
		res.Accuracy = acc
		fmt.Fprintf(w, "epoch %2d/%d  loss %.4f  held-out accuracy %5.1f%%  %6.0f examples/s\n",
			epoch, cfg.Epochs, res.Losses[epoch-1], 100*acc, float64(len(train))/trainTime.Seconds())
	}
	res.Train = time.Since(start)
	fmt.Fprintf(w, "done: held-out accuracy %.1f%% (chance %.1f%%) after %d epochs in %.1fs\n",
		100*res.Accuracy, 100/float64(s.vocab), cfg.Epochs, res.Train.Seconds())
	if cfg.Plot != "" {
		if err := lossplot.Write(cfg.Plot, "causal self-attention: training loss", res.Losses); err != nil {
			return res, err
		}
		fmt.Fprintf(w, "wrote %s\n", cfg.Plot)
	}
	return res, nil
}

// evaluate returns the accuracy on the held-out sequences. The machine also
// computes gradients, which accumulate into the weights' derivatives; they
// are cleared so that the next training step does not see them.
func evaluate(m *model, vm G.VM, in batchInputs, test []sequence) (float64, error) {
	var correct, total int
	for b := 0; b < len(test); b += m.batch {
		seqs := test[b : b+m.batch]
		total += in.fill(m.shape, seqs)
		if err := m.let(in); err != nil {
			return 0, err
		}
		if err := vm.RunAll(); err != nil {
			return 0, err
		}
		correct += m.correct(seqs)
		vm.Reset()
	}
	for _, p := range m.params {
		g, err := p.Grad()
		if err != nil {
			return 0, err
		}
		g.(tensor.Tensor).Zero()
	}
	return float64(correct) / float64(total), nil
}

// scalar reads a scalar value.
func scalar(v G.Value) float64 {
	switch x := v.Data().(type) {
	case float32:
		return float64(x)
	case float64:
		return x
	}
	return math.NaN()
}
