// softmax.cuh holds the softmax math, written once as templates over the
// element type T and instantiated per dtype and tier by softmax.cu. It uses
// only port.cuh from the toolkit, so CUDA and HIP build the same source.
//
// A problem is a View: rows x n x inner elements (n is the reduced axis),
// with an optional byte mask addressed through strides (0 on broadcast
// dimensions) and an optional causal limit on the columns of each row.
//
// Semantics (the same as internal/cpu and internal/reference):
//   - each row's own maximum over kept finite entries is subtracted;
//   - a NaN among kept entries makes every kept output NaN;
//   - +Inf entries share the mass equally (softmax [+Inf, +Inf, 1] =
//     [1/2, 1/2, 0]; log: -log(count));
//   - a row with nothing kept, or only -Inf kept, is all 0 (log: all -Inf);
//   - masked outputs are 0 (log: -Inf);
//   - backward: dx = scale*y*(dy - sum(dy*y)), log: dx = scale*(dy -
//     exp(y)*sum(dy)), sums over kept entries; masked dx = 0; a log row with
//     no kept y other than -Inf has dx = 0.
// Half types compute in float32, float64 in float64.
#pragma once
#include "port.cuh"

typedef long long i64;

// SM_SPAN builds the span kernels (softmax_span.cu): float32, bfloat16 and
// float64 forward kernels for rows whose entries may lie more than their
// type's range apart, which the Go side takes for log-softmax at scales
// under 1 and for scales under 2^-100 (float64: 2^-1000; docs/GPU.md,
// Accuracy). There every difference x - m that meets the scale is taken
// halved, (x - m)/2 in one fma (x/2 is exact inside it and m/2 is exact
// but for subnormal m, off by 2^-150 then, 2^-1075 in float64), so it
// cannot round to -Inf while scale*(x - m) is finite, and the factors it
// meets are doubled: Expo's hi and lo, float64's scale and the log
// outputs' scale. The products are then those of the default build
// (doubling is exact). The default build takes x - m as it is, in the
// same instructions as before this switch (GPU entry 61: any new code in
// these kernels moved their registers).
#ifndef SM_SPAN
#define SM_SPAN 0
#endif
__device__ __forceinline__ float sm_diff(float x, float m) {
#if SM_SPAN
	return fmaf(x, 0.5f, m * -0.5f);
#else
	return x - m;
#endif
}
__device__ __forceinline__ double sm_diff(double x, double m) {
#if SM_SPAN
	return fma(x, 0.5, m * -0.5);
#else
	return x - m;
#endif
}
// sm_diff_scale is the scale that multiplies sm_diff's result.
__device__ __forceinline__ double sm_diff_scale(double scale) {
#if SM_SPAN
	return 2.0 * scale;
#else
	return scale;
#endif
}

// ---------------------------------------------------------------- dtypes --

template <typename T> struct Num;

// float32 and the half types take exponentials through sm_expx (below), in
// float32. The log-softmax output of float32 is x - m rounded once in
// float32 (exact by Sterbenz when x is within 2x of m) and then
// d*scale - log(sum) in float64, rounded once: two roundings of the
// output, against the log tolerance's 2^-22 relative (four roundings:
// fwd_row's one-row form below takes them all in float32). A row that
// spans past float32's range rounds d to -Inf (docs/GPU.md, Not done
// yet).
template <> struct Num<float> {
	typedef float acc;
	static __device__ __forceinline__ float in(float v) { return v; }
	static __device__ __forceinline__ float out(float v) { return v; }
	static __device__ __forceinline__ float logout(float x, float m, double s, double lsum) {
		return (float)((double)sm_diff(x, m) * sm_diff_scale(s) - lsum);
	}
};

template <> struct Num<double> {
	typedef double acc;
	static __device__ __forceinline__ double in(double v) { return v; }
	static __device__ __forceinline__ double out(double v) { return v; }
	static __device__ __forceinline__ double logout(double x, double m, double s, double lsum) {
		return sm_diff(x, m) * sm_diff_scale(s) - lsum;
	}
};

template <> struct Num<sm_half> {
	typedef float acc;
	static __device__ __forceinline__ float in(sm_half v) { return sm_half_to_float(v); }
	static __device__ __forceinline__ sm_half out(float v) { return sm_float_to_half(v); }
	static __device__ __forceinline__ float logout(float x, float m, double s, double lsum) {
		return sm_diff(x, m) * (float)sm_diff_scale(s) - (float)lsum;
	}
};

template <> struct Num<sm_bf16> {
	typedef float acc;
	static __device__ __forceinline__ float in(sm_bf16 v) { return sm_bf16_to_float(v); }
	static __device__ __forceinline__ sm_bf16 out(float v) { return sm_float_to_bf16(v); }
	static __device__ __forceinline__ float logout(float x, float m, double s, double lsum) {
		return sm_diff(x, m) * (float)sm_diff_scale(s) - (float)lsum;
	}
};

__device__ __forceinline__ float sm_exp(float v) { return expf(v); }
__device__ __forceinline__ double sm_exp(double v) { return exp(v); }

// Expo is what sm_expx needs for exp(scale*(x-m)): the scale, and
// scale*log2(e) as a float32 head hi plus tail lo (hi + lo carries the
// float64 product to about 2^-48).
struct Expo {
	double scale;
	float hi, lo;
};
__device__ __forceinline__ Expo make_expo(double scale) {
	const double l2 = scale * 1.4426950408889634; // log2(e); scale > 0
	// hi is rounded down, so lo is never negative, and never 0 (2^-60 of
	// hi changes no result): -Inf * lo then stays -Inf in row_exp, where a
	// negative lo gave +Inf and the fma NaN, sending masked rows (-Inf
	// entries) to the exact path, and a 0 gave NaN. Where hi is under
	// 2^-89 (scales the Go side brings up to 2^-149 for the float32 types,
	// gpu.KernelScale), lo is at least 2^-149: d*lo is then under 2^-20 for
	// any float32 difference d.
	float hi = (float)l2;
	if ((double)hi > l2) hi = nextafterf(hi, 0.0f);
	float lo = (float)(l2 - (double)hi);
	if (lo == 0.0f) lo = fmaxf(hi * 0x1p-60f, 0x1p-149f);
#if SM_SPAN
	return Expo{scale, 2.0f * hi, 2.0f * lo}; // for sm_diff's halves
#else
	return Expo{scale, hi, lo};
#endif
}

// sm_expx is exp(scale*(x-m)) for x <= m (m finite; x finite or -Inf), in
// float32 for float32 and the half types: d = x - m (exact by Sterbenz when
// x is within 2x of m, else one rounding, at most 2^-24*|scale*d| relative
// in the output: 5.2e-6 at the float32 normal range's end, |arg| = 87),
// t = d*hi rounded, and the parts of d*(hi+lo) that t lost (r, exact from
// the fma, plus d*lo) applied as exp2(t)*(1 + r*ln2): without them the
// rounding of hi and of the product would add 2^-23*|t| relative, 1.5e-5
// at t = -126, over the 1e-5 float32 tolerance. Then sm_exp2 (ex2.approx
// on CUDA, 2 ulp). t below -160 gives 0 (-Inf inputs, where r would be
// NaN; exp2 is 0 well before -160); a NaN t stays NaN.
__device__ __forceinline__ float sm_expx(float x, float m, const Expo& e) {
	const float d = sm_diff(x, m);
	const float t = d * e.hi;
	float r = fmaf(d, e.hi, -t);
	r = fmaf(d, e.lo, r);
	const float p = sm_exp2(t);
	return t < -160.0f ? 0.0f : fmaf(p, r * 0.693147180559945309f, p);
}
// float64 keeps exp in float64.
__device__ __forceinline__ double sm_expx(double x, double m, const Expo& e) {
	return exp(sm_diff(x, m) * sm_diff_scale(e.scale));
}
// row_exp is exp(scale*(x-m)) as tier 1 takes it for element type T, in
// as few instructions as each type's accuracy allows (tier 1 is bound by
// instructions per element once its loads are pipelined):
//   - float32: t = d*(hi + lo) rounded once (fma of d*lo into d*hi), so
//     the exponent argument carries one rounding, 2^-24*|t| relative: at
//     most 5.2e-6 in the output down to t = -126, under the 1e-5
//     tolerance; ex2.approx.ftz, whose results below 2^-126 flush to 0,
//     within the float32 tolerance's 2^-126 absolute term (softmax outputs
//     are e/sum with sum >= 1). Four instructions, against sm_expx's
//     thirteen.
//   - the half types, whose outputs keep 8 or 11 bits, skip even the lo
//     term; float16 also flushes below 2^-126 (such values round to 0 in
//     float16), bfloat16 does not (its range is float32's).
//   - float64: sm_expx.
template <typename T> __device__ __forceinline__ float row_exp(float x, float m, const Expo& e) {
	const float d = sm_diff(x, m);
	return sm_exp2_ftz(fmaf(d, e.hi, d * e.lo));
}
template <> __device__ __forceinline__ float row_exp<sm_bf16>(float x, float m, const Expo& e) {
	return sm_exp2(sm_diff(x, m) * e.hi);
}
template <> __device__ __forceinline__ float row_exp<sm_half>(float x, float m, const Expo& e) {
	return sm_exp2_ftz(sm_diff(x, m) * e.hi);
}
template <typename T> __device__ __forceinline__ double row_exp(double x, double m, const Expo& e) {
	return sm_expx(x, m, e);
}

// RowBias is the factor 2^lg that fwd_row takes its exponentials times, so
// that bfloat16 gets the .ftz exponential (one MUFU.EX2, where row_exp's
// exact-below-2^-126 form takes four instructions): 2^(t+64) is normal
// down to t = -190, and what it flushes is under bfloat16's smallest
// subnormal (2^-133) however it is divided. The sum carries the same
// factor, so e/s is unchanged; the forward's check takes half of it as
// its unit (one: a normal row's sum is at least the factor, an empty
// row's 0, so ex2's rounding at 64 cannot send a row to the exact path),
// and log(s) is taken of s*inv, which is exact (a power of two on
// a normal sum), so log-softmax's outputs near 0 keep their accuracy.
// t+64 is rounded once as t was (2^-18 absolute at most for |t+64| < 128:
// 2.6e-6 relative in the output, against bfloat16's 2^-9). Outputs that
// are float32 subnormals (e/s under 2^-126) keep bfloat16's subnormal
// range because the kernels are built without -ftz or fast math. HIP,
// whose sm_exp2_ftz keeps denormals anyway, and other types: a factor of
// 1.
template <typename T> struct RowBias {
	static constexpr float lg = 0.0f, one = 1.0f, inv = 1.0f;
};
#if !defined(__HIPCC__)
template <> struct RowBias<sm_bf16> {
	static constexpr float lg = 64.0f, one = 0x1p63f, inv = 0x1p-64f;
};
#endif
template <typename T> __device__ __forceinline__ float row_exp_biased(float x, float m, const Expo& e) {
	return row_exp<T>(x, m, e);
}
#if !defined(__HIPCC__)
template <> __device__ __forceinline__ float row_exp_biased<sm_bf16>(float x, float m, const Expo& e) {
	return sm_exp2_ftz(fmaf(sm_diff(x, m), e.hi, RowBias<sm_bf16>::lg));
}
#endif
template <typename T> __device__ __forceinline__ double row_exp_biased(double x, double m, const Expo& e) {
	return row_exp<T>(x, m, e);
}
// log_grad is log-softmax backward's dx = s*dy - exp(y)*(s*c) for float32
// and the half types, as sdy + k*2^(y*log2(e) + 32) with sdy = s*dy and
// k = -s*c*2^-32 from log_grad_k: one fma, one ex2.approx.ftz and one fma
// (expf and its product took ten). The offset of 32 keeps exp(y)*c from
// flushing: 2^t is flushed only below t = -158, where the product is under
// 2^-158 * |s*c| <= 2^-126 (the float32 tolerance's absolute term) as long
// as |s*c| <= 2^32, and 2^t cannot overflow while y <= 64; k keeps 24
// bits only while it is a normal float32, so |s*c| must also be 0 or at
// least 2^-94 (else a row of tiny dy of one sign, whose sum is as large as
// its terms, would miss the tolerance). log_grad_fast says whether those
// bounds hold; rows where they do not take the exact form. Error: the
// rounding of t (2^-24 * |t| <= 158 * 2^-24) and of log2(e), and ex2's 2
// ulp, under 7e-6 of exp(y)*|s*c| (the 1e-5 tolerance is relative to terms
// at least that large). bfloat16 keeps float32's range down to its
// subnormals (2^-133), so its bound is |s*c| <= 2^25: a flushed 2^t then
// stood for a product under 2^-133, which rounds to 0 or the smallest
// subnormal anyway.
__device__ __forceinline__ float log_grad(float y, float sdy, float k) {
	return fmaf(sm_exp2_ftz(fmaf(y, 1.44269504088896341f, 32.0f)), k, sdy);
}
// float64 keeps exp in float64 (k = -s*c). exp(y) under 2^-1022 (y below
// about -708) is rounded to a fixed 2^-1075, not to its own size, and a
// |k| past 2^52 carries that past dx's floor of 2^-1022: there the term
// is formed whole, exp(y + log|k|) (y = -800 beside s*c = 1e300 gave 0
// for -3.7e-48). The argument's rounding, 2^-53 of |y| + |log|k||, keeps
// the term within 2e-13. An infinite k keeps the plain form's answer.
// The whole term's exp and log are an out-of-line call: rows rarely take
// it, and the common path keeps only the compare (GPU entry 112).
__device__ __noinline__ double exp_times(double y, double k) { return copysign(exp(y + log(fabs(k))), k); }
__device__ __forceinline__ double log_grad(double y, double sdy, double k) {
	const double e = exp(y);
	if (e < 0x1p-1022 && fabs(k) > 0x1p52 && fabs(k) <= 1.7976931348623157e308 && y >= -1.7976931348623157e308)
		return sdy + exp_times(y, k);
	return fma(e, k, sdy);
}
template <typename A> __device__ __forceinline__ A log_grad_k(double sc) { return A(-sc * 0x1p-32); }
template <> __device__ __forceinline__ double log_grad_k<double>(double sc) { return -sc; }
template <typename T> __device__ __forceinline__ bool log_grad_fast(double sc, bool big_y) {
	return fabs(sc) <= 0x1p32 && (sc == 0.0 || fabs(sc) >= 0x1p-94) && !big_y;
}
template <> __device__ __forceinline__ bool log_grad_fast<sm_bf16>(double sc, bool big_y) {
	return fabs(sc) <= 0x1p25 && (sc == 0.0 || fabs(sc) >= 0x1p-94) && !big_y;
}
template <> __device__ __forceinline__ bool log_grad_fast<double>(double sc, bool big_y) { return true; }
template <typename T> struct IsBf16 { static constexpr bool value = false; };
template <> struct IsBf16<sm_bf16> { static constexpr bool value = true; };
template <typename T> struct IsF16 { static constexpr bool value = false; };
template <> struct IsF16<sm_half> { static constexpr bool value = true; };
template <typename A> __device__ __forceinline__ A sm_inf() { return A(INFINITY); }
template <typename A> __device__ __forceinline__ A sm_nan() { return A(NAN); }

// Pack is P elements loaded or stored with one access (16 bytes at most).
template <typename T, int P> struct alignas(sizeof(T) * P) Pack { T v[P]; };

// pack_width is the number of elements a thread moves per access: a 16-byte
// vector, or fewer when the thread owns fewer contiguous elements. The Go
// side computes the same number to decide whether rows are aligned for it.
template <typename T, int C> struct PackWidth {
	static constexpr int vec = 16 / (int)sizeof(T);
	static constexpr int value = C < vec ? C : vec;
};

// load_pack reads P elements from p[col...]; vec says that the P elements
// are aligned and in range, otherwise only columns below n are read. I is
// the index type: int within a warp-tier row, i64 elsewhere.
template <typename T, int P, typename I>
__device__ __forceinline__ void load_pack(const T* p, I col, I n, bool vec, typename Num<T>::acc* dst) {
	if (vec) {
		const Pack<T, P> pk = *reinterpret_cast<const Pack<T, P>*>(p + col);
#pragma unroll
		for (int j = 0; j < P; ++j) dst[j] = Num<T>::in(pk.v[j]);
		return;
	}
#pragma unroll
	for (int j = 0; j < P; ++j) dst[j] = col + j < n ? Num<T>::in(p[col + j]) : typename Num<T>::acc(0);
}

template <typename T, int P, typename I>
__device__ __forceinline__ void store_pack(T* p, I col, I n, bool vec, const typename Num<T>::acc* src) {
	if (vec) {
		Pack<T, P> pk;
#pragma unroll
		for (int j = 0; j < P; ++j) pk.v[j] = Num<T>::out(src[j]);
		*reinterpret_cast<Pack<T, P>*>(p + col) = pk;
		return;
	}
#pragma unroll
	for (int j = 0; j < P; ++j)
		if (col + j < n) p[col + j] = Num<T>::out(src[j]);
}

// ------------------------------------------------------------------ view --

// View is one problem. Mask element of x's element (o, k, i) is at
// mask_row(o) + k*mstride + mask_inner(i); the outer and inner indices are
// each decomposed over up to 4 (size, stride) dimensions, innermost first,
// which the Go side gets by merging x's dimensions.
struct View {
	i64 rows, n, inner;
	double scale;
	bool log;
	i64 causal_rows, causal_offset; // causal_rows == 0: no causal limit
	const unsigned char* mask;      // nullptr: no mask
	i64 mstride;
	i64 mo_size[4], mo_stride[4];
	i64 mi_size[4], mi_stride[4];
	Expo ex; // make_expo(scale)

	// Unit dimensions are skipped, the outermost (size 0: what is left of
	// o is below its size) is taken without a division, and indices that
	// fit 32 bits divide in 32 bits: a 64-bit division is a long software
	// routine, and tier 1 takes this once per row.
	__device__ __forceinline__ i64 mask_row(i64 o) const {
		i64 off = 0;
#pragma unroll
		for (int d = 0; d < 4; ++d) {
			const i64 sz = mo_size[d];
			if (sz == 1) continue;
			i64 q;
			if (sz == 0) { // no break: one in this unrolled loop cost the grid kernels 14 registers
				q = 0;
			} else if ((unsigned long long)o <= 0xffffffffull && (unsigned long long)sz <= 0xffffffffull) {
				q = (i64)((unsigned)o / (unsigned)sz);
			} else {
				q = o / sz;
			}
			off += (o - q * sz) * mo_stride[d];
			o = q;
		}
		return off;
	}
	__device__ __forceinline__ i64 mask_inner(i64 i) const {
		i64 off = 0;
#pragma unroll
		for (int d = 0; d < 4; ++d) {
			off += (i % mi_size[d]) * mi_stride[d];
			i /= mi_size[d];
		}
		return off;
	}
	// unmasked is this view without its mask buffer, a compile-time null
	// that removes the mask code from a kernel (causal-only instances).
	__device__ __forceinline__ View unmasked() const {
		View u = *this;
		u.mask = nullptr;
		return u;
	}
	// kept is the number of leading columns of row o that causal masking
	// keeps (n without causal).
	__device__ __forceinline__ i64 kept(i64 o) const {
		if (causal_rows == 0) return n;
		const i64 r = (unsigned long long)o <= 0xffffffffull && (unsigned long long)causal_rows <= 0xffffffffull
		                  ? (i64)((unsigned)o % (unsigned)causal_rows)
		                  : o % causal_rows;
		i64 k = r + causal_offset + 1;
		return k < 0 ? 0 : (k > n ? n : k);
	}
	// keeps says whether column k is kept, given the row's mask base and
	// causal limit.
	__device__ __forceinline__ bool keeps(i64 mbase, i64 kept, i64 k) const {
		return k < kept && (mask == nullptr || mask[mbase + k * mstride] != 0);
	}
	// keeps32 is keeps for rows whose columns fit 32-bit indices (tiers 1
	// and 2).
	__device__ __forceinline__ bool keeps32(i64 mbase, int kept, int k) const {
		return k < kept && (mask == nullptr || mask[mbase + (i64)k * mstride] != 0);
	}
};

// The kernel parameters, every one 8 bytes (gorgonia.org/cu copies 8 bytes
// per parameter). The Go side passes them in this order.
#define SM_VIEW_PARAMS                                                                          \
	i64 rows, i64 n, i64 inner, double scale, i64 log, i64 causal_rows, i64 causal_offset,  \
	    const unsigned char *mask, i64 mstride, i64 mo_size0, i64 mo_size1, i64 mo_size2,    \
	    i64 mo_size3, i64 mo_stride0, i64 mo_stride1, i64 mo_stride2, i64 mo_stride3,         \
	    i64 mi_size0, i64 mi_size1, i64 mi_size2, i64 mi_size3, i64 mi_stride0, i64 mi_stride1, \
	    i64 mi_stride2, i64 mi_stride3
#define SM_EXTRA_PARAMS void *work, i64 vec, i64 group, i64 chunk, i64 splits
#define SM_VIEW()                                                                            \
	View {                                                                                  \
		rows, n, inner, scale, log != 0, causal_rows, causal_offset, mask, mstride,         \
		    {mo_size0, mo_size1, mo_size2, mo_size3},                                       \
		    {mo_stride0, mo_stride1, mo_stride2, mo_stride3},                               \
		    {mi_size0, mi_size1, mi_size2, mi_size3},                                       \
		    {mi_stride0, mi_stride1, mi_stride2, mi_stride3}, make_expo(scale)              \
	}

// ------------------------------------------------------------ reductions --

// Stats summarizes kept entries: m is the maximum of the finite ones, s the
// sum of exp(scale*(x-m)) over them (online form only), nan whether any is
// NaN, infs how many are +Inf. The online tiers give one thread n/threads
// terms (thousands on long rows), so s is a float64 whatever the dtype: a
// float32 running sum would drift by about sqrt(terms) float32 roundings.
// Only the sum is wide; the exponentials stay in the compute type.
template <typename A> struct Stats {
	A m;
	double s;
	int nan, infs;
};

template <typename A> __device__ __forceinline__ Stats<A> stats_init() {
	return Stats<A>{-sm_inf<A>(), 0.0, 0, 0};
}

// add_max folds x into the maximum (two-pass tiers).
template <typename A> __device__ __forceinline__ void add_max(Stats<A>& st, A x) {
	if (x != x) st.nan = 1;
	else if (x == sm_inf<A>()) st.infs++;
	else st.m = x > st.m ? x : st.m;
}

// add_online folds x into maximum and sum in one step (one-read tiers).
template <typename T>
__device__ __forceinline__ void add_online(Stats<typename Num<T>::acc>& st, typename Num<T>::acc x, const Expo& ex) {
	typedef typename Num<T>::acc A;
	if (x != x) st.nan = 1;
	else if (x == sm_inf<A>()) st.infs++;
	else if (x > -sm_inf<A>()) {
		if (x > st.m) {
			st.s = st.s * sm_expx(st.m, x, ex) + 1.0;
			st.m = x;
		} else {
			st.s += sm_expx(x, st.m, ex);
		}
	}
}

template <typename T>
__device__ __forceinline__ Stats<typename Num<T>::acc> merge(Stats<typename Num<T>::acc> a, Stats<typename Num<T>::acc> b,
                                                            const Expo& ex) {
	typedef typename Num<T>::acc A;
	Stats<A> r;
	r.nan = a.nan | b.nan;
	r.infs = a.infs + b.infs;
	r.m = a.m > b.m ? a.m : b.m;
	r.s = 0.0;
	if (a.m > -sm_inf<A>()) r.s += a.s * sm_expx(a.m, r.m, ex);
	if (b.m > -sm_inf<A>()) r.s += b.s * sm_expx(b.m, r.m, ex);
	return r;
}

template <typename A> __device__ __forceinline__ Stats<A> shfl(Stats<A> v, int lane_mask, int width) {
	v.m = sm_shfl_xor(v.m, lane_mask, width);
	v.s = sm_shfl_xor(v.s, lane_mask, width);
	v.nan = sm_shfl_xor(v.nan, lane_mask, width);
	v.infs = sm_shfl_xor(v.infs, lane_mask, width);
	return v;
}
template <typename V> __device__ __forceinline__ V shfl(V v, int lane_mask, int width) {
	return sm_shfl_xor(v, lane_mask, width);
}

// Reduction operators: combine two partial values.
template <typename A> struct MaxOp {
	__device__ __forceinline__ Stats<A> operator()(Stats<A> a, Stats<A> b) const {
		a.m = b.m > a.m ? b.m : a.m;
		a.nan |= b.nan;
		a.infs += b.infs;
		return a;
	}
};
template <typename T> struct MergeOp {
	Expo ex;
	__device__ __forceinline__ Stats<typename Num<T>::acc> operator()(Stats<typename Num<T>::acc> a,
	                                                                 Stats<typename Num<T>::acc> b) const {
		return merge<T>(a, b, ex);
	}
};
struct MaxV {
	template <typename V> __device__ __forceinline__ V operator()(V a, V b) const { return a > b ? a : b; }
};
struct SumOp {
	template <typename V> __device__ __forceinline__ V operator()(V a, V b) const { return a + b; }
};

// GradStats is the backward row sum c (sum(dy*y), log: sum(dy)) and, for
// log-softmax, whether any kept y is not -Inf. c is a float64 for the same
// reason as Stats.s.
template <typename A> struct GradStats {
	double c;
	int any;
};
template <typename A> __device__ __forceinline__ GradStats<A> shfl(GradStats<A> v, int lane_mask, int width) {
	v.c = sm_shfl_xor(v.c, lane_mask, width);
	v.any = sm_shfl_xor(v.any, lane_mask, width);
	return v;
}
struct GradOp {
	template <typename A> __device__ __forceinline__ GradStats<A> operator()(GradStats<A> a, GradStats<A> b) const {
		return GradStats<A>{a.c + b.c, a.any | b.any};
	}
};

// warp_reduce combines v over aligned groups of width lanes (a power of two
// up to SM_WARP); every lane of the warp must call it.
template <typename V, typename Op> __device__ __forceinline__ V warp_reduce(V v, Op op, int width) {
	for (int mask = width / 2; mask > 0; mask /= 2) v = op(v, shfl(v, mask, width));
	return v;
}

// block_reduce combines v over the block and returns the result to every
// thread. blockDim.x must be a multiple of SM_WARP; every thread must call it.
template <typename V, typename Op> __device__ __forceinline__ V block_reduce(V v, Op op, V identity) {
	__shared__ V slots[SM_MAX_WARPS];
	v = warp_reduce(v, op, SM_WARP);
	const int lane = threadIdx.x % SM_WARP, warp = threadIdx.x / SM_WARP;
	__syncthreads(); // the slots may still be read by an earlier reduction
	if (lane == 0) slots[warp] = v;
	__syncthreads();
	v = lane < (int)(blockDim.x / SM_WARP) ? slots[lane] : identity;
	return warp_reduce(v, op, SM_WARP);
}

// ---------------------------------------------------------------- output --

enum RowKind { ROW_NORMAL, ROW_NAN, ROW_INF, ROW_EMPTY };

// Fin is a finished row: what kind of row it is and, for normal rows, its
// maximum, sum, the sum's reciprocal (float32 and the half types multiply
// by it; float64 divides by s) and, for log-softmax, log(sum).
template <typename A> struct Fin {
	RowKind kind;
	A m, s, r;
	double lsum;
	int infs;
};

template <typename A> __device__ __forceinline__ Fin<A> finish(const Stats<A>& st) {
	Fin<A> f{ROW_NORMAL, st.m, A(st.s), A(1), 0.0, st.infs};
	if (st.nan) f.kind = ROW_NAN;
	else if (st.infs > 0) f.kind = ROW_INF;
	else if (!(st.m > -sm_inf<A>())) f.kind = ROW_EMPTY;
	return f;
}

// set_sum finishes a row's sum: one reciprocal per row, and the float64
// log only for log-softmax.
template <typename A> __device__ __forceinline__ void set_sum(Fin<A>& f, double s, bool lg) {
	f.s = A(s);
	f.r = A(1) / f.s;
	if (lg) f.lsum = log(s);
}

// normed is e/sum for a normal row.
__device__ __forceinline__ float normed(float e, const Fin<float>& f) { return e * f.r; }
__device__ __forceinline__ double normed(double e, const Fin<double>& f) { return e / f.s; }

// fwd_out is the output for input x of a finished row.
template <typename T>
__device__ __forceinline__ typename Num<T>::acc fwd_out(const View& v, bool kept, typename Num<T>::acc x,
                                                       const Fin<typename Num<T>::acc>& f) {
	typedef typename Num<T>::acc A;
	const A zero = v.log ? -sm_inf<A>() : A(0);
	if (!kept) return zero;
	switch (f.kind) {
	case ROW_NORMAL:
		if (v.log) return Num<T>::logout(x, f.m, v.scale, f.lsum);
		return normed(sm_expx(x, f.m, v.ex), f);
	case ROW_NAN:
		return sm_nan<A>();
	case ROW_INF:
		if (x == sm_inf<A>()) return v.log ? A(-log((double)f.infs)) : A(1.0 / f.infs);
		return zero;
	default:
		return zero;
	}
}

// grad_out is dx for (y, dy) given the row's finished GradStats.
template <typename T>
__device__ __forceinline__ typename Num<T>::acc grad_out(const View& v, bool kept, typename Num<T>::acc y,
                                                        typename Num<T>::acc dy,
                                                        const GradStats<typename Num<T>::acc>& g) {
	typedef typename Num<T>::acc A;
	if (!kept || (v.log && !g.any)) return A(0);
	// The products and differences in float64 whatever the dtype: this is
	// the exact path, and the row's sum c (float64) may pass float32's
	// range (log-softmax gradients near 3e38: in float32, dx was -Inf where
	// it is 0). exp stays in the compute type: float64's spilled the grid
	// tier's float32 kernel (docs/PERFORMANCE.md GPU entry 80).
	if constexpr (sizeof(A) == 8) {
		// float64's exp(y) or exp(y)*c under 2^-1022 is rounded to 2^-1075,
		// which the scale may carry past dx's floor: the term is formed
		// whole, as log_grad does (the float32-computed types' floor is
		// far above it, and their code is left as it was).
		if (v.log) {
			const double e = exp(y), t = e * g.c;
			if ((e < 0x1p-1022 || fabs(t) < 0x1p-1022) && g.c != 0.0 && y > -sm_inf<A>())
				return dy * v.scale - exp_times(y + log(v.scale), g.c);
			return v.scale * (dy - t);
		}
	}
	if (v.log) return A(v.scale * ((double)dy - (double)sm_exp(y) * g.c));
	return A((double)y * ((double)dy - g.c) * v.scale); // SoftGrad's order
}

// SoftGrad is softmax backward's dx = s*y*(dy - c) on the fast path, in
// the compute type A (c the row's sum). s*y formed first lost the bits of
// y under 2^-126/s, where dx is far above 2^-126 (tiny scales, gradients
// near 1e38), and dy - c passed float32's range with dy near 3e38 and c
// near -3e38, where dx = s*y*(dy - c) is finite (y is small there): dx
// was Inf.
//   - at, for rows fits admits (tiers 1, 7 and 8; their other rows take
//     the exact path, grad_out): (y*(dy - c))*s, the same three
//     operations. The scale last underflows only what dx underflows; y
//     (under 1) before it keeps dx in range wherever y*(dy - c) is. fits
//     asks |c| under 2^102, below which dy - c cannot pass float32's
//     range from a dy within it (half a unit of 3.4e38 is 2^103), and a
//     scale at most 2^22, below which a y*(dy - c) that underflowed stays
//     under the tolerance's 2^-126 once scaled.
//   - any, for every row (the long-row tiers, which have no exact path
//     for softmax): at scales up to 2^22, s*(y*dy - y*c), an fma and two
//     multiplies. For a softmax row y*(dy - c) is at most half the
//     largest |dy| (y sums to 1), so it cannot overflow whatever c (c is
//     held at float32's largest where only rounding took it past: y
//     summing to a hair over 1 beside dy near 3.4e38). Past 2^22 it keeps
//     the old order, (s*y)*(dy - c): s*(y*dy - y*c) would scale up the
//     rounding of products under 2^-126 (dx off by up to s*2^-150), and
//     s*y loses nothing there; its dy - c passes float32's range only with
//     |c| at 2^102 or more, gradients past 5e30 at scales past 4 million.
//     float64 keeps s*(y*dy - y*c) at every scale: its rows reach these
//     tiers only at scales under 2^52 over their length (gpu.FarGrad64
//     sends the others to Far64: tier 4's far_sum and far_write for few
//     long rows, tier 3's far_block for the rest, tier 5 off the last
//     axis), where a product's rounding to 2^-1075
//     stays under 2^-1023 once scaled, while s*y under 2^-1022 lost
//     up to 2^-1075 of itself beside any dy - c (y = 5e-324 at a scale
//     of 1e10/3 beside dy = 1e100: dx 1e-10 off).
//     The choice is one select on the scale: a second copy of the long
//     tiers' write loops, or an exact loop beside them, cost the split
//     tier's half kernels registers and spills (docs/PERFORMANCE.md GPU
//     entries 83 and 85).
template <typename A> struct SoftGrad {
	A s, c;
	__device__ __forceinline__ SoftGrad(double scale, double sum) : s(A(scale)), c(A(sum)) {}
	__device__ __forceinline__ static bool fits(double scale, double sum) {
		return scale <= 0x1p22 && fabs(sum) < 0x1p102;
	}
	// held is sum within A's range where it is finite (NaN and the
	// infinities pass unchanged), for any: rows fits admits need not.
	__device__ __forceinline__ static double held(double sum) {
		const double top = sizeof(A) == 4 ? 3.4028234663852886e38 : 1.7976931348623157e308;
		return sum > top && sum <= 1.7976931348623157e308 ? top : sum < -top && sum >= -1.7976931348623157e308 ? -top : sum;
	}
	__device__ __forceinline__ A at(A y, A dy) const { return y * (dy - c) * s; }
	__device__ __forceinline__ A any(A y, A dy) const {
		return sizeof(A) == 4 && s > A(0x1p22) ? (s * y) * (dy - c) : s * fma(y, dy, -(y * c));
	}
};

template <typename A> __device__ __forceinline__ void grad_add(const View& v, GradStats<A>& g, A y, A dy) {
	if (v.log) {
		g.c += dy;
		g.any |= y != -sm_inf<A>(); // NaN counts: only all -Inf rows get dx = 0
	} else {
		g.c += dy * y;
	}
}

// Part is one block's share of a split row (tier 4), kept in float64 in
// the workspace whatever the dtype.
struct Part {
	double m, s;
	i64 nan, infs;
};
// stats_part is the Part that carries st; part_stats reads it back.
template <typename A> __device__ __forceinline__ Part stats_part(const Stats<A>& st) {
	return Part{(double)st.m, (double)st.s, st.nan, st.infs};
}
template <typename A> __device__ __forceinline__ Stats<A> part_stats(const Part& p) {
	return Stats<A>{(A)p.m, p.s, (int)p.nan, (int)p.infs};
}
// GradPart is the backward's: the chunk's sum (log-softmax's any is taken
// by the apply kernel: chunk_grad_write). Float64's split kernels write a
// Far64 instead (16 bytes), hi the sum and lo 0 but on far rows, so that
// one workspace layout serves both kinds of row.
struct GradPart {
	double c;
};

extern __shared__ __align__(16) unsigned char sm_dynamic[];

// --------------------------------------- tier 1: rows in registers --
// Rows up to 1024 threads x K packs (a pack is 16 bytes: 4 float32, 8
// halves, 2 float64). A group of W threads holds a row in registers, K
// packs per thread: thread l of the group owns packs p*W + l (p < K), so
// each of its K loads is coalesced across the group and all K are in
// flight before any is used. W <= SM_WARP: several rows share a block
// (blockDim/W of them) and reductions are shuffles; W > SM_WARP: the group
// is the whole block (blockDim == W) and reductions go through shared
// memory. The row is read once and written once.
//
// The common row is computed without per-element special cases: masked
// entries are replaced by -Inf at load (forward; they come out 0, log
// -Inf, by the same arithmetic as the others), the maximum ignores NaN,
// and the sum of exponentials is taken against it. A row whose sum is not
// in [1, 1e30] (a NaN or +Inf entry, or nothing finite kept) is redone by
// row_exact_* from memory with the exact Stats: such rows are rare, and the
// fast path then needs no counting per element. Columns past a row's
// causal limit are not read. Backward likewise: masked (y, dy) become
// (0, 0) (log: (-Inf, 0)), and a row whose sum is not finite, or a log row
// with no y above -Inf, is redone exactly. The pipelined form (fwd_pipe,
// bwd_pipe, below) is the same math with the next row copied ahead.

// cluster_reduce combines v, already the same in every thread of the
// block, over the blocks of the cluster. Each block publishes its v in one
// of two slots of its shared memory (phase alternates between calls): a
// block writes a slot again two calls later, after the barrier of the call
// in between, which no block passes before every block has read the slots
// of this call. Lane q of every warp then reads block q's slot, all at
// once (one round trip to the other blocks rather than one per block),
// and the warp combines them: the same tree in every warp of every block,
// so every thread gets the same bits. Every thread of the cluster must
// call it.
template <typename V, typename Op> __device__ __forceinline__ V cluster_reduce(V v, Op op, V identity, int phase) {
	__shared__ V slots[2];
	V* slot = &slots[phase];
	if (threadIdx.x == 0) *slot = v;
	sm_cluster_sync();
	const unsigned lane = threadIdx.x % SM_WARP;
	v = lane < sm_cluster_size() ? *sm_cluster_map(slot, lane) : identity;
	return warp_reduce(v, op, SM_WARP);
}

// RowGroup places a thread: its lane in the row's group, and the rows a
// block covers per step. A group is a power of two of threads up to a
// warp, one block, or (cluster kernels, sm_90) all the blocks of a
// thread block cluster, lanes numbered by block rank: W is then the
// cluster's threads, and the cluster walks rows as one block would.
struct RowGroup {
	int W, lane, rows, off; // off: this thread's group in its block
	i64 first;              // this thread's row in the block's first step
	i64 stride;             // rows between a group's steps
	bool cluster;
	mutable int phase; // cluster_reduce's slot
	__device__ __forceinline__ RowGroup(int w, bool cl = false) : W(w), cluster(cl), phase(0) {
		if (cl) {
			lane = (int)(sm_cluster_rank() * blockDim.x + threadIdx.x);
			rows = 1;
			off = 0;
			first = sm_cluster_id();
			stride = sm_cluster_count();
		} else if (w <= SM_WARP) {
			lane = threadIdx.x % w;
			rows = blockDim.x / w;
			off = threadIdx.x / w;
			first = blockIdx.x * (i64)rows + off;
			stride = gridDim.x * (i64)rows;
		} else {
			whole_block();
		}
	}
	// RowGroup(w, Shifted{}) places groups as RowGroup(w) does, outside
	// clusters, by shifts rather than the division by w: w is a power of two
	// up to a warp, and the division is 21 instructions ahead of a kernel's
	// first load. Tier 1's one-row and strided kernels take it: the same shifts in
	// RowGroup(w) moved 50 kernels' registers both ways and spilled four of
	// them (docs/PERFORMANCE.md GPU entry 55).
	struct Shifted {};
	__device__ __forceinline__ RowGroup(int w, Shifted) : W(w), cluster(false), phase(0) {
		if (w <= SM_WARP) {
			const int s = 31 - __clz(w);
			lane = threadIdx.x & (w - 1);
			rows = blockDim.x >> s;
			off = threadIdx.x >> s;
			first = blockIdx.x * (i64)rows + off;
			stride = gridDim.x * (i64)rows;
		} else {
			whole_block();
		}
	}
	// whole_block places a group of a whole block: a row per block a step.
	__device__ __forceinline__ void whole_block() {
		lane = threadIdx.x;
		rows = 1;
		off = 0;
		first = blockIdx.x;
		stride = gridDim.x;
	}
	// step is how far a group moves between its rows.
	__device__ __forceinline__ i64 step() const { return stride; }
	// reduce combines v over the group; every thread of the warp (W <=
	// SM_WARP), of the block or of the cluster must call it.
	template <typename V, typename Op> __device__ __forceinline__ V reduce(V v, Op op, V identity) const {
		if (!cluster && W <= SM_WARP) return warp_reduce(v, op, W);
		v = block_reduce(v, op, identity);
		if (!cluster) return v;
		v = cluster_reduce(v, op, identity, phase);
		phase ^= 1;
		return v;
	}
	// any says whether pred, which is the same for every thread of a group,
	// holds for some group of the warp (W <= SM_WARP: the groups of a warp
	// must take the same branch, so their shuffles stay converged).
	__device__ __forceinline__ bool any(bool pred) const { return !cluster && W <= SM_WARP ? sm_any(pred) : pred; }
	// in_group_any says whether pred, which may differ from lane to lane,
	// holds in some lane of this thread's group (W <= SM_WARP: groups lie
	// W-aligned in their warp, every lane of which calls it): one ballot.
	// any answers for the warp; this answers for the thread's own group.
	__device__ __forceinline__ bool in_group_any(bool pred) const {
		const unsigned long long b = sm_ballot(pred);
		if (W >= SM_WARP) return b != 0;
		const int base = (int)(threadIdx.x & (SM_WARP - 1)) & ~(W - 1);
		return (b >> base & ((1ull << W) - 1)) != 0;
	}
	// done ends a cluster kernel: no block may leave while another can
	// still read its shared memory (the last cluster_reduce).
	__device__ __forceinline__ void done() const {
		if (cluster) sm_cluster_sync();
	}
};

template <typename A> __device__ __forceinline__ A sm_lowest();
template <> __device__ __forceinline__ float sm_lowest<float>() { return -3.402823466e38f; }
template <> __device__ __forceinline__ double sm_lowest<double>() { return -1.7976931348623157e308; }

// row_lim is the number of leading columns of row that tier 1 reads: its
// causal limit in masked kernels (columns past it are not read: their
// outputs are 0, log -Inf, whatever they hold), all n elsewhere and for
// rows past the last, which read nothing.
template <bool MASKED> __device__ __forceinline__ int row_lim(const View& v, i64 row, bool valid) {
	return MASKED && valid ? (int)v.kept(row) : (int)v.n;
}

// Tier 1's shifted kernels ("rows{K}s", SHIFT; internal/gpu.RowsShiftKernel)
// take rows that are not a whole number of packs, in buffers whose bases
// are aligned to a pack: each row is indexed from the pack boundary at or
// before its start, lo columns before it, so that its packs are aligned
// and read whole but at its two ends (the column-at-a-time path the other
// kernels take for such rows issues P loads a pack, each of a warp's
// touching P times the bytes it uses). The first lo columns are not the
// row's; its columns are [lo, lo + n). The other kernels take lo = 0, and
// their code is as it was without SHIFT (docs/PERFORMANCE.md GPU entry 87).

// row_shift is lo for row: how many columns its start lies past the pack
// boundary before it. The low bits of a product are those of the product
// of the low bits.
template <int P> __device__ __forceinline__ int row_shift(i64 row, i64 n) {
	return (int)((unsigned)row * (unsigned)n & (unsigned)(P - 1));
}

// row_load reads this thread's K packs of a row into val as the compute
// type; columns past n (and every column when !valid) get fill. SHIFT:
// columns counted from the boundary lo columns before the row, those
// before lo get fill too, and a pack is read whole only inside [lo, hi),
// the row's columns (n <= hi is a causal limit).
template <typename T, int K, bool SHIFT = false>
__device__ __forceinline__ void row_load(const T* r, int n, const RowGroup& g, bool valid, bool vec,
                                         typename Num<T>::acc fill, typename Num<T>::acc* val, int lo = 0,
                                         int hi = 0) {
	constexpr int P = PackWidth<T, 64>::value;
#pragma unroll
	for (int p = 0; p < K; ++p) {
		const int col = (p * g.W + g.lane) * P;
		if (valid && vec && col < n && (!SHIFT || col >= lo && col + P <= hi)) {
			const Pack<T, P> pk = *reinterpret_cast<const Pack<T, P>*>(r + col);
#pragma unroll
			for (int j = 0; j < P; ++j) val[p * P + j] = Num<T>::in(pk.v[j]);
		} else {
#pragma unroll
			for (int j = 0; j < P; ++j)
				val[p * P + j] = valid && col + j < n && (!SHIFT || col + j >= lo) ? Num<T>::in(r[col + j]) : fill;
		}
	}
}

// MaskWord is the integer that holds a pack's P mask bytes (P <= 8), so a
// pack's bytes are read in one access and tested in place: one LOP3 and
// one select per column, where unpacking the bytes into registers of their
// own cost registers (spills at K = 4) and instructions.
template <int P> struct MaskWord;
template <> struct MaskWord<1> { typedef unsigned char type; };
template <> struct MaskWord<2> { typedef unsigned short type; };
template <> struct MaskWord<4> { typedef unsigned int type; };
template <> struct MaskWord<8> { typedef unsigned long long type; };

// mask_bits is which bytes of the mask word w are nonzero (bit j: byte j),
// in six integer instructions a four bytes rather than three a byte: bit 7
// of each byte is set where its low seven bits are not all zero (adding
// 0x7f carries into bit 7, never past it) or where it was set; a multiply
// then gathers the four bit 7s into bits 24-27, whose products land on
// distinct bits.
__device__ __forceinline__ unsigned mask_bits4(unsigned w) {
	const unsigned t = (((w & 0x7f7f7f7fu) + 0x7f7f7f7fu) | w) & 0x80808080u;
	return (t >> 7) * 0x01020408u >> 24;
}
template <int P, typename W> __device__ __forceinline__ unsigned mask_bits(W w) {
	static_assert(P == 2 || P == 4 || P == 8, "a pack of 2, 4 or 8 mask bytes");
	if constexpr (P == 8) return mask_bits4((unsigned)w) | mask_bits4((unsigned)(w >> 32)) << 4;
	else return mask_bits4((unsigned)w);
}

// HalfPair says whether T is a 16-bit type, two of which share a 32-bit
// word, and gives -Inf's bits (keep_lanes2 masks such pairs in place).
template <typename T> struct HalfPair { static constexpr bool is = false; };
template <> struct HalfPair<sm_half> { static constexpr bool is = true; static constexpr unsigned ninf = 0xfc00u; };
template <> struct HalfPair<sm_bf16> { static constexpr bool is = true; static constexpr unsigned ninf = 0xff80u; };

// keep_lanes2 is the lanes of two words of halves, columns 0-3, from their
// keep bits b (bit j: column j): lanes[0] covers columns 0 and 1, lanes[1]
// columns 2 and 3, each half 0xffff where kept, else 0. A multiply moves
// bit j to bit 7 of byte j (its four products land on distinct bits, so
// nothing carries), and sm_sign_bytes repeats each byte's top bit over the
// two bytes of its half: three instructions a four columns.
__device__ __forceinline__ void keep_lanes2(unsigned b, unsigned lanes[2]) {
	const unsigned y = (b & 0xfu) * 0x10204080u;
	lanes[0] = sm_sign_bytes(y, 0x9988u);
	lanes[1] = sm_sign_bytes(y, 0xbbaau);
}

// mask_cut keeps, of the mask word w of the pack that starts at column
// col < lim, the bytes of the columns below lim: the pack a causal limit
// cuts keeps only its columns before the limit.
template <typename W, int P> __device__ __forceinline__ W mask_cut(W w, int col, int lim) {
	return col + P > lim ? (W)(w & (W)((1ull << (8 * (lim - col))) - 1)) : w; // lim - col < P <= 8
}

// RowKeep is which of this thread's K packs of a row are kept. With a mask
// it holds each pack's mask bytes (nonzero: kept) with the causal limit
// folded in; without one, only the causal limit lim. The bytes are read
// for all K packs before any is used, so a row waits on memory once for
// its mask, not once per pack.
template <typename T, int K> struct RowKeep {
	static constexpr int P = PackWidth<T, 64>::value;
	typedef typename MaskWord<P>::type W;
	W w[K];
	int lim; // columns from lim on are masked
	bool mask;

	// cut folds lim into the word of the pack that lim cuts: it keeps
	// only the bytes of its columns below lim (packs from lim on were not
	// read: their words are 0).
	__device__ __forceinline__ void cut(const RowGroup& g) {
#pragma unroll
		for (int p = 0; p < K; ++p) {
			const int col = (p * g.W + g.lane) * P;
			if (col < lim) w[p] = mask_cut<W, P>(w[p], col, lim);
		}
	}
	// apply replaces the masked columns of val with fill. Columns from lim
	// on whose pack starts past lim already hold fill (their loads were
	// skipped), so without a mask only the pack that lim cuts is touched.
	__device__ __forceinline__ void apply(const RowGroup& g, typename Num<T>::acc fill,
	                                      typename Num<T>::acc* val) const {
#pragma unroll
		for (int p = 0; p < K; ++p) {
			const int col = (p * g.W + g.lane) * P;
			if (mask) {
#pragma unroll
				for (int j = 0; j < P; ++j)
					if (!(w[p] & ((W)0xff << (8 * j)))) val[p * P + j] = fill;
			} else if (col < lim && col + P > lim) {
#pragma unroll
				for (int j = 0; j < P; ++j)
					if (col + j >= lim) val[p * P + j] = fill;
			}
		}
	}
};

// row_keep_load reads the mask bytes of this thread's packs of a row, whose
// mask starts at mrow (v.mask_row(row)), and folds in its causal limit lim
// (v.kept(row), which the caller's loads took already): one access per
// pack when vec and the row's mask is one aligned run of bytes (mstride
// 1). One exit, no early returns: a RowKeep built on several paths ends up
// in local memory. Callers take mrow before loading the row: mask_row's
// divisions (and the calls of its 64-bit path) then run while no row
// values are live. Taken after the loads, with 16 values live, the float32
// forward kernel at K = 4 spilled 52 bytes at its 64 registers, some of
// them inside the row loop; taken before, 36, outside it but for one word
// (docs/PERFORMANCE.md GPU entry 18).
// SHIFT: columns counted as row_load counts them (lim includes lo), a word
// read only for a pack inside the row, and the mask row aligned as the
// row's packs are.
template <typename T, int K, bool SHIFT = false>
__device__ __forceinline__ RowKeep<T, K> row_keep_load(const View& v, i64 mrow, int lim, const RowGroup& g, bool vec,
                                                       int lo = 0) {
	constexpr int P = PackWidth<T, 64>::value;
	typedef typename RowKeep<T, K>::W W;
	RowKeep<T, K> k;
	k.lim = lim;
	k.mask = v.mask != nullptr;
	const unsigned char* mr = v.mask + (mrow - lo);
	const bool words = vec && v.mstride == 1 && (unsigned long long)mr % P == 0;
	const int hi = (int)v.n + lo;
	// The bytes of the pack at col a column at a time (0 before lo).
	auto bytes = [&](int col) {
		W w = 0;
#pragma unroll
		for (int j = 0; j < P; ++j) w |= (W)((!SHIFT || col + j >= lo) && v.keeps32(mrow, k.lim - lo, col + j - lo)) << (8 * j);
		return w;
	};
#pragma unroll
	for (int p = 0; p < K; ++p) k.w[p] = 0;
	if (k.mask && words) {
		// All K reads are issued before any word is used; SHIFT then takes
		// the packs the row's ends cut a byte at a time.
#pragma unroll
		for (int p = 0; p < K; ++p) {
			const int col = (p * g.W + g.lane) * P;
			if (col < k.lim && (!SHIFT || col >= lo && col + P <= hi)) k.w[p] = *reinterpret_cast<const W*>(mr + col);
		}
		if (SHIFT) {
#pragma unroll
			for (int p = 0; p < K; ++p) {
				const int col = (p * g.W + g.lane) * P;
				if (col < k.lim && (col < lo || col + P > hi)) k.w[p] = bytes(col);
			}
		}
		k.cut(g);
	} else if (k.mask) {
#pragma unroll
		for (int p = 0; p < K; ++p) {
			const int col = (p * g.W + g.lane) * P;
			if constexpr (SHIFT) {
				k.w[p] = bytes(col);
			} else {
#pragma unroll
				for (int j = 0; j < P; ++j) k.w[p] |= (W)v.keeps32(mrow, k.lim, col + j) << (8 * j);
			}
		}
	}
	return k;
}

// row_store writes this thread's K packs of a row. SHIFT: columns counted
// as row_load counts them, the row's [lo, n) (the shifted kernels pass
// vec true). STORE16 (the shifted pipelined kernels): each whole pack in
// one asm store (sm_store16), which the compiler cannot split; there it
// had split them all into 2- and 4-byte stores (docs/PERFORMANCE.md GPU
// entry 88).
template <typename T, int K, bool SHIFT = false, bool STORE16 = false>
__device__ __forceinline__ void row_store(T* r, int n, const RowGroup& g, bool vec, const typename Num<T>::acc* val,
                                          int lo = 0) {
	static_assert(!STORE16 || SHIFT, "STORE16 stores whole packs unconditionally: shifted kernels only");
	constexpr int P = PackWidth<T, 64>::value;
#pragma unroll
	for (int p = 0; p < K; ++p) {
		const int col = (p * g.W + g.lane) * P;
		if (STORE16 && col >= lo && col + P <= n) {
			Pack<T, P> pk;
#pragma unroll
			for (int j = 0; j < P; ++j) pk.v[j] = Num<T>::out(val[p * P + j]);
			uint4 u;
			memcpy(&u, &pk, sizeof u);
			sm_store16(r + col, u);
		} else if (!SHIFT || !STORE16 && col >= lo && col + P <= n) {
			if (col < n) store_pack<T, P>(r, col, n, vec, val + p * P);
		} else if (col < n) {
#pragma unroll
			for (int j = 0; j < P; ++j)
				if (col + j >= lo && col + j < n) r[col + j] = Num<T>::out(val[p * P + j]);
		}
	}
}

// row_exact_fwd computes one row with the exact Stats, reading it from
// memory: the path for rows with NaN, +Inf or nothing finite kept. Every
// thread of the group calls it; only active ones touch memory.
template <typename T>
__device__ __forceinline__ void row_exact_fwd(const T* x, T* y, const View& v, i64 row, bool active, const RowGroup& g) {
	typedef typename Num<T>::acc A;
	const int n = (int)v.n;
	const int kept = active ? (int)v.kept(row) : 0;
	const i64 mrow = active && v.mask ? v.mask_row(row) : 0;
	const T* xr = x + row * v.n;
	Stats<A> st = stats_init<A>();
	if (active)
		for (int k = g.lane; k < n; k += g.W)
			if (v.keeps32(mrow, kept, k)) add_max(st, Num<T>::in(xr[k]));
	Fin<A> f = finish(g.reduce(st, MaxOp<A>(), stats_init<A>()));
	double s = 0.0;
	if (active && f.kind == ROW_NORMAL)
		for (int k = g.lane; k < n; k += g.W)
			if (v.keeps32(mrow, kept, k)) s += sm_expx(Num<T>::in(xr[k]), f.m, v.ex);
	set_sum(f, g.reduce(s, SumOp(), 0.0), v.log);
	if (active)
		for (int k = g.lane; k < n; k += g.W)
			y[row * v.n + k] = Num<T>::out(fwd_out<T>(v, v.keeps32(mrow, kept, k), Num<T>::in(xr[k]), f));
}

// row_log_sum is log(s) for tier 1's log-softmax rows with a scale of 1,
// whose outputs are then (x - m) - log(s) in the compute type: one
// instruction per element where logout takes three in float64 for
// float32. For float32, x - m is exact by Sterbenz or rounded once, log(s)
// (s in [1, columns], so at most 21.5) rounded once from logf (1 ulp:
// 2.6e-6 absolute at most, inside the 1e-5 absolute tolerance), and the
// difference rounded once (2^-24 relative). The half types, whose outputs
// keep 11 bits or fewer, take __logf (3 ulp); float64 keeps log.
template <typename T> __device__ __forceinline__ float row_log_sum(float s) { return logf(s); }
template <> __device__ __forceinline__ float row_log_sum<sm_half>(float s) { return __logf(s); }
template <> __device__ __forceinline__ float row_log_sum<sm_bf16>(float s) { return __logf(s); }
template <typename T> __device__ __forceinline__ double row_log_sum(double s) { return log(s); }

// row_inv is 1/s for the one-row kernel's normal rows (fwd_row without
// SCALED), whose sums lie in [RowBias::one, 1e30]. CUDA's float32 division
// is an inline fast path and a call to a slow one, and the call's
// convention alone spilled that kernel at 32 registers (docs/PERFORMANCE.md
// GPU entry 54); __fdividef is within 2 ulp in that range, against the
// float32 forward's 1e-5 relative tolerance. (In every fwd_row it moved
// the other kernels' registers both ways, and spilled the masked cluster
// kernels of the half types more: they keep the division.) HIP and float64
// keep it too.
__device__ __forceinline__ float row_inv(float s) {
#if defined(__HIPCC__)
	return 1.0f / s;
#else
	return __fdividef(1.0f, s);
#endif
}
__device__ __forceinline__ double row_inv(double s) { return 1.0 / s; }

// fwd_vals turns the C values of one row that this thread holds in val
// (masked entries already -Inf) into its outputs, in place: maximum, sum
// of exponentials (kept in val for softmax), output; it returns whether
// the row is for the exact path, which leaves val as it is. Every thread
// of the group calls it; fwd_row below stores the outputs in packs. SCALED: log-softmax
// with a scale other than 1 takes scale*(x - m) - log(s) with the log in
// float64, as Num::logout does, and softmax divides by the sum. Without it
// (the one-row kernel, whose 32 registers the float64 log and the
// division's call would spill), row_inv, and the log all in the compute
// type: for float32, x - m, the scale's float32 form, the product and
// the difference are each rounded once (up to 4 * 2^-24 = 2^-22 relative,
// the float32 log tolerance; GPU entry 60 saw 1.2e-7 at scale 1e30) and
// logf is within 1 ulp, so an output near 0, where scale*(x - m) is near
// log(s) (at most log(columns) + 1), is off by well under the 1e-5
// absolute tolerance of log outputs.
template <typename T, int C, bool SCALED>
__device__ __forceinline__ bool fwd_vals(const View& v, bool valid, const RowGroup& g, typename Num<T>::acc* val) {
	typedef typename Num<T>::acc A;
	// The maximum starts at the lowest finite value, so a row with nothing
	// finite kept never forms -Inf - -Inf; NaN is ignored here and caught
	// by the sum.
	A m = sm_lowest<A>();
#pragma unroll
	for (int i = 0; i < C; ++i) m = fmax(m, val[i]); // one instruction; fmax returns the non-NaN operand
	m = g.reduce(m, MaxV(), sm_lowest<A>());
	A s = A(0);
#pragma unroll
	for (int i = 0; i < C; ++i) {
		const A e = row_exp_biased<T>(val[i], m, v.ex);
		s += e;
		if (!v.log) val[i] = e;
	}
	s = g.reduce(s, SumOp(), A(0));
	// The largest kept entry adds exp(0) = 1 (times RowBias), so a normal
	// row's sum is in [1, columns] (times RowBias: at most 2^79 in tier 1,
	// 2^82 on the cluster tier); NaN, +Inf (-> NaN) and empty rows (0) are
	// not.
	const bool exact = valid && !(s >= A(RowBias<T>::one) && s <= A(1e30));
	if (valid && !exact) {
		if (!SCALED && v.log) { // a scale of 1 multiplies exactly
			const A ls = row_log_sum<T>(s * A(RowBias<T>::inv)), sc = A(sm_diff_scale(v.scale));
#pragma unroll
			for (int i = 0; i < C; ++i) val[i] = sm_diff(val[i], m) * sc - ls;
		} else if (v.log && v.scale == 1.0) {
			const A ls = row_log_sum<T>(s * A(RowBias<T>::inv));
#pragma unroll
			for (int i = 0; i < C; ++i) val[i] = (val[i] - m) - ls;
		} else if (v.log) {
			const double lsum = log((double)s * RowBias<T>::inv);
#pragma unroll
			for (int i = 0; i < C; ++i) val[i] = Num<T>::logout(val[i], m, v.scale, lsum);
		} else {
			const A r = SCALED ? A(1) / s : row_inv(s);
#pragma unroll
			for (int i = 0; i < C; ++i) val[i] *= r;
		}
	}
	return exact;
}

template <typename T, int K, bool SCALED = true, bool SHIFT = false, bool STORE16 = false>
__device__ __forceinline__ void fwd_row(const T* x, T* y, const View& v, i64 row, bool valid, bool vec,
                                        const RowGroup& g, typename Num<T>::acc* val, int lo = 0) {
	constexpr int C = K * PackWidth<T, 64>::value;
	const bool exact = fwd_vals<T, C, SCALED>(v, valid, g, val);
	if (valid && !exact) row_store<T, K, SHIFT, STORE16>(y + (row * v.n - lo), (int)v.n + lo, g, vec, val, lo);
	// The rows the fast path cannot finish are taken again from memory
	// after the others are stored: no values stay live across the exact
	// pass, whose registers would otherwise add to theirs (tier 1's
	// one-row kernel fits 40 registers only so, docs/PERFORMANCE.md GPU
	// entry 52).
	if (g.any(exact)) row_exact_fwd<T>(x, y, v, row, exact, g);
}

// fwd_rows_once is fwd_rows for a grid with a group for every row: each
// group takes one row, with no loop and no row beyond the first, for rows
// of whole aligned packs without mask or causal limit, and fwd_row's
// scaled log-softmax in float32. Fewer registers than fwd_rows (32 for
// float32 at K = 4 against 64), so more blocks per SM (docs/PERFORMANCE.md
// GPU entries 52 and 54).
template <typename T, int K>
__device__ __forceinline__ void fwd_rows_once(const T* x, T* y, const View& v, int W) {
	typedef typename Num<T>::acc A;
	constexpr int C = K * PackWidth<T, 64>::value;
	const RowGroup g(W, RowGroup::Shifted{});
	const i64 row = g.first;
	const bool valid = row < v.rows;
	constexpr int P = PackWidth<T, 64>::value;
	// Not row_load: at 32 registers ptxas issued its loads one after another
	// into the same registers. From a row clamped into range, each load
	// predicated on its column alone, the four go out back to back (GPU
	// entry 54); a group past the last row rereads it and stores nothing.
	const T* r = x + (valid ? row : v.rows - 1) * v.n;
	Pack<T, P> pk[K];
#pragma unroll
	for (int p = 0; p < K; ++p) {
		const int col = (p * g.W + g.lane) * P;
		if (col < (int)v.n) pk[p] = *reinterpret_cast<const Pack<T, P>*>(r + col);
	}
	A val[C];
#pragma unroll
	for (int p = 0; p < K; ++p) {
		const int col = (p * g.W + g.lane) * P;
#pragma unroll
		for (int j = 0; j < P; ++j) val[p * P + j] = col < (int)v.n ? Num<T>::in(pk[p].v[j]) : -sm_inf<A>();
	}
	fwd_row<T, K, false>(x, y, v, row, valid, true, g, val);
}

template <typename T, int K, bool MASKED, bool CLUSTER = false, bool SHIFT = false>
__device__ __forceinline__ void fwd_rows(const T* x, T* y, const View& v, bool vec, int W) {
	typedef typename Num<T>::acc A;
	constexpr int P = PackWidth<T, 64>::value, C = K * P;
	const RowGroup g(W, CLUSTER); // a row is at most 1024*C columns: 32-bit columns
	for (i64 row = g.first; row - g.off < v.rows; row += g.step()) {
		const bool valid = row < v.rows;
		A val[C];
		const int lo = SHIFT ? row_shift<P>(row, v.n) : 0;
		const int lim = row_lim<MASKED>(v, row, valid) + lo;
		const i64 mrow = MASKED && valid && v.mask ? v.mask_row(row) : 0;
		row_load<T, K, SHIFT>(x + (row * v.n - lo), lim, g, valid, vec, -sm_inf<A>(), val, lo, (int)v.n + lo);
		if (MASKED && valid) row_keep_load<T, K, SHIFT>(v, mrow, lim, g, vec, lo).apply(g, -sm_inf<A>(), val);
		fwd_row<T, K, true, SHIFT>(x, y, v, row, valid, vec, g, val, lo);
	}
	g.done();
}

// Tier 1's packed form, for the half types' forward (CUDA: the "rows{K}p"
// kernels). fwd_rows converts a row to float32 as it loads it, so K packs
// of 8 halves take 8K registers: at K = 4 that is 32, and those kernels
// spill at the 64 registers a 1024-thread block leaves (the half types run
// K = 2, pipelined, instead: 32 bytes a thread in registers). Here the
// packs stay as loaded, 4 registers each (16 at K = 4, what float32 takes
// at K = 4), and every pass converts them again: the maximum, the sum, and
// the output, which takes each exponential again rather than keeping it.
// The arithmetic is fwd_row's term for term (not compared bit for bit
// with fwd_rows at the same K; against the K = 2 pipelined kernels the
// row's sum adds its terms in another order). Unmasked rows of aligned
// packs only: a causal form (columns past the limit -Inf in the packs) ran
// 0.6-5% slower than the pipelined causal kernels (docs/PERFORMANCE.md GPU
// entry 32).

// pack_opaque hides a pack's bits from the compiler, so the conversions
// after it are redone rather than kept from before it (which would hold
// the converted row in registers again).
// (CUDA only, as the packed kernels are: HIP has no "r" constraint.)
template <typename T, int P> __device__ __forceinline__ void pack_opaque(Pack<T, P>& pk) {
	static_assert(sizeof(Pack<T, P>) % 4 == 0, "a pack of whole words");
#if !defined(__HIPCC__)
	unsigned* w = reinterpret_cast<unsigned*>(&pk);
#pragma unroll
	for (int i = 0; i < (int)(sizeof(Pack<T, P>) / 4); ++i) asm volatile("" : "+r"(w[i]));
#endif
}

template <typename T, int K> __device__ __forceinline__ void fwd_rows_packed(const T* x, T* y, const View& v, int W) {
	typedef typename Num<T>::acc A;
	constexpr int P = PackWidth<T, 64>::value;
	typedef Pack<T, P> PK;
	const RowGroup g(W);
	const int n = (int)v.n; // a row is at most 1024*K*P columns
	const T ninf = Num<T>::out(-sm_inf<A>());
	PK fill; // columns past n: -Inf, as fwd_rows fills them
#pragma unroll
	for (int j = 0; j < P; ++j) fill.v[j] = ninf;
	for (i64 row = g.first; row - g.off < v.rows; row += g.step()) {
		const bool valid = row < v.rows;
		PK pk[K];
		auto load = [&]() {
			const int lim = (int)v.n; // from the view each time: 54 registers, not 60 (float16, K = 4)
#pragma unroll
			for (int p = 0; p < K; ++p) {
				const int col = (p * g.W + g.lane) * P;
				pk[p] = valid && col < lim ? *reinterpret_cast<const PK*>(x + row * v.n + col) : fill;
			}
		};
		load();
		A m = sm_lowest<A>();
#pragma unroll
		for (int p = 0; p < K; ++p)
#pragma unroll
			for (int j = 0; j < P; ++j) m = fmax(m, Num<T>::in(pk[p].v[j]));
		m = g.reduce(m, MaxV(), sm_lowest<A>());
#pragma unroll
		for (int p = 0; p < K; ++p) pack_opaque(pk[p]);
		A s = A(0);
#pragma unroll
		for (int p = 0; p < K; ++p)
#pragma unroll
			for (int j = 0; j < P; ++j) s += row_exp_biased<T>(Num<T>::in(pk[p].v[j]), m, v.ex);
		s = g.reduce(s, SumOp(), A(0));
		const bool exact = valid && !(s >= A(RowBias<T>::one) && s <= A(1e30)); // as fwd_row
		if (g.any(exact)) {
			row_exact_fwd<T>(x, y, v, row, exact, g);
			if (exact) continue;
			// The row is read again (rare: a group of the warp took the
			// exact path), so no pack is live across that path's registers.
			load();
		}
		if (!valid) continue;
#pragma unroll
		for (int p = 0; p < K; ++p) pack_opaque(pk[p]);
		// fwd_row's three output forms, each its own loop.
		T* yr = y + row * v.n;
		auto write = [&](auto out) {
#pragma unroll
			for (int p = 0; p < K; ++p) {
				const int col = (p * g.W + g.lane) * P;
				if (col >= n) continue;
				PK o;
#pragma unroll
				for (int j = 0; j < P; ++j) o.v[j] = Num<T>::out(out(Num<T>::in(pk[p].v[j])));
				*reinterpret_cast<PK*>(yr + col) = o;
			}
		};
		if (v.log && v.scale == 1.0) {
			const A ls = row_log_sum<T>(s * A(RowBias<T>::inv));
			write([&](A xv) { return (xv - m) - ls; });
		} else if (v.log) {
			const double lsum = log((double)s * RowBias<T>::inv);
			write([&](A xv) { return Num<T>::logout(xv, m, v.scale, lsum); });
		} else {
			const A r = A(1) / s;
			write([&](A xv) { return row_exp_biased<T>(xv, m, v.ex) * r; });
		}
	}
}

// Pipelined tier 1 (the `pipe` kernels, for rows whose packs are all
// aligned): each thread copies its packs of the row after the current one
// into its own slots of shared memory (cp.async on sm_80 and later, so
// the copy needs no registers and runs while this row's reductions wait on
// barriers), then takes the current row from its slots. A thread only ever
// reads the slots it wrote itself, so the pipeline needs no barrier of its
// own. Shared memory: 2 stages x K packs x blockDim (x2 backward), and
// for masked kernels 2 stages x K x blockDim packs of mask bytes (a pack's
// worth: 4 for float32, 8 for the halves).
// SHIFT (the "pipe{K}s" and "pipe{K}cs" kernels: rows of a part pack,
// unmasked or causal without a mask buffer) copies each row from the pack
// boundary before it, as tier 1's shifted kernels read it (row_shift): its
// first pack holds the row before's last columns (inside the buffer: row 0
// starts on a boundary), its last pack is copied only up to the row's end
// and zero-filled past it (sm_async_copy_part), and take drops the columns
// outside [lo, l).

// Pipe is one thread's pipeline: its slots for one or two buffers (x, or
// y and dy) and, for masked kernels, the mask bytes, in two stages. Pack p
// of stage st of array arr is at base + ((arr*2 + st)*K + p)*stride (slot,
// below). Addresses are shared-space addresses taken once, and a row's
// offset is computed once for all its copies: the compiler had redone both
// for every copy (about 14 instructions per 16-byte copy; the half types'
// backward, 8 copies a row, spent a fifth of its instructions there).
template <typename T, int K, bool MASKED, int ARRAYS, bool SHIFT = false> struct Pipe {
	static constexpr int P = PackWidth<T, 64>::value;
	static constexpr bool MBUF = MASKED && !SHIFT; // a mask buffer may be copied
	typedef typename MaskWord<P>::type W;
	sm_saddr sa; // this thread's first slot (array 0, stage 0, pack 0)

	// ARRAYS is the number of data buffers (1 forward: x, 2 backward: y and
	// dy); the slots start at sm_dynamic. Everything but sa is recomputed
	// from blockDim and the group at each use, and a row's causal limit
	// from the row: the kernels at 64 registers spilled when more was kept
	// in registers, and the masked half kernels ran 20% slower when the
	// limits were kept in local memory.
	__device__ __forceinline__ Pipe() {
		sa = sm_shared_addr(reinterpret_cast<Pack<T, P>*>(sm_dynamic) + threadIdx.x);
	}
	// slot is pack p of stage st of data array arr (bytes between a
	// thread's packs: blockDim x 16).
	__device__ __forceinline__ sm_saddr slot(int arr, int st, int p) const {
		return sa + ((arr * 2 + st) * K + p) * (blockDim.x * 16u);
	}
	// mslot is the mask bytes of pack p of stage st (P bytes a pack, after
	// the data arrays).
	__device__ __forceinline__ sm_saddr mslot(int st, int p) const {
		return sa + (ARRAYS * 2 * K * 16u + (st * K + p) * P) * blockDim.x - threadIdx.x * (16u - P);
	}

	// fetch starts copying row's packs of a (and b) and its mask bytes into
	// stage st, and closes the group of copies.
	__device__ __forceinline__ void fetch(const T* a, const T* b, const View& v, const RowGroup& g, i64 row,
	                                      int st) {
		const bool valid = row < v.rows;
		const int lo = SHIFT ? row_shift<P>(row, v.n) : 0, hi = (int)v.n + lo;
		const int l = row_lim<MASKED>(v, row, valid) + lo;
		if (valid) {
			const i64 off = row * v.n - lo;
			const T* ra = sm_opaque(a + off);
			const T* rb = ARRAYS == 2 ? sm_opaque(b + off) : nullptr;
			const unsigned char* mr = MBUF && v.mask ? sm_opaque(v.mask + v.mask_row(row)) : nullptr;
			// SHIFT: forward rows whose last pack passes the buffer's end (the
			// last few) take fetch_tail, out of this loop (see
			// sm_async_copy_part). The backward's kernels run only where
			// rows x n is a whole number of packs (cuda pipeShiftFits), so
			// no copy passes the buffer's end: the check had cost the
			// half types' backward 5-8%, while without it the forward pipe4s
			// spills and ran 9-12% slower at 197 columns (GPU entry 92).
			if constexpr (SHIFT && SM_ASYNC_PART_WHOLE && ARRAYS == 1) {
				if (off + (hi + P - 1) / P * P > v.rows * v.n) {
					fetch_tail(ra, rb, g, l, hi, st);
					sm_async_commit();
					return;
				}
			}
#pragma unroll
			for (int p = 0; p < K; ++p) {
				const int col = (p * g.W + g.lane) * P;
				if (col < l) {
					if (SHIFT) {
						// Bytes of the pack up to the row's end: 16 but for its last.
						const unsigned b16 = (unsigned)min(16, (hi - col) * (int)sizeof(T));
						sm_async_copy_part(slot(0, st, p), ra + col, b16);
						if (ARRAYS == 2) sm_async_copy_part(slot(1, st, p), rb + col, b16);
					} else {
						sm_async_copy<16>(slot(0, st, p), ra + col);
						if (ARRAYS == 2) sm_async_copy<16>(slot(1, st, p), rb + col);
					}
					// The Go side takes the masked pipelined kernels only for masks
					// whose rows are runs of bytes (mstride 1) that start on a pack
					// boundary (gpu.MaskRowsAligned): one aligned copy per pack.
					if (MBUF && mr) sm_async_copy<P>(mslot(st, p), mr + col);
				}
			}
		}
		sm_async_commit();
	}

	// fetch_tail is fetch's copy for a row whose last pack passes the
	// buffer's end: that pack a byte at a time (sm_copy_part), no byte
	// past the row read. Not inlined, so fetch's loop stays as it was:
	// inlined, its branches had cost the half types' backward at 1025
	// columns 15% (GPU entry 90).
	__device__ __noinline__ void fetch_tail(const T* ra, const T* rb, const RowGroup& g, int l, int hi,
	                                        int st) const {
		for (int p = 0; p < K; ++p) {
			const int col = (p * g.W + g.lane) * P;
			if (col < l) {
				const unsigned b16 = (unsigned)min(16, (hi - col) * (int)sizeof(T));
				if (b16 < 16) {
					sm_copy_part(slot(0, st, p), ra + col, b16);
					if (ARRAYS == 2) sm_copy_part(slot(1, st, p), rb + col, b16);
				} else {
					sm_async_copy_part(slot(0, st, p), ra + col, b16);
					if (ARRAYS == 2) sm_async_copy_part(slot(1, st, p), rb + col, b16);
				}
			}
		}
	}

	// take reads pack p of stage st of array arr back (afresh, sm_lds_if)
	// into val as the compute type: fill for columns from the row's limit l
	// on, for invalid rows, and (masked, with a mask buffer) for columns
	// whose mask byte is 0; SHIFT: also for columns before lo (l counts
	// from the boundary, as fetch's does). The pack's mask word is read as the pack is
	// taken, so no row's worth of mask words stays live (the pipelined
	// masked kernels ran at a quarter of the SM's warps when they did). No
	// branch: packs past l are reads not made and selects, so a row's K
	// reads issue back to back.
	__device__ __forceinline__ void take(int arr, const View& v, const RowGroup& g, int l, int st, int p,
	                                     bool valid, typename Num<T>::acc fill, typename Num<T>::acc* val,
	                                     int lo = 0) const {
		static_assert(sizeof(Pack<T, P>) == 16, "slots hold 16-byte packs");
		const int col = (p * g.W + g.lane) * P;
		const bool in = valid && col < l;
		uint4 u = make_uint4(0u, 0u, 0u, 0u);
		sm_lds_if(in, slot(arr, st, p), u);
		Pack<T, P> pk;
		memcpy(&pk, &u, sizeof pk);
		W w = W(~0ull);
		if (MBUF && v.mask) sm_lds_if(in, mslot(st, p), w);
		// Packs not taken are cut at their own end (no cut: mask_cut's shift
		// is defined for cuts within a pack only), then dropped.
		if (MASKED || SHIFT) w = mask_cut<W, P>(w, col, in ? l : col + P);
		if (SHIFT && col < lo) w = (W)(w & (W)((W)~(W)0 << (8 * lo))); // col is 0 here, lo < P
		if (!in) w = 0;
#pragma unroll
		for (int j = 0; j < P; ++j) val[j] = w & ((W)0xff << (8 * j)) ? Num<T>::in(pk.v[j]) : fill;
	}
	// take_row takes all K packs of stage st of array arr.
	__device__ __forceinline__ void take_row(int arr, const View& v, const RowGroup& g, int l, int st, bool valid,
	                                         typename Num<T>::acc fill, typename Num<T>::acc* val, int lo = 0) const {
#pragma unroll
		for (int p = 0; p < K; ++p) take(arr, v, g, l, st, p, valid, fill, val + p * P, lo);
	}
};

// The pipelined kernels index rows in 32 bits: the Go side launches them
// only where rows + rows per block + the grid's rows per step, a bound on
// every row index their loops form, is below 2^31 (internal/gpu.PipeRowsFit;
// the cluster tier's cpipe kernels too). Three registers fewer
// than 64-bit indices, which the half kernels at K = 4 and 64 registers
// had spilled.
template <typename T, int K, bool MASKED, bool CLUSTER = false, bool SHIFT = false>
__device__ __forceinline__ void fwd_pipe(const T* x, T* y, const View& v, int W) {
	typedef typename Num<T>::acc A;
	constexpr int P = PackWidth<T, 64>::value, C = K * P;
	const RowGroup g(W, CLUSTER);
	Pipe<T, K, MASKED, 1, SHIFT> pp;
	const int step = (int)g.step(), end = (int)v.rows + g.off;
	pp.fetch(x, nullptr, v, g, g.first, 0);
	int st = 0;
	for (int row = (int)g.first; row < end; row += step, st ^= 1) {
		pp.fetch(x, nullptr, v, g, row + step, st ^ 1);
		sm_async_wait_prior(); // this row's copies have landed
		const bool valid = row < v.rows;
		const int lo = SHIFT ? row_shift<P>(row, v.n) : 0;
		const int lim = row_lim<MASKED>(v, row, valid) + lo;
		A val[C];
		pp.take_row(0, v, g, lim, st, valid, -sm_inf<A>(), val, lo);
		fwd_row<T, K, true, SHIFT, SHIFT>(x, y, v, row, valid, true, g, val, lo);
	}
	sm_async_wait_all();
	g.done();
}

// row_exact_bwd is row_exact_fwd for the backward pass.
template <typename T>
__device__ __forceinline__ void row_exact_bwd(const T* y, const T* dy, T* dx, const View& v, i64 row, bool active,
                                           const RowGroup& g) {
	typedef typename Num<T>::acc A;
	const int n = (int)v.n;
	const int kept = active ? (int)v.kept(row) : 0;
	const i64 mrow = active && v.mask ? v.mask_row(row) : 0;
	const i64 base = row * v.n;
	GradStats<A> gs{0.0, 0};
	if (active)
		for (int k = g.lane; k < n; k += g.W)
			if (v.keeps32(mrow, kept, k)) grad_add(v, gs, Num<T>::in(y[base + k]), Num<T>::in(dy[base + k]));
	gs = g.reduce(gs, GradOp(), GradStats<A>{0.0, 0});
	if (active)
		for (int k = g.lane; k < n; k += g.W)
			dx[base + k] = Num<T>::out(
			    grad_out<T>(v, v.keeps32(mrow, kept, k), Num<T>::in(y[base + k]), Num<T>::in(dy[base + k]), gs));
}

// GradAcc is one thread's share of a backward row before the group's
// reduction: the sum of its terms in the compute type (float32 for float32
// and the half types: at most 32 roundings, 2e-6 of the sum of |terms|,
// inside the 1e-5 gradient tolerance; 64 in the staged kernels at N = 64,
// where grad_row sums a row a thread, about 4e-6) and, for log-softmax,
// the largest y.
template <typename A> struct GradAcc {
	A part, ymax;
};
template <typename A> __device__ __forceinline__ GradAcc<A> grad_acc_init() { return GradAcc<A>{A(0), -sm_inf<A>()}; }
template <typename A> __device__ __forceinline__ void grad_acc(const View& v, GradAcc<A>& a, A y, A dy) {
	if (v.log) {
		a.part += dy;
		a.ymax = fmax(a.ymax, y);
	} else {
		a.part += dy * y;
	}
}

// grad_reduce combines the group's GradStats (part the thread's sum, any its
// log-softmax bits). Groups of at most a warp in float32 and the half types
// (tier 1's) sum in the compute type and take the bits from ballots, and
// softmax rows take no bits: 5 shuffles a row at a warp where a float64
// sum and an int took 15, the short rows' cost against PyTorch's 5
// (docs/PERFORMANCE.md GPU entry 109). A lane's part is a float32 sum
// already (at most 32 roundings, or pieces of 32 in float64 rounded once);
// the tree adds log2(W) more: under 3e-6 of the sum of |terms| in all,
// inside the 1e-5 tolerance. A c past float32's range comes out +-Inf,
// which the exact path takes as it takes any c past 2^102.
// LEAN = false keeps the float64 form everywhere, as HIP builds do
// (SM_LEAN_GRAD): tier 1's masked rows kernel takes it, whose half types'
// K = 4 spilled 168 bytes with the lean form against 88-96 without.
template <typename A, bool LEAN = true>
__device__ __forceinline__ GradStats<A> grad_reduce(const View& v, const RowGroup& g, double part, int any) {
	if (!LEAN || !SM_LEAN_GRAD || sizeof(A) == sizeof(double) || g.cluster || g.W > SM_WARP)
		return g.reduce(GradStats<A>{part, any}, GradOp(), GradStats<A>{0.0, 0});
	if (g.W == 1) return GradStats<A>{part, any}; // a thread a row (the staged kernels): nothing to combine
	const A c = warp_reduce(A(part), SumOp(), g.W);
	if (!v.log) return GradStats<A>{c, 0};
	return GradStats<A>{c, (g.in_group_any(any & 1) ? 1 : 0) | (g.in_group_any(any & 2) ? 2 : 0)};
}

// GradFin is a backward row's finished statistics as tier 1 applies them:
// whether the row takes the exact path, and the factors of its dx.
template <typename A> struct GradFin {
	bool exact, unit;
	SoftGrad<A> sg; // the scale and c in the compute type
	A k;
};

// grad_finish reduces the group's sums and largest y into the row's GradFin
// (grad_reduce: in float64 as Stats.s but in groups of at most a warp of the
// float32 compute type). For log-softmax, any's bit 0 says some y is
// above -Inf: from the maximum, which ignores NaN, so a row of NaN and -Inf
// goes to the exact path, which counts NaN; bit 1 says some y is above 64,
// past what log_grad takes. One reduction gives all three (grad_reduce's
// lean form: the sum's, and a ballot for each bit).
// part is the thread's sum (bwd_rows_packed adds pieces of 32 terms in
// float64), ymax its largest y.
template <typename T, bool LEAN = true>
__device__ __forceinline__ GradFin<typename Num<T>::acc> grad_finish(const View& v, const RowGroup& g, bool valid,
                                                                     double part, typename Num<T>::acc ymax) {
	typedef typename Num<T>::acc A;
	const GradStats<A> gs = grad_reduce<A, LEAN>(v, g, part, (ymax > -sm_inf<A>() ? 1 : 0) | (ymax > A(64) ? 2 : 0));
	const double c = gs.c, sc = v.scale * c;
	GradFin<A> f{false, false, SoftGrad<A>(v.scale, c)};
	// The exact path takes rows whose c is not finite or at least 2^102,
	// softmax rows at scales past 2^22 (SoftGrad::fits, written out: the
	// call spilled in tier 1's wide kernel, and log-softmax rows take the
	// c test too, which changes only their speed past 5e30), and
	// log-softmax rows that log_grad cannot take.
	f.exact = valid && (!(fabs(c) < 0x1p102) || (!v.log && v.scale > 0x1p22) ||
	                    (v.log && (!(gs.any & 1) || !log_grad_fast<T>(sc, gs.any & 2))));
	// A scale of 1 (the common case) skips a multiply per element.
	f.unit = v.scale == 1.0;
	f.k = v.log ? log_grad_k<A>(sc) : A(0); // log_grad's factor: log-softmax rows only
	return f;
}

// grad_apply turns N (y, dy) of a normal row into dx, in place of dy.
template <typename A, int N>
__device__ __forceinline__ void grad_apply(const View& v, const GradFin<A>& f, const A* y, A* g) {
	if (v.log && f.unit) {
#pragma unroll
		for (int i = 0; i < N; ++i) g[i] = log_grad(y[i], g[i], f.k);
	} else if (v.log) {
#pragma unroll
		for (int i = 0; i < N; ++i) g[i] = log_grad(y[i], f.sg.s * g[i], f.k);
	} else if (f.unit) {
#pragma unroll
		for (int i = 0; i < N; ++i) g[i] = y[i] * (g[i] - f.sg.c);
	} else {
#pragma unroll
		for (int i = 0; i < N; ++i) g[i] = f.sg.at(y[i], g[i]);
	}
}

// KeepLoaded is grad_row's default Reload: the caller's vy and vg stay
// in registers across the exact path.
struct KeepLoaded {
	__device__ __forceinline__ void operator()() const {}
};

// grad_row turns the C (y, dy) of a backward row that this thread holds in
// vy and vg into dx, in place of vg, and says whether the caller is to
// store them: not for rows past the last or rows the exact path wrote.
// reload, where the group ran the exact path for another row, loads this
// row's vy and vg again: a Reload that does so leaves them dead across
// the exact path, whose registers they would otherwise add to.
template <typename T, int C, bool LEAN = true, typename Reload = KeepLoaded>
__device__ __forceinline__ bool grad_row(const T* y, const T* dy, T* dx, const View& v, i64 row, bool valid,
                                         const RowGroup& g, typename Num<T>::acc* vy, typename Num<T>::acc* vg,
                                         Reload reload = Reload()) {
	typedef typename Num<T>::acc A;
	GradAcc<A> a = grad_acc_init<A>();
#pragma unroll
	for (int i = 0; i < C; ++i) grad_acc(v, a, vy[i], vg[i]);
	const GradFin<A> f = grad_finish<T, LEAN>(v, g, valid, (double)a.part, a.ymax);
	if (g.any(f.exact)) {
		row_exact_bwd<T>(y, dy, dx, v, row, f.exact, g);
		if (f.exact) return false;
		reload();
	}
	if (!valid) return false;
	grad_apply<A, C>(v, f, vy, vg);
	return true;
}

// bwd_row finishes one backward row whose (y, dy) this thread holds in vy
// and vg (masked entries already (0, 0), log (-Inf, 0)).
template <typename T, int K, bool SHIFT = false, bool STORE16 = false, bool LEAN = true>
__device__ __forceinline__ void bwd_row(const T* y, const T* dy, T* dx, const View& v, i64 row, bool valid, bool vec,
                                        const RowGroup& g, typename Num<T>::acc* vy, typename Num<T>::acc* vg,
                                        int lo = 0) {
	constexpr int C = K * PackWidth<T, 64>::value;
	if (grad_row<T, C, LEAN>(y, dy, dx, v, row, valid, g, vy, vg))
		row_store<T, K, SHIFT, STORE16>(dx + (row * v.n - lo), (int)v.n + lo, g, vec, vg, lo);
}

template <typename T, int K, bool MASKED, bool CLUSTER = false, bool SHIFT = false>
__device__ __forceinline__ void bwd_rows(const T* y, const T* dy, T* dx, const View& v, bool vec, int W) {
	typedef typename Num<T>::acc A;
	constexpr int P = PackWidth<T, 64>::value, C = K * P;
	const RowGroup g(W, CLUSTER);
	const A yfill = v.log ? -sm_inf<A>() : A(0); // a masked y: contributes nothing
	for (i64 row = g.first; row - g.off < v.rows; row += g.step()) {
		const bool valid = row < v.rows;
		const int lo = SHIFT ? row_shift<P>(row, v.n) : 0, hi = (int)v.n + lo;
		const i64 base = row * v.n - lo;
		A vy[C], vg[C];
		const int lim = row_lim<MASKED>(v, row, valid) + lo;
		const i64 mrow = MASKED && valid && v.mask ? v.mask_row(row) : 0;
		row_load<T, K, SHIFT>(y + base, lim, g, valid, vec, yfill, vy, lo, hi);
		row_load<T, K, SHIFT>(dy + base, lim, g, valid, vec, A(0), vg, lo, hi);
		if (MASKED && valid) {
			const RowKeep<T, K> keep = row_keep_load<T, K, SHIFT>(v, mrow, lim, g, vec, lo);
			keep.apply(g, yfill, vy);
			keep.apply(g, A(0), vg);
		}
		bwd_row<T, K, SHIFT, false, !MASKED>(y, dy, dx, v, row, valid, vec, g, vy, vg, lo);
	}
	g.done();
}

// bwd_pipe indexes rows in 32 bits as fwd_pipe does.
template <typename T, int K, bool MASKED, bool CLUSTER = false, bool SHIFT = false>
__device__ __forceinline__ void bwd_pipe(const T* y, const T* dy, T* dx, const View& v, int W) {
	typedef typename Num<T>::acc A;
	constexpr int P = PackWidth<T, 64>::value, C = K * P;
	const RowGroup g(W, CLUSTER);
	Pipe<T, K, MASKED, 2, SHIFT> pp;
	const A yfill = v.log ? -sm_inf<A>() : A(0);
	const int step = (int)g.step(), end = (int)v.rows + g.off;
	pp.fetch(y, dy, v, g, g.first, 0);
	int st = 0;
	for (int row = (int)g.first; row < end; row += step, st ^= 1) {
		pp.fetch(y, dy, v, g, row + step, st ^ 1);
		sm_async_wait_prior();
		const bool valid = row < v.rows;
		const int lo = SHIFT ? row_shift<P>(row, v.n) : 0;
		const int lim = row_lim<MASKED>(v, row, valid) + lo;
		A vy[C], vg[C];
		pp.take_row(0, v, g, lim, st, valid, yfill, vy, lo);
		pp.take_row(1, v, g, lim, st, valid, A(0), vg, lo);
		bwd_row<T, K, SHIFT, SHIFT>(y, dy, dx, v, row, valid, true, g, vy, vg, lo);
	}
	sm_async_wait_all();
	g.done();
}

// bwd_rows_packed is tier 1's wide backward (unmasked rows of aligned
// packs, groups of at least a warp: the Go side's gpu.WideShape), K packs
// of y and of dy a thread. Like fwd_rows_packed it keeps the packs as
// loaded and converts them in each pass (the sum, then dx), so that a
// half type would hold them in half the registers of bwd_rows' converted
// row (only float32 is instantiated: softmax.cu). Arithmetic as bwd_row's,
// the sum in pieces of 32 terms; a row on the exact path leaves before its
// packs are used again, so none is held across that path.
template <typename T, int K>
__device__ __forceinline__ void bwd_rows_packed(const T* y, const T* dy, T* dx, const View& v, int W) {
	typedef typename Num<T>::acc A;
	constexpr int P = PackWidth<T, 64>::value, C = K * P;
	static_assert(C <= 32 || C % 32 == 0, "the sum's pieces of 32 terms take every term");
	typedef Pack<T, P> PK;
	const RowGroup g(W);
	PK yfill, zero; // columns past n: y as bwd_rows fills it, dy 0
#pragma unroll
	for (int j = 0; j < P; ++j) {
		yfill.v[j] = Num<T>::out(v.log ? -sm_inf<A>() : A(0));
		zero.v[j] = Num<T>::out(A(0));
	}
	for (i64 row = g.first; row - g.off < v.rows; row += g.step()) {
		const bool valid = row < v.rows;
		const int n = (int)v.n;
		PK py[K], pd[K];
#pragma unroll
		for (int p = 0; p < K; ++p) {
			const int col = (p * g.W + g.lane) * P;
			const bool in = valid && col < n;
			py[p] = in ? *reinterpret_cast<const PK*>(y + row * v.n + col) : yfill;
			pd[p] = in ? *reinterpret_cast<const PK*>(dy + row * v.n + col) : zero;
		}
		GradAcc<A> a = grad_acc_init<A>();
		double wide = 0.0;
#pragma unroll
		for (int p = 0; p < K; ++p)
#pragma unroll
			for (int j = 0; j < P; ++j) {
				grad_acc(v, a, Num<T>::in(py[p].v[j]), Num<T>::in(pd[p].v[j]));
				if (C > 32 && (p * P + j) % 32 == 31) {
					wide += (double)a.part;
					a.part = A(0);
				}
			}
		const GradFin<A> f = grad_finish<T>(v, g, valid, C > 32 ? wide : (double)a.part, a.ymax);
		if (f.exact) { // the group's: a warp or more
			row_exact_bwd<T>(y, dy, dx, v, row, true, g);
			continue;
		}
		if (!valid) continue;
#pragma unroll
		for (int p = 0; p < K; ++p) {
			pack_opaque(py[p]);
			pack_opaque(pd[p]);
		}
		T* dr = dx + row * v.n;
#pragma unroll
		for (int p = 0; p < K; ++p) {
			const int col = (p * g.W + g.lane) * P;
			if (col >= n) continue;
			A yv[P], gv[P];
#pragma unroll
			for (int j = 0; j < P; ++j) {
				yv[j] = Num<T>::in(py[p].v[j]);
				gv[j] = Num<T>::in(pd[p].v[j]);
			}
			grad_apply<A, P>(v, f, yv, gv);
			PK o;
#pragma unroll
			for (int j = 0; j < P; ++j) o.v[j] = Num<T>::out(gv[j]);
			*reinterpret_cast<PK*>(dr + col) = o;
		}
	}
}

// bwd_rows_strided is tier 1's strided backward (unmasked rows of any
// alignment, groups of up to a warp: the Go side's gpu.StridedShape): E
// columns of y and of dy a thread, column i * W + lane, each loaded alone,
// as PyTorch's softmax_warp_backward does. A group's loads of a column
// step are adjacent, so they coalesce whatever the row's start; the
// shifted kernels read rows of a part pack from the pack boundary before
// them instead, and spend instructions on the shift. Arithmetic as
// bwd_row's (grad_row; at most 32 terms a thread's sum). WC is the group
// at compile time (0: W, at run time): with WC = 32 every column's
// address is the lane's pointer plus a constant, so each load and store
// is one instruction where a run-time W gave each its own 64-bit address
// (16 address registers' pairs at E = 8). The rows are loaded again after
// the exact path (grad_row's reload), so they are not live across it.
// ONCE: the grid has a group for every row (the one-row kernels): no loop
// over rows, whose row, step and bounds stay live across it.
template <typename T, int E, int WC, bool ONCE = false>
__device__ __forceinline__ void bwd_rows_strided(const T* y, const T* dy, T* dx, const View& v, int Wr) {
	typedef typename Num<T>::acc A;
	static_assert(E <= 32, "a thread's float32 sum takes at most 32 terms");
	const int W = WC ? WC : Wr;
	const RowGroup g(W, RowGroup::Shifted{});
	const A yfill = v.log ? -sm_inf<A>() : A(0); // columns past n: contribute nothing
	const int n = (int)v.n;
	for (i64 row = g.first; row - g.off < v.rows; row += g.step()) {
		const bool valid = row < v.rows;
		const i64 at = (valid ? row * v.n : 0) + g.lane; // this lane's first column
		const T* yl = y + at;
		const T* dyl = dy + at;
		A vy[E], vg[E];
		const auto load = [&] {
#pragma unroll
			for (int i = 0; i < E; ++i) {
				const bool in = valid && i * W + g.lane < n;
				vy[i] = in ? Num<T>::in(yl[i * W]) : yfill;
				vg[i] = in ? Num<T>::in(dyl[i * W]) : A(0);
			}
		};
		load();
		if (grad_row<T, E>(y, dy, dx, v, row, valid, g, vy, vg, load)) {
			T* dxl = dx + at;
#pragma unroll
			for (int i = 0; i < E; ++i)
				if (i * W + g.lane < n) dxl[i * W] = Num<T>::out(vg[i]);
		}
		if (ONCE) break;
	}
}

// fwd_rows_strided is the forward of tier 1's strided kernels (unmasked,
// non-causal rows of any alignment, groups of up to a warp:
// gpu.StridedShape): E columns a thread, column i * W + lane, each loaded
// alone, as bwd_rows_strided loads y and dy, with its constant-offset form
// where WC = 32. Arithmetic as fwd_row's (fwd_vals); rows the fast path
// cannot finish are taken again from memory after the others are stored,
// as there. ONCE as bwd_rows_strided's.
template <typename T, int E, int WC, bool ONCE = false>
__device__ __forceinline__ void fwd_rows_strided(const T* x, T* y, const View& v, int Wr) {
	typedef typename Num<T>::acc A;
	const int W = WC ? WC : Wr;
	const RowGroup g(W, RowGroup::Shifted{});
	const int n = (int)v.n;
	for (i64 row = g.first; row - g.off < v.rows; row += g.step()) {
		const bool valid = row < v.rows;
		const i64 at = (valid ? row * v.n : 0) + g.lane; // this lane's first column
		const T* xl = x + at;
		A val[E];
#pragma unroll
		for (int i = 0; i < E; ++i) val[i] = valid && i * W + g.lane < n ? Num<T>::in(xl[i * W]) : -sm_inf<A>();
		const bool exact = fwd_vals<T, E, true>(v, valid, g, val);
		if (valid && !exact) {
			T* yl = y + at;
#pragma unroll
			for (int i = 0; i < E; ++i)
				if (i * W + g.lane < n) yl[i * W] = Num<T>::out(val[i]);
		}
		if (g.any(exact)) row_exact_fwd<T>(x, y, v, row, exact, g);
		if (ONCE) break;
	}
}

// bwd_rows_strided_batch is the one-row strided backward (groups of a
// warp, a group for every R rows) for short rows: each lane loads its E
// columns of y and dy of all R rows before the first row's sum, as
// PyTorch's softmax_warp_backward does with WARP_BATCH rows a warp, so a
// thread has R times the loads in flight that bwd_rows_strided's one row
// gives it. The rows are then finished one after another, as
// bwd_rows_strided finishes its row (grad_row, the exact path, the
// reload). A warp whose first row is past the last leaves at once: its
// reductions are its own.
template <typename T, int E, int R>
__device__ __forceinline__ void bwd_rows_strided_batch(const T* y, const T* dy, T* dx, const View& v) {
	typedef typename Num<T>::acc A;
	static_assert(E <= 32, "a thread's float32 sum takes at most 32 terms");
	constexpr int W = 32;
	const RowGroup g(W, RowGroup::Shifted{});
	const i64 first = g.first * R;
	if (first >= v.rows) return;
	const A yfill = v.log ? -sm_inf<A>() : A(0); // columns past n: contribute nothing
	const int n = (int)v.n;
	A vy[R][E], vg[R][E];
	const auto load = [&](int r) {
		const i64 row = first + r;
		const bool valid = row < v.rows;
		const i64 at = (valid ? row * v.n : 0) + g.lane;
#pragma unroll
		for (int i = 0; i < E; ++i) {
			const bool in = valid && i * W + g.lane < n;
			vy[r][i] = in ? Num<T>::in(y[at + i * W]) : yfill;
			vg[r][i] = in ? Num<T>::in(dy[at + i * W]) : A(0);
		}
	};
#pragma unroll
	for (int r = 0; r < R; ++r) load(r);
#pragma unroll
	for (int r = 0; r < R; ++r) {
		const i64 row = first + r;
		const bool valid = row < v.rows;
		if (grad_row<T, E>(y, dy, dx, v, row, valid, g, vy[r], vg[r], [&] { load(r); })) {
			T* dxl = dx + row * v.n + g.lane;
#pragma unroll
			for (int i = 0; i < E; ++i)
				if (i * W + g.lane < n) dxl[i * W] = Num<T>::out(vg[r][i]);
		}
	}
}

// -------------------------------------- tier 1: staged rows, a thread a row --
// fwd_rows_staged and bwd_rows_staged take short rows (n <= N columns, N at
// most 64: internal/gpu.StagedShape), unmasked and non-causal, a thread a
// row in blocks of SM_STAGED_THREADS. A block's rows lie back to back in
// memory, so the block copies them into shared memory as 16-byte packs,
// every load whole and coalesced whatever the rows' starts; each thread
// takes its row from there, with no shuffle (a row is one thread's), and
// the block copies the outputs back out as packs. Tier 1's other kernels
// give such a row a group of lanes: of a pack each, which the rows' ends
// cut when n is not a whole number of packs, or of a column each (the
// strided kernels, PyTorch's layout), half a warp's lanes idle at 10
// columns. The buffers must start on 16 bytes; a block's rows then do
// (SM_STAGED_THREADS * sizeof(T) is a multiple of 16).
#define SM_STAGED_THREADS 128

// staged_turn is the column a thread starts its row at in shared memory.
// Rows of a whole number of 8-byte pairs (n * sizeof(T) a multiple of 8)
// start on banks whose spacing shares a factor with the 32 banks, so a
// warp reading column i of its 32 rows asks up to 32 times of one bank (n
// = 32, float32); starting thread t at column t mod n spreads them to at
// most 4 (n = 4 and 8), 2 for most n. Other rows read from column 0 (at
// most 2 a bank).
template <typename T> __device__ __forceinline__ int staged_turn(int n) {
	return n * (int)sizeof(T) % 8 == 0 ? (int)(threadIdx.x % (unsigned)n) : 0;
}
// staged_col is the column of a row's i-th read (i < n): turn + i, past n
// wrapped to the row's start.
__device__ __forceinline__ int staged_col(int turn, int i, int n) {
	const int j = turn + i;
	return j >= n ? j - n : j;
}

// staged_copy copies count elements of each of the A arrays src[a] to
// dst[a] in 16-byte packs (the arrays start on 16 bytes), at most U packs
// a thread of each, in rounds of C of them, all of a round's loads issued
// before its first store; the last count mod P elements (only in the
// buffer's last block) one at a time. (Copying in through cp.async, which
// holds no registers, ran 5-14% slower at 10 columns, docs/PERFORMANCE.md
// GPU entry 103.)
template <typename T, int U, int A, int C = U>
__device__ __forceinline__ void staged_copy(T* const (&dst)[A], const T* const (&src)[A], int count) {
	constexpr int P = 16 / (int)sizeof(T);
	const int packs = count / P;
#pragma unroll
	for (int c = 0; c < U; c += C) {
		Pack<T, P> r[A][C];
#pragma unroll
		for (int u = 0; u < C; ++u) {
			const int i = (int)threadIdx.x + (c + u) * SM_STAGED_THREADS;
#pragma unroll
			for (int a = 0; a < A; ++a)
				if (c + u < U && i < packs) r[a][u] = reinterpret_cast<const Pack<T, P>*>(src[a])[i];
		}
#pragma unroll
		for (int u = 0; u < C; ++u) {
			const int i = (int)threadIdx.x + (c + u) * SM_STAGED_THREADS;
#pragma unroll
			for (int a = 0; a < A; ++a)
				if (c + u < U && i < packs) reinterpret_cast<Pack<T, P>*>(dst[a])[i] = r[a][u];
		}
	}
	for (int i = packs * P + (int)threadIdx.x; i < count; i += SM_STAGED_THREADS)
#pragma unroll
		for (int a = 0; a < A; ++a) dst[a][i] = src[a][i];
}

// StagedSpan is the rows a staged block copies: ROWS rows of at most N
// columns from its first row, count elements in all (fewer rows in the
// last block). U is the packs a thread copies of each array.
template <typename T, int ROWS, int N> struct StagedSpan {
	static constexpr int Rows = ROWS;
	static constexpr int U = (ROWS * N * (int)sizeof(T) + 16 * SM_STAGED_THREADS - 1) / (16 * SM_STAGED_THREADS);
	i64 first;
	int n, count;
	__device__ __forceinline__ explicit StagedSpan(const View& v) {
		n = (int)v.n;
		first = (i64)blockIdx.x * ROWS;
		const i64 left = v.rows - first;
		count = (int)(left < ROWS ? left : ROWS) * n;
	}
};

// StagedBlock is the span of a staged block of R rows a thread
// (SM_STAGED_THREADS * R rows) and where this thread starts its rows:
// thread t's are t, t + SM_STAGED_THREADS, ..., so R times the bytes in
// flight as the block copies them in.
template <typename T, int N, int R> struct StagedBlock : StagedSpan<T, SM_STAGED_THREADS * R, N> {
	int turn;
	__device__ __forceinline__ explicit StagedBlock(const View& v) : StagedSpan<T, SM_STAGED_THREADS * R, N>(v) {
		turn = staged_turn<T>(this->n);
	}
	// row is the offset in the block's rows of this thread's r-th row.
	__device__ __forceinline__ int row(int r) const { return ((int)threadIdx.x + r * SM_STAGED_THREADS) * this->n; }
};

// fwd_rows_staged: arithmetic as fwd_row's (fwd_vals, then row_exact_fwd
// for the rows it cannot finish, here over the row in shared memory, in
// place: each element is read before it is written).
template <typename T, int N, int R> __device__ __forceinline__ void fwd_rows_staged(const T* x, T* y, const View& v) {
	typedef typename Num<T>::acc A;
	typedef StagedBlock<T, N, R> Block;
	const Block b(v);
	T* s = reinterpret_cast<T*>(sm_dynamic);
	staged_copy<T, Block::U, 1>({s}, {x + b.first * b.n}, b.count);
	__syncthreads();
	const RowGroup g(1, RowGroup::Shifted{});
#pragma unroll 1
	for (int r = 0; r < R; ++r) {
		const bool valid = b.row(r) < b.count;
		T* row = s + b.row(r);
		A val[N];
#pragma unroll
		for (int i = 0; i < N; ++i)
			val[i] = valid && i < b.n ? Num<T>::in(row[staged_col(b.turn, i, b.n)]) : -sm_inf<A>();
		const bool exact = fwd_vals<T, N, true>(v, valid, g, val);
		if (valid && !exact)
#pragma unroll
			for (int i = 0; i < N; ++i)
				if (i < b.n) row[staged_col(b.turn, i, b.n)] = Num<T>::out(val[i]);
		if (g.any(exact)) row_exact_fwd<T>(row, row, v, 0, exact, g);
	}
	__syncthreads();
	staged_copy<T, Block::U, 1>({y + b.first * b.n}, {s}, b.count);
}

// bwd_rows_staged: y and dy staged side by side, dx written over dy's
// row; arithmetic as bwd_row's (grad_row, whose exact path reads and
// writes the rows in shared memory, an element's dx after its y and dy).
// A row a thread (R = 1): at 2 the backward ran slower everywhere (GPU
// entry 103).
template <typename T, int N>
__device__ __forceinline__ void bwd_rows_staged(const T* y, const T* dy, T* dx, const View& v) {
	typedef typename Num<T>::acc A;
	typedef StagedBlock<T, N, 1> Block;
	const Block b(v);
	T* sy = reinterpret_cast<T*>(sm_dynamic);
	T* sg = sy + SM_STAGED_THREADS * b.n; // 16-byte aligned: SM_STAGED_THREADS * sizeof(T) is a multiple of 16
	staged_copy<T, Block::U, 2>({sy, sg}, {y + b.first * b.n, dy + b.first * b.n}, b.count);
	__syncthreads();
	const RowGroup g(1, RowGroup::Shifted{});
	const A yfill = v.log ? -sm_inf<A>() : A(0); // columns past n: contribute nothing
	const bool valid = b.row(0) < b.count;
	T* ry = sy + b.row(0);
	T* rg = sg + b.row(0);
	A vy[N], vg[N];
#pragma unroll
	for (int i = 0; i < N; ++i) {
		const bool in = valid && i < b.n;
		const int j = staged_col(b.turn, i, b.n);
		vy[i] = in ? Num<T>::in(ry[j]) : yfill;
		vg[i] = in ? Num<T>::in(rg[j]) : A(0);
	}
	if (grad_row<T, N>(ry, rg, rg, v, 0, valid, g, vy, vg))
#pragma unroll
		for (int i = 0; i < N; ++i)
			if (i < b.n) rg[staged_col(b.turn, i, b.n)] = Num<T>::out(vg[i]);
	__syncthreads();
	staged_copy<T, Block::U, 1>({dx + b.first * b.n}, {sg}, b.count);
}

// fwd_rows_stagedw and bwd_rows_stagedw stage rows as the kernels above do
// but give each row a warp, E columns a lane (column i * 32 + lane, as the
// strided kernels take them from memory), for rows too long for a thread:
// up to 32 * E columns. A block of SM_STAGED_THREADS takes RW rows a warp,
// one after another. Rows of a part pack are what they are for: the
// other kernels either load such a row a column at a time (the strided
// kernels: a 2-byte load a lane for the half types) or shift it onto pack
// boundaries and cut its two end packs (the shifted kernels); here every
// load and store to memory is a whole 16-byte pack, and a block has its
// rows' bytes in flight at once. A block's rows start on 16 bytes where
// its rows times sizeof(T) are a multiple of 16 (RW >= 2 for the half
// types: internal/gpu.StagedWarpRs).
template <typename T, int E, int RW> struct StagedWarp {
	typedef StagedSpan<T, SM_STAGED_THREADS / SM_WARP * RW, E * SM_WARP> Block;
	// C is staged_copy's round: two packs a thread of each array. At four
	// of the forward's one array, ptxas spilled 72-148 bytes (sm_90, 40
	// registers).
	static constexpr int C = Block::U < 2 ? Block::U : 2;
	// at is the offset in the block's rows of warp w's r-th row.
	static __device__ __forceinline__ int at(const Block& b, int w, int r) { return (w * RW + r) * b.n; }
};

// fwd_rows_stagedw: arithmetic as fwd_rows_strided's (fwd_vals, then
// row_exact_fwd over the row in shared memory, in place, as
// fwd_rows_staged's).
template <typename T, int E, int RW> __device__ __forceinline__ void fwd_rows_stagedw(const T* x, T* y, const View& v) {
	typedef typename Num<T>::acc A;
	typedef StagedWarp<T, E, RW> S;
	const typename S::Block b(v);
	T* s = reinterpret_cast<T*>(sm_dynamic);
	staged_copy<T, S::Block::U, 1, S::C>({s}, {x + b.first * b.n}, b.count);
	__syncthreads();
	const RowGroup g(SM_WARP, RowGroup::Shifted{});
#pragma unroll 1
	for (int r = 0; r < RW; ++r) {
		const int at = S::at(b, g.off, r);
		if (at >= b.count) break; // the warp's rows are its own: no reduction waits on it
		T* row = s + at;
		T* l = row + g.lane;
		A val[E];
#pragma unroll
		for (int i = 0; i < E; ++i) val[i] = i * SM_WARP + g.lane < b.n ? Num<T>::in(l[i * SM_WARP]) : -sm_inf<A>();
		const bool exact = fwd_vals<T, E, true>(v, true, g, val);
		if (!exact)
#pragma unroll
			for (int i = 0; i < E; ++i)
				if (i * SM_WARP + g.lane < b.n) l[i * SM_WARP] = Num<T>::out(val[i]);
		if (exact) row_exact_fwd<T>(row, row, v, 0, true, g); // the row's every lane
	}
	__syncthreads();
	staged_copy<T, S::Block::U, 1, S::C>({y + b.first * b.n}, {s}, b.count);
}

// bwd_rows_stagedw: y and dy staged one after the other, dx written over
// dy's row; arithmetic as bwd_rows_strided's (grad_row, whose exact path
// reads and writes the rows in shared memory, an element's dx after its y
// and dy).
template <typename T, int E, int RW>
__device__ __forceinline__ void bwd_rows_stagedw(const T* y, const T* dy, T* dx, const View& v) {
	typedef typename Num<T>::acc A;
	typedef StagedWarp<T, E, RW> S;
	static_assert(E <= 32, "a thread's float32 sum takes at most 32 terms");
	const typename S::Block b(v);
	T* sy = reinterpret_cast<T*>(sm_dynamic);
	T* sg = sy + S::Block::Rows * b.n; // on 16 bytes: see StagedWarp
	staged_copy<T, S::Block::U, 2, S::C>({sy, sg}, {y + b.first * b.n, dy + b.first * b.n}, b.count);
	__syncthreads();
	const RowGroup g(SM_WARP, RowGroup::Shifted{});
	const A yfill = v.log ? -sm_inf<A>() : A(0); // columns past n: contribute nothing
#pragma unroll 1
	for (int r = 0; r < RW; ++r) {
		const int at = S::at(b, g.off, r);
		if (at >= b.count) break;
		T* ry = sy + at;
		T* rg = sg + at;
		A vy[E], vg[E];
#pragma unroll
		for (int i = 0; i < E; ++i) {
			const bool in = i * SM_WARP + g.lane < b.n;
			vy[i] = in ? Num<T>::in(ry[i * SM_WARP + g.lane]) : yfill;
			vg[i] = in ? Num<T>::in(rg[i * SM_WARP + g.lane]) : A(0);
		}
		if (grad_row<T, E>(ry, rg, rg, v, 0, true, g, vy, vg))
#pragma unroll
			for (int i = 0; i < E; ++i)
				if (i * SM_WARP + g.lane < b.n) rg[i * SM_WARP + g.lane] = Num<T>::out(vg[i]);
	}
	__syncthreads();
	staged_copy<T, S::Block::U, 1, S::C>({dx + b.first * b.n}, {sg}, b.count);
}

// -------------------------------- tier 2: block per row, row in shared memory --
// Rows too long for a warp that still fit in shared memory (up to the
// device's opt-in limit per block: 227 KB on the H200, so 58K float32
// columns forward, half that backward). The block copies the row from
// global memory into shared memory while taking the maximum, then sums and
// writes from shared memory: the row is read from memory once.

template <typename T>
__device__ __forceinline__ void fwd_cached(const T* x, T* y, const View& v, bool vec) {
	typedef typename Num<T>::acc A;
	constexpr int P = PackWidth<T, 16>::value;
	T* cache = reinterpret_cast<T*>(sm_dynamic);
	const int n = (int)v.n; // the row fits shared memory: 32-bit indices
	for (i64 row = blockIdx.x; row < v.rows; row += gridDim.x) {
		const int kept = (int)v.kept(row);
		const i64 mrow = v.mask ? v.mask_row(row) : 0;
		const T* xr = x + row * v.n;
		T* yr = y + row * v.n;
		Stats<A> st = stats_init<A>();
		if (vec) {
			for (int pk = threadIdx.x; pk < n / P; pk += blockDim.x) {
				const Pack<T, P> p = reinterpret_cast<const Pack<T, P>*>(xr)[pk];
				reinterpret_cast<Pack<T, P>*>(cache)[pk] = p;
#pragma unroll
				for (int j = 0; j < P; ++j)
					if (v.keeps32(mrow, kept, pk * P + j)) add_max(st, Num<T>::in(p.v[j]));
			}
		} else {
			for (int k = threadIdx.x; k < n; k += blockDim.x) {
				const T t = xr[k];
				cache[k] = t;
				if (v.keeps32(mrow, kept, k)) add_max(st, Num<T>::in(t));
			}
		}
		Fin<A> f = finish(block_reduce(st, MaxOp<A>(), stats_init<A>())); // also publishes the cache
		A s = A(0);
		if (f.kind == ROW_NORMAL)
			for (int k = threadIdx.x; k < n; k += blockDim.x)
				if (v.keeps32(mrow, kept, k)) s += sm_expx(Num<T>::in(cache[k]), f.m, v.ex);
		set_sum(f, block_reduce(s, SumOp(), A(0)), v.log);
		if (vec) {
			for (int pk = threadIdx.x; pk < n / P; pk += blockDim.x) {
				const Pack<T, P> p = reinterpret_cast<const Pack<T, P>*>(cache)[pk];
				A o[P];
#pragma unroll
				for (int j = 0; j < P; ++j) o[j] = fwd_out<T>(v, v.keeps32(mrow, kept, pk * P + j), Num<T>::in(p.v[j]), f);
				store_pack<T, P>(yr, pk * P, n, true, o);
			}
		} else {
			for (int k = threadIdx.x; k < n; k += blockDim.x)
				yr[k] = Num<T>::out(fwd_out<T>(v, v.keeps32(mrow, kept, k), Num<T>::in(cache[k]), f));
		}
		__syncthreads(); // the next row overwrites the cache
	}
}

template <typename T>
__device__ __forceinline__ void bwd_cached(const T* y, const T* dy, T* dx, const View& v, bool vec) {
	typedef typename Num<T>::acc A;
	constexpr int P = PackWidth<T, 16>::value;
	T* cy = reinterpret_cast<T*>(sm_dynamic);
	T* cg = cy + v.n;
	for (i64 row = blockIdx.x; row < v.rows; row += gridDim.x) {
		const i64 kept = v.kept(row), mrow = v.mask ? v.mask_row(row) : 0;
		const i64 base = row * v.n;
		GradStats<A> g{A(0), 0};
		if (vec && v.n % (2 * P) == 0) { // then cg is 16-byte aligned too
			for (i64 pk = threadIdx.x; pk < v.n / P; pk += blockDim.x) {
				const Pack<T, P> a = reinterpret_cast<const Pack<T, P>*>(y + base)[pk];
				const Pack<T, P> b = reinterpret_cast<const Pack<T, P>*>(dy + base)[pk];
				reinterpret_cast<Pack<T, P>*>(cy)[pk] = a;
				reinterpret_cast<Pack<T, P>*>(cg)[pk] = b;
#pragma unroll
				for (int j = 0; j < P; ++j)
					if (v.keeps(mrow, kept, pk * P + j)) grad_add(v, g, Num<T>::in(a.v[j]), Num<T>::in(b.v[j]));
			}
		} else {
			for (i64 k = threadIdx.x; k < v.n; k += blockDim.x) {
				const T a = y[base + k], b = dy[base + k];
				cy[k] = a;
				cg[k] = b;
				if (v.keeps(mrow, kept, k)) grad_add(v, g, Num<T>::in(a), Num<T>::in(b));
			}
		}
		g = block_reduce(g, GradOp(), GradStats<A>{A(0), 0});
		if (vec) {
			for (i64 pk = threadIdx.x; pk < v.n / P; pk += blockDim.x) {
				A o[P];
#pragma unroll
				for (int j = 0; j < P; ++j) {
					const i64 k = pk * P + j;
					o[j] = grad_out<T>(v, v.keeps(mrow, kept, k), Num<T>::in(cy[k]), Num<T>::in(cg[k]), g);
				}
				store_pack<T, P>(dx + base, pk * P, v.n, true, o);
			}
		} else {
			for (i64 k = threadIdx.x; k < v.n; k += blockDim.x)
				dx[base + k] = Num<T>::out(grad_out<T>(v, v.keeps(mrow, kept, k), Num<T>::in(cy[k]), Num<T>::in(cg[k]), g));
		}
		__syncthreads();
	}
}

// ------------------------------------------- tier 5: non-last axis --
// inner > 1: element (o, k, i) is at (o*n + k)*inner + i. One thread per
// (o, i) walks k; neighbouring threads take neighbouring i, so each step of
// k is one coalesced access across the warp and nothing is transposed.
// Online (max, sum), then a second read to write. Also correct for
// inner == 1 (the tests run it there). One thread sums a whole row, so
// float32 runs this tier's math in float64 (Wide): a float32 running sum
// over 40000 terms is off by about 1e-5. Limit: few (o, i) pairs with long
// n leave the GPU idle (issue 6).

template <typename T> struct Wide { typedef T type; };
template <> struct Wide<float> { typedef double type; };

template <typename T>
__device__ __forceinline__ void fwd_inner(const T* x, T* y, const View& v) {
	typedef typename Wide<T>::type C; // the element type the math runs in
	typedef typename Num<C>::acc A;
	const i64 total = v.rows * v.inner;
	for (i64 t = blockIdx.x * (i64)blockDim.x + threadIdx.x; t < total; t += gridDim.x * (i64)blockDim.x) {
		const i64 o = t / v.inner, i = t % v.inner;
		const i64 base = o * v.n * v.inner + i;
		const i64 kept = v.kept(o), mbase = v.mask ? v.mask_row(o) + v.mask_inner(i) : 0;
		Stats<A> st = stats_init<A>();
		for (i64 k = 0; k < v.n; ++k)
			if (v.keeps(mbase, kept, k)) add_online<C>(st, Num<C>::in(C(x[base + k * v.inner])), v.ex);
		Fin<A> f = finish(st);
		set_sum(f, st.s, v.log);
		for (i64 k = 0; k < v.n; ++k) {
			const i64 e = base + k * v.inner;
			const A out = fwd_out<C>(v, v.keeps(mbase, kept, k), Num<C>::in(C(x[e])), f);
			y[e] = Num<T>::out((typename Num<T>::acc)out);
		}
	}
}

// Far64 is a float64 softmax backward row at a scale past 2^52 over its
// kept length (the Go side's gpu.FarGrad64 sends such calls to tier 4,
// whose blocks sum chunks of few long rows, to tier 3, whose far_block
// gives a row a block, or off the last axis to this tier, a row a
// thread). Elsewhere a product under 2^-1022,
// in sum(dy*y) or in y*(dy - c), is rounded to a fixed 2^-1075, not to
// its own size, and the scale carries that past dx's floor of 2^-1022
// (y = 5e-324 at a scale of 1e300 was 43% off). Here hi sums the products
// that stay normal and lo the others, formed whole and raised by
// 2^Lift (every product of two float64s, down to 2^-2148, is normal
// there), so c = hi + lo*2^-Lift loses nothing to underflow; dx takes
// the two parts' terms apart, each formed whole where it would
// underflow. NaN and infinities in a row reach hi and give what the
// plain formula gives.
// No member initializers: block_reduce keeps Far64s in __shared__ slots,
// which take only trivially constructed types; start from Far64{}.
struct Far64 {
	static constexpr int Lift = 1126;
	double hi, lo;

	__device__ __forceinline__ static bool takes(const View& v, i64 kept) {
		return !v.log && v.scale * (double)(kept + 1) > 0x1p52;
	}
	// whole is a*b*c*2^e, the fractions multiplied first and the powers of
	// two added last: no partial product leaves float64's range.
	__device__ __forceinline__ static double whole(double a, double b, double c, int e) {
		int ea, eb, ec;
		const double fa = frexp(a, &ea), fb = frexp(b, &eb), fc = frexp(c, &ec);
		return ldexp(fa * fb * fc, ea + eb + ec + e);
	}
	__device__ __forceinline__ static bool underflowed(double p, double a, double b) {
		return fabs(p) < 0x1p-1022 && a != 0.0 && b != 0.0;
	}
	__device__ __forceinline__ void add(double y, double dy) {
		const double p = y * dy;
		if (underflowed(p, y, dy)) lo += whole(y, dy, 1.0, Lift);
		else hi += p;
	}
	// grad is s*y*(dy - c).
	__device__ __forceinline__ double grad(double y, double dy, double s) const {
		const double d = dy - hi, t = y * d; // a difference under 2^-1022 is exact
		const double near = underflowed(t, y, d) ? whole(y, d, s, 0) : t * s;
		if (lo == 0.0 || !(hi - hi == 0.0) || !(y - y == 0.0)) return near;
		return near - whole(y, lo, s, -Lift);
	}
};
__device__ __forceinline__ Far64 shfl(Far64 v, int lane_mask, int width) {
	v.hi = sm_shfl_xor(v.hi, lane_mask, width);
	v.lo = sm_shfl_xor(v.lo, lane_mask, width);
	return v;
}
struct Far64Op {
	__device__ __forceinline__ Far64 operator()(Far64 a, Far64 b) const { return Far64{a.hi + b.hi, a.lo + b.lo}; }
};

template <typename T>
__device__ __forceinline__ void bwd_inner(const T* y, const T* dy, T* dx, const View& v) {
	typedef typename Wide<T>::type C;
	typedef typename Num<C>::acc A;
	const i64 total = v.rows * v.inner;
	for (i64 t = blockIdx.x * (i64)blockDim.x + threadIdx.x; t < total; t += gridDim.x * (i64)blockDim.x) {
		const i64 o = t / v.inner, i = t % v.inner;
		const i64 base = o * v.n * v.inner + i;
		const i64 kept = v.kept(o), mbase = v.mask ? v.mask_row(o) + v.mask_inner(i) : 0;
		if constexpr (sizeof(T) == 8) { // float64 data only: Wide makes float32's C double too
			if (Far64::takes(v, kept)) {
				Far64 f{};
				for (i64 k = 0; k < v.n; ++k) {
					const i64 e = base + k * v.inner;
					if (v.keeps(mbase, kept, k)) f.add(y[e], dy[e]);
				}
				for (i64 k = 0; k < v.n; ++k) {
					const i64 e = base + k * v.inner;
					dx[e] = v.keeps(mbase, kept, k) ? f.grad(y[e], dy[e], v.scale) : 0.0;
				}
				continue;
			}
		}
		GradStats<A> g{A(0), 0};
		for (i64 k = 0; k < v.n; ++k) {
			const i64 e = base + k * v.inner;
			if (v.keeps(mbase, kept, k)) grad_add(v, g, Num<C>::in(C(y[e])), Num<C>::in(C(dy[e])));
		}
		for (i64 k = 0; k < v.n; ++k) {
			const i64 e = base + k * v.inner;
			const A out = grad_out<C>(v, v.keeps(mbase, kept, k), Num<C>::in(C(y[e])), Num<C>::in(C(dy[e])), g);
			dx[e] = Num<T>::out((typename Num<T>::acc)out);
		}
	}
}
