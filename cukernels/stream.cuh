// stream.cuh is tier 1's streamed log-softmax backward (CUDA only:
// softmax.cu includes it after grid.cuh, whose bulk copies it takes).
//
// Log-softmax backward's dx = s*dy - exp(y)*(s*c) needs y only after the
// row's sum c = sum(dy). So a block takes a row: one bulk copy brings the
// row's dy into shared memory, the block sums it, then streams y from
// memory past it, writing dx as it goes. y is never held, so a thread
// keeps a few packs in flight and little else (PyTorch's
// cunn_SoftMaxBackwardSmem keeps dy in shared memory the same way, and
// ran ahead of tier 1's registers form, which holds y and dy through the
// sum, at 2048-8192 columns on the H200: docs/PERFORMANCE.md GPU entry 34).
//
// Rows of whole aligned packs (the Go side's vec), no mask, no causal
// limit, at most 4 packs a thread (the block's threads: the Go side's
// gpu.StreamShape), so a thread sums at most 32 terms in the compute type
// as tier 1 does (GradAcc).
//
// log_grad's bounds (it is valid while |s*c| is in range and no y is above
// 64; grad_finish) are known from c before the stream for s*c, and for y
// only as it streams: each thread notes whether it saw a y above -Inf and
// one above 64, and the block votes after its writes. A row that fails
// either (no y above -Inf, or one above 64: outside what a log-softmax
// forward gives) is rewritten by row_exact_bwd, after the vote's barrier.

// StreamUnroll is the packs of y a thread has in flight at once (2 at
// 32 registers: up to 29% slower, docs/PERFORMANCE.md GPU entry 34).
constexpr int StreamUnroll = 4;

// stream_log writes dx over this thread's packs of the row (y from
// memory, dy from shared memory) and returns what it saw of y: bit 0,
// some y above -Inf; bit 1, some y above 64.
template <typename T, bool UNIT, int P>
__device__ __forceinline__ unsigned stream_log(const Pack<T, P>* yr, Pack<T, P>* dr, const Pack<T, P>* cd, int packs,
                                               float s, float k) {
	float ymax = -INFINITY;
	for (int b = threadIdx.x; b < packs; b += StreamUnroll * blockDim.x) {
		Pack<T, P> q[StreamUnroll];
#pragma unroll
		for (int u = 0; u < StreamUnroll; ++u)
			if (b + u * (int)blockDim.x < packs) q[u] = yr[b + u * blockDim.x];
#pragma unroll
		for (int u = 0; u < StreamUnroll; ++u) {
			const int pk = b + u * blockDim.x;
			if (pk >= packs) break;
			const Pack<T, P> d = cd[pk];
			Pack<T, P> o;
#pragma unroll
			for (int j = 0; j < P; ++j) {
				const float yv = Num<T>::in(q[u].v[j]), dv = Num<T>::in(d.v[j]);
				ymax = fmaxf(ymax, yv);
				o.v[j] = Num<T>::out(log_grad(yv, UNIT ? dv : s * dv, k));
			}
			dr[pk] = o;
		}
	}
	return (ymax > -INFINITY ? 1u : 0u) | (ymax > 64.0f ? 2u : 0u);
}

// bwd_log_stream is a block's row, row blockIdx.x (the grid is the rows).
// float32 and the half types (log_grad's float32 form).
template <typename T> __device__ __forceinline__ void bwd_log_stream(const T* y, const T* dy, T* dx, const View& v) {
	constexpr int P = PackWidth<T, 16>::value;
	typedef Pack<T, P> Pk;
	const i64 row = blockIdx.x;
	const int packs = (int)(v.n / P);
	Pk* cache = reinterpret_cast<Pk*>(sm_dynamic);
#if SM_PTX8
	__shared__ unsigned long long bar;
	if (threadIdx.x == 0) {
		bulk_expect(&bar, packs * 16u);
		bulk_load(cache, dy + row * v.n, packs * 16u, &bar);
	}
	__syncthreads(); // bar's init before the waits
	bulk_wait(&bar);
#else
	grid_copy<T>(reinterpret_cast<T*>(cache), dy + row * v.n, packs * P, true);
	grid_landed();
#endif
	float part = 0.0f;
	for (int pk = threadIdx.x; pk < packs; pk += blockDim.x) {
		const Pk q = cache[pk];
#pragma unroll
		for (int j = 0; j < P; ++j) part += Num<T>::in(q.v[j]);
	}
	// Every thread gets the same c (the reduction's shuffles add the same
	// pairs in every lane), so the branches below are the block's.
	const double c = block_reduce((double)part, SumOp(), 0.0), sc = v.scale * c;
	bool exact = !(c - c == 0.0) || !log_grad_fast<T>(sc, false);
	if (!exact) {
		const Pk* yr = reinterpret_cast<const Pk*>(y + row * v.n);
		Pk* dr = reinterpret_cast<Pk*>(dx + row * v.n);
		const float k = log_grad_k<float>(sc);
		const unsigned seen = v.scale == 1.0 ? stream_log<T, true, P>(yr, dr, cache, packs, 1.0f, k)
		                                     : stream_log<T, false, P>(yr, dr, cache, packs, (float)v.scale, k);
		const int some = __syncthreads_or(seen & 1u), big = __syncthreads_or(seen & 2u);
		exact = !some || big;
	}
	if (exact) row_exact_bwd<T>(y, dy, dx, v, row, true, RowGroup((int)blockDim.x));
}
