// long.cuh holds the tiers for rows too long to hold on chip: tier 3 (a
// block per row, two reads) and tier 4 (a row split across blocks). It
// builds on softmax.cuh's views, reductions and outputs; softmax.cu
// includes it after softmax.cuh.
#pragma once
#include "softmax.cuh"

// ------------------------------------------------------ chunk helpers --
// Tiers 3 and 4 stream a chunk [lo, hi) of a row through the block, once
// for the statistics and once to write. Rows this long are bound by memory
// latency unless each thread keeps several loads in flight, so the block
// walks the chunk in steps of U*blockDim.x packs: thread t takes packs
// t + u*blockDim.x of the step (u < U, so each of its loads is coalesced
// across the block) and issues every load of the step before using any. A
// pack is P columns: a 16-byte vector when the row is aligned for it (vec:
// lo and hi are then multiples of P), else one column. The loops over steps
// are uniform across the block (the step's first pack, bk, is the same in
// every thread), so 64-bit positions stay in uniform registers and a
// thread's own offsets are 32-bit. A chunk's packs fall in three runs:
// kept whole (no mask, below the causal limit: full steps there look at no
// mask), partly kept (mask bytes and the causal limit give each element's
// bit; the step that crosses the chunk's end also goes here), and past the
// causal limit (not read: the statistics skip it and the writes store the
// masked output).
//
// The statistics are taken per batch of up to 16 values: masked entries
// count as -Inf (which Stats ignores), the batch's maximum skips NaN, and
// its exponentials are summed in the compute type against the new running
// maximum, then added to the float64 sum (rescaled once if the maximum
// grew). A batch holding NaN or +Inf (its sum NaN, or its maximum +Inf) is
// folded element by element with add_online instead, so Stats comes out as
// add_online alone would make it, up to the rounding of s.

// LongUnroll is the packs per thread and step: forward (one array read
// per step), backward (y and dy), and backward steps that look at masks
// (fewer, to stay within 64 registers); and the packs of one batch of the
// statistics (16 values, or one float64 pack: float64 exp needs many
// registers of its own).
template <typename T> struct LongUnroll {
	static constexpr int fwd = 4, bwd = 4, bwd_masked = 2, batch = 16 / PackWidth<T, 16>::value;
};
template <> struct LongUnroll<double> {
	static constexpr int fwd = 4, bwd = 2, bwd_masked = 2, batch = 1;
};

// LongKeep is what a chunk of packs [plo, phi) needs to say which of its
// columns are kept.
struct LongKeep {
	const unsigned char* mask; // the row's mask (mask_row applied), nullptr: none
	i64 mstride, kept;
	i64 pfull; // packs [plo, pfull) are kept whole (no mask, below the causal limit)
	i64 pkept; // packs [pkept, phi) keep nothing (past the causal limit)
	bool mvec; // a pack's mask bytes are one aligned word (mstride 1)
	// bits: the row's keep bits (split_bits), or nullptr. The statistics
	// pass writes them (stats_packs), the write pass reads them in place
	// of the mask and the causal limit (write_packs).
	unsigned char* bits;
};

// long_keep is the LongKeep of columns [lo, hi) (multiples of P, or P is
// 1) of a row with mask row mrow and causal limit kept.
template <int P>
__device__ __forceinline__ LongKeep long_keep(const View& v, i64 mrow, i64 kept, i64 lo, i64 hi) {
	LongKeep c;
	const i64 k = kept < lo ? lo : kept > hi ? hi : kept;
	c.mask = v.mask == nullptr ? nullptr : v.mask + mrow;
	c.mstride = v.mstride;
	c.kept = kept;
	c.pfull = v.mask == nullptr ? k / P : lo / P;
	c.pkept = (k + P - 1) / P;
	c.mvec = P > 1 && v.mask != nullptr && v.mstride == 1 && reinterpret_cast<size_t>(c.mask) % P == 0;
	c.bits = nullptr;
	return c;
}

// long_keep_bits is long_keep with the row's keep bits: bits, where P > 1
// and the row has a mask, else none.
template <int P>
__device__ __forceinline__ LongKeep long_keep_bits(const View& v, i64 mrow, i64 kept, i64 lo, i64 hi,
                                                   unsigned char* bits) {
	LongKeep c = long_keep<P>(v, mrow, kept, lo, hi);
	if (P > 1 && v.mask != nullptr) c.bits = bits;
	return c;
}

// LongExp is exp(scale*(x-m)) for the sums and outputs of this file. The
// half types take 2^((x-m)*scale*log2(e)) in float32 without sm_expx's
// correction for the rounding of scale*log2(e) and of the product (about
// 2^-23*|t| relative, 1.6e-5 at t = -133: far below a half's precision,
// and in the sum s the terms that matter have small |t|); the correction
// would make the half kernels bound by arithmetic rather than memory.
// float32 takes tier 1's row_exp (four instructions against sm_expx's
// thirteen; softmax.cuh gives its error), float64 sm_expx.
template <typename T> struct LongExp {
	static __device__ __forceinline__ typename Num<T>::acc of(typename Num<T>::acc x, typename Num<T>::acc m,
	                                                        const Expo& e) {
		return sm_expx(x, m, e);
	}
};
template <> struct LongExp<float> {
	static __device__ __forceinline__ float of(float x, float m, const Expo& e) { return row_exp<float>(x, m, e); }
};
// float16 takes the .ftz exponential (one MUFU.EX2 where sm_exp2 takes
// four more instructions for results below 2^-126, which round to 0 in
// float16 anyway); bfloat16 keeps them (its range is float32's).
template <> struct LongExp<sm_half> {
	static __device__ __forceinline__ float of(float x, float m, const Expo& e) { return sm_exp2_ftz(sm_diff(x, m) * e.hi); }
};
template <> struct LongExp<sm_bf16> {
	static __device__ __forceinline__ float of(float x, float m, const Expo& e) { return sm_exp2(sm_diff(x, m) * e.hi); }
};

// long_out is a normal row's softmax output at x: LongExp's term times the
// sum's reciprocal. bfloat16 takes fwd_row's biased exponential
// (RowBias: one MUFU.EX2 where LongExp's, exact below 2^-126, takes
// four instructions), its factor 2^64 taken out of the reciprocal, which
// a power of two leaves exact (normal: at least 2^-64/n).
template <typename T>
__device__ __forceinline__ typename Num<T>::acc long_out(typename Num<T>::acc x, const Fin<typename Num<T>::acc>& f,
                                                         const Expo& e) {
	return normed(LongExp<T>::of(x, f.m, e), f);
}
#if !defined(__HIPCC__)
template <> __device__ __forceinline__ float long_out<sm_bf16>(float x, const Fin<float>& f, const Expo& e) {
	return row_exp_biased<sm_bf16>(x, f.m, e) * (f.r * RowBias<sm_bf16>::inv);
}
#endif

// LongSumExp is LongExp for the terms of a statistics sum, which only
// ever adds them up: every type may flush terms below 2^-126, since the
// row's sum is at least 1 (its maximum's term) and n such terms change it
// by under n*2^-126. It cut the half types' statistics kernels by a
// sixth of their instructions and the split rows by 1-3%
// (docs/PERFORMANCE.md, GPU entry 24).
template <typename T> struct LongSumExp {
	static __device__ __forceinline__ typename Num<T>::acc of(typename Num<T>::acc x, typename Num<T>::acc m,
	                                                        const Expo& e) {
		return LongExp<T>::of(x, m, e);
	}
};
template <> struct LongSumExp<sm_bf16> {
	static __device__ __forceinline__ float of(float x, float m, const Expo& e) { return sm_exp2_ftz(sm_diff(x, m) * e.hi); }
};

// long_max is the larger of a and b where b is not NaN, a NaN a counting
// as nothing (fmax's rule, one instruction).
__device__ __forceinline__ float long_max(float a, float b) { return fmaxf(a, b); }
__device__ __forceinline__ double long_max(double a, double b) { return fmax(a, b); }

// LongTreeSum adds N (a power of two) values from e on pairwise.
template <int N> struct LongTreeSum {
	template <typename A> static __device__ __forceinline__ A of(const A* e) {
		return LongTreeSum<N / 2>::of(e) + LongTreeSum<N / 2>::of(e + N / 2);
	}
};
template <> struct LongTreeSum<1> {
	template <typename A> static __device__ __forceinline__ A of(const A* e) { return e[0]; }
};

// LongWalk is the block's walk over packs of a chunk that ends at pack phi, U
// packs per thread and step.
template <int U> struct LongWalk {
	i64 bk, phi; // the step's first pack (uniform); the chunk's end
	int t, step; // threadIdx.x, blockDim.x
	__device__ __forceinline__ LongWalk(i64 first, i64 phi_)
	    : bk(first), phi(phi_), t(threadIdx.x), step(blockDim.x) {}
	__device__ __forceinline__ i64 span() const { return (i64)U * step; }
	// full: the step's packs all lie below end.
	__device__ __forceinline__ bool full(i64 end) const { return bk + span() <= end; }
	__device__ __forceinline__ void next() { bk += span(); }
	// left is how many packs the step has (at most span()).
	__device__ __forceinline__ int left() const {
		const i64 l = phi - bk;
		return l < span() ? (int)l : (int)span();
	}
	// off is the position of this thread's pack u in the step.
	__device__ __forceinline__ int off(int u) const { return t + u * step; }
};

// LongTiles is LongWalk over one block's share of a row in the split
// tier's forward kernels: steps stride packs apart. With splits blocks a
// row, block b takes steps b, b + splits, b + 2*splits, ... (stride =
// splits steps), so at any moment the grid reads about splits steps of
// contiguous memory a row. Chunks of contiguous steps a block (the form
// before) read splits regions a row at once, far apart: the half types'
// 4x33554432 rows took 10% longer that way, 4x8388608 5%
// (docs/PERFORMANCE.md, GPU entry 25). A Part folds whatever columns its
// block saw; the merge does not depend on which.
template <int U> struct LongTiles : LongWalk<U> {
	i64 stride;
	__device__ __forceinline__ LongTiles(i64 first, i64 phi_, i64 stride_) : LongWalk<U>(first, phi_), stride(stride_) {}
	__device__ __forceinline__ void next() { this->bk += stride; }
};

// LongPacks is one step of a thread: U packs of P elements as loaded
// (converted to the compute type only where each value is used, which
// keeps the half types at 4 registers a pack) and, unless ALL (every
// element kept), which are kept: bit j of kb[u] for element j of pack u.
template <typename T, int P, int U, bool ALL> struct LongPacks {
	typedef typename Num<T>::acc A;
	Pack<T, P> r[U];
	unsigned kb[U];
	__device__ __forceinline__ A at(int u, int j) const { return Num<T>::in(r[u].v[j]); }
	__device__ __forceinline__ bool kept(int u, int j) const { return ALL || (kb[u] >> j & 1u); }
	// x is element (u, j), -Inf where not kept.
	__device__ __forceinline__ A x(int u, int j) const { return kept(u, j) ? at(u, j) : -sm_inf<A>(); }
	// load reads this thread's packs of the step from p (the chunk's
	// array, in elements): all of them when ALL, else those below the
	// chunk's end. Every load is issued before any value is used.
	__device__ __forceinline__ void load(const T* p, const LongWalk<U>& w) {
		const Pack<T, P>* q = reinterpret_cast<const Pack<T, P>*>(p) + w.bk;
		const int left = ALL ? 0 : w.left();
#pragma unroll
		for (int u = 0; u < U; ++u) {
			// Packs past the end are zero, not left undefined: a register
			// only written under a predicate would be live from the
			// kernel's start.
			if (ALL || w.off(u) < left) r[u] = q[w.off(u)];
			else zero(u);
		}
	}
	// zero sets pack u's bits to 0: a word at a time where the pack is whole
	// words (a half at a time, the half types' packs cost two PRMTs a column
	// in both passes of a masked row, docs/PERFORMANCE.md GPU entry 58).
	__device__ __forceinline__ void zero(int u) {
		if constexpr (sizeof(Pack<T, P>) % 4 == 0) {
			unsigned* wd = reinterpret_cast<unsigned*>(&r[u]);
#pragma unroll
			for (int i = 0; i < (int)(sizeof(Pack<T, P>) / 4); ++i) wd[i] = 0u;
		} else {
#pragma unroll
			for (int j = 0; j < P; ++j) r[u].v[j] = Num<T>::out(A(0));
		}
	}
	// mask_in sets the columns kb does not keep to -Inf in the packs, so that
	// the statistics fold a step's columns alike, as for an unmasked row
	// (group_stats). Pairs of halves take one LOP3 a word against lanes made
	// from the keep bits (keep_lanes2), where a test and a select a column
	// followed each conversion (docs/PERFORMANCE.md GPU entry 58).
	__device__ __forceinline__ void mask_in() {
		static_assert(!ALL, "a step with keep bits");
#pragma unroll
		for (int u = 0; u < U; ++u) {
			if constexpr (HalfPair<T>::is && P % 4 == 0) {
				constexpr unsigned ninf = HalfPair<T>::ninf * 0x10001u;
				unsigned* wd = reinterpret_cast<unsigned*>(&r[u]);
#pragma unroll
				for (int q = 0; q < P / 4; ++q) {
					unsigned lanes[2];
					keep_lanes2(kb[u] >> 4 * q, lanes);
#pragma unroll
					for (int i = 0; i < 2; ++i) wd[2 * q + i] = (wd[2 * q + i] & lanes[i]) | (ninf & ~lanes[i]);
				}
			} else {
#pragma unroll
				for (int j = 0; j < P; ++j)
					if (!kept(u, j)) r[u].v[j] = Num<T>::out(-sm_inf<A>());
			}
		}
	}
	// load_first is load for a whole step (every pack below the chunk's
	// end, kept or not), its lines marked evict-first in L2
	// (sm_load_first).
	__device__ __forceinline__ void load_first(const T* p, const LongWalk<U>& w) {
		const Pack<T, P>* q = reinterpret_cast<const Pack<T, P>*>(p) + w.bk;
#pragma unroll
		for (int u = 0; u < U; ++u) r[u] = sm_load_first(q + w.off(u));
	}
	// keep sets kb: columns below the causal limit, past the step's end
	// none, and where there is a mask, its nonzero bytes (read only for
	// packs the limit leaves something of). A step's mask words are all
	// read before any is used: one wait on memory per step, not per pack.
	// MARK: the mask words' lines are marked evict-first (sm_load_first),
	// for a pass that reads the mask once while L2 is to keep the data.
	template <bool MARK = false> __device__ __forceinline__ void keep(const LongKeep& c, const LongWalk<U>& w) {
		typedef typename MaskWord<P>::type W;
		constexpr unsigned fullbits = (1u << P) - 1u;
		constexpr i64 big = 1 << 30;
		const i64 col0 = w.bk * P; // the step's first column
		const i64 r0 = c.kept - col0;
		const int rem0 = r0 > big ? (int)big : r0 < -big ? (int)-big : (int)r0;
		const int left = w.left();
		const unsigned char* m = c.mask == nullptr ? nullptr : c.mask + col0 * c.mstride;
		W mw[U];
#pragma unroll
		for (int u = 0; u < U; ++u) {
			const int o = w.off(u) * P;
			mw[u] = m != nullptr && c.mvec && w.off(u) < left && rem0 - o > 0
			            ? sm_load_first_if<MARK>(reinterpret_cast<const W*>(m + o))
			            : W(0);
		}
#pragma unroll
		for (int u = 0; u < U; ++u) {
			const int o = w.off(u) * P, rem = rem0 - o;
			unsigned b = w.off(u) >= left ? 0u : rem >= P ? fullbits : rem > 0 ? (1u << rem) - 1u : 0u;
			if (m != nullptr && b != 0) {
				if constexpr (P > 1) {
					if (c.mvec) b &= mask_bits<P>(mw[u]);
				}
				if (!c.mvec) { // one byte at a time (rolled: the 64-bit offsets of every
					 // element of the step would otherwise be kept across steps)
					const unsigned char* mp = m + (i64)o * c.mstride;
#pragma unroll 1
					for (int j = 0; j < P; ++j, mp += c.mstride)
						if ((b >> j & 1u) && *mp == 0) b &= ~(1u << j);
				}
			}
			kb[u] = b;
		}
	}
};

// A row's keep bits: bit c (bit c % 8 of byte c / 8) says whether the
// row keeps column c. A byte holds the bits of 8/P packs, which a step
// gives to neighbouring lanes (steps start on multiples of 32 packs, and
// lanes take consecutive packs), so a pack's bits sit at P*(t % (8/P)).
// Past the statistics pass's steps nothing is written or read: the write
// pass fills those packs without looking (pkept).
template <typename T, int P, int U, bool ALL>
__device__ __forceinline__ void put_bits(const LongPacks<T, P, U, ALL>& s, unsigned char* bits, const LongWalk<U>& w) {
	static_assert(P == 2 || P == 4 || P == 8, "a byte holds whole packs");
	constexpr int L = 8 / P;
	const int left = w.left(), at = P * (w.t % L);
#pragma unroll
	for (int u = 0; u < U; ++u) {
		unsigned b = s.kb[u] << at;
#pragma unroll
		for (int d = 1; d < L; d *= 2) b |= sm_shfl_xor(b, d, L);
		if (at == 0 && w.off(u) < left) bits[(w.bk + w.off(u)) / L] = (unsigned char)b;
	}
}

// keep_bits sets s.kb from the row's keep bits, as keep would: a step's
// bytes are all read before any is used.
template <typename T, int P, int U>
__device__ __forceinline__ void keep_bits(LongPacks<T, P, U, false>& s, const unsigned char* bits, const LongWalk<U>& w) {
	static_assert(P == 2 || P == 4 || P == 8, "a byte holds whole packs");
	constexpr int L = 8 / P;
	const int left = w.left(), at = P * (w.t % L);
	unsigned by[U];
#pragma unroll
	for (int u = 0; u < U; ++u) by[u] = w.off(u) < left ? bits[(w.bk + w.off(u)) / L] : 0u;
#pragma unroll
	for (int u = 0; u < U; ++u) s.kb[u] = by[u] >> at & ((1u << P) - 1u);
}

// keep_step sets s.kb for the write pass: from the keep bits where the
// row has them, else from the mask and the causal limit.
template <typename T, int P, int U>
__device__ __forceinline__ void keep_step(LongPacks<T, P, U, false>& s, const LongKeep& c, const LongWalk<U>& w) {
	if constexpr (P > 1) {
		if (c.bits != nullptr) {
			keep_bits(s, c.bits, w);
			return;
		}
	}
	s.keep(c, w);
}

// long_fill writes o to this thread's packs of [first, phi) of p.
template <typename T, int P>
__device__ __forceinline__ void long_fill(T* p, i64 first, i64 phi, const Pack<T, P>& o) {
	for (i64 pk = first + threadIdx.x; pk < phi; pk += blockDim.x) reinterpret_cast<Pack<T, P>*>(p)[pk] = o;
}
template <typename T, int P> __device__ __forceinline__ Pack<T, P> long_pack_of(typename Num<T>::acc x) {
	Pack<T, P> o;
#pragma unroll
	for (int j = 0; j < P; ++j) o.v[j] = Num<T>::out(x);
	return o;
}

// fill_rest writes o to this thread's packs of the walk's steps from w.bk
// on.
template <typename T, int P, int U>
__device__ __forceinline__ void fill_rest(T* p, const LongWalk<U>& w, const Pack<T, P>& o) {
	long_fill<T, P>(p, w.bk, w.phi, o);
}
template <typename T, int P, int U> __device__ __forceinline__ void fill_rest(T* p, LongTiles<U> w, const Pack<T, P>& o) {
	for (; w.bk < w.phi; w.next()) long_fill<T, P>(p, w.bk, w.bk + w.left(), o);
}

// group_stats folds packs [u0, u0 + G) of a step into st: the batch of the
// fast path is G packs, at most 16 values, so that the values converted
// for the maximum stay in registers for the exponentials (32 float32
// values from half packs would not). Masked columns hold -Inf (mask_in),
// which every fold below takes as a column that adds nothing.
template <int G, typename T, int P, int U, bool ALL>
__device__ __forceinline__ void group_stats(Stats<typename Num<T>::acc>& st, const LongPacks<T, P, U, ALL>& s, int u0,
                                            const Expo& ex) {
	typedef typename Num<T>::acc A;
	const A inf = sm_inf<A>();
	A mb = -inf; // the batch's maximum, NaN skipped
#pragma unroll
	for (int u = u0; u < u0 + G; ++u)
#pragma unroll
		for (int j = 0; j < P; ++j) mb = long_max(s.at(u, j), mb);
	if (mb == -inf) { // nothing finite or +Inf kept: only -Inf and NaN
		bool nan = false;
#pragma unroll
		for (int u = u0; u < u0 + G; ++u)
#pragma unroll
			for (int j = 0; j < P; ++j) nan |= s.at(u, j) != s.at(u, j);
		if (nan) st.nan = 1;
		return;
	}
	if (mb != inf) {
		const A m = mb > st.m ? mb : st.m; // finite
		A e[G * P];
#pragma unroll
		for (int u = 0; u < G; ++u)
#pragma unroll
			for (int j = 0; j < P; ++j) // -Inf gives 0, NaN NaN
				e[u * P + j] = LongSumExp<T>::of(s.at(u0 + u, j), m, ex);
		const A sb = LongTreeSum<G * P>::of(e);
		if (sb == sb) {
			if (m > st.m) { // st.m == -Inf has st.s == 0 and a factor 0
				st.s = st.s * (double)sm_expx(st.m, m, ex) + (double)sb;
				st.m = m;
			} else {
				st.s += (double)sb;
			}
			return;
		}
	}
	// The exact fold, element by element (unrolled like the rest: a rolled
	// loop would index the step's registers, which HIP puts in scratch).
#pragma unroll
	for (int u = u0; u < u0 + G; ++u)
#pragma unroll
		for (int j = 0; j < P; ++j) add_online<T>(st, s.at(u, j), ex);
}

// step_stats folds one step into st, in batches of up to 16 values.
template <typename T, int P, int U, bool ALL>
__device__ __forceinline__ void step_stats(Stats<typename Num<T>::acc>& st, const LongPacks<T, P, U, ALL>& s,
                                           const Expo& ex) {
	constexpr int B = P == 1 ? 16 : LongUnroll<T>::batch, G = B < U ? B : U;
	static_assert(U % G == 0, "whole batches");
#pragma unroll
	for (int u0 = 0; u0 < U; u0 += G) group_stats<G>(st, s, u0, ex);
}

// stats_packs folds the packs of P columns that walk w (LongWalk or
// LongTiles) steps over into st; MARK as LongPacks::keep's.
template <typename T, int P, bool MARK = false, typename Walk>
__device__ __forceinline__ void stats_packs(const T* xr, const View& v, const LongKeep& ck, Walk w,
                                            Stats<typename Num<T>::acc>& st) {
	constexpr int U = LongUnroll<T>::fwd;
	for (; w.full(ck.pfull); w.next()) {
		LongPacks<T, P, U, true> s;
		s.load(xr, w);
		step_stats(st, s, v.ex);
	}
	for (; w.bk < ck.pkept; w.next()) { // past pkept nothing is kept
		LongPacks<T, P, U, false> s;
		s.load(xr, w);
		s.template keep<MARK>(ck, w);
		if constexpr (P > 1) {
			if (ck.bits != nullptr) put_bits(s, ck.bits, w);
		}
		s.mask_in();
		step_stats(st, s, v.ex);
	}
}

// chunk_stats folds columns [lo, hi) of a row into st; vec says the row is
// 16-byte aligned and lo, hi are multiples of the vector width.
template <typename T>
__device__ __forceinline__ void chunk_stats(const T* xr, const View& v, i64 mrow, i64 kept, i64 lo, i64 hi,
                                            bool vec, Stats<typename Num<T>::acc>& st) {
	constexpr int P = PackWidth<T, 16>::value, U = LongUnroll<T>::fwd;
	if (vec) stats_packs<T, P>(xr, v, long_keep<P>(v, mrow, kept, lo, hi), LongWalk<U>(lo / P, hi / P), st);
	else stats_packs<T, 1>(xr, v, long_keep<1>(v, mrow, kept, lo, hi), LongWalk<U>(lo, hi), st);
}

// tiles_stats folds block b's steps of a row (LongTiles) into st, from
// its step k0 on (the steps before are the fused kernel's stash; vec only).
// bits: the row's keep bits to write (split_bits), or nullptr.
template <typename T, bool MARK = false>
__device__ __forceinline__ void tiles_stats(const T* xr, const View& v, i64 mrow, i64 kept, i64 b, i64 splits,
                                            bool vec, unsigned char* bits, Stats<typename Num<T>::acc>& st,
                                            i64 k0 = 0) {
	constexpr int P = PackWidth<T, 16>::value, U = LongUnroll<T>::fwd;
	const i64 span = (i64)U * blockDim.x;
	if (vec)
		stats_packs<T, P, MARK>(xr, v, long_keep_bits<P>(v, mrow, kept, 0, v.n, bits),
		                        LongTiles<U>((b + k0 * splits) * span, v.n / P, splits * span), st);
	else stats_packs<T, 1>(xr, v, long_keep<1>(v, mrow, kept, 0, v.n), LongTiles<U>(b * span, v.n, splits * span), st);
}

// Output modes of the forward write, by the kind of row (fwd_out's cases
// with the switch taken once per chunk): normal softmax, normal
// log-softmax, NaN rows (kept entries NaN), +Inf rows (kept +Inf entries
// get c, the share of each).
enum { LONG_EXP, LONG_LOG, LONG_NAN, LONG_INF };

// write_step writes the outputs of a step's packs below the chunk's end.
template <typename T, int P, int U, int MODE, bool ALL>
__device__ __forceinline__ void write_step(const LongPacks<T, P, U, ALL>& s, T* yr, const LongWalk<U>& w, const View& v,
                                           const Fin<typename Num<T>::acc>& f, typename Num<T>::acc c) {
	typedef typename Num<T>::acc A;
	Pack<T, P>* q = reinterpret_cast<Pack<T, P>*>(yr) + w.bk;
	const int left = ALL ? 0 : w.left();
#pragma unroll
	for (int u = 0; u < U; ++u) {
		if (!ALL && w.off(u) >= left) break;
		Pack<T, P> o;
#pragma unroll
		for (int j = 0; j < P; ++j) {
			const bool k = s.kept(u, j);
			const bool lg = MODE == LONG_LOG || (MODE != LONG_EXP && v.log);
			const A x = s.at(u, j), zero = lg ? -sm_inf<A>() : A(0);
			A r;
			if (MODE == LONG_EXP) r = long_out<T>(x, f, v.ex);
			else if (MODE == LONG_LOG) r = Num<T>::logout(x, f.m, v.scale, f.lsum);
			else if (MODE == LONG_NAN) r = sm_nan<A>();
			else r = x == sm_inf<A>() ? c : zero;
			o.v[j] = Num<T>::out(k ? r : zero);
		}
		q[w.off(u)] = o;
	}
}

// load_step loads a step of walk w: from the row, for every walk but a
// stash's (grid.cuh's StashTiles).
template <typename T, int P, int U, bool ALL, typename Walk>
__device__ __forceinline__ void load_step(LongPacks<T, P, U, ALL>& s, const T* xr, const Walk& w) {
	s.load(xr, w);
}

// write_packs writes the packs of y that walk w steps over; past the
// causal limit, and in rows with nothing kept, the output is that of a
// masked entry.
template <typename T, int P, int MODE, typename Walk>
__device__ __forceinline__ void write_packs(const T* xr, T* yr, const View& v, const LongKeep& ck, Walk w,
                                            const Fin<typename Num<T>::acc>& f, typename Num<T>::acc c) {
	typedef typename Num<T>::acc A;
	constexpr int U = LongUnroll<T>::fwd;
	for (; w.full(ck.pfull); w.next()) {
		LongPacks<T, P, U, true> s;
		load_step(s, xr, w);
		write_step<T, P, U, MODE>(s, yr, w, v, f, c);
	}
	for (; w.bk < ck.pkept; w.next()) {
		LongPacks<T, P, U, false> s;
		load_step(s, xr, w);
		keep_step(s, ck, w);
		write_step<T, P, U, MODE>(s, yr, w, v, f, c);
	}
	fill_rest<T, P>(yr, w, long_pack_of<T, P>(v.log ? -sm_inf<A>() : A(0)));
}

template <typename T, int P, typename Walk>
__device__ __forceinline__ void write_chunk(const T* xr, T* yr, const View& v, const LongKeep& ck, const Walk& w,
                                           const Fin<typename Num<T>::acc>& f) {
	typedef typename Num<T>::acc A;
	switch (f.kind) {
	case ROW_NORMAL:
		if (v.log) write_packs<T, P, LONG_LOG>(xr, yr, v, ck, w, f, A(0));
		else write_packs<T, P, LONG_EXP>(xr, yr, v, ck, w, f, A(0));
		break;
	case ROW_NAN:
		write_packs<T, P, LONG_NAN>(xr, yr, v, ck, w, f, A(0));
		break;
	case ROW_INF:
		write_packs<T, P, LONG_INF>(xr, yr, v, ck, w, f, v.log ? A(-log((double)f.infs)) : A(1.0 / f.infs));
		break;
	default: // nothing kept: every output is a masked one
		fill_rest<T, P>(yr, w, long_pack_of<T, P>(v.log ? -sm_inf<A>() : A(0)));
	}
}

// bits: the row's keep bits to read (split_bits), or nullptr.
template <typename T>
__device__ __forceinline__ void chunk_write(const T* xr, T* yr, const View& v, i64 mrow, i64 kept, i64 lo, i64 hi,
                                            bool vec, const Fin<typename Num<T>::acc>& f, unsigned char* bits = nullptr) {
	constexpr int P = PackWidth<T, 16>::value, U = LongUnroll<T>::fwd;
	if (vec) write_chunk<T, P>(xr, yr, v, long_keep_bits<P>(v, mrow, kept, lo, hi, bits), LongWalk<U>(lo / P, hi / P), f);
	else write_chunk<T, 1>(xr, yr, v, long_keep<1>(v, mrow, kept, lo, hi), LongWalk<U>(lo, hi), f);
}

// tiles_write writes block b's steps of a row (tiles_stats' steps).
template <typename T>
__device__ __forceinline__ void tiles_write(const T* xr, T* yr, const View& v, i64 mrow, i64 kept, i64 b, i64 splits,
                                            bool vec, unsigned char* bits, const Fin<typename Num<T>::acc>& f) {
	constexpr int P = PackWidth<T, 16>::value, U = LongUnroll<T>::fwd;
	const i64 span = (i64)U * blockDim.x;
	if (vec)
		write_chunk<T, P>(xr, yr, v, long_keep_bits<P>(v, mrow, kept, 0, v.n, bits),
		                  LongTiles<U>(b * span, v.n / P, splits * span), f);
	else write_chunk<T, 1>(xr, yr, v, long_keep<1>(v, mrow, kept, 0, v.n), LongTiles<U>(b * span, v.n, splits * span), f);
}

// The statistics of a backward chunk (GradMode): softmax's sum of y*dy;
// log-softmax's sum of dy and whether some kept y is not -Inf; or
// log-softmax's sum alone, reading no y (the split tier, whose apply
// kernel looks at y instead: chunk_grad_write).
enum GradMode { GRAD_SOFTMAX, GRAD_LOG, GRAD_LOG_SUM };

// grad_step is a step's sum, its terms (y*dy, log: dy) summed in the
// compute type, at most 32 of them (2e-6 of the sum of their magnitudes,
// inside the 1e-5 gradient tolerance, as in tier 1); for GRAD_LOG, it
// adds to g.any whether some kept y is not -Inf. b (dy) says which
// columns are kept.
template <typename T, int P, int U, int MODE, bool ALL>
__device__ __forceinline__ typename Num<T>::acc grad_step(const LongPacks<T, P, U, ALL>& a,
                                                          const LongPacks<T, P, U, ALL>& b,
                                                          GradStats<typename Num<T>::acc>& g) {
	typedef typename Num<T>::acc A;
	A c = A(0);
	int any = 0;
#pragma unroll
	for (int u = 0; u < U; ++u)
#pragma unroll
		for (int j = 0; j < P; ++j) {
			const bool k = b.kept(u, j);
			if (MODE == GRAD_SOFTMAX) {
				c += k ? b.at(u, j) * a.at(u, j) : A(0);
			} else {
				c += k ? b.at(u, j) : A(0);
				if (MODE == GRAD_LOG) any |= k && a.at(u, j) != -sm_inf<A>(); // NaN counts
			}
		}
	g.any |= any;
	return c;
}

// grad_walk is the sum of a thread's steps of packs [plo, phi) in float64,
// each step's summed in the compute type (grad_step).
template <typename T, int P, int MODE>
__device__ __forceinline__ double grad_walk(const T* y, const T* dy, const LongKeep& ck, i64 plo, i64 phi,
                                            GradStats<typename Num<T>::acc>& g) {
	constexpr int U = LongUnroll<T>::bwd, UG = LongUnroll<T>::bwd_masked;
	double c = 0.0;
	LongWalk<U> w(plo, phi);
	for (; w.full(ck.pfull); w.next()) {
		LongPacks<T, P, U, true> a, b;
		if (MODE != GRAD_LOG_SUM) a.load(y, w);
		b.load(dy, w);
		c += (double)grad_step<T, P, U, MODE>(a, b, g);
	}
	for (LongWalk<UG> wg(w.bk, phi); wg.bk < ck.pkept; wg.next()) {
		LongPacks<T, P, UG, false> a, b;
		if (MODE != GRAD_LOG_SUM) a.load(y, wg);
		b.load(dy, wg);
		b.keep(ck, wg);
		c += (double)grad_step<T, P, UG, MODE>(a, b, g);
	}
	return c;
}

// grad_wide is grad_walk's sum a pack at a time in float64, for a thread
// whose packs grad_walk summed past the compute type's range: cold code,
// and a pack a step keeps it from adding to the hot loop's registers
// (docs/PERFORMANCE.md GPU entry 80). Its walk gives the thread the same
// packs as grad_walk's steps: plo + threadIdx.x + k*blockDim.x.
template <typename T, int P, int MODE>
__device__ __forceinline__ double grad_wide(const T* y, const T* dy, const LongKeep& ck, i64 plo, i64 phi) {
	double c = 0.0;
	for (LongWalk<1> w(plo, phi); w.bk < phi && w.bk < ck.pkept; w.next()) {
		LongPacks<T, P, 1, false> a, b;
		if (MODE == GRAD_SOFTMAX) a.load(y, w);
		b.load(dy, w);
		b.keep(ck, w);
#pragma unroll
		for (int j = 0; j < P; ++j)
			if (b.kept(0, j)) c += MODE == GRAD_SOFTMAX ? (double)b.at(0, j) * (double)a.at(0, j) : (double)b.at(0, j);
	}
	return c;
}

// grad_packs adds a thread's steps of packs [plo, phi) to g. Where their
// sum passed the compute type's range (terms near float32's largest; or
// NaN), it sums them again in float64 (grad_wide): a test in the hot loop,
// or the wide sum taken from the hot loop's packs, spilled the half
// types' block and split statistics kernels (docs/PERFORMANCE.md GPU
// entries 79 and 80). float16's 32 terms (dy, or y*dy with y at most 1,
// each at most 65504) cannot pass it.
template <typename T, int P, int MODE>
__device__ __forceinline__ void grad_packs(const T* y, const T* dy, const LongKeep& ck, i64 plo, i64 phi,
                                           GradStats<typename Num<T>::acc>& g) {
	typedef typename Num<T>::acc A;
	double c = grad_walk<T, P, MODE>(y, dy, ck, plo, phi, g);
	constexpr bool narrow = sizeof(A) < sizeof(double) && !IsF16<T>::value;
	if (narrow && !(c - c == 0.0)) c = grad_wide<T, P, MODE>(y, dy, ck, plo, phi);
	g.c += c;
}

// chunk_grad folds columns [lo, hi) of a row into g; LOG_ANY: for
// log-softmax, also whether some kept y is not -Inf (else y is not read).
template <typename T, bool LOG_ANY = true>
__device__ __forceinline__ void chunk_grad(const T* y, const T* dy, const View& v, i64 mrow, i64 kept, i64 lo,
                                           i64 hi, bool vec, GradStats<typename Num<T>::acc>& g) {
	constexpr int P = PackWidth<T, 16>::value;
	constexpr int LOG = LOG_ANY ? GRAD_LOG : GRAD_LOG_SUM;
	if (vec) {
		const LongKeep ck = long_keep<P>(v, mrow, kept, lo, hi);
		if (v.log) grad_packs<T, P, LOG>(y, dy, ck, lo / P, hi / P, g);
		else grad_packs<T, P, GRAD_SOFTMAX>(y, dy, ck, lo / P, hi / P, g);
	} else {
		const LongKeep ck = long_keep<1>(v, mrow, kept, lo, hi);
		if (v.log) grad_packs<T, 1, LOG>(y, dy, ck, lo, hi, g);
		else grad_packs<T, 1, GRAD_SOFTMAX>(y, dy, ck, lo, hi, g);
	}
}

// LongLogGrad is log-softmax backward's dx = s*dy - exp(y)*(s*c) for one
// row of the long-row tiers. float32 and the half types take it as
// s*dy - sign(s*c) * 2^(y*log2(e) + log2|s*c|): one fma, one
// ex2.approx.ftz and one fma per element, the product formed inside the
// exponent, so it flushes only where exp(y)*|s*c| itself is below 2^-126
// (the float32 tolerance's absolute term) and needs no guard (tier 1's
// log_grad, which saves the per-row log2, does). Error, relative to
// exp(y)*|s*c|: the rounding of the exponent (2^-24 * 126 at most where
// the result is normal) and of log2|s*c| and log2(e), and ex2's 2 ulp:
// under 1e-5 unless |s*c| is beyond 2^120. NaN and infinite y or c give
// what the plain formula gives. bfloat16 takes sm_exp2, which keeps
// results below 2^-126: its outputs hold subnormals down to 2^-133 (the
// product flushed there missed its 2-ulp tolerance on the H200). float64
// takes tier 1's (log_grad).
template <typename T> struct LongLogGrad {
	float lc, ng;
	__device__ __forceinline__ explicit LongLogGrad(double sc)
	    : lc((float)log2(fabs(sc))), ng(sc > 0.0 ? -1.0f : 1.0f) {}
	__device__ __forceinline__ float at(float y, float sdy) const {
		const float t = fmaf(y, 1.44269504088896341f, lc);
		return fmaf(IsBf16<T>::value ? sm_exp2(t) : sm_exp2_ftz(t), ng, sdy);
	}
};
template <> struct LongLogGrad<double> {
	double k;
	__device__ __forceinline__ explicit LongLogGrad(double sc) : k(-sc) {}
	__device__ __forceinline__ double at(double y, double sdy) const { return log_grad(y, sdy, k); }
};

// grad_write_step writes dx for a step's packs below the chunk's end
// (softmax's through SoftGrad::any, log-softmax's through LongLogGrad; s
// = scale in the compute type); TRACK: also folds the kept y into ymax.
template <typename T, int P, int U, bool LOG, bool TRACK, bool ALL>
__device__ __forceinline__ void grad_write_step(const LongPacks<T, P, U, ALL>& a, const LongPacks<T, P, U, ALL>& b,
                                                T* dx, const LongWalk<U>& w, typename Num<T>::acc s,
                                                const SoftGrad<typename Num<T>::acc>& sg,
                                                const LongLogGrad<T>& lg, typename Num<T>::acc& ymax) {
	typedef typename Num<T>::acc A;
	Pack<T, P>* q = reinterpret_cast<Pack<T, P>*>(dx) + w.bk;
	const int left = ALL ? 0 : w.left();
#pragma unroll
	for (int u = 0; u < U; ++u) {
		if (!ALL && w.off(u) >= left) break;
		Pack<T, P> o;
#pragma unroll
		for (int j = 0; j < P; ++j) {
			const A yv = a.at(u, j), dv = b.at(u, j);
			const A d = LOG ? lg.at(yv, s * dv) : sg.any(yv, dv);
			if (TRACK) ymax = long_max(a.x(u, j), ymax);
			o.v[j] = Num<T>::out(a.kept(u, j) ? d : A(0));
		}
		q[w.off(u)] = o;
	}
}

// grad_write_packs writes packs [plo, phi) of dx; TRACK: and returns the
// largest kept y (NaN skipped; -Inf when none).
template <typename T, int P, bool LOG, bool TRACK>
__device__ __forceinline__ typename Num<T>::acc grad_write_packs(const T* y, const T* dy, T* dx, const View& v,
                                                                 const LongKeep& ck, i64 plo, i64 phi,
                                                                 const GradStats<typename Num<T>::acc>& g) {
	typedef typename Num<T>::acc A;
	constexpr int U = LongUnroll<T>::bwd, UG = LongUnroll<T>::bwd_masked;
	const A s = A(v.scale);
	const SoftGrad<A> sg(v.scale, SoftGrad<A>::held(g.c));
	const LongLogGrad<T> lg(v.scale * g.c);
	A ymax = -sm_inf<A>();
	LongWalk<U> w(plo, phi);
	for (; w.full(ck.pfull); w.next()) {
		LongPacks<T, P, U, true> a, b;
		a.load(y, w);
		b.load(dy, w);
		grad_write_step<T, P, U, LOG, TRACK>(a, b, dx, w, s, sg, lg, ymax);
	}
	LongWalk<UG> wg(w.bk, phi);
	for (; wg.bk < ck.pkept; wg.next()) {
		LongPacks<T, P, UG, false> a, b;
		a.load(y, wg);
		b.load(dy, wg);
		a.keep(ck, wg);
		grad_write_step<T, P, UG, LOG, TRACK>(a, b, dx, wg, s, sg, lg, ymax);
	}
	long_fill<T, P>(dx, wg.bk, phi, long_pack_of<T, P>(A(0))); // masked by the causal limit
	return ymax;
}

// log_any says whether a log-softmax row keeps some y other than -Inf (NaN
// counts), looking at all of it. Every thread of the block calls it.
template <typename T>
__device__ __forceinline__ bool log_any(const T* yr, const View& v, i64 mrow, i64 kept) {
	typedef typename Num<T>::acc A;
	int any = 0;
	for (i64 k = threadIdx.x; k < kept; k += blockDim.x)
		any |= v.keeps(mrow, kept, k) && Num<T>::in(yr[k]) != -sm_inf<A>();
	return block_reduce(any, MaxV(), 0) != 0;
}

// chunk_grad_write writes columns [lo, hi) of a row's dx. A log-softmax
// row whose kept y are all -Inf has dx = 0 (the formula would give s*dy).
// With g.any known (LOG_ANY, from chunk_grad) such rows are filled with 0
// at once. Without it (the split tier, whose statistics read no y) the
// write pass takes the formula and the largest kept y it saw; a chunk that
// saw none above -Inf (rare: a row emptied by its mask, or a chunk with
// nothing kept) looks at its whole row (log_any) and, if the row has none
// either, writes 0 over itself.
template <typename T, bool LOG_ANY = true>
__device__ __forceinline__ void chunk_grad_write(const T* y, const T* dy, T* dx, const View& v, i64 mrow, i64 kept,
                                                 i64 lo, i64 hi, bool vec, const GradStats<typename Num<T>::acc>& g) {
	constexpr int P = PackWidth<T, 16>::value;
	constexpr bool TRACK = !LOG_ANY;
	typedef typename Num<T>::acc A;
	A ymax = A(0);
	if (vec) {
		const LongKeep ck = long_keep<P>(v, mrow, kept, lo, hi);
		if (v.log && LOG_ANY && !g.any) // every kept y -Inf: dx is 0
			long_fill<T, P>(dx, lo / P, hi / P, long_pack_of<T, P>(A(0)));
		else if (v.log) ymax = grad_write_packs<T, P, true, TRACK>(y, dy, dx, v, ck, lo / P, hi / P, g);
		else grad_write_packs<T, P, false, false>(y, dy, dx, v, ck, lo / P, hi / P, g);
	} else {
		const LongKeep ck = long_keep<1>(v, mrow, kept, lo, hi);
		if (v.log && LOG_ANY && !g.any) long_fill<T, 1>(dx, lo, hi, long_pack_of<T, 1>(A(0)));
		else if (v.log) ymax = grad_write_packs<T, 1, true, TRACK>(y, dy, dx, v, ck, lo, hi, g);
		else grad_write_packs<T, 1, false, false>(y, dy, dx, v, ck, lo, hi, g);
	}
	if (LOG_ANY || !v.log || lo >= kept) return; // past the causal limit nothing is kept
	if (block_reduce(ymax, MaxV(), -sm_inf<A>()) > -sm_inf<A>() || log_any(y, v, mrow, kept)) return;
	__syncthreads(); // every thread's writes above come before the zeros
	if (vec) long_fill<T, P>(dx, lo / P, hi / P, long_pack_of<T, P>(A(0)));
	else long_fill<T, 1>(dx, lo, hi, long_pack_of<T, 1>(A(0)));
}

// ---------------------------- tier 3: block per row, online, two reads --
// Rows longer than shared memory holds, when there are enough rows to give
// every multiprocessor blocks. One read keeps a running (max, sum) per
// thread, merged across the block; a second read writes the output. The
// second read mostly hits L2 for rows up to a few MB.

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

// FarLanes are the threads that walk a far row together: thread t of
// width (a block's, or a warp's lanes).
struct FarLanes {
	int t, width;
	__device__ __forceinline__ static FarLanes block() { return FarLanes{(int)threadIdx.x, (int)blockDim.x}; }
	__device__ __forceinline__ static FarLanes warp() { return FarLanes{(int)threadIdx.x % SM_WARP, SM_WARP}; }
};

// far_walk visits columns [lo, hi) of a float64 row that Far64 takes
// (gpu.FarGrad64's calls): lane t visits columns lo + t, lo + t + width,
// ..., U of them loaded before it visits any, so that few lanes (a far
// row of a warp, or few blocks) keep enough bytes in flight. The loads are
// scalar, coalesced across the lanes: such calls are rare. visit(k, y[k],
// dy[k]) runs on the lane that loaded column k, so a walk that writes
// dx[k] may run over y or dy.
template <int U = 4, typename Visit>
__device__ __forceinline__ void far_walk(const double* y, const double* dy, i64 lo, i64 hi, FarLanes l, Visit visit) {
	for (i64 k0 = lo + l.t; k0 < hi; k0 += U * (i64)l.width) {
		double a[U], b[U];
#pragma unroll
		for (int u = 0; u < U; ++u) {
			const i64 k = k0 + u * (i64)l.width;
			a[u] = k < hi ? y[k] : 0.0;
			b[u] = k < hi ? dy[k] : 0.0;
		}
#pragma unroll
		for (int u = 0; u < U; ++u) {
			const i64 k = k0 + u * (i64)l.width;
			if (k < hi) visit(k, a[u], b[u]);
		}
	}
}

// far_sum is the lane's part of a far row's Far64, over columns [lo, hi).
__device__ __forceinline__ Far64 far_sum(const double* y, const double* dy, const View& v, i64 mrow, i64 kept,
                                         i64 lo, i64 hi, FarLanes l) {
	Far64 f{};
	far_walk(y, dy, lo, hi, l, [&](i64 k, double a, double b) {
		if (v.keeps(mrow, kept, k)) f.add(a, b);
	});
	return f;
}

// far_write writes dx over columns [lo, hi) of a far row whose sums are f.
template <int U = 4>
__device__ __forceinline__ void far_write(const double* y, const double* dy, double* dx, const View& v, i64 mrow,
                                          i64 kept, i64 lo, i64 hi, FarLanes l, const Far64& f) {
	far_walk<U>(y, dy, lo, hi, l, [&](i64 k, double a, double b) {
		dx[k] = v.keeps(mrow, kept, k) ? f.grad(a, b, v.scale) : 0.0;
	});
}

// far_block is a far row a block (tier 5, a thread a row, was 25-2600x
// slower than the usual tier on an H100: docs/PERFORMANCE.md GPU entry
// 112). Every thread reads its columns before the reduction's barrier
// and writes them after it.
__device__ __forceinline__ void far_block(const double* y, const double* dy, double* dx, const View& v, i64 mrow,
                                          i64 kept) {
	const FarLanes l = FarLanes::block();
	const Far64 f = block_reduce(far_sum(y, dy, v, mrow, kept, 0, v.n, l), Far64Op(), Far64{});
	far_write(y, dy, dx, v, mrow, kept, 0, v.n, l, f);
}

// far_rows is a far call's rows a warp each, its own kernel
// (softmax_bwd_far_rows_f64), which the Go side takes for rows of at most
// gpu.FarRowsCols columns: far_block's two block barriers a row cost such
// rows 2.8x their usual tier at 65536x128 (GPU entry 113), and inside the
// block kernel this path made its other paths spill. Every row takes
// Far64, also one whose kept length falls under Far64::takes's bound (a
// causal row's first columns): Far64 is the exact form, only slower.
__device__ __forceinline__ void far_rows(const double* y, const double* dy, double* dx, const View& v) {
	const FarLanes l = FarLanes::warp();
	const i64 warps = blockDim.x / SM_WARP;
	for (i64 row = blockIdx.x * warps + threadIdx.x / SM_WARP; row < v.rows; row += gridDim.x * warps) {
		const i64 kept = v.kept(row), mrow = v.mask ? v.mask_row(row) : 0;
		const i64 base = row * v.n;
		const Far64 f = warp_reduce(far_sum(y + base, dy + base, v, mrow, kept, 0, v.n, l), Far64Op(), SM_WARP);
		far_write(y + base, dy + base, dx + base, v, mrow, kept, 0, v.n, l, f);
	}
}

template <typename T>
__device__ __forceinline__ void bwd_block(const T* y, const T* dy, T* dx, const View& v, bool vec) {
	typedef typename Num<T>::acc A;
	for (i64 row = blockIdx.x; row < v.rows; row += gridDim.x) {
		const i64 kept = v.kept(row), mrow = v.mask ? v.mask_row(row) : 0;
		const i64 base = row * v.n;
		if constexpr (sizeof(T) == 8) {
			if (Far64::takes(v, kept)) {
				far_block(y + base, dy + base, dx + base, v, mrow, kept);
				continue;
			}
		}
		GradStats<A> g{A(0), 0};
		chunk_grad<T>(y + base, dy + base, v, mrow, kept, 0, v.n, vec, g);
		g = block_reduce(g, GradOp(), GradStats<A>{A(0), 0});
		chunk_grad_write<T>(y + base, dy + base, dx + base, v, mrow, kept, 0, v.n, vec, g);
	}
}

// ------------------------------------------------- tier 4: split rows --
// Few rows with very many columns (4 x 1M, 4 x 33M): one block per row
// would leave most multiprocessors idle. Grid (splits, rows). Forward:
// block b takes every splits-th step of its row from step b on
// (LongTiles); the stats kernel writes each block's Part to the
// workspace; the apply kernel merges the row's parts (every block redoes
// this small merge) and writes the block's steps, or the pieces kernel
// (CUDA) writes pieces of about chunk/16 columns that its blocks take from
// a counter. Backward: block b owns columns [b*chunk, (b+1)*chunk) of its
// row in both kernels. Limit: rows <= 65535 (the grid's y dimension).

// split_counter is the pieces kernel's counter: the first word of the
// workspace slot after the Parts.
__device__ __forceinline__ unsigned* split_counter(const Part* work, const View& v, i64 splits) {
	return const_cast<unsigned*>(reinterpret_cast<const unsigned*>(work + v.rows * splits));
}

// split_bits is the row's keep bits for a forward split over masked rows
// of whole packs (vec), else nullptr: the statistics pass writes a bit a
// column, the write pass reads it where it would read the mask's byte
// again (docs/PERFORMANCE.md, GPU entry 56). They follow the workspace's
// first `before` bytes (the Parts, the fused kernel's queues), from the
// next 128-byte line, a run of whole lines a row; gpu.SplitBits sizes
// them on the Go side.
__device__ __forceinline__ unsigned char* split_bits(const void* work, i64 before, const View& v, bool vec, i64 row) {
	if (!vec || v.mask == nullptr) return nullptr;
	const i64 line = 128, stride = ((v.n + 7) / 8 + line - 1) / line * line;
	return const_cast<unsigned char*>(static_cast<const unsigned char*>(work)) + (before + line - 1) / line * line +
	       row * stride;
}
// two_kernel_bits is split_bits for the two-kernel split, whose bits
// follow the Parts and the pieces counter's slot.
__device__ __forceinline__ unsigned char* two_kernel_bits(const Part* work, const View& v, i64 splits, bool vec,
                                                          i64 row) {
	return split_bits(work, (v.rows * splits + 1) * (i64)sizeof(Part), v, vec, row);
}

template <typename T>
__device__ __forceinline__ void fwd_split_stats(const T* x, const View& v, bool vec, Part* work, i64 splits) {
	typedef typename Num<T>::acc A;
	const i64 row = blockIdx.y, b = blockIdx.x;
	const i64 kept = v.kept(row), mrow = v.mask ? v.mask_row(row) : 0;
	Stats<A> st = stats_init<A>();
	tiles_stats<T>(x + row * v.n, v, mrow, kept, b, splits, vec, two_kernel_bits(work, v, splits, vec, row), st);
	st = block_reduce(st, MergeOp<T>{v.ex}, stats_init<A>());
	if (threadIdx.x == 0) work[row * splits + b] = stats_part(st);
	// The pieces kernel, which may run after this one, hands out pieces
	// from a counter in the slot after the Parts.
	if (row == 0 && b == 0 && threadIdx.x == 0) *split_counter(work, v, splits) = 0;
}

// row_parts merges the Parts of one row.
template <typename T>
__device__ __forceinline__ Stats<typename Num<T>::acc> row_parts(const View& v, const Part* parts, i64 splits) {
	typedef typename Num<T>::acc A;
	Stats<A> st = stats_init<A>();
	for (i64 j = threadIdx.x; j < splits; j += blockDim.x) {
		const Part p = parts[j];
		st = merge<T>(st, part_stats<A>(p), v.ex);
	}
	return block_reduce(st, MergeOp<T>{v.ex}, stats_init<A>());
}

// split_take is the block's next piece: every thread gets the same
// number (one atomic per block and piece).
__device__ __forceinline__ unsigned split_take(unsigned* counter) {
	__shared__ unsigned taken;
	if (threadIdx.x == 0) taken = atomicAdd(counter, 1u);
	__syncthreads();
	const unsigned p = taken;
	__syncthreads(); // every thread has read taken before thread 0 takes the next
	return p;
}

template <typename T>
__device__ __forceinline__ void fwd_split_apply(const T* x, T* y, const View& v, bool vec, const Part* work,
                                                i64 splits) {
	typedef typename Num<T>::acc A;
	const i64 row = blockIdx.y, b = blockIdx.x;
	const i64 kept = v.kept(row), mrow = v.mask ? v.mask_row(row) : 0;
	const Stats<A> st = row_parts<T>(v, work + row * splits, splits);
	Fin<A> f = finish(st);
	set_sum(f, st.s, v.log);
	tiles_write<T>(x + row * v.n, y + row * v.n, v, mrow, kept, b, splits, vec,
	               two_kernel_bits(work, v, splits, vec, row), f);
}

// fwd_split_pieces is fwd_split_apply over pieces rather than each
// block's steps (LongTiles): the blocks take pieces of about chunk/16
// columns (whole steps, at least two) in order from split_counter until
// none is left. One wave of static chunks (before LongTiles) left SMs
// idle at float32 4x33554432 (ncu: the apply kernel's SMs busy for 420 to
// 614 thousand cycles of 620) as some chunks' writes ran a third slower
// than others; the Go side says where pieces pay
// (docs/PERFORMANCE.md, GPU entry 23). Piece numbers are 32-bit: pieces
// have at least 2048 columns, so 2^32 of them would be over 8e12
// elements.
template <typename T>
__device__ __forceinline__ void fwd_split_pieces(const T* x, T* y, const View& v, bool vec, const Part* work, i64 chunk,
                                                 i64 splits) {
	typedef typename Num<T>::acc A;
	const i64 step = (i64)LongUnroll<T>::fwd * blockDim.x * (vec ? PackWidth<T, 16>::value : 1);
	const i64 want = (chunk + 15) / 16 > 2 * step ? (chunk + 15) / 16 : 2 * step;
	const i64 piece = (want + step - 1) / step * step;
	const unsigned per_row = (unsigned)((v.n + piece - 1) / piece), total = (unsigned)v.rows * per_row;
	unsigned* counter = split_counter(work, v, splits);
	unsigned row = ~0u;
	Fin<A> f;
	for (unsigned p = split_take(counter); p < total; p = split_take(counter)) {
		if (p / per_row != row) { // pieces come in order: a block changes rows rarely
			row = p / per_row;
			const Stats<A> st = row_parts<T>(v, work + (i64)row * splits, splits);
			f = finish(st);
			set_sum(f, st.s, v.log);
		}
		const i64 lo = (i64)(p % per_row) * piece, hi = lo + piece < v.n ? lo + piece : v.n;
		const i64 kept = v.kept(row), mrow = v.mask ? v.mask_row(row) : 0;
		chunk_write<T>(x + (i64)row * v.n, y + (i64)row * v.n, v, mrow, kept, lo, hi, vec, f,
		               two_kernel_bits(work, v, splits, vec, row));
	}
}

template <typename T>
__device__ __forceinline__ void bwd_split_stats(const T* y, const T* dy, const View& v, bool vec, GradPart* work,
                                                i64 chunk, i64 splits) {
	typedef typename Num<T>::acc A;
	const i64 row = blockIdx.y, b = blockIdx.x;
	const i64 lo = b * chunk, hi = lo + chunk < v.n ? lo + chunk : v.n;
	const i64 kept = v.kept(row), mrow = v.mask ? v.mask_row(row) : 0;
	if constexpr (sizeof(T) == 8) { // float64 writes Far64 parts (gpu.SplitPartBytes)
		Far64 f{};
		if (Far64::takes(v, kept)) {
			f = block_reduce(far_sum(y + row * v.n, dy + row * v.n, v, mrow, kept, lo, hi, FarLanes::block()),
			                 Far64Op(), Far64{});
		} else {
			GradStats<A> g{A(0), 0};
			chunk_grad<T, false>(y + row * v.n, dy + row * v.n, v, mrow, kept, lo, hi, vec, g);
			f.hi = block_reduce(g, GradOp(), GradStats<A>{A(0), 0}).c;
		}
		if (threadIdx.x == 0) reinterpret_cast<Far64*>(work)[row * splits + b] = f;
		return;
	}
	GradStats<A> g{A(0), 0};
	chunk_grad<T, false>(y + row * v.n, dy + row * v.n, v, mrow, kept, lo, hi, vec, g);
	g = block_reduce(g, GradOp(), GradStats<A>{A(0), 0});
	if (threadIdx.x == 0) work[row * splits + b] = GradPart{g.c};
}

template <typename T>
__device__ __forceinline__ void bwd_split_apply(const T* y, const T* dy, T* dx, const View& v, bool vec,
                                                const GradPart* work, i64 chunk, i64 splits) {
	typedef typename Num<T>::acc A;
	const i64 row = blockIdx.y, b = blockIdx.x;
	const i64 lo = b * chunk, hi = lo + chunk < v.n ? lo + chunk : v.n;
	const i64 kept = v.kept(row), mrow = v.mask ? v.mask_row(row) : 0;
	GradStats<A> g{A(0), 0};
	if constexpr (sizeof(T) == 8) {
		const Far64* parts = reinterpret_cast<const Far64*>(work) + row * splits;
		if (Far64::takes(v, kept)) {
			Far64 f{};
			for (i64 j = threadIdx.x; j < splits; j += blockDim.x) f = Far64Op()(f, parts[j]);
			f = block_reduce(f, Far64Op(), Far64{});
			// A load at a time: at far_walk's four the kernel's every path
			// spilled (64 registers, 64 bytes of stack on sm_90; two: 56).
			const i64 base = row * v.n;
			far_write<1>(y + base, dy + base, dx + base, v, mrow, kept, lo, hi, FarLanes::block(), f);
			return;
		}
		for (i64 j = threadIdx.x; j < splits; j += blockDim.x) g.c += parts[j].hi;
	} else {
		for (i64 j = threadIdx.x; j < splits; j += blockDim.x) {
			const GradPart p = work[row * splits + j];
			g.c += p.c;
		}
	}
	g = block_reduce(g, GradOp(), GradStats<A>{A(0), 0});
	const i64 base = row * v.n;
	chunk_grad_write<T, false>(y + base, dy + base, dx + base, v, mrow, kept, lo, hi, vec, g);
}

