//go:build hip

package hip

import "github.com/gosoftmax/softmax/internal/gpu"

// Float16 and bfloat16 device buffers hold 16-bit patterns; these convert
// them from and to float32, rounding to nearest even (NaN stays NaN,
// overflow goes to ±Inf, float16 keeps subnormals).

// Float16Bits returns the float16 nearest to f.
func Float16Bits(f float32) uint16 { return gpu.Float16Bits(f) }

// Float16From returns the float32 value of the float16 h.
func Float16From(h uint16) float32 { return gpu.Float16From(h) }

// BFloat16Bits returns the bfloat16 nearest to f.
func BFloat16Bits(f float32) uint16 { return gpu.BFloat16Bits(f) }

// BFloat16From returns the float32 value of the bfloat16 h.
func BFloat16From(h uint16) float32 { return gpu.BFloat16From(h) }
