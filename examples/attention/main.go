// Command attention trains a multi-head causal self-attention block, written
// as a Gorgonia graph around softmax.MaskedSoftMax, on a task that needs
// attention: at each position, repeat the token seen a few steps earlier, in
// left-padded sequences of mixed lengths.
//
// Before training it checks once that MaskedSoftMax with Scale, Causal and a
// [B,1,1,S] padding mask gives the same values and gradients as the same
// attention written with Gorgonia's own operations.
//
// Usage:
//
//	go run ./examples/attention [-epochs 8] [-seed 1] [-plot loss.png]
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
		fmt.Fprintln(os.Stderr, "attention:", err)
		os.Exit(1)
	}
}
