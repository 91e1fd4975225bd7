package backend

import (
	"errors"
	"strings"
	"testing"

	"github.com/gosoftmax/softmax/internal/layout"
)

// hostCalls records what Host handed its functions.
type hostCalls struct {
	dtype string
	bwd   bool
	bufs  int
	mask  []bool
	n     int
}

func recorder(got *hostCalls) Host {
	return Host{
		Float32: func(v *layout.View, bwd bool, mask []bool, bufs ...[]float32) error {
			*got = hostCalls{"float32", bwd, len(bufs), mask, got.n + 1}
			return nil
		},
		Float64: func(v *layout.View, bwd bool, mask []bool, bufs ...[]float64) error {
			*got = hostCalls{"float64", bwd, len(bufs), mask, got.n + 1}
			return nil
		},
	}
}

func view(t *testing.T, masked bool, shape ...int) *layout.View {
	t.Helper()
	var ms []int
	if masked {
		ms = shape
	}
	v, err := layout.Resolve(layout.Params{Axis: -1, Scale: 1, Masked: masked}, shape, ms)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestHostDispatch checks that Host hands each element type's buffers, in
// order, to that type's function, with the direction and the mask.
func TestHostDispatch(t *testing.T) {
	v, vm := view(t, false, 2, 3), view(t, true, 2, 3)
	f32, f64 := make([]float32, 6), make([]float64, 6)
	mask := make([]bool, 6)
	for _, c := range []struct {
		name  string
		run   func(Host) error
		dtype string
		bwd   bool
		bufs  int
		mask  bool
	}{
		{"forward float32", func(h Host) error { return h.Forward(v, f32, f32, nil) }, "float32", false, 2, false},
		{"forward float64", func(h Host) error { return h.Forward(v, f64, f64, nil) }, "float64", false, 2, false},
		{"masked forward", func(h Host) error { return h.Forward(vm, f32, f32, mask) }, "float32", false, 2, true},
		{"backward float32", func(h Host) error { return h.Backward(v, f32, f32, f32, nil) }, "float32", true, 3, false},
		{"backward float64", func(h Host) error { return h.Backward(vm, f64, f64, f64, mask) }, "float64", true, 3, true},
	} {
		var got hostCalls
		if err := c.run(recorder(&got)); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got.n != 1 || got.dtype != c.dtype || got.bwd != c.bwd || got.bufs != c.bufs || (got.mask != nil) != c.mask {
			t.Errorf("%s: called %+v; want one %s call, bwd %v, %d buffers, mask %v", c.name, got, c.dtype, c.bwd, c.bufs, c.mask)
		}
	}
}

// TestHostRefuses checks that Host names what is wrong and calls nothing.
func TestHostRefuses(t *testing.T) {
	v, vm := view(t, false, 2, 3), view(t, true, 2, 3)
	f32, f64 := make([]float32, 6), make([]float64, 6)
	short := make([]float32, 5)
	huge, err := layout.Resolve(layout.Params{Axis: -1, Scale: 1e39}, []int{2, 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := recorder(new(hostCalls)).Forward(huge, f64, f64, nil); err != nil {
		t.Errorf("float64 at scale 1e39: %v; float64 takes any finite scale", err)
	}
	for _, c := range []struct {
		name string
		run  func(Host) error
		want string
	}{
		{"x int", func(h Host) error { return h.Forward(v, []int{1}, f32, nil) }, "x has element type []int"},
		{"y of another type", func(h Host) error { return h.Forward(v, f32, f64, nil) }, "y has element type []float64; want []float32"},
		{"y short", func(h Host) error { return h.Forward(v, f32, short, nil) }, "buffer 1 has 5 elements"},
		{"y int backward", func(h Host) error { return h.Backward(v, []int{1}, f32, f32, nil) }, "y has element type []int"},
		{"dx of another type", func(h Host) error { return h.Backward(v, f64, f64, f32, nil) }, "dy, dx have element types []float64, []float32"},
		{"dy short", func(h Host) error { return h.Backward(v, f32, short, f32, nil) }, "buffer 1 has 5 elements"},
		{"mask on an unmasked op", func(h Host) error { return h.Forward(v, f32, f32, make([]bool, 6)) }, "mask given to an unmasked op"},
		{"mask short", func(h Host) error { return h.Forward(vm, f32, f32, make([]bool, 5)) }, "mask has 5 elements"},
		{"mask missing", func(h Host) error { return h.Forward(vm, f32, f32, nil) }, "mask has 0 elements"},
		{"float32 scale past its range", func(h Host) error { return h.Forward(huge, f32, f32, nil) }, "scale 1e+39 is past float32's largest value"},
		{"float32 scale past its range, backward", func(h Host) error { return h.Backward(huge, f32, f32, f32, nil) }, "scale 1e+39"},
	} {
		var got hostCalls
		err := c.run(recorder(&got))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v; want one containing %q", c.name, err, c.want)
		}
		if got.n != 0 {
			t.Errorf("%s: called %+v; want no call", c.name, got)
		}
	}
}

// TestHostEmpty checks that an empty problem calls nothing, and that a
// function's error comes back.
func TestHostEmpty(t *testing.T) {
	var got hostCalls
	if err := recorder(&got).Forward(view(t, false, 0, 3), []float32{}, []float32{}, nil); err != nil || got.n != 0 {
		t.Errorf("empty forward: error %v, calls %d; want none", err, got.n)
	}
	boom := errors.New("boom")
	h := Host{Float64: func(*layout.View, bool, []bool, ...[]float64) error { return boom }}
	if err := h.Backward(view(t, false, 2), []float64{1, 2}, []float64{1, 2}, []float64{0, 0}, nil); !errors.Is(err, boom) {
		t.Errorf("backward: error %v; want the function's", err)
	}
}
