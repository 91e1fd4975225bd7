// port.cuh is the only file that knows whether the kernels are built by
// nvcc (CUDA) or hipcc (HIP). softmax.cuh uses nothing else from the
// toolkits: the warp width, warp shuffles and the half types come from here,
// so the HIP port compiles the same templates with a 64-wide warp.
#pragma once

#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
// HIP 5.2 (Debian's hipcc) has no hip_bf16.h: its bfloat16 is the
// hip_bfloat16 struct, which rounds to nearest even and keeps NaN NaN.
#include <hip/hip_bfloat16.h>
// The wavefront width the code object is built for: 64 on GCN/CDNA
// (gfx906 ... gfx940), 32 on RDNA (gfx1030) unless built with
// -mwavefrontsize64. The compiler says which for each device pass; the
// host pass sees no kernel body that depends on it.
#if defined(__AMDGCN_WAVEFRONT_SIZE)
#define SM_WARP __AMDGCN_WAVEFRONT_SIZE
#else
#define SM_WARP 64
#endif
typedef __half sm_half;
typedef hip_bfloat16 sm_bf16;
// Every lane of the wavefront takes part in every shuffle: a lane that has
// left the loop would read back its own value through ds_bpermute.
template <typename V>
__device__ __forceinline__ V sm_shfl_xor(V v, int lane_mask, int width) {
	return __shfl_xor(v, lane_mask, width);
}
__device__ __forceinline__ float sm_bf16_to_float(sm_bf16 v) { return float(v); }
__device__ __forceinline__ sm_bf16 sm_float_to_bf16(float v) { return sm_bf16(v); }
// sm_exp2 is 2^v in float32 to about 2 ulp (results below 2^-126 may be 0).
// exp2f lowers to v_exp_f32 (1 ulp), with the range scaling that keeps
// denormal results.
__device__ __forceinline__ float sm_exp2(float v) { return exp2f(v); }
#else
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#define SM_WARP 32
typedef __half sm_half;
typedef __nv_bfloat16 sm_bf16;
// Every lane of the warp takes part in every shuffle: the kernels keep
// lanes without work in the loop instead of letting them leave.
template <typename V>
__device__ __forceinline__ V sm_shfl_xor(V v, int lane_mask, int width) {
	return __shfl_xor_sync(0xffffffffu, v, lane_mask, width);
}
__device__ __forceinline__ float sm_bf16_to_float(sm_bf16 v) { return __bfloat162float(v); }
__device__ __forceinline__ sm_bf16 sm_float_to_bf16(float v) { return __float2bfloat16(v); }
// sm_exp2 is 2^v in float32 to about 2 ulp, denormal results included:
// bfloat16 has float32's exponent range and its tests hold outputs down to
// 2^-133 to 2 ulp, which the .ftz form (one MUFU.EX2, results below 2^-126
// flushed to 0) fails on the H200.
__device__ __forceinline__ float sm_exp2(float v) {
	float r;
	asm("ex2.approx.f32 %0, %1;" : "=f"(r) : "f"(v));
	return r;
}
#endif

__device__ __forceinline__ float sm_half_to_float(sm_half v) { return __half2float(v); }
__device__ __forceinline__ sm_half sm_float_to_half(float v) { return __float2half(v); }

// The largest block any kernel is launched with; block reductions keep one
// slot per warp.
#define SM_MAX_THREADS 1024
#define SM_MAX_WARPS (SM_MAX_THREADS / SM_WARP)
