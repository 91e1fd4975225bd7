package softmax_test

import (
	"math"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gosoftmax/softmax"
)

// TestSecondOrderGraph takes the gradient of a gradient through a graph:
// L2 = sum(v * dL1/dx) with L1 = sum(w * f(x)), and compares dL2/dx with
// central differences of the eager gradient, for all four functions.
func TestSecondOrderGraph(t *testing.T) {
	shape := []int{2, 5}
	x0 := []float64{0.3, -1.2, 2.1, 0.7, 1.5, -0.4, 0.2, 0.9, -2.2, 0.1}
	w := []float64{1, -2, 0.5, 3, -1, 2, 0.25, -0.5, 1.5, -3}
	v := []float64{0.7, 0.1, -1.3, 0.4, 2.2, -0.9, 1.1, 0.3, -0.6, 0.8}
	maskT := tensor.New(tensor.WithShape(1, 5), tensor.WithBacking([]bool{true, true, false, true, true}))
	opts := []softmax.Option{softmax.Scale(0.8)}
	for _, c := range functions {
		// eager: dL1/dx at x, with dy = w
		firstGrad := func(xv []float64) []float64 {
			y, err := c.forward(dense64(shape, xv...), maskT, opts...)
			if err != nil {
				t.Fatal(err)
			}
			dx, err := c.grad(y, dense64(shape, w...), maskT, opts...)
			if err != nil {
				t.Fatal(err)
			}
			return dx.Float64s()
		}

		g := gorgonia.NewGraph()
		x := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(shape...), gorgonia.WithName("x"), gorgonia.WithValue(dense64(shape, x0...)))
		mask := gorgonia.NewMatrix(g, tensor.Bool, gorgonia.WithShape(1, 5), gorgonia.WithName("mask"), gorgonia.WithValue(maskT))
		y, err := c.node(x, mask, opts...)
		if err != nil {
			t.Fatal(err)
		}
		// The first gradient is built by hand from the op's SymDiff (the
		// node gorgonia.Grad would make): Gorgonia v0.9.18's Grad skips
		// nodes that already have a gradient, so it cannot be called twice.
		inputs := gorgonia.Nodes{x}
		if c.masked {
			inputs = append(inputs, mask)
		}
		first, err := y.Op().(gorgonia.SDOp).SymDiff(inputs, y, gorgonia.NewConstant(dense64(shape, w...)))
		if err != nil {
			t.Fatalf("%s: first SymDiff: %v", c.name, err)
		}
		l2 := gorgonia.Must(gorgonia.Sum(gorgonia.Must(gorgonia.HadamardProd(first[0], gorgonia.NewConstant(dense64(shape, v...))))))
		second, err := gorgonia.Grad(l2, x)
		if err != nil {
			t.Fatalf("%s: Grad of the gradient: %v", c.name, err)
		}
		vm := gorgonia.NewTapeMachine(g)
		if err := vm.RunAll(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		vm.Close()
		got := second[0].Value().(*tensor.Dense).Float64s()
		for i := range x0 {
			const h = 1e-6
			xp, xm := append([]float64(nil), x0...), append([]float64(nil), x0...)
			xp[i] += h
			xm[i] -= h
			gp, gm := firstGrad(xp), firstGrad(xm)
			num := 0.0
			for k := range v {
				num += v[k] * (gp[k] - gm[k]) / (2 * h)
			}
			if math.Abs(got[i]-num) > 1e-6*(1+math.Abs(num)) {
				t.Errorf("%s: d2[%d] = %v, central difference %v", c.name, i, got[i], num)
			}
		}
	}
}
