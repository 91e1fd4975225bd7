package softmax_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gosoftmax/softmax"
	"github.com/gosoftmax/softmax/internal/reference"
)

// graphRun is what one machine computed for a problem.
type graphRun struct{ y, dx []float64 }

// options turns a reference problem into API options.
func options(p reference.Problem) []softmax.Option {
	opts := []softmax.Option{softmax.Axis(p.UserAxis)}
	if p.Scale != 1 {
		opts = append(opts, softmax.Scale(p.Scale))
	}
	if p.Causal {
		opts = append(opts, softmax.Causal(p.Offset))
	}
	return opts
}

func floatsOf(dt tensor.Dtype, v []float64) any {
	if dt == tensor.Float32 {
		out := make([]float32, len(v))
		for i, e := range v {
			out[i] = float32(e)
		}
		return out
	}
	return append([]float64(nil), v...)
}

func widen(v any) []float64 {
	switch v := v.(type) {
	case []float32:
		out := make([]float64, len(v))
		for i, e := range v {
			out[i] = float64(e)
		}
		return out
	case []float64:
		return append([]float64(nil), v...)
	}
	panic("unexpected data type")
}

// build makes loss = sum(op(x) * dy) so that the gradient reaching the op is
// exactly dy, and returns the graph, x and the op's output.
func build(t *testing.T, p reference.Problem, dt tensor.Dtype) (*gorgonia.ExprGraph, *gorgonia.Node, *gorgonia.Node, *gorgonia.Node) {
	t.Helper()
	g := gorgonia.NewGraph()
	shape := tensor.Shape(p.Shape)
	x := gorgonia.NewTensor(g, dt, len(shape), gorgonia.WithShape(shape...), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(shape...), tensor.WithBacking(floatsOf(dt, p.X)))))
	var mask *gorgonia.Node
	if p.Mask != nil {
		mask = gorgonia.NewTensor(g, tensor.Bool, len(shape), gorgonia.WithShape(p.MaskShape...), gorgonia.WithName("mask"),
			gorgonia.WithValue(tensor.New(tensor.WithShape(p.MaskShape...), tensor.WithBacking(append([]bool(nil), p.Mask...)))))
	}
	y, err := function{masked: p.Mask != nil, log: p.Log}.node(x, mask, options(p)...)
	if err != nil {
		t.Fatalf("%+v: %v", p.Spec, err)
	}
	w := gorgonia.NewConstant(tensor.New(tensor.WithShape(shape...), tensor.WithBacking(floatsOf(dt, p.DY))), gorgonia.WithName("dy"))
	prod, err := gorgonia.HadamardProd(y, w)
	if err != nil {
		t.Fatal(err)
	}
	loss, err := gorgonia.Sum(prod)
	if err != nil {
		t.Fatal(err)
	}
	return g, x, y, loss
}

func runTape(t *testing.T, p reference.Problem, dt tensor.Dtype) graphRun {
	t.Helper()
	g, x, y, loss := build(t, p, dt)
	if _, err := gorgonia.Grad(loss, x); err != nil {
		t.Fatalf("%+v: Grad: %v", p.Spec, err)
	}
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatalf("%+v: tape: %v", p.Spec, err)
	}
	dx, err := x.Grad()
	if err != nil {
		t.Fatal(err)
	}
	return graphRun{widen(y.Value().Data()), widen(dx.Data())}
}

func runLisp(t *testing.T, p reference.Problem, dt tensor.Dtype) graphRun {
	t.Helper()
	g, x, y, loss := build(t, p, dt)
	vm := gorgonia.NewLispMachine(g)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatalf("%+v: lisp: %v", p.Spec, err)
	}
	_ = loss
	dx, err := x.Grad()
	if err != nil {
		t.Fatal(err)
	}
	return graphRun{widen(y.Value().Data()), widen(dx.Data())}
}

// checkAgainstReference compares a run with the float64 reference on the
// inputs the run saw (rounded to float32 for Float32).
func checkAgainstReference(t *testing.T, p reference.Problem, dt tensor.Dtype, r graphRun) {
	t.Helper()
	is32 := dt == tensor.Float32
	x, dy := p.X, p.DY
	if is32 {
		x, dy = reference.Float32(x), reference.Float32(dy)
	}
	want := reference.Forward(p.Spec, x)
	for i := range want {
		rel, abs := reference.Tolerance(is32, p.Log, want[i])
		if !reference.Close(r.y[i], want[i], rel, abs) {
			t.Fatalf("%v %+v: y[%d] = %v, want %v", dt, p.Spec, i, r.y[i], want[i])
		}
	}
	wantDX := reference.Backward(p.Spec, r.y, dy)
	terms := reference.GradTerms(p.Spec, r.y, dy)
	for i := range wantDX {
		if !reference.Close(r.dx[i], wantDX[i], 0, reference.GradTolerance(is32, terms[i])) {
			t.Fatalf("%v %+v: dx[%d] = %v, want %v", dt, p.Spec, i, r.dx[i], wantDX[i])
		}
	}
}

// firstDiff is the first index where a and b hold different numbers (NaN
// equals NaN; -0 equals 0, since the LispMachine adds gradients to a zero
// tensor), or -1.
func firstDiff(a, b []float64) int {
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// TestGraphsAgainstReference runs random problems (rank 1 to 4, every axis,
// odd and size-1 dimensions, scales, causal offsets, broadcast masks with
// fully masked rows) through both machines in both dtypes: values and
// gradients match the reference, and the two machines agree exactly.
func TestGraphsAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	n := 150
	if testing.Short() {
		n = 40
	}
	for i := range n {
		p := reference.Random(rng, i%2 == 1)
		for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
			tape := runTape(t, p, dt)
			checkAgainstReference(t, p, dt, tape)
			lisp := runLisp(t, p, dt)
			if i := firstDiff(tape.y, lisp.y); i >= 0 {
				t.Fatalf("%v %+v: y[%d]: TapeMachine %v, LispMachine %v", dt, p.Spec, i, tape.y[i], lisp.y[i])
			}
			if i := firstDiff(tape.dx, lisp.dx); i >= 0 {
				t.Fatalf("%v %+v: dx[%d]: TapeMachine %v, LispMachine %v", dt, p.Spec, i, tape.dx[i], lisp.dx[i])
			}
		}
	}
}
