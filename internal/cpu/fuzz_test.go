package cpu

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/gosoftmax/softmax/internal/layout"
	"github.com/gosoftmax/softmax/internal/reference"
)

// FuzzKernels decodes a problem from bytes (shape, axis, options, a mask and
// values that include NaN, infinities and huge numbers) and checks both
// dtypes, forward and backward, against the reference. The seed corpus runs
// as part of the normal tests.
func FuzzKernels(f *testing.F) {
	f.Add([]byte{2, 3, 1, 0, 0, 0, 0, 0}, []byte{1, 2, 3, 4, 5, 6})
	f.Add([]byte{3, 5, 4, 1, 1, 3, 1, 2}, []byte{0xff, 0x80, 0x7f, 0, 1, 2, 200})
	f.Add([]byte{1, 40, 2, 2, 0, 1, 0, 0}, []byte{0x7f, 0xc0, 0, 0, 1, 1})
	f.Add([]byte{4, 9, 2, 0, 1, 2, 1, 5}, []byte{0xff, 0xf0, 0, 0, 0, 0, 0, 0, 3})
	f.Fuzz(func(t *testing.T, header, values []byte) {
		if len(header) < 8 {
			return
		}
		d0, d1 := 1+int(header[0])%6, 1+int(header[1])%70
		p := reference.Problem{}
		p.Shape = []int{d0, d1}
		if header[2]%3 == 2 {
			p.Shape = append(p.Shape, 1+int(header[2])%5)
		}
		rank := len(p.Shape)
		p.Axis = int(header[3]) % rank
		p.UserAxis = p.Axis
		p.Log = header[4]%2 == 1
		p.Scale = []float64{1, 0.5, 3}[int(header[5])%3]
		if header[6]%2 == 1 && p.Axis == rank-1 {
			p.Causal, p.Offset = true, int(header[7]%7)-3
		}
		n := 1
		for _, s := range p.Shape {
			n *= s
		}
		if header[7]%2 == 1 {
			p.MaskShape = append([]int(nil), p.Shape...)
			p.MaskShape[int(header[7]/2)%rank] = 1
			m := 1
			for _, s := range p.MaskShape {
				m *= s
			}
			p.Mask = make([]bool, m)
			for i := range p.Mask {
				p.Mask[i] = i < len(values) && values[i]%3 != 0
			}
		}
		p.X, p.DY = make([]float64, n), make([]float64, n)
		for i := range p.X {
			p.X[i], p.DY[i] = decode(values, i), math.Sin(float64(i))
		}
		checkProblem[float64](t, p)
		checkProblem[float32](t, p)
	})
}

// decode turns bytes into values, special ones included: each element takes
// two bytes; a first byte of 0xff picks a special value by the second.
func decode(b []byte, i int) float64 {
	if 2*i+1 >= len(b) {
		return float64(i%7) - 3
	}
	if b[2*i] == 0xff {
		return []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e30, -1e30, 1e4, -1e4, 0}[b[2*i+1]%8]
	}
	return float64(int16(binary.LittleEndian.Uint16(b[2*i:]))) / 512
}

// keep the layout import used by the test helpers in this package
var _ = layout.Defaults
