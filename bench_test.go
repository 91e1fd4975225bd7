package softmax_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gosoftmax/softmax"
)

// benchShapes are the CPU benchmark shapes: a square matrix, many short
// rows, few very long rows and a vocabulary-sized row.
var benchShapes = [][]int{{4096, 4096}, {65536, 128}, {4, 4194304}, {512, 32000}}

func randomDense(dt tensor.Dtype, shape []int, seed uint64) *tensor.Dense {
	rng := rand.New(rand.NewPCG(seed, 99))
	n := 1
	for _, s := range shape {
		n *= s
	}
	var backing any
	if dt == tensor.Float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64() * 3)
		}
		backing = v
	} else {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64() * 3
		}
		backing = v
	}
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(backing))
}

func name(dt tensor.Dtype, shape []int) string {
	return fmt.Sprintf("%v/%dx%d", dt, shape[0], shape[1])
}

// setBytes reports throughput as bytes read plus bytes written.
func setBytes(b *testing.B, x *tensor.Dense, arrays int) {
	b.SetBytes(int64(x.Shape().TotalSize() * int(x.Dtype().Size()) * arrays))
}

// BenchmarkForward times the eager softmax and log-softmax (x read, y
// written) next to Gorgonia's built-in tensor.SoftMax on the same data, each
// with a new output per call ("alloc") and with a reused output ("reuse":
// our Into option, Gorgonia's tensor.WithReuse), which is how a graph's
// machine runs them.
func BenchmarkForward(b *testing.B) {
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		for _, shape := range benchShapes {
			x := randomDense(dt, shape, 1)
			out := tensor.New(tensor.WithShape(shape...), tensor.Of(dt))
			cases := []struct {
				name string
				run  func() error
			}{
				{"softmax/alloc", func() error { _, err := softmax.SoftMaxTensor(x); return err }},
				{"softmax/reuse", func() error { _, err := softmax.SoftMaxTensor(x, softmax.Into(out)); return err }},
				{"logsoftmax/reuse", func() error { _, err := softmax.LogSoftMaxTensor(x, softmax.Into(out)); return err }},
				{"gorgonia-softmax/alloc", func() error { _, err := tensor.SoftMax(x, 1); return err }},
				{"gorgonia-softmax/reuse", func() error { _, err := tensor.SoftMax(x, 1, tensor.WithReuse(out)); return err }},
				{"gorgonia-logsoftmax/reuse", func() error { _, err := tensor.LogSoftMax(x, 1, tensor.WithReuse(out)); return err }},
			}
			for _, c := range cases {
				b.Run(c.name+"/"+name(dt, shape), func(b *testing.B) {
					setBytes(b, x, 2)
					for b.Loop() {
						if err := c.run(); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkBackward times the eager gradients (y and dy read, dx written)
// into a reused output, next to Gorgonia's tensor.SoftMaxB and LogSoftMaxB.
func BenchmarkBackward(b *testing.B) {
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		for _, shape := range benchShapes {
			x := randomDense(dt, shape, 1)
			dy := randomDense(dt, shape, 2)
			out := tensor.New(tensor.WithShape(shape...), tensor.Of(dt))
			y, err := softmax.SoftMaxTensor(x)
			if err != nil {
				b.Fatal(err)
			}
			ly, err := softmax.LogSoftMaxTensor(x)
			if err != nil {
				b.Fatal(err)
			}
			cases := []struct {
				name string
				run  func() error
			}{
				{"softmax/reuse", func() error { _, err := softmax.SoftMaxGrad(y, dy, softmax.Into(out)); return err }},
				{"logsoftmax/reuse", func() error { _, err := softmax.LogSoftMaxGrad(ly, dy, softmax.Into(out)); return err }},
				{"gorgonia-softmax/reuse", func() error { _, err := tensor.SoftMaxB(y, dy, 1, tensor.WithReuse(out)); return err }},
				{"gorgonia-logsoftmax/reuse", func() error { _, err := tensor.LogSoftMaxB(ly, dy, 1, tensor.WithReuse(out)); return err }},
			}
			for _, c := range cases {
				b.Run(c.name+"/"+name(dt, shape), func(b *testing.B) {
					setBytes(b, x, 3)
					for b.Loop() {
						if err := c.run(); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// BenchmarkGraph runs softmax forward and backward through a TapeMachine
// (loss = sum(softmax(x) * w)), ours next to Gorgonia's built-in op: what a
// model built in Gorgonia pays per step.
func BenchmarkGraph(b *testing.B) {
	for _, shape := range [][]int{{4096, 4096}, {512, 32000}} {
		for _, impl := range []string{"softmax", "gorgonia-softmax"} {
			b.Run(impl+"/"+name(tensor.Float32, shape), func(b *testing.B) {
				g := gorgonia.NewGraph()
				x := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(shape...), gorgonia.WithName("x"),
					gorgonia.WithValue(randomDense(tensor.Float32, shape, 1)))
				// a variable, not a constant: Gorgonia hashes a constant by printing it
				w := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(shape...), gorgonia.WithName("w"),
					gorgonia.WithValue(randomDense(tensor.Float32, shape, 2)))
				var y *gorgonia.Node
				var err error
				if impl == "softmax" {
					y, err = softmax.SoftMax(x)
				} else {
					y, err = gorgonia.SoftMax(x)
				}
				if err != nil {
					b.Fatal(err)
				}
				loss := gorgonia.Must(gorgonia.Sum(gorgonia.Must(gorgonia.HadamardProd(y, w))))
				if _, err := gorgonia.Grad(loss, x); err != nil {
					b.Fatal(err)
				}
				vm := gorgonia.NewTapeMachine(g)
				defer vm.Close()
				for b.Loop() {
					if err := vm.RunAll(); err != nil {
						b.Fatal(err)
					}
					vm.Reset()
				}
			})
		}
	}
}
