//go:build hip

// Package hip runs softmax and log-softmax, forward and backward, on an AMD
// GPU through the HIP runtime (libamdhip64), with its own small cgo
// binding. It is built only with the `hip` build tag; it needs the HIP
// runtime library at link and run time (scripts/hip-sdk.sh installs
// Debian's), but not a GPU: when hipInit fails, or the device is a target
// without a code object, the package registers that reason instead of a
// backend, the Gorgonia ops run on the CPU, and softmax.Backend() says why.
//
// Two ways in, the same as package cuda:
//   - The device-level API: Device.Forward and Device.Backward on device
//     buffers of float32, float64, float16 or bfloat16 (the latter two as
//     16-bit patterns), with every option: axis, log, scale, a broadcast
//     byte mask and causal masking. Float16 and bfloat16 compute in float32,
//     float64 in float64.
//   - The Gorgonia ops: importing this package (the root package does so in
//     `hip` builds) registers a backend that takes host tensors above a size
//     threshold, copies them to the GPU, computes, and copies back.
//
// The kernels come from package hipkernels: the CUDA templates compiled by
// hipcc, one code object per target, picked by the device's gcnArchName.
// docs/GPU.md lists the tiers, the dispatch rules and what differs on AMD
// (the 64- or 32-wide wavefront, 64 KB of LDS).
package hip
