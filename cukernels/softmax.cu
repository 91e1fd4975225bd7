// softmax.cu instantiates the templates of softmax.cuh for each dtype and
// tier and exports them with C names for the Go side (cuda/kernels.go):
//
//   softmax_{fwd,bwd}_{tier}_{f32,f64,f16,bf16}
//
// tier: warp1 ... warp32 (tier 1, C columns per lane), cached (tier 2),
// block (tier 3), split_stats and split_apply (tier 4), inner (tier 5).
// Every forward kernel takes (x, y, view..., extra...) and every backward
// kernel (y, dy, dx, view..., extra...), all parameters 8 bytes, so the Go
// side builds one argument list per call whatever the tier.
#include "softmax.cuh"
#include "long.cuh"

// Launch bounds: the warp tier runs 128-thread blocks (so a lane may hold
// 32 columns in registers), the others up to 1024 threads.
#define SM_WARP_THREADS 128

#define SM_FWD(NAME, S, T, BOUND, BODY)                                                            \
	extern "C" __global__ void __launch_bounds__(BOUND)                                           \
	    softmax_fwd_##NAME##_##S(const T *x, T *y, SM_VIEW_PARAMS, SM_EXTRA_PARAMS) {             \
		const View v = SM_VIEW();                                                               \
		BODY;                                                                                   \
	}
#define SM_BWD(NAME, S, T, BOUND, BODY)                                                            \
	extern "C" __global__ void __launch_bounds__(BOUND)                                           \
	    softmax_bwd_##NAME##_##S(const T *y, const T *dy, T *dx, SM_VIEW_PARAMS, SM_EXTRA_PARAMS) { \
		const View v = SM_VIEW();                                                               \
		BODY;                                                                                   \
	}

#define SM_WARP_TIER(C, S, T)                                                                         \
	SM_FWD(warp##C, S, T, SM_WARP_THREADS, (fwd_warp<T, C>(x, y, v, vec != 0, (int)group)))          \
	SM_BWD(warp##C, S, T, SM_WARP_THREADS, (bwd_warp<T, C>(y, dy, dx, v, vec != 0, (int)group)))

#define SM_DTYPE(S, T)                                                                                     \
	SM_WARP_TIER(1, S, T)                                                                                  \
	SM_WARP_TIER(2, S, T)                                                                                  \
	SM_WARP_TIER(4, S, T)                                                                                  \
	SM_WARP_TIER(8, S, T)                                                                                  \
	SM_WARP_TIER(16, S, T)                                                                                 \
	SM_WARP_TIER(32, S, T)                                                                                 \
	SM_FWD(cached, S, T, SM_MAX_THREADS, (fwd_cached<T>(x, y, v, vec != 0)))                                \
	SM_BWD(cached, S, T, SM_MAX_THREADS, (bwd_cached<T>(y, dy, dx, v, vec != 0)))                           \
	SM_FWD(block, S, T, SM_MAX_THREADS, (fwd_block<T>(x, y, v, vec != 0)))                                  \
	SM_BWD(block, S, T, SM_MAX_THREADS, (bwd_block<T>(y, dy, dx, v, vec != 0)))                             \
	SM_FWD(split_stats, S, T, SM_MAX_THREADS, (fwd_split_stats<T>(x, v, vec != 0, (Part *)work, chunk, splits))) \
	SM_FWD(split_apply, S, T, SM_MAX_THREADS,                                                              \
	       (fwd_split_apply<T>(x, y, v, vec != 0, (const Part *)work, chunk, splits)))                    \
	SM_BWD(split_stats, S, T, SM_MAX_THREADS,                                                              \
	       (bwd_split_stats<T>(y, dy, v, vec != 0, (GradPart *)work, chunk, splits)))                     \
	SM_BWD(split_apply, S, T, SM_MAX_THREADS,                                                              \
	       (bwd_split_apply<T>(y, dy, dx, v, vec != 0, (const GradPart *)work, chunk, splits)))           \
	SM_FWD(inner, S, T, SM_MAX_THREADS, (fwd_inner<T>(x, y, v)))                                            \
	SM_BWD(inner, S, T, SM_MAX_THREADS, (bwd_inner<T>(y, dy, dx, v)))

SM_DTYPE(f32, float)
SM_DTYPE(f64, double)
SM_DTYPE(f16, sm_half)
SM_DTYPE(bf16, sm_bf16)
