//go:build !cu

package main

import (
	"fmt"
	"os"
)

// Without the cu tag there are no CUDA kernels to time.
func main() {
	fmt.Fprintln(os.Stderr, "softmax-bench: build with -tags cu (see bench/README.md)")
	os.Exit(2)
}
