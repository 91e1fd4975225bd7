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

// stream_load loads this thread's packs of a row for the pass from pack
// `first` (first + u * blockDim.x for u < StreamUnroll, those below
// packs; the others are zero), all in flight at once; LAST: evict-first,
// the packs' only read. Packs as words, zeroed first: fewer registers
// than packs of T loaded where in range.
template <bool LAST = false>
__device__ __forceinline__ void stream_load(const uint4* r, int first, int packs, uint4* q) {
#pragma unroll
	for (int u = 0; u < StreamUnroll; ++u) {
		const int pk = first + u * blockDim.x;
		q[u] = make_uint4(0u, 0u, 0u, 0u);
		if (pk < packs) q[u] = LAST ? __ldcs(r + pk) : r[pk];
	}
}

// bwd_log_stream is a block's row, row blockIdx.x (the grid is the rows).
// float32 and the half types (log_grad's float32 form).
template <typename T> __device__ __forceinline__ void bwd_log_stream(const T* y, const T* dy, T* dx, const View& v) {
	constexpr int P = PackWidth<T, 16>::value;
	const i64 row = blockIdx.x;
	const int packs = (int)(v.n / P);
	uint4 d[StreamUnroll];
	stream_load(reinterpret_cast<const uint4*>(dy + row * v.n), threadIdx.x, packs, d);
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
		stream_load(reinterpret_cast<const uint4*>(y + row * v.n), threadIdx.x, packs, q);
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

// ------------------------------------------ tier 8: a row per cluster --
// bwd_log_cgrid is tier 8's log-softmax backward in the same order: each
// block of the row's cluster copies its share of dy into its shared memory
// and sums it, the cluster meets on the row's sum (ClusterMeet), then each
// block loads its share of y and writes dx from the dy it holds. bwd_cgrid
// holds y and dy through the meet, twice the shared memory a block: half
// the blocks an SM (docs/PERFORMANCE.md GPU entry 37). The first pass of
// y needs no sum, so its loads go out before the meet (not bfloat16's).
//
// Rows of whole aligned packs (the Go side's vec) with neither mask nor
// causal limit, where dx overlaps neither y nor dy (y is read after other
// blocks of the row have written). dx takes the grid tier's arithmetic
// where the sum is finite (LongLogGrad), else the plain formula in float32,
// whose Inf or NaN is then what float64 gives too. A row whose every
// y is -Inf gets dx = 0, as grad_out gives it, which no block knows alone
// after the meet. Each block keeps a word in the workspace (the row's
// splits words): 0 from its start (ordered before the meet by the meet's
// cluster barrier), then 2 if its share had a y above -Inf (NaN counts),
// else 1. A block that saw one leaves at once. A block that saw none (its
// dx is right unless no block saw one) waits for the others' words and,
// if every one is 1, writes zeros over its own share. Entry 37 had the
// first block wait for the others at a cluster barrier whose arrive
// released each block's writes: 1-4% slower than no check at all in
// float32 and float16.

// lcgrid_write writes dx = f(y, dy) over the share, q holding the first
// pass's y where EARLY, and says whether it saw a y above -Inf.
template <typename T, bool EARLY, typename Out>
__device__ __forceinline__ bool lcgrid_write(const uint4* yq, const uint4* dq, T* dx, int packs, uint4* q, Out f) {
	constexpr int P = PackWidth<T, 16>::value;
	Pack<T, P>* out = reinterpret_cast<Pack<T, P>*>(dx);
	bool any = false;
	for (int first = threadIdx.x; first < packs; first += StreamUnroll * blockDim.x) {
		if (!EARLY || first != (int)threadIdx.x) stream_load<true>(yq, first, packs, q); // y is read once
#pragma unroll
		for (int u = 0; u < StreamUnroll; ++u) {
			const int pk = first + u * blockDim.x;
			if (pk >= packs) break;
			float yf[P], df[P];
			stream_in<T>(q[u], yf);
			stream_in<T>(dq[pk], df);
			Pack<T, P> o;
#pragma unroll
			for (int j = 0; j < P; ++j) {
				any |= yf[j] != -INFINITY;
				o.v[j] = Num<T>::out(f(yf[j], df[j]));
			}
			out[pk] = o;
		}
	}
	return any;
}

// lcgrid_word stores and loads a block's word of the -Inf check: relaxed
// at GPU scope (through L2; other multiprocessors read it).
__device__ __forceinline__ void lcgrid_store(unsigned* w, unsigned v) {
	asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(w), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned lcgrid_word(const unsigned* w) {
	unsigned v;
	asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(w) : "memory");
	return v;
}

template <typename T>
__device__ __forceinline__ void bwd_log_cgrid(const T* y, const T* dy, T* dx, const View& v, unsigned* words,
                                              i64 chunk, i64 splits) {
	constexpr int P = PackWidth<T, 16>::value;
	__shared__ __align__(16) Part slots[ClusterMeet::most];
	ClusterMeet::start();
	const GridSlice sl(v, chunk, splits);
	unsigned* const word = words + sl.row * splits; // the row's
	if (threadIdx.x == 0) lcgrid_store(word + sl.b, 0u);
	const i64 base = sl.row * v.n + sl.lo;
	const int packs = sl.len / P;
	uint4* cg = reinterpret_cast<uint4*>(sm_dynamic);
	const uint4* dq = reinterpret_cast<const uint4*>(dy + base);
	for (int pk = threadIdx.x; pk < packs; pk += blockDim.x) sm_async_copy<16>(cg + pk, dq + pk);
	sm_async_commit();
	sm_async_wait_all(); // a thread sums the packs it copied: no block barrier
	double part = 0.0;
	for (int pk = threadIdx.x; pk < packs; pk += blockDim.x) {
		float f[P];
		stream_in<T>(cg[pk], f);
		float s = 0.0f;
#pragma unroll
		for (int j = 0; j < P; ++j) s += f[j];
		if (!IsF16<T>::value && !(s - s == 0.0f)) { // past float32's range: the pack again in float64
			double w = 0.0;
#pragma unroll
			for (int j = 0; j < P; ++j) w += f[j];
			part += w;
		} else {
			part += s;
		}
	}
	// bfloat16 spilled 16 bytes holding the first pass through the meet
	// (40 registers), so it loads it after.
	constexpr bool early = !IsBf16<T>::value;
	const uint4* yq = reinterpret_cast<const uint4*>(y + base);
	uint4 q[StreamUnroll];
	if (early) stream_load<true>(yq, threadIdx.x, packs, q);
	part = block_reduce(part, SumOp(), 0.0);
	const ClusterMeet meet{slots, (unsigned)splits};
	meet.publish(Part{0.0, part, 0, 0}, sl.b);
	const double c = meet_gather(meet, splits, [](const Part& p) { return p.s; }, SumOp(), 0.0);
	const float s = (float)v.scale;
	bool any;
	if (c - c == 0.0) {
		const LongLogGrad<T> lg(v.scale * c);
		any = lcgrid_write<T, early>(yq, cg, dx + base, packs, q, [&](float yv, float dv) { return lg.at(yv, s * dv); });
	} else {
		const float cf = (float)c;
		any = lcgrid_write<T, early>(yq, cg, dx + base, packs, q,
		                      [&](float yv, float dv) { return s * (dv - sm_exp(yv) * cf); });
	}
	const bool saw = __syncthreads_or(any);
	if (threadIdx.x == 0) lcgrid_store(word + sl.b, saw ? 2u : 1u);
	if (saw) return;
	int some = 0;
	if (threadIdx.x < splits) {
		unsigned w;
		while ((w = lcgrid_word(word + threadIdx.x)) == 0u) {
		}
		some = w == 2u;
	}
	if (__syncthreads_or(some)) return;
	Pack<T, P> zero;
#pragma unroll
	for (int j = 0; j < P; ++j) zero.v[j] = Num<T>::out(0.0f);
	Pack<T, P>* out = reinterpret_cast<Pack<T, P>*>(dx + base);
	for (int pk = threadIdx.x; pk < packs; pk += blockDim.x) out[pk] = zero;
}
