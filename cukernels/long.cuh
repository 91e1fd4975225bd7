// long.cuh holds the tiers for rows too long to hold on chip: tier 3 (a
// block per row, two reads) and tier 4 (a row split across blocks). It
// builds on softmax.cuh's views, reductions and outputs; softmax.cu
// includes it after softmax.cuh.
#pragma once
#include "softmax.cuh"

// ---------------------------- tier 3: block per row, online, two reads --
// Rows longer than shared memory holds, when there are enough rows to give
// every multiprocessor blocks. One read keeps a running (max, sum) per
// thread, merged across the block; a second read writes the output. The
// second read mostly hits L2 for rows up to a few MB.

// chunk_stats folds columns [lo, hi) of a row into st; vec says the row is
// 16-byte aligned and lo, hi are multiples of the vector width.
template <typename T>
__device__ __forceinline__ void chunk_stats(const T* xr, const View& v, i64 mrow, i64 kept, i64 lo, i64 hi,
                                            bool vec, Stats<typename Num<T>::acc>& st) {
	constexpr int P = PackWidth<T, 16>::value;
	if (vec) {
		for (i64 pk = lo / P + threadIdx.x; pk < hi / P; pk += blockDim.x) {
			typename Num<T>::acc a[P];
			load_pack<T, P>(xr, pk * P, v.n, true, a);
#pragma unroll
			for (int j = 0; j < P; ++j)
				if (v.keeps(mrow, kept, pk * P + j)) add_online<T>(st, a[j], v.ex);
		}
		return;
	}
	for (i64 k = lo + threadIdx.x; k < hi; k += blockDim.x)
		if (v.keeps(mrow, kept, k)) add_online<T>(st, Num<T>::in(xr[k]), v.ex);
}

template <typename T>
__device__ __forceinline__ void chunk_write(const T* xr, T* yr, const View& v, i64 mrow, i64 kept, i64 lo, i64 hi,
                                            bool vec, const Fin<typename Num<T>::acc>& f) {
	typedef typename Num<T>::acc A;
	constexpr int P = PackWidth<T, 16>::value;
	if (vec) {
		for (i64 pk = lo / P + threadIdx.x; pk < hi / P; pk += blockDim.x) {
			A a[P];
			load_pack<T, P>(xr, pk * P, v.n, true, a);
#pragma unroll
			for (int j = 0; j < P; ++j) a[j] = fwd_out<T>(v, v.keeps(mrow, kept, pk * P + j), a[j], f);
			store_pack<T, P>(yr, pk * P, v.n, true, a);
		}
		return;
	}
	for (i64 k = lo + threadIdx.x; k < hi; k += blockDim.x)
		yr[k] = Num<T>::out(fwd_out<T>(v, v.keeps(mrow, kept, k), Num<T>::in(xr[k]), f));
}

template <typename T>
__device__ __forceinline__ void fwd_block(const T* x, T* y, const View& v, bool vec) {
	typedef typename Num<T>::acc A;
	for (i64 row = blockIdx.x; row < v.rows; row += gridDim.x) {
		const i64 kept = v.kept(row), mrow = v.mask ? v.mask_row(row) : 0;
		Stats<A> st = stats_init<A>();
		chunk_stats<T>(x + row * v.n, v, mrow, kept, 0, v.n, vec, st);
		st = block_reduce(st, MergeOp<T>{v.ex}, stats_init<A>());
		Fin<A> f = finish(st);
		set_sum(f, st.s, v.log);
		chunk_write<T>(x + row * v.n, y + row * v.n, v, mrow, kept, 0, v.n, vec, f);
	}
}

template <typename T>
__device__ __forceinline__ void chunk_grad(const T* y, const T* dy, const View& v, i64 mrow, i64 kept, i64 lo,
                                           i64 hi, bool vec, GradStats<typename Num<T>::acc>& g) {
	typedef typename Num<T>::acc A;
	constexpr int P = PackWidth<T, 16>::value;
	if (vec) {
		for (i64 pk = lo / P + threadIdx.x; pk < hi / P; pk += blockDim.x) {
			A a[P], b[P];
			load_pack<T, P>(y, pk * P, v.n, true, a);
			load_pack<T, P>(dy, pk * P, v.n, true, b);
#pragma unroll
			for (int j = 0; j < P; ++j)
				if (v.keeps(mrow, kept, pk * P + j)) grad_add(v, g, a[j], b[j]);
		}
		return;
	}
	for (i64 k = lo + threadIdx.x; k < hi; k += blockDim.x)
		if (v.keeps(mrow, kept, k)) grad_add(v, g, Num<T>::in(y[k]), Num<T>::in(dy[k]));
}

template <typename T>
__device__ __forceinline__ void chunk_grad_write(const T* y, const T* dy, T* dx, const View& v, i64 mrow, i64 kept,
                                                 i64 lo, i64 hi, bool vec, const GradStats<typename Num<T>::acc>& g) {
	typedef typename Num<T>::acc A;
	constexpr int P = PackWidth<T, 16>::value;
	if (vec) {
		for (i64 pk = lo / P + threadIdx.x; pk < hi / P; pk += blockDim.x) {
			A a[P], b[P];
			load_pack<T, P>(y, pk * P, v.n, true, a);
			load_pack<T, P>(dy, pk * P, v.n, true, b);
#pragma unroll
			for (int j = 0; j < P; ++j) a[j] = grad_out<T>(v, v.keeps(mrow, kept, pk * P + j), a[j], b[j], g);
			store_pack<T, P>(dx, pk * P, v.n, true, a);
		}
		return;
	}
	for (i64 k = lo + threadIdx.x; k < hi; k += blockDim.x)
		dx[k] = Num<T>::out(grad_out<T>(v, v.keeps(mrow, kept, k), Num<T>::in(y[k]), Num<T>::in(dy[k]), g));
}

template <typename T>
__device__ __forceinline__ void bwd_block(const T* y, const T* dy, T* dx, const View& v, bool vec) {
	typedef typename Num<T>::acc A;
	for (i64 row = blockIdx.x; row < v.rows; row += gridDim.x) {
		const i64 kept = v.kept(row), mrow = v.mask ? v.mask_row(row) : 0;
		const i64 base = row * v.n;
		GradStats<A> g{A(0), 0};
		chunk_grad<T>(y + base, dy + base, v, mrow, kept, 0, v.n, vec, g);
		g = block_reduce(g, GradOp(), GradStats<A>{A(0), 0});
		chunk_grad_write<T>(y + base, dy + base, dx + base, v, mrow, kept, 0, v.n, vec, g);
	}
}

// ------------------------------------------------- tier 4: split rows --
// Few rows with very many columns (4 x 1M, 4 x 33M): one block per row
// would leave most multiprocessors idle. Grid (splits, rows): block b owns
// columns [b*chunk, (b+1)*chunk) of its row. The stats kernel writes each
// block's Part to the workspace; the apply kernel merges the row's parts
// (every block redoes this small merge) and writes its own columns. Limit:
// rows <= 65535 (the grid's y dimension).

template <typename T>
__device__ __forceinline__ void fwd_split_stats(const T* x, const View& v, bool vec, Part* work, i64 chunk, i64 splits) {
	typedef typename Num<T>::acc A;
	const i64 row = blockIdx.y, b = blockIdx.x;
	const i64 lo = b * chunk, hi = lo + chunk < v.n ? lo + chunk : v.n;
	const i64 kept = v.kept(row), mrow = v.mask ? v.mask_row(row) : 0;
	Stats<A> st = stats_init<A>();
	chunk_stats<T>(x + row * v.n, v, mrow, kept, lo, hi, vec, st);
	st = block_reduce(st, MergeOp<T>{v.ex}, stats_init<A>());
	if (threadIdx.x == 0) work[row * splits + b] = Part{(double)st.m, (double)st.s, st.nan, st.infs};
}

// row_parts merges the Parts of one row.
template <typename T>
__device__ __forceinline__ Stats<typename Num<T>::acc> row_parts(const View& v, const Part* parts, i64 splits) {
	typedef typename Num<T>::acc A;
	Stats<A> st = stats_init<A>();
	for (i64 j = threadIdx.x; j < splits; j += blockDim.x) {
		const Part p = parts[j];
		st = merge<T>(st, Stats<A>{(A)p.m, p.s, (int)p.nan, (int)p.infs}, v.ex);
	}
	return block_reduce(st, MergeOp<T>{v.ex}, stats_init<A>());
}

template <typename T>
__device__ __forceinline__ void fwd_split_apply(const T* x, T* y, const View& v, bool vec, const Part* work, i64 chunk,
                                                i64 splits) {
	typedef typename Num<T>::acc A;
	const i64 row = blockIdx.y, b = blockIdx.x;
	const i64 lo = b * chunk, hi = lo + chunk < v.n ? lo + chunk : v.n;
	const i64 kept = v.kept(row), mrow = v.mask ? v.mask_row(row) : 0;
	const Stats<A> st = row_parts<T>(v, work + row * splits, splits);
	Fin<A> f = finish(st);
	set_sum(f, st.s, v.log);
	chunk_write<T>(x + row * v.n, y + row * v.n, v, mrow, kept, lo, hi, vec, f);
}

template <typename T>
__device__ __forceinline__ void bwd_split_stats(const T* y, const T* dy, const View& v, bool vec, GradPart* work,
                                                i64 chunk, i64 splits) {
	typedef typename Num<T>::acc A;
	const i64 row = blockIdx.y, b = blockIdx.x;
	const i64 lo = b * chunk, hi = lo + chunk < v.n ? lo + chunk : v.n;
	const i64 kept = v.kept(row), mrow = v.mask ? v.mask_row(row) : 0;
	GradStats<A> g{A(0), 0};
	chunk_grad<T>(y + row * v.n, dy + row * v.n, v, mrow, kept, lo, hi, vec, g);
	g = block_reduce(g, GradOp(), GradStats<A>{A(0), 0});
	if (threadIdx.x == 0) work[row * splits + b] = GradPart{g.c, g.any};
}

template <typename T>
__device__ __forceinline__ void bwd_split_apply(const T* y, const T* dy, T* dx, const View& v, bool vec,
                                                const GradPart* work, i64 chunk, i64 splits) {
	typedef typename Num<T>::acc A;
	const i64 row = blockIdx.y, b = blockIdx.x;
	const i64 lo = b * chunk, hi = lo + chunk < v.n ? lo + chunk : v.n;
	const i64 kept = v.kept(row), mrow = v.mask ? v.mask_row(row) : 0;
	GradStats<A> g{A(0), 0};
	for (i64 j = threadIdx.x; j < splits; j += blockDim.x) {
		const GradPart p = work[row * splits + j];
		g.c += p.c;
		g.any |= (int)p.any;
	}
	g = block_reduce(g, GradOp(), GradStats<A>{A(0), 0});
	const i64 base = row * v.n;
	chunk_grad_write<T>(y + base, dy + base, dx + base, v, mrow, kept, lo, hi, vec, g);
}

