// Package cuda runs softmax and log-softmax, forward and backward, on an
// NVIDIA GPU through gorgonia.org/cu. It is built only with the `cu` build
// tag and needs the CUDA driver and a visible GPU at run time:
// gorgonia.org/cu initializes the driver in its package init and exits the
// process when that fails.
//
// Two ways in:
//   - The device-level API: Device.Forward and Device.Backward on device
//     buffers of float32, float64, float16 or bfloat16 (the latter two as
//     16-bit patterns), with every option: axis, log, scale, a broadcast
//     byte mask and causal masking. Float16 and bfloat16 compute in float32,
//     float64 in float64.
//   - The Gorgonia ops: importing this package (the root package does so in
//     `cu` builds) registers a backend that takes host tensors above a size
//     threshold, copies them to the GPU, computes, and copies back.
//
// The kernels come from package cukernels; docs/GPU.md lists the tiers and
// the rules that pick one.
//
// Without the tag the package holds only the mask addressing that the
// kernels use (pure Go, tested in every build), and needs no CUDA.
package cuda
