// grid.cuh is tier 7: few rows spread over every multiprocessor at once,
// each block's share of a row held in its shared memory. softmax.cu
// includes it after long.cuh (it merges tier 4's Parts); CUDA only, since
// it needs a cooperative launch.
//
// Few rows that the shared memory of the whole GPU holds (4 x 1M float32
// forward is 16 MB; the H200 has 132 x 227 KB): one cooperative launch of
// at most one block per multiprocessor, `splits` blocks per row. Block b
// of a row owns columns [b*chunk, (b+1)*chunk): it copies them into its
// shared memory with cp.async, every copy in flight at once (one round
// trip to memory, where the split tier's threads take several in each of
// its two kernels), takes their Part, publishes it in the workspace, meets
// the row's other blocks at a barrier in global memory, merges the row's
// Parts and writes its columns from shared memory. The input is read from
// memory once, in one launch.

// grid_barrier returns once all `blocks` blocks of a row have called it.
// sync is the row's two words {arrived, generation}, zeroed by the Go side
// when it allocates them: the last block to arrive sets arrived back to 0
// before it moves generation on, so the words are ready for the next
// launch. A block reads generation before it arrives, and the generation
// cannot move before every block has arrived, so all of them wait for the
// same change. The fences order each block's Part (written before the
// barrier) before the other blocks' reads of it (after).
__device__ __forceinline__ void grid_barrier(unsigned* sync, unsigned blocks) {
	__syncthreads();
	if (threadIdx.x == 0) {
		volatile unsigned* gen = sync + 1;
		const unsigned g = *gen;
		__threadfence();
		if (atomicAdd(sync, 1u) == blocks - 1) {
			atomicExch(sync, 0u);
			__threadfence();
			atomicAdd(sync + 1, 1u);
		} else {
			while (*gen == g) {
			}
		}
		__threadfence();
	}
	__syncthreads();
}

// grid_copy starts copying len elements from g into s: 16-byte cp.async
// copies when vec (both ends aligned, len a whole number of packs), else
// plain element copies. grid_landed waits for them and publishes s to the
// block.
template <typename T> __device__ __forceinline__ void grid_copy(T* s, const T* g, int len, bool vec) {
	constexpr int P = PackWidth<T, 16>::value;
	if (vec) {
		for (int pk = threadIdx.x; pk < len / P; pk += blockDim.x)
			sm_async_copy<16>(reinterpret_cast<Pack<T, P>*>(s) + pk, reinterpret_cast<const Pack<T, P>*>(g) + pk);
	} else {
		for (int k = threadIdx.x; k < len; k += blockDim.x) s[k] = g[k];
	}
}
__device__ __forceinline__ void grid_landed() {
	sm_async_commit();
	sm_async_wait_all();
	__syncthreads();
}

// grid_part reads a Part through L2 (another multiprocessor wrote it
// during this launch; L1 is not coherent).
__device__ __forceinline__ Part grid_part(const Part* p) {
	return Part{__ldcg(&p->m), __ldcg(&p->s), __ldcg(&p->nan), __ldcg(&p->infs)};
}

// GridSlice is a block's share of the launch: its row and columns
// [lo, lo + len).
struct GridSlice {
	i64 row, b, lo;
	int len;
	__device__ __forceinline__ GridSlice(const View& v, i64 chunk, i64 splits) {
		row = blockIdx.x / splits;
		b = blockIdx.x % splits;
		lo = b * chunk;
		const i64 hi = lo + chunk < v.n ? lo + chunk : v.n;
		len = hi > lo ? (int)(hi - lo) : 0;
	}
};

// GridUnits is the cache as units of what one thread takes at a time: a
// 16-byte pack where every pack is aligned (vec), else one element. U is
// the unit's width; unit u holds chunk columns [u*U, (u+1)*U).
template <typename T, int U> struct GridUnits {
	Pack<T, U>* p;
	int count;
	__device__ __forceinline__ GridUnits(T* cache, int len) : p(reinterpret_cast<Pack<T, U>*>(cache)), count(len / U) {}
};

// grid_filter replaces the entries of a unit that the row does not keep
// (keep's bits clear: mask, causal limit) with fill; the caller writes
// the unit back to the cache, so later passes need no mask.
template <typename T, int U>
__device__ __forceinline__ void grid_filter(Pack<T, U>& q, unsigned keep, typename Num<T>::acc fill) {
	if (keep == (1u << U) - 1) return;
#pragma unroll
	for (int j = 0; j < U; ++j)
		if (!(keep >> j & 1u)) q.v[j] = Num<T>::out(fill);
}

// GridRow is what every pass over a block's slice needs: the row's keep
// state and whether anything in it is filtered.
struct GridRow {
	i64 mrow;
	int kept, lo;
	bool filter, vmask;
	__device__ __forceinline__ GridRow(const View& v, const GridSlice& sl, int P) {
		kept = (int)v.kept(sl.row);
		lo = (int)sl.lo;
		mrow = v.mask ? v.mask_row(sl.row) : 0;
		filter = v.mask != nullptr || kept < v.n;
		vmask = v.mask && v.mstride == 1 && (unsigned long long)(v.mask + mrow + lo) % P == 0;
	}
	template <int U> __device__ __forceinline__ unsigned keep(const View& v, int u) const {
		return filter ? row_keep<U>(v, mrow, kept, lo + u * U, U > 1 && vmask) : (1u << U) - 1;
	}
};

// fwd_grid_slice is fwd_grid's work on units of width U. The statistics
// are exact (add_max counts NaN and +Inf; masked entries are -Inf in the
// cache); the output of a normal row takes tier 1's arithmetic (fwd_row),
// other rows fwd_out's per-entry cases.
template <typename T, int U>
__device__ __forceinline__ void fwd_grid_slice(T* y, const View& v, Part* parts, const GridSlice& sl, const GridRow& gr,
                                               i64 splits, unsigned* sync, T* cache) {
	typedef typename Num<T>::acc A;
	const GridUnits<T, U> un(cache, sl.len);
	Stats<A> st = stats_init<A>();
	for (int u = threadIdx.x; u < un.count; u += blockDim.x) {
		Pack<T, U> q = un.p[u];
		if (gr.filter) {
			grid_filter<T, U>(q, gr.keep<U>(v, u), -sm_inf<A>());
			un.p[u] = q;
		}
#pragma unroll
		for (int j = 0; j < U; ++j) add_max(st, Num<T>::in(q.v[j]));
	}
	st = block_reduce(st, MaxOp<A>(), stats_init<A>());
	double s = 0.0;
	if (st.m > -sm_inf<A>())
		for (int u = threadIdx.x; u < un.count; u += blockDim.x) {
			const Pack<T, U> q = un.p[u];
#pragma unroll
			for (int j = 0; j < U; ++j) {
				const A xv = Num<T>::in(q.v[j]);
				if (xv <= st.m) s += (double)row_exp<T>(xv, st.m, v.ex); // NaN and +Inf are counted, not summed
			}
		}
	s = block_reduce(s, SumOp(), 0.0);
	if (threadIdx.x == 0) parts[sl.b] = Part{(double)st.m, s, st.nan, st.infs};
	grid_barrier(sync + 2 * sl.row, (unsigned)splits);
	st = stats_init<A>();
	for (i64 j = threadIdx.x; j < splits; j += blockDim.x) {
		const Part p = grid_part(parts + j);
		st = merge<T>(st, Stats<A>{(A)p.m, p.s, (int)p.nan, (int)p.infs}, v.ex);
	}
	st = block_reduce(st, MergeOp<T>{v.ex}, stats_init<A>());
	Fin<A> f = finish(st);
	set_sum(f, st.s, v.log);
	Pack<T, U>* out = reinterpret_cast<Pack<T, U>*>(y + sl.row * v.n + sl.lo);
	const bool unit_log = v.log && v.scale == 1.0;
	const A ls = unit_log && f.kind == ROW_NORMAL ? row_log_sum<T>(f.s) : A(0);
	for (int u = threadIdx.x; u < un.count; u += blockDim.x) {
		const Pack<T, U> q = un.p[u];
		Pack<T, U> o;
#pragma unroll
		for (int j = 0; j < U; ++j) {
			const A xv = Num<T>::in(q.v[j]);
			A r;
			if (f.kind != ROW_NORMAL) r = fwd_out<T>(v, v.keeps32(gr.mrow, gr.kept, gr.lo + u * U + j), xv, f);
			else if (unit_log) r = (xv - f.m) - ls;
			else if (v.log) r = Num<T>::logout(xv, f.m, v.scale, f.lsum);
			else r = row_exp<T>(xv, f.m, v.ex) * f.r;
			o.v[j] = Num<T>::out(r);
		}
		out[u] = o;
	}
}

template <typename T>
__device__ __forceinline__ void fwd_grid(const T* x, T* y, const View& v, bool vec, Part* work, i64 chunk, i64 splits,
                                         unsigned* sync) {
	constexpr int P = PackWidth<T, 16>::value;
	const GridSlice sl(v, chunk, splits);
	const GridRow gr(v, sl, P);
	T* cache = reinterpret_cast<T*>(sm_dynamic);
	grid_copy<T>(cache, x + sl.row * v.n + sl.lo, sl.len, vec);
	grid_landed();
	Part* parts = work + sl.row * splits;
	if (vec) fwd_grid_slice<T, P>(y, v, parts, sl, gr, splits, sync, cache);
	else fwd_grid_slice<T, 1>(y, v, parts, sl, gr, splits, sync, cache);
}

// bwd_grid_slice is bwd_grid's work on units of width U: masked (y, dy)
// become (0, 0) (log: (-Inf, 0)) in the cache, so the sums need no mask
// and are exact; a Part carries the chunk's sum in s and, for
// log-softmax, whether some kept y is not -Inf in nan. A row whose sum is
// finite takes the long-row tiers' arithmetic (LongLogGrad), others
// grad_out's.
template <typename T, int U>
__device__ __forceinline__ void bwd_grid_slice(T* dx, const View& v, Part* parts, const GridSlice& sl, const GridRow& gr,
                                               i64 splits, unsigned* sync, T* cy, T* cg) {
	typedef typename Num<T>::acc A;
	const GridUnits<T, U> uy(cy, sl.len), ug(cg, sl.len);
	const A yfill = v.log ? -sm_inf<A>() : A(0);
	GradStats<A> g{0.0, 0};
	for (int u = threadIdx.x; u < uy.count; u += blockDim.x) {
		Pack<T, U> a = uy.p[u], b = ug.p[u];
		if (gr.filter) {
			const unsigned keep = gr.keep<U>(v, u);
			grid_filter<T, U>(a, keep, yfill);
			grid_filter<T, U>(b, keep, A(0));
			uy.p[u] = a;
			ug.p[u] = b;
		}
#pragma unroll
		for (int j = 0; j < U; ++j) grad_add(v, g, Num<T>::in(a.v[j]), Num<T>::in(b.v[j]));
	}
	g = block_reduce(g, GradOp(), GradStats<A>{0.0, 0});
	if (threadIdx.x == 0) parts[sl.b] = Part{0.0, g.c, g.any, 0};
	grid_barrier(sync + 2 * sl.row, (unsigned)splits);
	g = GradStats<A>{0.0, 0};
	for (i64 j = threadIdx.x; j < splits; j += blockDim.x) {
		const Part p = grid_part(parts + j);
		g = GradOp()(g, GradStats<A>{p.s, (int)p.nan});
	}
	g = block_reduce(g, GradOp(), GradStats<A>{0.0, 0});
	const bool fast = g.c - g.c == 0.0 && (!v.log || g.any);
	const A s = A(v.scale), c = A(g.c);
	const LongLogGrad<T> lg(v.scale * g.c);
	Pack<T, U>* out = reinterpret_cast<Pack<T, U>*>(dx + sl.row * v.n + sl.lo);
	for (int u = threadIdx.x; u < uy.count; u += blockDim.x) {
		const Pack<T, U> a = uy.p[u], b = ug.p[u];
		Pack<T, U> o;
#pragma unroll
		for (int j = 0; j < U; ++j) {
			const A yv = Num<T>::in(a.v[j]), dv = Num<T>::in(b.v[j]);
			A r;
			if (!fast) r = grad_out<T>(v, v.keeps32(gr.mrow, gr.kept, gr.lo + u * U + j), yv, dv, g);
			else if (v.log) r = lg.at(yv, s * dv);
			else r = s * yv * (dv - c);
			o.v[j] = Num<T>::out(r);
		}
		out[u] = o;
	}
}

// bwd_grid holds y and dy (dy at cache + chunk: chunk is a whole number of
// packs, so both stay 16-byte aligned).
template <typename T>
__device__ __forceinline__ void bwd_grid(const T* y, const T* dy, T* dx, const View& v, bool vec, Part* work, i64 chunk,
                                         i64 splits, unsigned* sync) {
	constexpr int P = PackWidth<T, 16>::value;
	const GridSlice sl(v, chunk, splits);
	const GridRow gr(v, sl, P);
	const i64 base = sl.row * v.n + sl.lo;
	T* cy = reinterpret_cast<T*>(sm_dynamic);
	T* cg = cy + chunk;
	grid_copy<T>(cy, y + base, sl.len, vec);
	grid_copy<T>(cg, dy + base, sl.len, vec);
	grid_landed();
	Part* parts = work + sl.row * splits;
	if (vec) bwd_grid_slice<T, P>(dx, v, parts, sl, gr, splits, sync, cy, cg);
	else bwd_grid_slice<T, 1>(dx, v, parts, sl, gr, splits, sync, cy, cg);
}
