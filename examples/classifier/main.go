// Command classifier trains a small perceptron whose classifier layer is
// softmax.LogSoftMax with a negative log-likelihood loss, on interleaved
// spirals generated in code (no download). With the defaults it reaches at
// least 95% held-out accuracy on five spirals (98-99% typically) in a few
// seconds.
//
// Usage:
//
//	go run ./examples/classifier [-epochs 30] [-seed 1] [-plot loss.png]
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	cfg := defaultConfig()
	flag.IntVar(&cfg.Epochs, "epochs", cfg.Epochs, "training epochs")
	flag.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "random seed for data and weights")
	flag.StringVar(&cfg.Plot, "plot", "", "write a PNG of the loss curve to this file")
	flag.Parse()
	if _, err := run(cfg, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "classifier:", err)
		os.Exit(1)
	}
}
