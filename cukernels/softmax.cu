// softmax.cu instantiates the templates of softmax.cuh for each dtype and
// tier and exports them with C names for the Go side (cuda/kernels.go):
//
//   softmax_{fwd,bwd}_{tier}_{f32,f64,f16,bf16}
//
// tier: rows1 ... rows4 and rows1m ... rows4m (tier 1, K packs per thread,
// m: masked or causal), rows1p ... rows4p (tier 1's packed form, the half
// types' forward, CUDA only), pipe1 ... pipe4m (tier 1 with the next row copied
// ahead into shared memory), clus4, clus4m, cpipe4 (forward) and clus2,
// clus2m, cpipe2 (backward: tier 1 over a thread block cluster, CUDA only),
// cached (tier 2), block (tier 3), split_stats, split_apply, split_pieces,
// split_fused, split_fused_head and split_fused_masked (tier 4; the last
// four forward and CUDA only), inner (tier 5), rows16 (tier 1's wide
// backward, float32, CUDA only), grid (tier 7, CUDA only), cgrid and
// cgrid_shift (tier 8, CUDA only), lstream (tier 1's streamed log-softmax
// backward, CUDA only), cgrid_log (tier 8's log-softmax backward in the
// streamed order, CUDA only), strided4 ... strided32 (tier 1's strided
// backward, float32 and the half types, CUDA only), staged8 ... staged32
// (tier 1's staged short rows, a thread a row, float32 and the half types,
// CUDA only).
// Every forward kernel takes (x, y, view..., extra...) and every backward
// kernel (y, dy, dx, view..., extra...), all parameters 8 bytes, so the Go
// side builds one argument list per call whatever the tier.
#include "softmax.cuh"
#include "long.cuh"
#if !defined(__HIPCC__)
#include "grid.cuh"
#include "stream.cuh"
#endif

// Every kernel may run 1024-thread blocks (launch bounds SM_MAX_THREADS)
// but some masked pipelined ones, which keep the mask slots besides the
// row and would spill at the 64 registers a 1024-thread block leaves a
// thread: forward at K = 4 for the half types and float64, and backward.
// (The causal-only "c" kernels at K = 4 for the half types spill 24 bytes
// at 64 registers, the unmasked ones 28-32 (sm_90, CUDA 12.4), but at 512 threads they
// ran 16% slower on causal 16x16x2048x2048: 8 blocks of 64 threads per
// SM, docs/PERFORMANCE.md GPU entry 12.)
// Forward float32 and K <= 2 fit 64 (ptxas), which lets twice the warps
// run per SM. The Go side sends masked rows that need more threads to the
// plain kernels.
#define SM_PIPE_MASKED_THREADS(K, T) ((K) == 4 && sizeof(T) != 4 ? 512 : SM_MAX_THREADS)
#define SM_PIPE_MASKED_BWD_THREADS 512
// Backward K = 4 holds 64 values per thread (y and dy): it fits the 128
// registers of a 512-thread block, so its kernels run at most 512 threads
// and the Go side takes K = 4 only for rows of at most 512 threads.
#define SM_WIDE_THREADS 512
// Kernels bounded below SM_MAX_THREADS ask for one block per SM: without
// it ptxas held float32 backward at K = 4 to 64 registers and spilled 24
// bytes (72 fit without spills, and the spilling kernel ran 6% slower at
// 2048x8192, docs/PERFORMANCE.md GPU entry 13). 0 is no request.
#define SM_MIN_BLOCKS(BOUND) ((BOUND) < SM_MAX_THREADS ? 1 : 0)
#define SM_FWD(NAME, S, T, BOUND, BODY)                                                            \
	extern "C" __global__ void __launch_bounds__(BOUND, SM_MIN_BLOCKS(BOUND))                     \
	    softmax_fwd_##NAME##_##S(const T *x, T *y, SM_VIEW_PARAMS, SM_EXTRA_PARAMS) {             \
		const View v = SM_VIEW();                                                               \
		BODY;                                                                                   \
	}
#if SM_SPAN
// The span build (softmax_span.cu) holds forward kernels only.
#define SM_BWD(NAME, S, T, BOUND, BODY)
#else
#define SM_BWD(NAME, S, T, BOUND, BODY)                                                            \
	extern "C" __global__ void __launch_bounds__(BOUND, SM_MIN_BLOCKS(BOUND))                     \
	    softmax_bwd_##NAME##_##S(const T *y, const T *dy, T *dx, SM_VIEW_PARAMS, SM_EXTRA_PARAMS) { \
		const View v = SM_VIEW();                                                               \
		BODY;                                                                                   \
	}
#endif

// Tier 1 holds K 16-byte packs per thread in registers; "m" instances
// apply a mask or causal limit, "pipe" instances copy the next row ahead
// through shared memory. "pipe..c" instances are the masked pipelined
// ones for a causal limit without a mask buffer: with no mask state they
// take about the registers of unmasked kernels, so twice the warps of "m"
// ones run per SM. "pipe..s" and "pipe..cs" are the pipelined unmasked and
// causal kernels for rows of a part pack (SHIFT: softmax.cuh, Pipe).
#define SM_ROWS_FWD(K, S, T)                                                                     \
	SM_FWD(rows##K, S, T, SM_MAX_THREADS, (fwd_rows<T, K, false>(x, y, v, vec != 0, (int)group)))   \
	SM_FWD(rows##K##m, S, T, SM_MAX_THREADS, (fwd_rows<T, K, true>(x, y, v, vec != 0, (int)group))) \
	SM_FWD(rows##K##s, S, T, SM_MAX_THREADS, (fwd_rows<T, K, false, false, true>(x, y, v, true, (int)group))) \
	SM_FWD(rows##K##ms, S, T, SM_MAX_THREADS, (fwd_rows<T, K, true, false, true>(x, y, v, true, (int)group))) \
	SM_FWD(pipe##K, S, T, SM_MAX_THREADS, (fwd_pipe<T, K, false>(x, y, v, (int)group)))             \
	SM_FWD(pipe##K##m, S, T, SM_PIPE_MASKED_THREADS(K, T), (fwd_pipe<T, K, true>(x, y, v, (int)group))) \
	SM_FWD(pipe##K##c, S, T, SM_MAX_THREADS, (fwd_pipe<T, K, true>(x, y, v.unmasked(), (int)group)))      \
	SM_FWD(pipe##K##s, S, T, SM_MAX_THREADS, (fwd_pipe<T, K, false, false, true>(x, y, v, (int)group)))  \
	SM_FWD(pipe##K##cs, S, T, SM_MAX_THREADS, (fwd_pipe<T, K, true, false, true>(x, y, v.unmasked(), (int)group)))
#define SM_ROWS_BWD_B(K, S, T, BOUND, MBOUND)                                                          \
	SM_BWD(rows##K, S, T, BOUND, (bwd_rows<T, K, false>(y, dy, dx, v, vec != 0, (int)group)))              \
	SM_BWD(rows##K##m, S, T, BOUND, (bwd_rows<T, K, true>(y, dy, dx, v, vec != 0, (int)group)))            \
	SM_BWD(rows##K##s, S, T, BOUND, (bwd_rows<T, K, false, false, true>(y, dy, dx, v, true, (int)group)))   \
	SM_BWD(rows##K##ms, S, T, BOUND, (bwd_rows<T, K, true, false, true>(y, dy, dx, v, true, (int)group)))   \
	SM_BWD(pipe##K, S, T, BOUND, (bwd_pipe<T, K, false>(y, dy, dx, v, (int)group)))                        \
	SM_BWD(pipe##K##m, S, T, MBOUND, (bwd_pipe<T, K, true>(y, dy, dx, v, (int)group)))                     \
	SM_BWD(pipe##K##c, S, T, BOUND, (bwd_pipe<T, K, true>(y, dy, dx, v.unmasked(), (int)group)))          \
	SM_BWD(pipe##K##s, S, T, BOUND, (bwd_pipe<T, K, false, false, true>(y, dy, dx, v, (int)group)))      \
	SM_BWD(pipe##K##cs, S, T, BOUND, (bwd_pipe<T, K, true, false, true>(y, dy, dx, v.unmasked(), (int)group)))
#define SM_ROWS_BWD(K, S, T) SM_ROWS_BWD_B(K, S, T, SM_MAX_THREADS, SM_PIPE_MASKED_BWD_THREADS)

#define SM_OTHER_TIERS(S, T)                                                                               \
	SM_FWD(cached, S, T, SM_MAX_THREADS, (fwd_cached<T>(x, y, v, vec != 0)))                                \
	SM_BWD(cached, S, T, SM_MAX_THREADS, (bwd_cached<T>(y, dy, dx, v, vec != 0)))                           \
	SM_FWD(block, S, T, SM_MAX_THREADS, (fwd_block<T>(x, y, v, vec != 0)))                                  \
	SM_BWD(block, S, T, SM_MAX_THREADS, (bwd_block<T>(y, dy, dx, v, vec != 0)))                             \
	SM_FWD(split_stats, S, T, SM_MAX_THREADS, (fwd_split_stats<T>(x, v, vec != 0, (Part *)work, splits))) \
	SM_FWD(split_apply, S, T, SM_MAX_THREADS,                                                              \
	       (fwd_split_apply<T>(x, y, v, vec != 0, (const Part *)work, splits)))                           \
	SM_BWD(split_stats, S, T, SM_MAX_THREADS,                                                              \
	       (bwd_split_stats<T>(y, dy, v, vec != 0, (GradPart *)work, chunk, splits)))                     \
	SM_BWD(split_apply, S, T, SM_MAX_THREADS,                                                              \
	       (bwd_split_apply<T>(y, dy, dx, v, vec != 0, (const GradPart *)work, chunk, splits)))           \
	SM_FWD(inner, S, T, SM_MAX_THREADS, (fwd_inner<T>(x, y, v)))                                            \
	SM_BWD(inner, S, T, SM_MAX_THREADS, (bwd_inner<T>(y, dy, dx, v)))                                       \
	SM_PIECES(S, T)

// The split tier's pieces kernel (CUDA only: SM_SPLIT_PIECES, port.cuh).
#if SM_SPLIT_PIECES
#define SM_PIECES(S, T)                                                                                    \
	SM_FWD(split_pieces, S, T, SM_MAX_THREADS,                                                             \
	       (fwd_split_pieces<T>(x, y, v, vec != 0, (const Part *)work, chunk, splits)))
#else
#define SM_PIECES(S, T)
#endif

// Forward K = 1, 2, 4 and backward K = 1, 2, 4 (internal/gpu.RowsKs):
// more would spill at 64 registers per thread (float32 forward K = 8 and
// backward K = 4 were measured at 1024 threads: docs/PERFORMANCE.md, GPU
// entry 5), so backward K = 4 runs blocks of at most 512 threads.
#define SM_DTYPE(S, T)                                                                                 \
	SM_ROWS_FWD(1, S, T) SM_ROWS_FWD(2, S, T) SM_ROWS_FWD(4, S, T) SM_ROWS_BWD(1, S, T) SM_ROWS_BWD(2, S, T) \
	SM_ROWS_BWD_B(4, S, T, SM_WIDE_THREADS, SM_WIDE_THREADS) SM_OTHER_TIERS(S, T)

// Tier 1's wide backward (bwd_rows_packed, unmasked rows): K = 16, 64
// values of y and 64 of dy a thread, so a warp holds a row of 2048 columns
// and sums it with shuffles alone, as PyTorch's softmax_warp_backward
// does. Blocks of 128 threads, 3 per SM (162 registers). float32 only,
// CUDA only: the half types' forms (K = 8) were slower than their kernels
// now on every row measured but one (docs/PERFORMANCE.md GPU entry 35).
#if !defined(__HIPCC__) && !SM_SPAN
extern "C" __global__ void __launch_bounds__(128, 3)
    softmax_bwd_rows16_f32(const float *y, const float *dy, float *dx, SM_VIEW_PARAMS, SM_EXTRA_PARAMS) {
	bwd_rows_packed<float, 16>(y, dy, dx, SM_VIEW(), (int)group);
}
#endif

// Tier 1's strided backward (bwd_rows_strided, unmasked rows of any
// alignment, internal/gpu.StridedOn): E = 4, 8, 16, 32 columns of y and of
// dy a thread, a group of up to a warp a row, so rows of up to 1024
// columns; groups of 32 take bwd_rows_strided's constant-offset form.
// Blocks of 128 threads (internal/gpu.StridedThreads), as many per SM as
// the registers of E allow: 8 at E = 4 and 8 (46-60 registers on sm_90),
// 6 at 16 (80), 4 at 32 (128); none spills. float32 and the half types,
// CUDA only. SM_STRIDED_BWD and SM_STRIDED_FWD make both forms: FORM
// names the kernel (strided, stronce), ONCE picks the one-row form below
// (groups of 32 only).
#if !defined(__HIPCC__) && !SM_SPAN
#define SM_STRIDED_BWD(FORM, ONCE, E, BLOCKS, S, T)                                                      \
	extern "C" __global__ void __launch_bounds__(128, BLOCKS)                                           \
	    softmax_bwd_##FORM##E##_##S(const T *y, const T *dy, T *dx, SM_VIEW_PARAMS, SM_EXTRA_PARAMS) {  \
		if (ONCE || group == 32)                                                                        \
			bwd_rows_strided<T, E, 32, ONCE>(y, dy, dx, SM_VIEW(), 32);                                 \
		else                                                                                            \
			bwd_rows_strided<T, E, 0>(y, dy, dx, SM_VIEW(), (int)group);                                \
	}
#define SM_STRIDED_ALL(S, T)                                                                            \
	SM_STRIDED_BWD(strided, false, 4, 8, S, T) SM_STRIDED_BWD(strided, false, 8, 8, S, T)              \
	    SM_STRIDED_BWD(strided, false, 16, 6, S, T) SM_STRIDED_BWD(strided, false, 32, 4, S, T)
SM_STRIDED_ALL(f32, float)
SM_STRIDED_ALL(f16, sm_half)
SM_STRIDED_ALL(bf16, sm_bf16)
// Their forward (fwd_rows_strided, unmasked and non-causal rows): E = 4,
// 8, 12, 16, 20, 24, 32 columns of x a thread (internal/gpu.StridedEs),
// blocks of 128 threads, 8 per SM up to E = 12 (48-64 registers on
// sm_90), 6 at 16 (74-75), 5 at 20 and 24 (77-95), 4 at 32 (121-125);
// none spills.
#define SM_STRIDED_FWD(FORM, ONCE, E, BLOCKS, S, T)                                            \
	extern "C" __global__ void __launch_bounds__(128, BLOCKS)                                  \
	    softmax_fwd_##FORM##E##_##S(const T *x, T *y, SM_VIEW_PARAMS, SM_EXTRA_PARAMS) {       \
		if (ONCE || group == 32)                                                                \
			fwd_rows_strided<T, E, 32, ONCE>(x, y, SM_VIEW(), 32);                              \
		else                                                                                    \
			fwd_rows_strided<T, E, 0>(x, y, SM_VIEW(), (int)group);                             \
	}
#define SM_STRIDED_FWD_ALL(S, T)                                                                          \
	SM_STRIDED_FWD(strided, false, 4, 8, S, T) SM_STRIDED_FWD(strided, false, 8, 8, S, T)                \
	    SM_STRIDED_FWD(strided, false, 12, 8, S, T) SM_STRIDED_FWD(strided, false, 16, 6, S, T)          \
	        SM_STRIDED_FWD(strided, false, 20, 5, S, T) SM_STRIDED_FWD(strided, false, 24, 5, S, T)      \
	            SM_STRIDED_FWD(strided, false, 32, 4, S, T)
SM_STRIDED_FWD_ALL(f32, float)
SM_STRIDED_FWD_ALL(f16, sm_half)
SM_STRIDED_FWD_ALL(bf16, sm_bf16)
// Their one-row forms (stronce, ONCE): groups of a warp, a group for every
// row, no loop, so fewer registers and more blocks an SM (sm_90): forward
// 38-40 registers to E = 12 (12 blocks; 16 spills 16-24 bytes), 48 at 16
// (10), 64 at 20 and 24 (8), 80 at 32 (6); backward 43-48 at E = 4 and 8
// (10; 12 spills 8-28 bytes), 72 at 16 (6), 121-127 at 32 (4); none
// spills. (The exact path as a __noinline__ call fitted 32 registers, but
// the call's reference arguments put View and RowGroup on the stack of
// every thread: 7-12x slower, docs/PERFORMANCE.md GPU entry 99.)
#define SM_STRONCE_ALL(S, T)                                                                              \
	SM_STRIDED_FWD(stronce, true, 4, 12, S, T) SM_STRIDED_FWD(stronce, true, 8, 12, S, T)                \
	    SM_STRIDED_FWD(stronce, true, 12, 12, S, T) SM_STRIDED_FWD(stronce, true, 16, 10, S, T)          \
	        SM_STRIDED_FWD(stronce, true, 20, 8, S, T) SM_STRIDED_FWD(stronce, true, 24, 8, S, T)        \
	            SM_STRIDED_FWD(stronce, true, 32, 6, S, T) SM_STRIDED_BWD(stronce, true, 4, 10, S, T)    \
	                SM_STRIDED_BWD(stronce, true, 8, 10, S, T) SM_STRIDED_BWD(stronce, true, 16, 6, S, T) \
	                    SM_STRIDED_BWD(stronce, true, 32, 4, S, T)
SM_STRONCE_ALL(f32, float)
SM_STRONCE_ALL(f16, sm_half)
SM_STRONCE_ALL(bf16, sm_bf16)
// The float32 backward's batched one-row form for short rows
// (stronce{E}r2, bwd_rows_strided_batch: internal/gpu.StridedBatchOn): a
// warp for every 2 rows, E = 2 or 4 columns of each a lane (rows of 33 to
// 64, 65 to 128 columns), both rows' loads in flight before the first
// row's sum. Session 62 built E = 1, 2, 4 and 2 or 4 rows a warp, forward
// and backward, of all three types (branch s62-strided-batch); on the H100
// only these two were ever faster than the plans they would replace (GPU
// entry 101). Launch bounds from ptxas (sm_90): the most blocks an SM
// that spill nothing, 10 at E = 2 (47 registers), 8 at E = 4 (53).
#define SM_STRBATCH_F32(E, BB)                                                                          \
	extern "C" __global__ void __launch_bounds__(128, BB) softmax_bwd_stronce##E##r2_f32(              \
	    const float *y, const float *dy, float *dx, SM_VIEW_PARAMS, SM_EXTRA_PARAMS) {                  \
		bwd_rows_strided_batch<float, E, 2>(y, dy, dx, SM_VIEW());                                      \
	}
SM_STRBATCH_F32(2, 10)
SM_STRBATCH_F32(4, 8)
// Tier 1's staged kernels (fwd_rows_staged, bwd_rows_staged:
// internal/gpu.StagedOn): unmasked, non-causal rows of up to N = 8, 16, 32,
// 48, 56 or 64 columns, a thread a row, and the forward's at R = 2 rows a
// thread (`r2`, N up to 32), blocks of SM_STAGED_THREADS copying their
// rows through shared memory in packs (dynamic: the rows' bytes, twice
// backward). float32 and the half types. Launch bounds from ptxas
// (sm_90): the most blocks an SM at which no kernel of that N and R
// spills, 10 at N = 8 (46-48 registers), 8 at 16 (56-64), 4 at 48
// (121-128); at 56 and 64 forward 4 for the half types (122) and 3 for
// float32 (167: FW, the bound by type), backward 3 at 64 (168); at R = 2 8
// at N = 8 (48-64) and 6 at 16 (64-80); N = 32 asks for 1 (96-127
// registers, 120-186 at R = 2). The backward at N = 56 asks for 4 and
// spills 20-44 bytes (at 3, a quarter fewer blocks for that). (The
// backward at R = 2 was slower everywhere: GPU entry 103.)
#define SM_STAGED_FWD(N, R, FORM, BB, S, T)                                                            \
	extern "C" __global__ void __launch_bounds__(SM_STAGED_THREADS, BB)                                 \
	    softmax_fwd_staged##N##FORM##_##S(const T *x, T *y, SM_VIEW_PARAMS, SM_EXTRA_PARAMS) {          \
		fwd_rows_staged<T, N, R>(x, y, SM_VIEW());                                                      \
	}
#define SM_STAGED_BWD(N, BB, S, T)                                                                      \
	extern "C" __global__ void __launch_bounds__(SM_STAGED_THREADS, BB)                                 \
	    softmax_bwd_staged##N##_##S(const T *y, const T *dy, T *dx, SM_VIEW_PARAMS, SM_EXTRA_PARAMS) {  \
		bwd_rows_staged<T, N>(y, dy, dx, SM_VIEW());                                                    \
	}
#define SM_STAGED_ALL(S, T, FW)                                                                         \
	SM_STAGED_FWD(8, 1, , 10, S, T) SM_STAGED_FWD(16, 1, , 8, S, T) SM_STAGED_FWD(32, 1, , 1, S, T)     \
	    SM_STAGED_FWD(48, 1, , 4, S, T) SM_STAGED_FWD(56, 1, , FW, S, T) SM_STAGED_FWD(64, 1, , FW, S, T) \
	        SM_STAGED_FWD(8, 2, r2, 8, S, T) SM_STAGED_FWD(16, 2, r2, 6, S, T)                           \
	            SM_STAGED_FWD(32, 2, r2, 1, S, T) SM_STAGED_BWD(8, 10, S, T) SM_STAGED_BWD(16, 8, S, T) \
	                SM_STAGED_BWD(32, 1, S, T) SM_STAGED_BWD(48, 4, S, T) SM_STAGED_BWD(56, 4, S, T)    \
	                    SM_STAGED_BWD(64, 3, S, T)
SM_STAGED_ALL(f32, float, 3)
SM_STAGED_ALL(f16, sm_half, 4)
SM_STAGED_ALL(bf16, sm_bf16, 4)
// Their warp form (fwd_rows_stagedw, bwd_rows_stagedw:
// internal/gpu.StagedWarpOn), for the half types: a warp a row, E = 4, 8
// or 16 columns a lane (rows of up to 128, 256 or 512 columns), RW rows a
// warp, so a block of SM_STAGED_THREADS copies 4 * RW rows through shared
// memory. Only the forms the H100 ran fastest (docs/PERFORMANCE.md GPU
// entry 117; internal/gpu.StagedWarpShape): forward RW = 4 to E = 8 (at
// E = 16 the strided kernels were faster), backward RW = 4 at E = 4 and 2
// above; float32 has none (level or slower everywhere measured). Launch
// bounds from ptxas (sm_90): forward 40 registers at 12 blocks an SM;
// backward 48 at 10 to E = 8, 64 at 8 for E = 16.
#define SM_STAGEDW_FWD(E, RW, BB, S, T)                                                                \
	extern "C" __global__ void __launch_bounds__(SM_STAGED_THREADS, BB)                                 \
	    softmax_fwd_stagedw##E##r##RW##_##S(const T *x, T *y, SM_VIEW_PARAMS, SM_EXTRA_PARAMS) {        \
		fwd_rows_stagedw<T, E, RW>(x, y, SM_VIEW());                                                    \
	}
#define SM_STAGEDW_BWD(E, RW, BB, S, T)                                                                 \
	extern "C" __global__ void __launch_bounds__(SM_STAGED_THREADS, BB)                                 \
	    softmax_bwd_stagedw##E##r##RW##_##S(const T *y, const T *dy, T *dx, SM_VIEW_PARAMS, SM_EXTRA_PARAMS) { \
		bwd_rows_stagedw<T, E, RW>(y, dy, dx, SM_VIEW());                                               \
	}
#define SM_STAGEDW_ALL(S, T)                                                                            \
	SM_STAGEDW_FWD(4, 4, 12, S, T) SM_STAGEDW_FWD(8, 4, 12, S, T) SM_STAGEDW_BWD(4, 4, 10, S, T)       \
	    SM_STAGEDW_BWD(8, 2, 10, S, T) SM_STAGEDW_BWD(16, 2, 8, S, T)
SM_STAGEDW_ALL(f16, sm_half)
SM_STAGEDW_ALL(bf16, sm_bf16)
#endif

// Tier 1's one-row form of the float32 forward (fwd_rows_once, unmasked
// rows of aligned packs, a group for every row, the scale in float32:
// internal/gpu.OnceOn), at K = 4 and 2: bounded to 32 registers (4 and 16
// bytes spilled, in the exact pass), so 16 blocks of 128 threads run per
// SM (the most) where fwd_rows' 64 leave 8. once{K}w{W} fix the group at
// W threads (internal/gpu.OnceGroups): the constant takes the group's
// shuffle loop, the shared memory path past a warp and the division by W
// out at compile time, 321 instructions to a row's stores at K = 4, W = 8
// against 553 (the exact pass spills 12-40 bytes). CUDA only.
#if !defined(__HIPCC__)
extern "C" __global__ void __launch_bounds__(256, 8)
    softmax_fwd_once4_f32(const float *x, float *y, SM_VIEW_PARAMS, SM_EXTRA_PARAMS) {
	fwd_rows_once<float, 4>(x, y, SM_VIEW(), (int)group);
}
#define SM_ONCE_GROUP(K, W)                                                                            \
	extern "C" __global__ void __launch_bounds__(256, 8)                                             \
	    softmax_fwd_once##K##w##W##_f32(const float *x, float *y, SM_VIEW_PARAMS, SM_EXTRA_PARAMS) { \
		fwd_rows_once<float, K>(x, y, SM_VIEW(), W);                                                 \
	}
SM_ONCE_GROUP(4, 8)
SM_ONCE_GROUP(4, 16)
SM_ONCE_GROUP(4, 32)
SM_ONCE_GROUP(4, 64)
// K = 2 (internal/gpu.OnceShape): rows of an odd number of packs from 9 to
// 15 (36-60 columns), 8 lanes a row; the kernel of any group only under
// SOFTMAX_ROWS_K=2 and in the tests.
extern "C" __global__ void __launch_bounds__(256, 8)
    softmax_fwd_once2_f32(const float *x, float *y, SM_VIEW_PARAMS, SM_EXTRA_PARAMS) {
	fwd_rows_once<float, 2>(x, y, SM_VIEW(), (int)group);
}
SM_ONCE_GROUP(2, 8)
#endif

// Tier 1 over a thread block cluster (sm_90; internal/gpu.ClusterKernel):
// the group of a row is every thread of a cluster of up to 8 blocks, so
// rows up to 8 times tier 1's reach stay in registers. Not in the HIP
// build (no clusters there); below sm_90 their bodies trap and are never
// launched. Forward K = 4, backward K = 2, the largest of tier 1 without
// spills; masked rows take the plain form. The "s" forms are tier 1's
// shifted kernels over a cluster, for rows of a part pack.
#if !defined(__HIPCC__)
#define SM_CLUSTER_DTYPE(S, T)                                                                             \
	SM_FWD(clus4, S, T, SM_MAX_THREADS, (fwd_rows<T, 4, false, true>(x, y, v, vec != 0, (int)group)))           \
	SM_FWD(clus4m, S, T, SM_MAX_THREADS, (fwd_rows<T, 4, true, true>(x, y, v, vec != 0, (int)group)))           \
	SM_FWD(cpipe4, S, T, SM_MAX_THREADS, (fwd_pipe<T, 4, false, true>(x, y, v, (int)group)))                    \
	SM_BWD(clus2, S, T, SM_MAX_THREADS, (bwd_rows<T, 2, false, true>(y, dy, dx, v, vec != 0, (int)group)))      \
	SM_BWD(clus2m, S, T, SM_MAX_THREADS, (bwd_rows<T, 2, true, true>(y, dy, dx, v, vec != 0, (int)group)))      \
	SM_BWD(cpipe2, S, T, SM_MAX_THREADS, (bwd_pipe<T, 2, false, true>(y, dy, dx, v, (int)group)))             \
	SM_FWD(clus4s, S, T, SM_MAX_THREADS, (fwd_rows<T, 4, false, true, true>(x, y, v, true, (int)group)))        \
	SM_FWD(clus4ms, S, T, SM_MAX_THREADS, (fwd_rows<T, 4, true, true, true>(x, y, v, true, (int)group)))        \
	SM_FWD(cpipe4s, S, T, SM_MAX_THREADS, (fwd_pipe<T, 4, false, true, true>(x, y, v, (int)group)))             \
	SM_BWD(clus2s, S, T, SM_MAX_THREADS, (bwd_rows<T, 2, false, true, true>(y, dy, dx, v, true, (int)group)))   \
	SM_BWD(clus2ms, S, T, SM_MAX_THREADS, (bwd_rows<T, 2, true, true, true>(y, dy, dx, v, true, (int)group)))   \
	SM_BWD(cpipe2s, S, T, SM_MAX_THREADS, (bwd_pipe<T, 2, false, true, true>(y, dy, dx, v, (int)group)))
SM_CLUSTER_DTYPE(f32, float)
#if !SM_SPAN
SM_CLUSTER_DTYPE(f16, sm_half)
#endif
SM_CLUSTER_DTYPE(bf16, sm_bf16)

// Tier 1's packed form for the half types' forward (fwd_rows_packed:
// unmasked rows of aligned packs, the packs kept as loaded). CUDA only:
// the HIP build's dispatch has no rule for it, not measured there.
#define SM_PACKED_DTYPE(S, T)                                                                     \
	SM_FWD(rows1p, S, T, SM_MAX_THREADS, (fwd_rows_packed<T, 1>(x, y, v, (int)group)))            \
	SM_FWD(rows2p, S, T, SM_MAX_THREADS, (fwd_rows_packed<T, 2>(x, y, v, (int)group)))            \
	SM_FWD(rows4p, S, T, SM_MAX_THREADS, (fwd_rows_packed<T, 4>(x, y, v, (int)group)))
#if !SM_SPAN
SM_PACKED_DTYPE(f16, sm_half)
#endif
SM_PACKED_DTYPE(bf16, sm_bf16)

// Tier 7, rows over the whole grid, and tier 4's fused forward (grid.cuh;
// cooperative launches, CUDA only): one more parameter after the common
// ones, the rows' barrier words (the Go side passes it to every
// cooperative launch). The fused kernel's `head` form takes group as the
// pack below which its statistics pass loads evict-first (its `masked`
// form, the head form's stash for masked rows, marks only the mask); the plain form
// keeps the code it had without (its statistics loop once, not twice: the
// two loops took 4 registers more and seemed to cost the rows without
// marks 0.5-1.5%, measured across device calls, not side by side).
#define SM_GRID_DTYPE(S, T)                                                                                  \
	extern "C" __global__ void __launch_bounds__(SM_MAX_THREADS)                                             \
	    softmax_fwd_grid_##S(const T *x, T *y, SM_VIEW_PARAMS, SM_EXTRA_PARAMS, unsigned *sync) {           \
		fwd_grid<T>(x, y, SM_VIEW(), vec != 0, (Part *)work, chunk, splits, sync);                         \
	}                                                                                                    \
	SM_GRID_BWD(S, T)                                                                                    \
	extern "C" __global__ void __launch_bounds__(SM_MAX_THREADS)                                             \
	    softmax_fwd_split_fused_##S(const T *x, T *y, SM_VIEW_PARAMS, SM_EXTRA_PARAMS, unsigned *sync) {    \
		fwd_split_fused<T, FUSED_PLAIN>(x, y, SM_VIEW(), vec != 0, (Part *)work, splits, 0, sync);         \
	}                                                                                                    \
	extern "C" __global__ void __launch_bounds__(SM_MAX_THREADS)                                             \
	    softmax_fwd_split_fused_head_##S(const T *x, T *y, SM_VIEW_PARAMS, SM_EXTRA_PARAMS, unsigned *sync) { \
		fwd_split_fused<T, FUSED_HEAD>(x, y, SM_VIEW(), vec != 0, (Part *)work, splits, group, sync);      \
	}                                                                                                    \
	extern "C" __global__ void __launch_bounds__(SM_MAX_THREADS)                                             \
	    softmax_fwd_split_fused_masked_##S(const T *x, T *y, SM_VIEW_PARAMS, SM_EXTRA_PARAMS, unsigned *sync) { \
		fwd_split_fused<T, FUSED_MASKED>(x, y, SM_VIEW(), vec != 0, (Part *)work, splits, 0, sync);        \
	}
#if SM_SPAN
#define SM_GRID_BWD(S, T)
#else
#define SM_GRID_BWD(S, T)                                                                                    \
	extern "C" __global__ void __launch_bounds__(SM_MAX_THREADS)                                             \
	    softmax_bwd_grid_##S(const T *y, const T *dy, T *dx, SM_VIEW_PARAMS, SM_EXTRA_PARAMS, unsigned *sync) { \
		bwd_grid<T>(y, dy, dx, SM_VIEW(), vec != 0, (Part *)work, chunk, splits, sync);                    \
	}
#endif
SM_GRID_DTYPE(f32, float)
SM_GRID_DTYPE(f64, double)
#if !SM_SPAN
SM_GRID_DTYPE(f16, sm_half)
#endif
SM_GRID_DTYPE(bf16, sm_bf16)

// Tier 8, a row per thread block cluster (grid.cuh; sm_90). Below sm_90
// their bodies trap and are never launched. Forward: blocks of at most 256
// threads, six per SM (40 registers). At the 44 ptxas took without the
// bound five fit, and ncu showed float32 1024x32000 bound by neither
// memory (59% of DRAM peak) nor issue (0.59 per scheduler) but by the
// blocks in flight; six ran the forward rows 1-10% faster. Backward keeps
// the plain bound: its shares of y and dy (64 KB) let three blocks share
// an SM anyway, and at 40 registers the half types spilled and ran 3-6%
// slower (docs/PERFORMANCE.md GPU entry 14; internal/gpu.CGridMaxThreads
// keeps forward blocks to 256 threads).
//
// "cgrid_shift" instances take rows of a part pack in buffers aligned to a
// pack, with neither mask nor causal limit: the shares tile each row's
// packs from the boundary at or before its start (grid.cuh,
// GridSlice::shifted), so they move whole packs where the others take
// such rows a column at a time.
#define SM_CGRID_THREADS 256
#define SM_CGRID_DTYPE(S, T)                                                                                    \
	extern "C" __global__ void __launch_bounds__(SM_CGRID_THREADS, 6)                                            \
	    softmax_fwd_cgrid_##S(const T *x, T *y, SM_VIEW_PARAMS, SM_EXTRA_PARAMS) {                               \
		fwd_cgrid<T>(x, y, SM_VIEW(), vec != 0, chunk, splits, work);                                            \
	}                                                                                                        \
	extern "C" __global__ void __launch_bounds__(SM_CGRID_THREADS, 6)                                            \
	    softmax_fwd_cgrid_shift_##S(const T *x, T *y, SM_VIEW_PARAMS, SM_EXTRA_PARAMS) {                         \
		fwd_cgrid<T, true>(x, y, SM_VIEW(), true, chunk, splits, work);                                          \
	}                                                                                                        \
	SM_CGRID_BWD(S, T)
#if SM_SPAN
#define SM_CGRID_BWD(S, T)
#else
#define SM_CGRID_BWD(S, T)                                                                                      \
	extern "C" __global__ void __launch_bounds__(SM_MAX_THREADS)                                                 \
	    softmax_bwd_cgrid_##S(const T *y, const T *dy, T *dx, SM_VIEW_PARAMS, SM_EXTRA_PARAMS) {                \
		bwd_cgrid<T>(y, dy, dx, SM_VIEW(), vec != 0, chunk, splits);                                           \
	}                                                                                                        \
	extern "C" __global__ void __launch_bounds__(SM_MAX_THREADS)                                                 \
	    softmax_bwd_cgrid_shift_##S(const T *y, const T *dy, T *dx, SM_VIEW_PARAMS, SM_EXTRA_PARAMS) {          \
		bwd_cgrid<T, true>(y, dy, dx, SM_VIEW(), true, chunk, splits);                                         \
	}
#endif
SM_CGRID_DTYPE(f32, float)
SM_CGRID_DTYPE(f64, double)
#if !SM_SPAN
SM_CGRID_DTYPE(f16, sm_half)
#endif
SM_CGRID_DTYPE(bf16, sm_bf16)

// Tier 1's streamed log-softmax backward (stream.cuh): a block per row, dy
// in registers, y loaded after the row's sum. float32 and the half types,
// at one 1024-thread block per SM (64 registers in the half types, 56 in
// float32, no spills). Entry 34's form, dy in shared memory, ran no
// faster held to 40 registers (blocks of at most 512 threads, three per
// SM) than at its 44-64 (docs/PERFORMANCE.md GPU entry 36).
//
// Tier 8's log-softmax backward in the same order (stream.cuh): dy alone
// in shared memory, so its blocks take the forward kernels' bound (at most
// 256 threads, six per SM: 40 registers, no spills on sm_90), and a word
// per block in the workspace for the check of rows of -Inf alone.
#define SM_STREAM_DTYPE(S, T)                                                                          \
	extern "C" __global__ void __launch_bounds__(SM_MAX_THREADS, 1)                                    \
	    softmax_bwd_lstream_##S(const T *y, const T *dy, T *dx, SM_VIEW_PARAMS, SM_EXTRA_PARAMS) {      \
		bwd_log_stream<T>(y, dy, dx, SM_VIEW());                                                     \
	}                                                                                              \
	extern "C" __global__ void __launch_bounds__(SM_CGRID_THREADS, 6)                                  \
	    softmax_bwd_cgrid_log_##S(const T *y, const T *dy, T *dx, SM_VIEW_PARAMS, SM_EXTRA_PARAMS) {    \
		bwd_log_cgrid<T>(y, dy, dx, SM_VIEW(), (unsigned *)work, chunk, splits);                     \
	}
#if !SM_SPAN
SM_STREAM_DTYPE(f32, float)
SM_STREAM_DTYPE(f16, sm_half)
SM_STREAM_DTYPE(bf16, sm_bf16)
#endif

// The backward at tiny scales (CUDA only): the Go side runs a backward of
// the float32-computed types at a scale under 2^-60 at scale * 2^k in
// [2^-61, 2^-60), then multiplies dx by f = 2^-k here, in float64 (f may
// lie below float32's range). The backward is linear in the scale, and
// the kernels hold it in float32, where a scale or its product with y
// under 2^-126 keeps fewer bits (or, under 2^-149, none: gpu.KernelScale).
// n elements from dx, a grid-stride loop.
#define SM_RESCALE_DTYPE(S, T)                                                                         \
	extern "C" __global__ void __launch_bounds__(SM_MAX_THREADS) softmax_bwd_rescale_##S(T *dx, i64 n, double f) { \
		for (i64 i = blockIdx.x * (i64)blockDim.x + threadIdx.x; i < n; i += (i64)gridDim.x * blockDim.x)     \
			dx[i] = Num<T>::out((typename Num<T>::acc)((double)Num<T>::in(dx[i]) * f));                        \
	}
#if !SM_SPAN
SM_RESCALE_DTYPE(f32, float)
SM_RESCALE_DTYPE(f16, sm_half)
SM_RESCALE_DTYPE(bf16, sm_bf16)
#endif
#endif

SM_DTYPE(f32, float)
SM_DTYPE(f64, double)
#if !SM_SPAN
SM_DTYPE(f16, sm_half)
#endif
SM_DTYPE(bf16, sm_bf16)
// Float64 softmax backward past gpu.FarGrad64's bound, rows of at most
// gpu.FarRowsCols columns: a warp a row (far_rows).
SM_BWD(far_rows, f64, double, SM_MAX_THREADS, (far_rows(y, dy, dx, v)))
