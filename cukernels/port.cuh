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
// sm_any says whether pred holds in some lane of the wavefront.
__device__ __forceinline__ bool sm_any(bool pred) { return __any(pred); }
// sm_ballot is pred of every lane of the wavefront, lane i at bit i.
__device__ __forceinline__ unsigned long long sm_ballot(bool pred) { return __ballot(pred); }
__device__ __forceinline__ float sm_bf16_to_float(sm_bf16 v) { return float(v); }
__device__ __forceinline__ sm_bf16 sm_float_to_bf16(float v) { return sm_bf16(v); }
// sm_exp2 is 2^v in float32 to about 2 ulp (results below 2^-126 may be 0).
// exp2f lowers to v_exp_f32 (1 ulp), with the range scaling that keeps
// denormal results.
__device__ __forceinline__ float sm_exp2(float v) { return exp2f(v); }
// sm_exp2_ftz is sm_exp2 where results below 2^-126 may be 0.
__device__ __forceinline__ float sm_exp2_ftz(float v) { return exp2f(v); }
// SM_SPLIT_PIECES says whether the split tier's pieces kernel is built
// (long.cuh, fwd_split_pieces): not for HIP, whose Go side does not take
// it (it was measured on the H200 only).
#define SM_SPLIT_PIECES 0
// SM_LEAN_GRAD says whether tier 1's backward takes grad_reduce's lean
// form (softmax.cuh): not for HIP, where it was not measured and its
// objects spilled 8-24 bytes a lane more with it (hipkernels/resources.txt).
#define SM_LEAN_GRAD 0
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
// sm_any says whether pred holds in some lane of the warp (all lanes call it).
__device__ __forceinline__ bool sm_any(bool pred) { return __any_sync(0xffffffffu, pred); }
// sm_ballot is pred of every lane of the warp, lane i at bit i (all lanes call it).
__device__ __forceinline__ unsigned long long sm_ballot(bool pred) { return __ballot_sync(0xffffffffu, pred); }
#define SM_LEAN_GRAD 1
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
// sm_exp2_ftz is sm_exp2 where results below 2^-126 may be 0: one
// MUFU.EX2, for float16, whose outputs round such values to 0 anyway.
__device__ __forceinline__ float sm_exp2_ftz(float v) {
	float r;
	asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
	return r;
}
#define SM_SPLIT_PIECES 1
#endif

// sm_load_first loads a 16-, 8- or 4-byte V from global memory and marks
// its L2 line evict-first (sm_80 and later: createpolicy and an L2 cache
// hint; elsewhere, and for other sizes, an ordinary load). A line so marked
// is the first L2 gives up, so a stream read this way pushes out less of
// what came before it.
template <typename V> __device__ __forceinline__ V sm_load_first(const V* p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	unsigned long long pol;
	asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol)); // dropped where unused
	if constexpr (sizeof(V) == 16) {
		uint4 w;
		asm volatile("ld.global.L2::cache_hint.v4.b32 {%0, %1, %2, %3}, [%4], %5;"
		             : "=r"(w.x), "=r"(w.y), "=r"(w.z), "=r"(w.w)
		             : "l"(p), "l"(pol));
		return *reinterpret_cast<const V*>(&w);
	} else if constexpr (sizeof(V) == 8) {
		unsigned long long w;
		asm volatile("ld.global.L2::cache_hint.b64 %0, [%1], %2;" : "=l"(w) : "l"(p), "l"(pol));
		return *reinterpret_cast<const V*>(&w);
	} else if constexpr (sizeof(V) == 4) {
		unsigned w;
		asm volatile("ld.global.L2::cache_hint.b32 %0, [%1], %2;" : "=r"(w) : "l"(p), "l"(pol));
		return *reinterpret_cast<const V*>(&w);
	} else {
		return *p;
	}
#else
	return *p;
#endif
}

// sm_load_first_if is sm_load_first(p) where FIRST, else *p.
template <bool FIRST, typename V> __device__ __forceinline__ V sm_load_first_if(const V* p) {
	if constexpr (FIRST) return sm_load_first(p);
	else return *p;
}

// sm_sign_bytes is x's bytes 0-3 chosen by sel as PTX prmt chooses them,
// each replaced by its top bit repeated 8 times: byte n of the result is
// 0xff where bit 7 of byte (sel >> 4n & 3) of x is set, else 0. sel's
// nibbles are 8 to 11 (prmt's sign-replicating selectors). On CUDA one
// PRMT; elsewhere the same bytes computed one at a time.
__device__ __forceinline__ unsigned sm_sign_bytes(unsigned x, unsigned sel) {
#if defined(__HIPCC__)
	unsigned r = 0;
#pragma unroll
	for (int n = 0; n < 4; ++n) r |= (x >> (8 * (sel >> 4 * n & 3u) + 7) & 1u) * (0xffu << 8 * n);
	return r;
#else
	unsigned r;
	asm("prmt.b32 %0, %1, 0, %2;" : "=r"(r) : "r"(x), "r"(sel));
	return r;
#endif
}

// sm_dynamic_bytes is the block's dynamic shared memory, in bytes, as
// the launch gave it; 0 on HIP, which builds no kernel that asks (the
// fused split kernel, whose stash it sizes, is CUDA's: grid.cuh).
__device__ __forceinline__ unsigned sm_dynamic_bytes() {
#if defined(__HIPCC__)
	return 0;
#else
	unsigned r;
	asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r));
	return r;
#endif
}

// sm_async_copy<N> (below, after sm_saddr) copies N bytes (N-aligned at
// both ends) from global to shared memory; on sm_80 and later for N = 4, 8
// or 16 without passing through registers (cp.async), completing at
// sm_async_wait_*. Elsewhere (older GPUs, HIP, N = 2) it is an ordinary
// copy. sm_async_commit
// closes a group of copies; sm_async_wait_prior waits for every group but
// the last committed, sm_async_wait_all for all.
template <int N> struct alignas(N) sm_bytes {
	unsigned char b[N];
};
// sm_saddr is a shared memory address as the pipelined kernels keep it:
// on CUDA a 32-bit shared-window address, taken once per thread with
// sm_shared_addr (converting a generic pointer at every copy cost six
// instructions each time); elsewhere the pointer itself. The functions
// below take it.
#if defined(__HIPCC__)
typedef unsigned char* sm_saddr;
__device__ __forceinline__ sm_saddr sm_shared_addr(void* p) { return static_cast<unsigned char*>(p); }
#else
typedef unsigned sm_saddr;
__device__ __forceinline__ sm_saddr sm_shared_addr(void* p) { return (unsigned)__cvta_generic_to_shared(p); }
#endif

// sm_opaque returns p, hidden from the optimizer: a row's pointer stays
// one register that each pack's offset is added to, where the compiler had
// folded row*n + col into a 64-bit multiply-add for every pack.
template <typename T> __device__ __forceinline__ const T* sm_opaque(const T* p) {
#if defined(__HIPCC__)
	return p;
#else
	asm("" : "+l"(p));
	return p;
#endif
}

// sm_async_copy (shared address form) is sm_async_copy for N of 2 (the
// mask bytes of a float64 pack, an ordinary copy), 4, 8 or 16 bytes.
template <int N> __device__ __forceinline__ void sm_async_copy(sm_saddr s, const void* gmem) {
#if defined(__HIPCC__)
	*reinterpret_cast<sm_bytes<N>*>(s) = *reinterpret_cast<const sm_bytes<N>*>(gmem);
#else
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	if constexpr (N == 16) {
		asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem) : "memory");
		return;
	} else if constexpr (N == 4 || N == 8) {
		asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(s), "l"(gmem), "n"(N) : "memory");
		return;
	}
#endif
	if constexpr (N == 16) {
		const uint4 u = *reinterpret_cast<const uint4*>(gmem);
		asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(s), "r"(u.x), "r"(u.y), "r"(u.z), "r"(u.w)
		             : "memory");
	} else if constexpr (N == 8) {
		asm volatile("st.shared.u64 [%0], %1;" ::"r"(s), "l"(*reinterpret_cast<const unsigned long long*>(gmem))
		             : "memory");
	} else if constexpr (N == 4) {
		asm volatile("st.shared.u32 [%0], %1;" ::"r"(s), "r"(*reinterpret_cast<const unsigned*>(gmem)) : "memory");
	} else {
		static_assert(N == 2, "sm_async_copy: 2, 4, 8 or 16 bytes");
		asm volatile("st.shared.u16 [%0], %1;" ::"r"(s), "h"(*reinterpret_cast<const unsigned short*>(gmem))
		             : "memory");
	}
#endif
}
// sm_copy_part copies the first b (0 to 16) bytes of the pack at gmem into
// slot s a byte at a time, reading no byte past them, and zeroes the
// slot's others; the store is synchronous.
__device__ __forceinline__ void sm_copy_part(sm_saddr s, const void* gmem, unsigned b) {
	const unsigned char* src = static_cast<const unsigned char*>(gmem);
	unsigned w[4] = {0u, 0u, 0u, 0u};
#pragma unroll
	for (unsigned i = 0; i < 16; ++i)
		if (i < b) w[i / 4] |= (unsigned)src[i] << (8 * (i % 4));
#if defined(__HIPCC__)
	*reinterpret_cast<uint4*>(s) = make_uint4(w[0], w[1], w[2], w[3]);
#else
	asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(s), "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3])
	             : "memory");
#endif
}

// sm_async_copy_part is sm_async_copy<16> that reads only the first b
// (0 to 16) bytes of the pack at gmem and zeroes the slot's others: a
// row's last pack, whose bytes past the row belong to the next row
// (cp.async's source size; elsewhere sm_copy_part). For the buffer's last
// pack use sm_copy_part: compute-sanitizer's memcheck counts this copy's
// read as all 16 bytes whatever b is, and reports the bytes past the
// buffer as an invalid read (found in session 55 with the test guards off).
// SM_ASYNC_PART_WHOLE says whether that holds (cp.async: CUDA, sm_80 on).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define SM_ASYNC_PART_WHOLE 1 // memcheck counts sm_async_copy_part as 16 bytes read
#else
#define SM_ASYNC_PART_WHOLE 0 // sm_async_copy_part is sm_copy_part
#endif
__device__ __forceinline__ void sm_async_copy_part(sm_saddr s, const void* gmem, unsigned b) {
#if SM_ASYNC_PART_WHOLE
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(s), "l"(gmem), "r"(b) : "memory");
#else
	sm_copy_part(s, gmem, b);
#endif
}

// sm_store16 stores the 16 bytes u at p (16-byte aligned) in one access.
// On CUDA it is an asm store, which the compiler cannot split: in the
// shifted pipelined kernels it had split a row's whole-pack stores into
// 2-byte ones, merging them with the stores of the packs the row's ends
// cut (docs/PERFORMANCE.md GPU entry 88). It declares no memory clobber,
// so the compiler may move other memory accesses across it: its callers
// never read back what it wrote (a row's output is written once, after
// its last read of the row).
__device__ __forceinline__ void sm_store16(void* p, uint4 u) {
#if defined(__HIPCC__)
	*reinterpret_cast<uint4*>(p) = u;
#else
	asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(u.x), "r"(u.y), "r"(u.z), "r"(u.w));
#endif
}

// sm_async_copy (generic pointer form) is the shared address form for a
// pointer into shared memory, converted at each call.
template <int N> __device__ __forceinline__ void sm_async_copy(void* smem, const void* gmem) {
	sm_async_copy<N>(sm_shared_addr(smem), gmem);
}

// sm_lds_if reads a W (2, 4 or 8 bytes, or uint4) from shared memory into
// w where pred holds, afresh at every call; elsewhere w keeps its value.
// On CUDA it is one predicated volatile asm load: the compiler can neither
// merge it with another read nor move it across the cp.async waits (which
// it cannot see as touching this address), and a row's packs are read
// back to back, where a branch around each read had made every read wait
// for the one before.
template <typename W> __device__ __forceinline__ void sm_lds_if(bool pred, sm_saddr s, W& w) {
#if defined(__HIPCC__)
	if (pred) w = *reinterpret_cast<const W*>(s); // no async copies here: ordinary loads
#else
	const unsigned p = pred;
	if constexpr (sizeof(W) == 16) {
		asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %4, 0;\n\t@q ld.shared.v4.u32 {%0, %1, %2, %3}, [%5];\n\t}"
		             : "+r"(w.x), "+r"(w.y), "+r"(w.z), "+r"(w.w)
		             : "r"(p), "r"(s));
	} else if constexpr (sizeof(W) == 8) {
		asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %1, 0;\n\t@q ld.shared.u64 %0, [%2];\n\t}" : "+l"(w) : "r"(p), "r"(s));
	} else if constexpr (sizeof(W) == 4) {
		asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %1, 0;\n\t@q ld.shared.u32 %0, [%2];\n\t}" : "+r"(w) : "r"(p), "r"(s));
	} else {
		static_assert(sizeof(W) == 2, "sm_lds_if: 2, 4, 8 or 16 bytes");
		asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %1, 0;\n\t@q ld.shared.u16 %0, [%2];\n\t}" : "+h"(w) : "r"(p), "r"(s));
	}
#endif
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
__device__ __forceinline__ void sm_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void sm_async_wait_prior() { asm volatile("cp.async.wait_group 1;" ::: "memory"); }
__device__ __forceinline__ void sm_async_wait_all() { asm volatile("cp.async.wait_group 0;" ::: "memory"); }
#else
__device__ __forceinline__ void sm_async_commit() {}
__device__ __forceinline__ void sm_async_wait_prior() {}
__device__ __forceinline__ void sm_async_wait_all() {}
#endif

// Thread block clusters (sm_90 and later): the blocks of a cluster meet at
// cluster barriers and read each other's shared memory. SM_CLUSTERS says
// the kernels being built can use them; elsewhere (older GPUs, HIP) the
// functions below trap, and the Go side never launches a cluster kernel
// there.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define SM_CLUSTERS 1
// sm_cluster_rank is this block's rank in its cluster, sm_cluster_size the
// cluster's blocks, sm_cluster_id the cluster's index in the grid and
// sm_cluster_count the grid's clusters (all along x).
__device__ __forceinline__ unsigned sm_cluster_rank() {
	unsigned r;
	asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
	return r;
}
__device__ __forceinline__ unsigned sm_cluster_size() {
	unsigned r;
	asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
	return r;
}
__device__ __forceinline__ unsigned sm_cluster_id() {
	unsigned r;
	asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(r));
	return r;
}
__device__ __forceinline__ unsigned sm_cluster_count() {
	unsigned r;
	asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(r));
	return r;
}
// sm_cluster_sync is a barrier over every thread of the cluster; shared
// memory written before it is visible to every block of the cluster after
// (arrive releases, wait acquires: their default semantics).
__device__ __forceinline__ void sm_cluster_sync() {
	asm volatile("barrier.cluster.arrive.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
}
// sm_cluster_arrive and sm_cluster_wait are sm_cluster_sync's halves:
// arrive releasing, wait acquiring (their defaults). A block that
// arrives as it starts and waits before it first touches another block's
// shared memory knows every block of the cluster has started.
__device__ __forceinline__ void sm_cluster_arrive() { asm volatile("barrier.cluster.arrive.aligned;" ::: "memory"); }
__device__ __forceinline__ void sm_cluster_wait() { asm volatile("barrier.cluster.wait.aligned;" ::: "memory"); }
// sm_cluster_arrive_relaxed is an arrive that releases nothing: it only
// says the block has started. It takes PTX 8.0 (CUDA 12; SM_PTX8): CUDA
// 11.8 has only the releasing arrive, which it compiles to a GPU-scope
// MEMBAR before the arrive (docs/PERFORMANCE.md GPU entries 15 and 16).
#if defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ >= 12
#define SM_PTX8 1
__device__ __forceinline__ void sm_cluster_arrive_relaxed() {
	asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}
#else
#define SM_PTX8 0
__device__ __forceinline__ void sm_cluster_arrive_relaxed() { sm_cluster_arrive(); }
#endif
// sm_cluster_map is the address of p (in this block's shared memory) in
// the shared memory of the cluster's block rank.
template <typename V> __device__ __forceinline__ V* sm_cluster_map(V* p, unsigned rank) {
	V* r;
	asm volatile("mapa.u64 %0, %1, %2;" : "=l"(r) : "l"(p), "r"(rank));
	return r;
}
#else
#define SM_CLUSTERS 0
#if defined(__HIPCC__)
__device__ __forceinline__ void sm_trap() { __builtin_trap(); }
#else
__device__ __forceinline__ void sm_trap() { asm volatile("trap;"); }
#endif
__device__ __forceinline__ unsigned sm_cluster_rank() { sm_trap(); return 0; }
__device__ __forceinline__ unsigned sm_cluster_size() { sm_trap(); return 1; }
__device__ __forceinline__ unsigned sm_cluster_id() { sm_trap(); return 0; }
__device__ __forceinline__ unsigned sm_cluster_count() { sm_trap(); return 1; }
__device__ __forceinline__ void sm_cluster_sync() { sm_trap(); }
__device__ __forceinline__ void sm_cluster_arrive() { sm_trap(); }
__device__ __forceinline__ void sm_cluster_arrive_relaxed() { sm_trap(); }
__device__ __forceinline__ void sm_cluster_wait() { sm_trap(); }
template <typename V> __device__ __forceinline__ V* sm_cluster_map(V* p, unsigned rank) {
	sm_trap();
	return p;
}
#endif

__device__ __forceinline__ float sm_half_to_float(sm_half v) { return __half2float(v); }
__device__ __forceinline__ sm_half sm_float_to_half(float v) { return __float2half(v); }

// The largest block any kernel is launched with; block reductions keep one
// slot per warp.
#define SM_MAX_THREADS 1024
#define SM_MAX_WARPS (SM_MAX_THREADS / SM_WARP)
