package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gosoftmax/softmax/internal/layout"
)

// BenchmarkKernel times the kernels alone (no allocation) per shape; run
// with -cpu 1 to see single-core cost per element.
func BenchmarkKernel(b *testing.B) {
	for _, shape := range [][]int{{4096, 4096}, {256, 4096}, {4096, 128}, {1, 1 << 20}, {64, 32000}, {512, 64, 8}} {
		for _, log := range []bool{false, true} {
			kind := "softmax"
			if log {
				kind = "log"
			}
			benchKernel[float32](b, fmt.Sprintf("%s/f32/%v", kind, shape), shape, log)
			benchKernel[float64](b, fmt.Sprintf("%s/f64/%v", kind, shape), shape, log)
		}
	}
}

func benchKernel[T float](b *testing.B, name string, shape []int, log bool) {
	axis := 1
	v, err := layout.Resolve(layout.Params{Axis: axis, Log: log, Scale: 1}, shape, nil)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	x, y, dy, dx := make([]T, v.Len()), make([]T, v.Len()), make([]T, v.Len()), make([]T, v.Len())
	for i := range x {
		x[i], dy[i] = T(rng.NormFloat64()*3), T(rng.NormFloat64())
	}
	b.Run("fwd/"+name, func(b *testing.B) {
		b.SetBytes(int64(v.Len()) * 2 * int64(sizeOf[T]()))
		for b.Loop() {
			Forward(v, x, y, nil)
		}
	})
	b.Run("bwd/"+name, func(b *testing.B) {
		b.SetBytes(int64(v.Len()) * 3 * int64(sizeOf[T]()))
		for b.Loop() {
			Backward(v, y, dy, dx, nil)
		}
	})
}

func sizeOf[T float]() int {
	var z T
	if any(z) == any(float32(0)) {
		return 4
	}
	return 8
}

// BenchmarkExpStore compares the exp loop's implementations on a 4096-long
// row that stays in L1.
func BenchmarkExpStore(b *testing.B) {
	defer func(a2, a512 bool) { hasAVX2, hasAVX512 = a2, a512 }(hasAVX2, hasAVX512)
	x, y := make([]float32, 4096), make([]float32, 4096)
	for i := range x {
		x[i] = -float32(i%200) / 10
	}
	for _, l := range []struct {
		name      string
		avx2, avx bool
	}{{"avx512", true, true}, {"avx2", true, false}, {"go", false, false}} {
		if l.avx && !hasAVX512 || l.avx2 && !hasAVX2 {
			continue
		}
		b.Run(l.name, func(b *testing.B) {
			hasAVX2, hasAVX512 = l.avx2, l.avx
			b.SetBytes(4096 * 8)
			for b.Loop() {
				expStore32(x, y, 0, 1)
			}
		})
	}
}
