// stream.cuh is tier 1's streamed log-softmax backward (CUDA only:
// softmax.cu includes it after grid.cuh).
//
// Log-softmax backward's dx = s*dy - exp(y)*(s*c) needs y only after the
// row's sum c = sum(dy). So a block takes a row: each thread loads its
// packs of dy into registers and sums them, the block adds the sums, then
// each thread loads its packs of y and writes dx. y is loaded only after
// the sum, where tier 1's registers form loads y and dy together and holds
// both through it (this kernel ran ahead of that form at 1024-8192
// columns on the H200: docs/PERFORMANCE.md GPU entries 34 and 36).
//
// Entry 34's form kept dy in shared memory, brought in by one bulk copy
// (as PyTorch's cunn_SoftMaxBackwardSmem keeps it, loaded by its threads);
// dy in registers took 2-7% less time (entry 36).
//
// Rows of whole aligned packs (the Go side's vec), no mask, no causal
// limit, at most StreamUnroll packs a thread (the block's threads: the Go
// side's gpu.StreamShape), so a thread sums at most 32 terms in the
// compute type as tier 1 does (GradAcc). A row of more packs than that
// goes to the exact path.
//
// log_grad's bounds (it is valid while |s*c| is in range and no y is above
// 64; grad_finish) are known from c before y is loaded for s*c, and for y
// only as it is written: each thread notes whether it saw a y above -Inf
// and one above 64, and the block votes after its writes. A row that fails
// either (no y above -Inf, or one above 64: outside what a log-softmax
// forward gives) is rewritten by row_exact_bwd, after the vote's barrier.

// StreamUnroll is the most packs of dy (and of y) a thread holds: all
// its loads of each are in flight at once.
constexpr int StreamUnroll = 4;

// stream_in is a 16-byte pack of T as float32, taken from its words:
// bfloat16's by shifts, so no pack of 16-bit elements is formed (ptxas
// kept bfloat16's packs element by element in local memory when held to
// 40 registers, 106 bytes of spills; from words, none).
template <typename T> __device__ __forceinline__ void stream_in(const uint4& q, float* r) {
	Pack<T, 16 / sizeof(T)> p;
	memcpy(&p, &q, 16);
#pragma unroll
	for (int j = 0; j < 16 / (int)sizeof(T); ++j) r[j] = Num<T>::in(p.v[j]);
}
template <> __device__ __forceinline__ void stream_in<sm_bf16>(const uint4& q, float* r) {
	const unsigned w[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
	for (int j = 0; j < 4; ++j) {
		r[2 * j] = __uint_as_float(w[j] << 16); // the low half is the lower address
		r[2 * j + 1] = __uint_as_float(w[j] & 0xffff0000u);
	}
}

// stream_load loads this thread's packs of a row (pack threadIdx.x + u *
// blockDim.x for u < StreamUnroll, those below packs; the others are
// zero), all in flight at once. Packs as words, zeroed first: fewer
// registers than packs of T loaded where in range.
__device__ __forceinline__ void stream_load(const uint4* r, int packs, uint4* q) {
#pragma unroll
	for (int u = 0; u < StreamUnroll; ++u) {
		const int pk = threadIdx.x + u * blockDim.x;
		q[u] = make_uint4(0u, 0u, 0u, 0u);
		if (pk < packs) q[u] = r[pk];
	}
}

// bwd_log_stream is a block's row, row blockIdx.x (the grid is the rows).
// float32 and the half types (log_grad's float32 form).
template <typename T> __device__ __forceinline__ void bwd_log_stream(const T* y, const T* dy, T* dx, const View& v) {
	constexpr int P = PackWidth<T, 16>::value;
	const i64 row = blockIdx.x;
	const int packs = (int)(v.n / P);
	uint4 d[StreamUnroll];
	stream_load(reinterpret_cast<const uint4*>(dy + row * v.n), packs, d);
	float part = 0.0f; // zero packs add +0
#pragma unroll
	for (int u = 0; u < StreamUnroll; ++u) {
		float f[P];
		stream_in<T>(d[u], f);
#pragma unroll
		for (int j = 0; j < P; ++j) part += f[j];
	}
	// Every thread gets the same c (the reduction's shuffles add the same
	// pairs in every lane), so the branches below are the block's.
	const double c = block_reduce((double)part, SumOp(), 0.0), sc = v.scale * c;
	bool exact = packs > StreamUnroll * (int)blockDim.x || !(c - c == 0.0) || !log_grad_fast<T>(sc, false);
	if (!exact) {
		uint4 q[StreamUnroll];
		stream_load(reinterpret_cast<const uint4*>(y + row * v.n), packs, q);
		Pack<T, P>* dr = reinterpret_cast<Pack<T, P>*>(dx + row * v.n);
		const float k = log_grad_k<float>(sc), s = (float)v.scale;
		const bool unit = v.scale == 1.0;
		float ymax = -INFINITY;
#pragma unroll
		for (int u = 0; u < StreamUnroll; ++u) {
			const int pk = threadIdx.x + u * blockDim.x;
			if (pk >= packs) break;
			float yf[P], df[P];
			stream_in<T>(q[u], yf);
			stream_in<T>(d[u], df);
			Pack<T, P> o;
#pragma unroll
			for (int j = 0; j < P; ++j) {
				ymax = fmaxf(ymax, yf[j]);
				o.v[j] = Num<T>::out(log_grad(yf[j], unit ? df[j] : s * df[j], k));
			}
			dr[pk] = o;
		}
		const int some = __syncthreads_or(ymax > -INFINITY), big = __syncthreads_or(ymax > 64.0f);
		exact = !some || big;
	}
	if (exact) row_exact_bwd<T>(y, dy, dx, v, row, true, RowGroup((int)blockDim.x));
}
