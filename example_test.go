package softmax_test

import (
	"fmt"
	"log"
	"strings"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gosoftmax/softmax"
)

// exTensor returns a Float64 tensor of the given shape holding v.
func exTensor(shape []int, v ...float64) *tensor.Dense {
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(v))
}

// exMask returns a Bool tensor of the given shape holding v.
func exMask(shape []int, v ...bool) *tensor.Dense {
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(v))
}

// exInput adds an input node holding t to g.
func exInput(g *gorgonia.ExprGraph, name string, t *tensor.Dense) *gorgonia.Node {
	return gorgonia.NewTensor(g, t.Dtype(), t.Dims(), gorgonia.WithShape(t.Shape()...),
		gorgonia.WithName(name), gorgonia.WithValue(t))
}

// exRun runs g forward and backward once on a TapeMachine.
func exRun(g *gorgonia.ExprGraph) {
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		log.Fatal(err)
	}
}

// exPick adds a node holding the sum of y's elements at the given indices.
func exPick(y *gorgonia.Node, at ...[]int) *gorgonia.Node {
	var sum *gorgonia.Node
	for _, idx := range at {
		var ss []tensor.Slice
		for _, i := range idx {
			ss = append(ss, gorgonia.S(i))
		}
		e := gorgonia.Must(gorgonia.Slice(y, ss...))
		if sum == nil {
			sum = e
		} else {
			sum = gorgonia.Must(gorgonia.Add(sum, e))
		}
	}
	return sum
}

// Each row sums to 1, computed stably: the second row is the input on which
// Gorgonia's built-in softmax returns NaN.
func ExampleSoftMax() {
	g := gorgonia.NewGraph()
	x := exInput(g, "x", exTensor([]int{2, 3},
		0, 0, 0,
		1000, 0, 0))
	y, err := softmax.SoftMax(x)
	if err != nil {
		log.Fatal(err)
	}
	exRun(g)
	fmt.Printf("%.4f\n", y.Value().Data())
	// Output: [0.3333 0.3333 0.3333 1.0000 0.0000 0.0000]
}

// A negative log-likelihood loss on log-softmax: the gradient is the
// softmax minus the one-hot target. SoftMax and LogSoftMax of the same node
// stay two nodes (Gorgonia's built-in ops merge them into one).
func ExampleLogSoftMax() {
	g := gorgonia.NewGraph()
	logits := exInput(g, "logits", exTensor([]int{3}, 1, 2, 3))
	logp, err := softmax.LogSoftMax(logits)
	if err != nil {
		log.Fatal(err)
	}
	p, err := softmax.SoftMax(logits)
	if err != nil {
		log.Fatal(err)
	}
	nll := gorgonia.Must(gorgonia.Neg(exPick(logp, []int{2}))) // the target is class 2
	grads, err := gorgonia.Grad(nll, logits)
	if err != nil {
		log.Fatal(err)
	}
	exRun(g)
	fmt.Printf("log p  %.4f\n", logp.Value().Data())
	fmt.Printf("p      %.4f\n", p.Value().Data())
	fmt.Printf("loss   %.4f\n", nll.Value().Data())
	fmt.Printf("dloss  %.4f\n", grads[0].Value().Data())
	// Output:
	// log p  [-2.4076 -1.4076 -0.4076]
	// p      [0.0900 0.2447 0.6652]
	// loss   0.4076
	// dloss  [0.0900 0.2447 -0.3348]
}

// A padding mask for attention scores: true keeps a key. The [B,1,1,S] mask
// broadcasts over heads and queries. Masked keys get exactly 0.
func ExampleMaskedSoftMax() {
	g := gorgonia.NewGraph()
	// B=2 sequences, H=1 head, S=3 queries and keys, all scores 0.
	scores := exInput(g, "scores", exTensor([]int{2, 1, 3, 3}, make([]float64, 18)...))
	keep := exInput(g, "keep", exMask([]int{2, 1, 1, 3},
		true, true, true, // sequence 0: three real tokens
		true, true, false)) // sequence 1: two real tokens and a pad
	probs, err := softmax.MaskedSoftMax(scores, keep)
	if err != nil {
		log.Fatal(err)
	}
	exRun(g)
	rows := probs.Value().(*tensor.Dense).Float64s()
	for r := 0; r < 6; r++ {
		fmt.Printf("%.4f\n", rows[3*r:3*r+3])
	}
	// Output:
	// [0.3333 0.3333 0.3333]
	// [0.3333 0.3333 0.3333]
	// [0.3333 0.3333 0.3333]
	// [0.5000 0.5000 0.0000]
	// [0.5000 0.5000 0.0000]
	// [0.5000 0.5000 0.0000]
}

// Masked elements get -Inf and no gradient; a row with nothing kept gives
// all -Inf (MaskedSoftMax gives all zeros), never NaN.
func ExampleMaskedLogSoftMax() {
	g := gorgonia.NewGraph()
	x := exInput(g, "x", exTensor([]int{2, 3},
		1, 2, 3,
		1, 2, 3))
	keep := exInput(g, "keep", exMask([]int{2, 3},
		true, true, false,
		false, false, false))
	logp, err := softmax.MaskedLogSoftMax(x, keep)
	if err != nil {
		log.Fatal(err)
	}
	nll := gorgonia.Must(gorgonia.Neg(exPick(logp, []int{0, 1})))
	grads, err := gorgonia.Grad(nll, x)
	if err != nil {
		log.Fatal(err)
	}
	exRun(g)
	fmt.Printf("log p  %.4f\n", logp.Value().Data())
	fmt.Printf("dloss  %.4f\n", grads[0].Value().Data())
	// Output:
	// log p  [-1.3133 -0.3133 -Inf -Inf -Inf -Inf]
	// dloss  [0.2689 -0.2689 0.0000 0.0000 0.0000 0.0000]
}

// Axis picks the reduced axis: here the columns sum to 1.
func ExampleAxis() {
	x := exTensor([]int{2, 2},
		0, 1,
		0, 3)
	y, err := softmax.SoftMaxTensor(x, softmax.Axis(0))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.4f\n", y.Data())
	// Output: [0.5000 0.1192 0.5000 0.8808]
}

// Scale(s) computes softmax(s*x) without a separate multiply: attention
// uses Scale(1/sqrt(d)); a scale below 1 flattens the distribution (a
// temperature above 1).
func ExampleScale() {
	x := exTensor([]int{3}, 1, 2, 3)
	for _, s := range []float64{1, 0.5} {
		y, err := softmax.SoftMaxTensor(x, softmax.Scale(s))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("Scale(%v) %.4f\n", s, y.Data())
	}
	// Output:
	// Scale(1) [0.0900 0.2447 0.6652]
	// Scale(0.5) [0.1863 0.3072 0.5065]
}

// Causal(0) is the decoder mask: query i sees keys 0..i. Causal(1) also
// lets each query see one key ahead.
func ExampleCausal() {
	scores := exTensor([]int{3, 3}, make([]float64, 9)...)
	for _, offset := range []int{0, 1} {
		y, err := softmax.SoftMaxTensor(scores, softmax.Causal(offset))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("Causal(%d)\n", offset)
		rows := y.Float64s()
		for r := 0; r < 3; r++ {
			fmt.Printf("%.4f\n", rows[3*r:3*r+3])
		}
	}
	// Output:
	// Causal(0)
	// [1.0000 0.0000 0.0000]
	// [0.5000 0.5000 0.0000]
	// [0.3333 0.3333 0.3333]
	// Causal(1)
	// [0.5000 0.5000 0.0000]
	// [0.3333 0.3333 0.3333]
	// [0.3333 0.3333 0.3333]
}

func ExampleSoftMaxTensor() {
	x := exTensor([]int{2, 3},
		1, 2, 3,
		-1e4, 0, 1e4)
	y, err := softmax.SoftMaxTensor(x)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(y.Shape())
	fmt.Printf("%.4f\n", y.Data())
	// Output:
	// (2, 3)
	// [0.0900 0.2447 0.6652 0.0000 0.0000 1.0000]
}

func ExampleLogSoftMaxTensor() {
	x := exTensor([]int{3}, 1, 2, 3)
	y, err := softmax.LogSoftMaxTensor(x)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.4f\n", y.Data())
	// Output: [-2.4076 -1.4076 -0.4076]
}

// The mask has x's rank; a dimension of 1 broadcasts. Here one [1,3] mask
// serves both rows.
func ExampleMaskedSoftMaxTensor() {
	x := exTensor([]int{2, 3},
		1, 2, 3,
		0, 0, 0)
	keep := exMask([]int{1, 3}, true, false, true)
	y, err := softmax.MaskedSoftMaxTensor(x, keep)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.4f\n", y.Data())
	// Output: [0.1192 0.0000 0.8808 0.5000 0.0000 0.5000]
}

func ExampleMaskedLogSoftMaxTensor() {
	x := exTensor([]int{3}, 1, 2, 3)
	keep := exMask([]int{3}, true, true, false)
	y, err := softmax.MaskedLogSoftMaxTensor(x, keep)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.4f\n", y.Data())
	// Output: [-1.3133 -0.3133 -Inf]
}

// The gradient with respect to x of a softmax whose output is y, for the
// incoming gradient dy: y*(dy - sum(dy*y)) along the axis.
func ExampleSoftMaxGrad() {
	x := exTensor([]int{3}, 1, 2, 3)
	y, err := softmax.SoftMaxTensor(x)
	if err != nil {
		log.Fatal(err)
	}
	dy := exTensor([]int{3}, 0, 0, 1) // the gradient of y[2]
	dx, err := softmax.SoftMaxGrad(y, dy)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.4f\n", dx.Data())
	// Output: [-0.0599 -0.1628 0.2227]
}

// For a negative log-likelihood the incoming gradient is minus the one-hot
// target, and the gradient is the softmax minus the target.
func ExampleLogSoftMaxGrad() {
	x := exTensor([]int{3}, 1, 2, 3)
	y, err := softmax.LogSoftMaxTensor(x)
	if err != nil {
		log.Fatal(err)
	}
	dy := exTensor([]int{3}, 0, 0, -1) // d(-log p[2])/d log p
	dx, err := softmax.LogSoftMaxGrad(y, dy)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.4f\n", dx.Data())
	// Output: [0.0900 0.2447 -0.3348]
}

// Pass the same mask and options as to the forward call; masked elements
// get a zero gradient.
func ExampleMaskedSoftMaxGrad() {
	x := exTensor([]int{3}, 1, 2, 3)
	keep := exMask([]int{3}, true, true, false)
	y, err := softmax.MaskedSoftMaxTensor(x, keep, softmax.Scale(2))
	if err != nil {
		log.Fatal(err)
	}
	dy := exTensor([]int{3}, 1, 0, 0)
	dx, err := softmax.MaskedSoftMaxGrad(y, dy, keep, softmax.Scale(2))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("y  %.4f\ndx %.4f\n", y.Data(), dx.Data())
	// Output:
	// y  [0.1192 0.8808 0.0000]
	// dx [0.2100 -0.2100 0.0000]
}

func ExampleMaskedLogSoftMaxGrad() {
	x := exTensor([]int{3}, 1, 2, 3)
	keep := exMask([]int{3}, true, true, false)
	y, err := softmax.MaskedLogSoftMaxTensor(x, keep)
	if err != nil {
		log.Fatal(err)
	}
	dy := exTensor([]int{3}, -1, 0, 0) // d(-log p[0])/d log p
	dx, err := softmax.MaskedLogSoftMaxGrad(y, dy, keep)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.4f\n", dx.Data())
	// Output: [-0.7311 0.7311 0.0000]
}

// Into reuses one output tensor across calls instead of allocating a new
// one each time; the call returns dst.
func ExampleInto() {
	dst := tensor.New(tensor.Of(tensor.Float64), tensor.WithShape(3))
	for _, x := range []*tensor.Dense{
		exTensor([]int{3}, 1, 2, 3),
		exTensor([]int{3}, 0, 0, 0),
	} {
		y, err := softmax.SoftMaxTensor(x, softmax.Into(dst))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%.4f %v\n", dst.Data(), y == dst)
	}
	// Output:
	// [0.0900 0.2447 0.6652] true
	// [0.3333 0.3333 0.3333] true
}

// Backend names the kernels in use. The default build prints
//
//	cpu (no GPU backend compiled in; build with -tags cu or -tags hip)
//
// A -tags cu build on a machine with an NVIDIA GPU names the GPU backend,
// which takes large tensors, and the CPU backend, which keeps small ones.
// The CPU backend is always there, so this example passes in every build.
func ExampleBackend() {
	fmt.Println(strings.Contains(softmax.Backend(), "cpu"))
	// Output: true
}

// PyTorch's key_padding_mask and masked_fill, and Apex's fused
// scale-mask-softmax, mark the elements to drop with true (or 1). Here true
// keeps an element, so invert such a mask before passing it.
func Example_pyTorchMask() {
	// A PyTorch key_padding_mask for one sequence of 2 real tokens and a pad.
	padded := []bool{false, false, true}
	keep := make([]bool, len(padded))
	for i, p := range padded {
		keep[i] = !p
	}
	y, err := softmax.MaskedSoftMaxTensor(exTensor([]int{3}, 0, 0, 0), exMask([]int{3}, keep...))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.4f\n", y.Data())
	// Output: [0.5000 0.5000 0.0000]
}
