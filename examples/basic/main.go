// Command basic is the smallest tour of the library: it builds one Gorgonia
// graph with SoftMax, LogSoftMax, MaskedSoftMax and MaskedLogSoftMax, runs
// it forward and backward on a TapeMachine, and prints the values and the
// gradients.
//
// Usage:
//
//	go run ./examples/basic
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gosoftmax/softmax"
)

// The 2×4 input and mask. true keeps an element, false masks it out.
var (
	xData = []float64{
		1, 2, 3, 4,
		2, 0, -1, 5,
	}
	maskData = []bool{
		true, true, true, false,
		true, false, true, false,
	}
	// Each function's loss term is the sum of its output at these
	// (row, column) places, both kept by the mask, so that the gradient
	// reaching each function is 1 there and 0 elsewhere.
	picks = [][2]int{{0, 0}, {1, 2}}
)

// output is what one function computed: its values and dloss/dx.
type output struct {
	Name  string
	Y, DX []float64
}

func main() {
	if _, err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "basic:", err)
		os.Exit(1)
	}
}

// run builds the graph, runs it forward and backward and prints what each
// function gave.
func run(w io.Writer) ([]output, error) {
	g := G.NewGraph()
	shape := []int{2, 4}
	mask := G.NewMatrix(g, tensor.Bool, G.WithShape(shape...), G.WithName("mask"),
		G.WithValue(tensor.New(tensor.WithShape(shape...), tensor.WithBacking(maskData))))

	fns := []struct {
		name  string
		apply func(x *G.Node) (*G.Node, error)
	}{
		{"SoftMax(x)", func(x *G.Node) (*G.Node, error) { return softmax.SoftMax(x) }},
		{"LogSoftMax(x)", func(x *G.Node) (*G.Node, error) { return softmax.LogSoftMax(x) }},
		{"MaskedSoftMax(x, mask)", func(x *G.Node) (*G.Node, error) { return softmax.MaskedSoftMax(x, mask) }},
		{"MaskedLogSoftMax(x, mask, Scale(0.5))", func(x *G.Node) (*G.Node, error) {
			return softmax.MaskedLogSoftMax(x, mask, softmax.Scale(0.5))
		}},
	}

	// One input node per function, so that each gradient belongs to one
	// function; the loss adds up every function's picks.
	var xs, ys G.Nodes
	var loss *G.Node
	for i, f := range fns {
		x := G.NewMatrix(g, tensor.Float64, G.WithShape(shape...), G.WithName(fmt.Sprintf("x%d", i)),
			G.WithValue(tensor.New(tensor.WithShape(shape...), tensor.WithBacking(append([]float64(nil), xData...)))))
		y, err := f.apply(x)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
		for _, p := range picks {
			// Picking elements (not weighting all of them) keeps the -Inf
			// outputs of the masked log-softmax out of the loss.
			e, err := G.Slice(y, G.S(p[0]), G.S(p[1]))
			if err != nil {
				return nil, err
			}
			if loss == nil {
				loss = e
			} else if loss, err = G.Add(loss, e); err != nil {
				return nil, err
			}
		}
		xs, ys = append(xs, x), append(ys, y)
	}
	grads, err := G.Grad(loss, xs...)
	if err != nil {
		return nil, fmt.Errorf("gradient: %w", err)
	}

	vm := G.NewTapeMachine(g)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		return nil, err
	}

	fmt.Fprintf(w, "x =%s\nmask (true keeps) =%s\n", format(xData), formatMask(maskData))
	fmt.Fprintf(w, "loss = sum over the four functions of y[0,0] + y[1,2]\nbackend: %s\n", softmax.Backend())
	var outs []output
	for i, f := range fns {
		o := output{
			Name: f.name,
			Y:    append([]float64(nil), ys[i].Value().(*tensor.Dense).Float64s()...),
			DX:   append([]float64(nil), grads[i].Value().(*tensor.Dense).Float64s()...),
		}
		outs = append(outs, o)
		fmt.Fprintf(w, "\n%s =%s\ndloss/dx =%s\n", o.Name, format(o.Y), format(o.DX))
	}
	return outs, nil
}

// format prints a 2×4 matrix, one row a line.
func format(v []float64) string {
	var b strings.Builder
	for i, e := range v {
		if i%4 == 0 {
			b.WriteString("\n   ")
		}
		if e == 0 {
			e = 0 // print -0 as 0
		}
		fmt.Fprintf(&b, " %8.4f", e)
	}
	return b.String()
}

// formatMask prints a 2×4 mask, one row a line.
func formatMask(v []bool) string {
	var b strings.Builder
	for i, e := range v {
		if i%4 == 0 {
			b.WriteString("\n   ")
		}
		fmt.Fprintf(&b, " %8v", e)
	}
	return b.String()
}
