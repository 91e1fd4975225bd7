// grid.cuh is tier 7: few rows spread over every multiprocessor at once,
// each block's share of a row held in its shared memory, and tier 8, the
// same work for many rows, a row per thread block cluster. softmax.cu
// includes it after long.cuh (it merges tier 4's Parts); CUDA only, since
// tier 7 needs a cooperative launch and tier 8 clusters.
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

// grid_barrier returns once all `blocks` blocks of a row have called it;
// first is true in exactly one of them. sync is the row's arrival word,
// zeroed by the Go side when it allocates it. Each block adds 1 but the
// first, which adds 2^31 - (blocks - 1): the launch's adds come to 2^31,
// so bit 31 flips when the last block arrives and not before, and the low
// bits are back where they were for the next launch (cooperative groups'
// grid sync does the same). One atomic and the polls, where a count reset
// by the last block and a generation word moved after it took three more
// round trips to L2: 3.3-5 us from a row's last arrival to its first
// departure in the fused split kernel (docs/PERFORMANCE.md, GPU entry
// 30). The add releases this block's writes (its Part) and the poll that
// sees the flip acquires the others'.
//
// Row r's word is sync[SM_SYNC_STRIDE * r], alone on its 128-byte line
// (cuda.syncStride allocates so): with two words a row, 16 rows' blocks
// added and polled on one line, and tier 7's float32 rows of 4x262144 to
// 4x1048576 took 1-2% longer (docs/PERFORMANCE.md, GPU entry 72).
#define SM_SYNC_STRIDE 32
__device__ __forceinline__ void grid_barrier(unsigned* sync, unsigned blocks, bool first) {
	__syncthreads();
	if (threadIdx.x == 0) {
		const unsigned add = first ? 0x80000000u - (blocks - 1) : 1u;
		unsigned old, now;
		asm volatile("atom.add.release.gpu.u32 %0, [%1], %2;" : "=r"(old) : "l"(sync), "r"(add) : "memory");
		do {
			asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(now) : "l"(sync) : "memory");
		} while (((old ^ now) & 0x80000000u) == 0);
	}
	__syncthreads();
}

// Tier 8's trace (built with -DSM_TRACE; an experiment's build, never
// the shipped one): thread 0 of each block keeps %globaltimer stamps at
// the points of a block's life in trace_at, and fwd_cgrid writes them,
// with the block's SM, into the workspace, 16 words a block: start, share
// landed, Part taken, meet done, output in the share, store read, the
// fold's maximum pass done, its sum pass done (before the block's
// reduction), SM.
#ifdef SM_TRACE
__shared__ unsigned long long trace_at[8];
__device__ __forceinline__ void trace_stamp(int k) {
	if (threadIdx.x == 0) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(trace_at[k]));
}
#else
__device__ __forceinline__ void trace_stamp(int) {}
#endif

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

// The bulk copy (sm_90's TMA, cp.async.bulk; PTX 8, so SM_PTX8) moves a
// whole share in one instruction of one thread, where grid_copy issues a
// cp.async per 16 bytes from every thread; the block waits on an mbarrier,
// not on cp.async's groups. Tier 8's forward takes it both ways, in and
// out: 7-11% less time in float32 on the H200, 6-12% in the half types at
// 256x128256, 3-9% on masked rows. Tier 7 (one to four blocks per SM)
// took up to 5.5% longer on bulk loads and 2-18% with bulk stores too, and
// tier 8's backward 7-16% longer on bulk loads, so they keep cp.async and
// plain stores (docs/PERFORMANCE.md, GPU entry 33).
//
// bulk_expect (thread 0) sets the block's mbarrier up for `bytes` in all;
// bulk_load starts one copy onto it; bulk_wait returns once every byte has
// landed, visible to the waiting thread. A block barrier between thread
// 0's bulk_expect and the first bulk_wait orders the init before the waits.
//
// mbar_init (one thread) initializes the mbarrier at mb for one arrival and
// fences the init for the cluster and the copy engine.
__device__ __forceinline__ void mbar_init(sm_saddr mb) {
#if SM_PTX8
	asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(mb) : "memory");
	asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#else
	asm volatile("trap;"); // BULK is false without PTX 8
#endif
}
__device__ __forceinline__ void bulk_expect(unsigned long long* bar, unsigned bytes) {
#if SM_PTX8
	const sm_saddr mb = sm_shared_addr(bar);
	mbar_init(mb);
	asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(mb), "r"(bytes) : "memory");
#else
	asm volatile("trap;");
#endif
}
__device__ __forceinline__ void bulk_load(void* s, const void* g, unsigned bytes, unsigned long long* bar) {
#if SM_PTX8
	if (bytes)
		asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
		                 sm_shared_addr(s)),
		             "l"(g), "r"(bytes), "r"(sm_shared_addr(bar))
		             : "memory");
#else
	asm volatile("trap;");
#endif
}
// mbar_wait returns once phase 0 of the mbarrier at mb has completed,
// acquiring what completed it: at cluster scope where other blocks'
// st.async did (ClusterMeetAsync), else at block scope.
template <bool CLUSTER> __device__ __forceinline__ void mbar_wait(sm_saddr mb) {
#if SM_PTX8
	unsigned done = 0;
	while (!done) {
		if (CLUSTER)
			asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0;\n\t"
			             "selp.u32 %0, 1, 0, p;\n\t}"
			             : "=r"(done)
			             : "r"(mb)
			             : "memory");
		else
			asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\t"
			             "selp.u32 %0, 1, 0, p;\n\t}"
			             : "=r"(done)
			             : "r"(mb)
			             : "memory");
	}
#else
	asm volatile("trap;");
#endif
}
__device__ __forceinline__ void bulk_wait(unsigned long long* bar) { mbar_wait<false>(sm_shared_addr(bar)); }
// bulk_store writes `bytes` of the block's shared memory at s to g in one
// bulk copy once every thread's writes to s are in (each thread fences its
// own for the copy engine, then the block barrier), and returns once the
// copy has read s, so the block may leave.
__device__ __forceinline__ void bulk_store(void* g, const void* s, unsigned bytes) {
#if SM_PTX8
	asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
	__syncthreads();
	if (threadIdx.x == 0 && bytes) {
		asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(g),
		             "r"(sm_shared_addr(const_cast<void*>(s))), "r"(bytes)
		             : "memory");
		asm volatile("cp.async.bulk.commit_group;" ::: "memory");
		asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
	}
#else
	asm volatile("trap;");
#endif
}

// grid_part reads a Part through L2 (another multiprocessor wrote it
// during this launch; L1 is not coherent).
__device__ __forceinline__ Part grid_part(const Part* p) {
	return Part{__ldcg(&p->m), __ldcg(&p->s), __ldcg(&p->nan), __ldcg(&p->infs)};
}

// A Meet is how the blocks of a row exchange their Parts: publish gives
// this block's Part (block b of the row) and returns once every block of
// the row has given its own; at(j) is then block j's.
//
// GridMeet is tier 7's: Parts in the workspace, a barrier in global
// memory.
struct GridMeet {
	Part* parts; // the row's
	unsigned* sync;
	unsigned splits;
	static constexpr bool local = false; // at(j) reads memory through L2
	__device__ __forceinline__ void publish(const Part& p, i64 b) const {
		if (threadIdx.x == 0) parts[b] = p;
		grid_barrier(sync, splits, b == 0);
	}
	__device__ __forceinline__ Part at(i64 j) const { return grid_part(parts + j); }
};

// lane0 is lane 0's Part in every thread of the warp. Tier 8 publishes
// it: the threads' Parts may differ by an ulp (grid_part_fast), and a
// row's blocks should merge the same bits.
__device__ __forceinline__ Part lane0(const Part& p) {
	const unsigned all = 0xffffffffu;
	return Part{__shfl_sync(all, p.m, 0), __shfl_sync(all, p.s, 0), __shfl_sync(all, p.nan, 0),
	            __shfl_sync(all, p.infs, 0)};
}

// ClusterMeet is tier 8's: the row's blocks are one thread block cluster
// (block b is rank b) and each stores its Part into slot b of every
// block's shared memory, so after the cluster barrier a block reads only
// its own slots and may leave while the others still read theirs. The
// kernel arrives at a cluster barrier as it starts (start: relaxed where
// the toolchain has it); publish waits on it before its first store into
// another block.
struct ClusterMeet {
	Part* slots; // this block's, most of them
	unsigned splits;
	static constexpr int most = 16; // the largest (non-portable) cluster
	static constexpr bool local = true; // at(j) reads this block's shared memory
	__device__ __forceinline__ static void start() { sm_cluster_arrive_relaxed(); }
	__device__ __forceinline__ void publish(const Part& p, i64 b) const {
		const Part q = lane0(p);
		sm_cluster_wait();
		if (threadIdx.x < splits) *sm_cluster_map(slots + b, threadIdx.x) = q;
		sm_cluster_sync();
	}
	__device__ __forceinline__ Part at(i64 j) const { return slots[j]; }
};

#if SM_PTX8
// ClusterMeetAsync is ClusterMeet without its second cluster barrier
// (PTX 8, CUDA 12): each block sends its Part into slot b of every block
// by st.async, which counts the bytes on that block's mbarrier, and waits
// on its own mbarrier for the splits Parts. The barrier's releasing arrive
// (a GPU-scope fence) goes: tier 8's forward 3-10% faster in float32 on
// the H200, where its backward did better on ClusterMeet
// (docs/PERFORMANCE.md GPU entry 16, variant E). A block may leave once
// its own Parts have landed: the others' st.async carry their data.
struct ClusterMeetAsync {
	Part* slots; // this block's, most of them
	unsigned long long* bar; // this block's mbarrier: the cluster's Parts land on it
	unsigned splits;
	static constexpr int most = ClusterMeet::most;
	static constexpr bool local = true;
	// start initializes the mbarrier (one arrival: publish's expect_tx),
	// fences the init for the cluster and arrives, relaxed.
	__device__ __forceinline__ static void start(unsigned long long* bar) {
		if (threadIdx.x == 0) mbar_init(sm_shared_addr(bar));
		sm_cluster_arrive_relaxed();
	}
	__device__ __forceinline__ void publish(const Part& p, i64 b) const {
		const Part q = lane0(p);
		const sm_saddr mb = sm_shared_addr(bar);
		if (threadIdx.x == 0)
			asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(mb),
			             "r"(splits * (unsigned)sizeof(Part))
			             : "memory");
		sm_cluster_wait(); // every block has started and set up its mbarrier
		if (threadIdx.x < splits) {
			unsigned slot, rbar;
			asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(slot) : "r"(sm_shared_addr(slots + b)), "r"(threadIdx.x));
			asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rbar) : "r"(mb), "r"(threadIdx.x));
			asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b64 [%0], {%1, %2}, [%3];" ::"r"(slot),
			             "l"(__double_as_longlong(q.m)), "l"(__double_as_longlong(q.s)), "r"(rbar)
			             : "memory");
			asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b64 [%0], {%1, %2}, [%3];" ::"r"(slot + 16),
			             "l"(q.nan), "l"(q.infs), "r"(rbar)
			             : "memory");
		}
		mbar_wait<true>(mb);
	}
	__device__ __forceinline__ Part at(i64 j) const { return slots[j]; }
};
#endif

// meet_gather folds the row's Parts, after publish, into every thread's
// V (as to(Part)) with op. Parts in the block's own shared memory (a
// cluster's: at most 16) every group of `width` lanes (the power of two
// at or above splits) reduces alone, its lane j from Part j, in the same
// order in every group and block: no block barrier. Parts in memory the
// block shares out among its threads and reduces.
template <typename V, typename Meet, typename To, typename Op>
__device__ __forceinline__ V meet_gather(const Meet& meet, i64 splits, To to, Op op, V identity) {
	if (Meet::local) {
		int width = 1;
		while (width < splits) width *= 2;
		const int j = threadIdx.x % width;
		return warp_reduce(j < splits ? to(meet.at(j)) : identity, op, width);
	}
	V r = identity;
	for (i64 j = threadIdx.x; j < splits; j += blockDim.x) r = op(r, to(meet.at(j)));
	return block_reduce(r, op, identity);
}

// meet_gather_one is meet_gather for a Meet in memory with one warp
// reading: its lane j folds Parts j, j + 32, ..., the warp reduces, in the
// same order in every block, and the block shares the result through
// shared memory: one block barrier where block_reduce has two. (Every warp
// reading the Parts itself, GPU entry 73's v10, was 3-7% slower.)
template <typename V, typename Meet, typename To, typename Op>
__device__ __forceinline__ V meet_gather_one(const Meet& meet, i64 splits, To to, Op op, V identity) {
	__shared__ V merged;
	if (threadIdx.x < 32) {
		V r = identity;
		for (i64 j = threadIdx.x; j < splits; j += 32) r = op(r, to(meet.at(j)));
		r = warp_reduce(r, op, 32);
		if (threadIdx.x == 0) merged = r;
	}
	__syncthreads();
	return merged;
}

// GridSlice is a block's share of the launch: its row and columns
// [lo, lo + len).
//
// Shifted (tier 8's shifted kernels: rows of a part pack in buffers
// aligned to a pack, no mask, no causal limit): the shares tile the row's
// packs from the pack boundary at or before its start, as tier 1's
// shifted kernels read it (row_shift), so every share is whole aligned
// packs. lo is then negative in a row's first block, and a share's
// columns outside [0, n) are its neighbours' (grid_fill_edges covers them
// in the cache, GridEdges keeps them out of the output).
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
	template <int P> __device__ __forceinline__ static GridSlice shifted(const View& v, i64 chunk, i64 splits) {
		GridSlice sl(v, chunk, splits);
		const int s = row_shift<P>(sl.row, v.n);
		const i64 lo = sl.b * chunk, end = (s + v.n + P - 1) / P * P; // from the boundary
		const i64 hi = lo + chunk < end ? lo + chunk : end;
		sl.lo = lo - s;
		sl.len = hi > lo ? (int)(hi - lo) : 0;
		return sl;
	}
};

// grid_in_buffer is how many of a shifted share's columns lie inside the
// buffer: all but where the last row's last pack passes its end. (A
// share may be empty: the layout is for a row a pack less one column
// longer.)
__device__ __forceinline__ int grid_in_buffer(const View& v, const GridSlice& sl) {
	const i64 left = v.rows * v.n - (sl.row * v.n + sl.lo);
	return left < sl.len ? (int)max(left, (i64)0) : sl.len;
}

// grid_copy_shifted starts copying a shifted share's columns that lie in
// the buffer into s: whole packs by cp.async, and the part pack the
// buffer's end cuts (the last row's) an element at a time, so nothing
// past the buffer is read.
template <typename T> __device__ __forceinline__ void grid_copy_shifted(T* s, const T* g, int in) {
	constexpr int P = PackWidth<T, 16>::value;
	const int whole = in / P * P;
	grid_copy<T>(s, g, whole, true);
	for (int k = whole + threadIdx.x; k < in; k += blockDim.x) s[k] = g[k];
}

// GridEdges is where a shifted share's output goes: its columns of the
// row are [c0, c1) of the share, the whole packs among them [p0, p1)
// (p0 = p1 = c1 where there are none), the rest (fewer than a pack at
// each end) an element at a time: the columns beside them are the
// neighbouring rows', which other clusters write.
struct GridEdges {
	int c0, c1, p0, p1;
	template <int P> __device__ __forceinline__ static GridEdges of(const View& v, const GridSlice& sl) {
		GridEdges e;
		e.c0 = sl.lo < 0 ? (int)min(-sl.lo, (i64)sl.len) : 0;
		e.c1 = v.n - sl.lo < sl.len ? (int)max(v.n - sl.lo, (i64)e.c0) : sl.len;
		e.p0 = (e.c0 + P - 1) / P * P;
		e.p1 = e.c1 / P * P;
		if (e.p1 <= e.p0) e.p0 = e.p1 = e.c1;
		return e;
	}
	// whole: unit [c, c + U) goes out as one store.
	__device__ __forceinline__ bool whole(int c, int U) const { return c >= p0 && c + U <= p1; }
	__device__ __forceinline__ bool in(int c) const { return c >= c0 && c < c1; }
	// edges is how many columns go out an element at a time; edge(k) is
	// the k-th.
	__device__ __forceinline__ int edges() const { return (p0 - c0) + (c1 - p1); }
	__device__ __forceinline__ int edge(int k) const { return k < p0 - c0 ? c0 + k : p1 + (k - (p0 - c0)); }
};

// grid_fill_edges writes fill over a shifted share's columns outside the
// row in the cache (fewer than a pack at each end, GridEdges' [0, c0) and
// [c1, len)), so the passes over the cache take them as the row's
// filtered columns (-Inf forward) and need no per-unit check; the
// caller's block barrier publishes them.
template <typename T>
__device__ __forceinline__ void grid_fill_edges(T* s, const View& v, const GridSlice& sl, T fill) {
	const GridEdges e = GridEdges::of<1>(v, sl); // c0 and c1 do not depend on the pack
	for (int k = threadIdx.x; k < e.c0; k += blockDim.x) s[k] = fill;
	for (int k = e.c1 + threadIdx.x; k < sl.len; k += blockDim.x) s[k] = fill;
}

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
// state and whether anything in it is filtered. A masked block holds its
// share's mask bytes in shared memory (mc, after the data: grid_copy_mask),
// so the passes read no mask from memory: read from memory, each unit's
// bytes came one dependent round trip after the copies had landed, which
// cost masked rows up to 31% against the other tiers.
struct GridRow {
	i64 mrow;
	int kept, lo;
	bool filter, vmask;
	const unsigned char* mc; // the share's mask bytes; nullptr: no mask
	__device__ __forceinline__ GridRow(const View& v, const GridSlice& sl, int P, const unsigned char* mcache) {
		kept = (int)v.kept(sl.row);
		lo = (int)sl.lo;
		mrow = v.mask ? v.mask_row(sl.row) : 0;
		filter = v.mask != nullptr || kept < v.n;
		vmask = v.mask && v.mstride == 1 && (unsigned long long)(v.mask + mrow + lo) % P == 0;
		mc = v.mask ? mcache : nullptr;
	}
	// keep is which of unit u's U columns the row keeps (bit j: column
	// u*U + j of the share).
	template <int U> __device__ __forceinline__ unsigned keep(int u) const {
		if (!filter) return (1u << U) - 1;
		const int c = u * U;
		Pack<unsigned char, U> m;
#pragma unroll
		for (int j = 0; j < U; ++j) m.v[j] = 1;
		if (mc) m = *reinterpret_cast<const Pack<unsigned char, U>*>(mc + c);
		unsigned b = 0;
#pragma unroll
		for (int j = 0; j < U; ++j) b |= (unsigned)(m.v[j] != 0 && lo + c + j < kept) << j;
		return b;
	}
	// keeps is whether column c of the share is kept.
	__device__ __forceinline__ bool keeps(int c) const { return lo + c < kept && (mc == nullptr || mc[c] != 0); }
};

// grid_copy_mask starts copying the mask bytes of the share into mc:
// cp.async units of P bytes where they are one aligned run (vmask) and
// the share whole packs (vec), else byte by byte. The copies land with
// the data's (grid_landed).
template <int P>
__device__ __forceinline__ void grid_copy_mask(unsigned char* mc, const View& v, const GridRow& gr, int len, bool vec) {
	const unsigned char* g = v.mask + gr.mrow;
	if (vec && gr.vmask) {
		for (int pk = threadIdx.x; pk < len / P; pk += blockDim.x)
			sm_async_copy<P>(mc + pk * P, g + gr.lo + pk * P);
	} else {
		for (int k = threadIdx.x; k < len; k += blockDim.x) mc[k] = g[(i64)(gr.lo + k) * v.mstride];
	}
}

// grid_part_fast is the Part of a block's share in tier 1's arithmetic
// (fwd_row; bfloat16 without its RowBias): entries the row does not keep
// become -Inf in the cache, then the maximum by fmax (NaN ignored) and the
// sum of row_exp against it, a thread's terms in the compute type: for
// float32 at most about 60 (tier 7's largest share, 227 KB over 1024
// threads; tier 8's 32 KB over 256 threads is 32), each at most 1, so off
// by under 60 * 2^-24 = 3.6e-6 relative (one conversion to float64 a
// thread, not one a unit, was 0.3-2% faster on tier 8: docs/PERFORMANCE.md
// GPU entry 61). Paired
// (tier 8), each thread takes the pair for its own entries and one block
// reduction merges the pairs, a sum scaled by row_exp of its maximum against
// the larger (the thread that holds the block's maximum scales by 1): one
// barrier, not two, where tier 8's blocks wait on barriers. Not paired (tier
// 7, whose few blocks wait on latency: the merged pair's reduction is the
// longer chain, 3-8% slower there), the block's maximum first, then the sum
// against it. It returns false where that is not the exact Part
// (grid_part_exact's): a NaN or +Inf entry makes the sum NaN, which the
// range check catches, as tier 1's does. A share of -Inf alone sums to 0:
// the empty Part. Every thread takes the same branch: in each, the sum is 0,
// NaN, or from 1 (the thread that holds the maximum adds exactly 1) to the
// share's entry count. Paired, its value may differ by an ulp from thread to
// thread (the pair's float64 multiply and fused multiply-add round
// differently in the two lanes of a shuffle); ClusterMeet publishes one
// thread's.
template <typename A> struct MaxSum {
	A m;
	double s;
};
template <typename A> __device__ __forceinline__ MaxSum<A> shfl(MaxSum<A> v, int lane_mask, int width) {
	v.m = sm_shfl_xor(v.m, lane_mask, width);
	v.s = sm_shfl_xor(v.s, lane_mask, width);
	return v;
}
template <typename T> struct MaxSumOp {
	typedef typename Num<T>::acc A;
	Expo ex;
	__device__ __forceinline__ MaxSum<A> operator()(MaxSum<A> a, MaxSum<A> b) const {
		const A m = a.m > b.m ? a.m : b.m;
		return MaxSum<A>{m, a.s * (double)row_exp<T>(a.m, m, ex) + b.s * (double)row_exp<T>(b.m, m, ex)};
	}
};
template <typename T, int U, bool Paired>
__device__ __forceinline__ bool grid_part_fast(const View& v, const GridRow& gr, const GridUnits<T, U>& un,
                                               Part& part) {
	typedef typename Num<T>::acc A;
	A m = sm_lowest<A>();
	for (int u = threadIdx.x; u < un.count; u += blockDim.x) {
		Pack<T, U> q = un.p[u];
		if (gr.filter) {
			grid_filter<T, U>(q, gr.keep<U>(u), -sm_inf<A>());
			un.p[u] = q;
		}
#pragma unroll
		for (int j = 0; j < U; ++j) m = fmax(m, Num<T>::in(q.v[j]));
	}
	trace_stamp(6);
	if (!Paired) m = block_reduce(m, MaxV(), sm_lowest<A>());
	A ps = A(0);
	for (int u = threadIdx.x; u < un.count; u += blockDim.x) { // the thread's own units, as filtered above
		const Pack<T, U> q = un.p[u];
#pragma unroll
		for (int j = 0; j < U; ++j) ps += row_exp<T>(Num<T>::in(q.v[j]), m, v.ex);
	}
	const double s = (double)ps;
	trace_stamp(7);
	const MaxSum<A> r = Paired ? block_reduce(MaxSum<A>{m, s}, MaxSumOp<T>{v.ex}, MaxSum<A>{sm_lowest<A>(), 0.0})
	                           : MaxSum<A>{m, block_reduce(s, SumOp(), 0.0)};
	if (r.s == 0.0) {
		part = Part{-(double)INFINITY, 0.0, 0, 0};
		return true;
	}
	part = Part{(double)r.m, r.s, 0, 0};
	return r.s >= 1.0 && r.s <= 1e30;
}

// grid_part_exact is the exact Part of a block's share, from the cache as
// grid_part_fast left it (entries the row does not keep already -Inf):
// add_max counts NaN and +Inf.
template <typename T, int U>
__device__ __forceinline__ Part grid_part_exact(const View& v, const GridUnits<T, U>& un) {
	typedef typename Num<T>::acc A;
	Stats<A> st = stats_init<A>();
	for (int u = threadIdx.x; u < un.count; u += blockDim.x) {
		const Pack<T, U> q = un.p[u];
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
	return Part{(double)st.m, s, st.nan, st.infs};
}

// grid_write writes the block's units of output: entry j of unit u is
// f(a, b, column in the share), a and b that entry of ua and ub (ub: the
// second array backward; forward passes ua twice) as the compute type.
template <typename T, int U, typename Out, typename Store>
__device__ __forceinline__ void grid_write_by(const GridUnits<T, U>& ua, const GridUnits<T, U>& ub, Store store, Out f) {
	for (int u = threadIdx.x; u < ua.count; u += blockDim.x) {
		const Pack<T, U> a = ua.p[u], b = ub.p[u];
		Pack<T, U> o;
#pragma unroll
		for (int j = 0; j < U; ++j) o.v[j] = Num<T>::out(f(Num<T>::in(a.v[j]), Num<T>::in(b.v[j]), u * U + j));
		store(u, o);
	}
}
template <typename T, int U, typename Out>
__device__ __forceinline__ void grid_write(const GridUnits<T, U>& ua, const GridUnits<T, U>& ub, Pack<T, U>* out,
                                           Out f) {
	grid_write_by<T, U>(ua, ub, [out](int u, const Pack<T, U>& o) { out[u] = o; }, f);
}
// grid_write_edges is grid_write for a shifted share (GridEdges): to dst,
// the share's first column in global memory, the row's columns alone.
template <typename T, int U, typename Out>
__device__ __forceinline__ void grid_write_edges(const GridUnits<T, U>& ua, const GridUnits<T, U>& ub, T* dst,
                                                 const GridEdges& e, Out f) {
	grid_write_by<T, U>(
	    ua, ub,
	    [&](int u, const Pack<T, U>& o) {
		    const int c = u * U;
		    if (e.whole(c, U)) {
			    reinterpret_cast<Pack<T, U>*>(dst)[u] = o;
			    return;
		    }
#pragma unroll
		    for (int j = 0; j < U; ++j)
			    if (e.in(c + j)) dst[c + j] = o.v[j];
	    },
	    f);
}
// grid_store_edges writes a shifted share's output from the cache, where
// fwd_grid_slice's bulk form left it, once the block's writes are in:
// its whole packs in one bulk copy, then its edges an element at a time.
template <typename T> __device__ __forceinline__ void grid_store_edges(T* dst, const T* cache, const GridEdges& e) {
	bulk_store(dst + e.p0, cache + e.p0, (unsigned)(e.p1 - e.p0) * (unsigned)sizeof(T)); // its barrier publishes cache
	for (int k = threadIdx.x; k < e.edges(); k += blockDim.x) dst[e.edge(k)] = cache[e.edge(k)];
}

// fwd_grid_slice is fwd_grid's work on units of width U. The statistics
// are exact: tier 1's arithmetic where it gives the exact Part
// (grid_part_fast), else grid_part_exact. The output of a normal row takes
// tier 1's arithmetic (fwd_row; bfloat16 without its RowBias), other rows
// fwd_out's per-entry cases;
// each has its own loop (the per-entry choice cost instructions per
// entry).
// SHIFT: a shifted share (GridSlice::shifted), its edges already filled
// with -Inf in the cache; the row's columns alone go out (GridEdges).
template <typename T, int U, bool BULK, bool SHIFT = false, typename Meet>
__device__ __forceinline__ void fwd_grid_slice(T* y, const View& v, const Meet& meet, const GridSlice& sl,
                                               const GridRow& gr, i64 splits, T* cache) {
	typedef typename Num<T>::acc A;
	static_assert(!BULK || U == PackWidth<T, 16>::value, "bulk copies move whole packs");
	static_assert(!SHIFT || U == PackWidth<T, 16>::value, "shifted shares are whole packs");
	const GridUnits<T, U> un(cache, sl.len);
	Part part;
	if (!grid_part_fast<T, U, Meet::local>(v, gr, un, part)) part = grid_part_exact<T, U>(v, un);
	trace_stamp(2);
	meet.publish(part, sl.b);
	const Stats<A> st = meet_gather(
	    meet, splits, [](const Part& p) { return part_stats<A>(p); }, MergeOp<T>{v.ex}, stats_init<A>());
	trace_stamp(3);
	Fin<A> f = finish(st);
	set_sum(f, st.s, v.log);
	Pack<T, U>* out = reinterpret_cast<Pack<T, U>*>(y + sl.row * v.n + sl.lo);
	T* const dst = reinterpret_cast<T*>(out);
	if (BULK) out = un.p; // over the share (each thread writes the units it read), then out in one bulk copy
	GridEdges e;
	if constexpr (SHIFT) e = GridEdges::of<U>(v, sl);
	auto write = [&](auto g) {
		if constexpr (SHIFT && !BULK) grid_write_edges<T, U>(un, un, dst, e, g);
		else grid_write<T, U>(un, un, out, g);
	};
	if (f.kind != ROW_NORMAL) {
		write([&](A xv, A, int c) { return fwd_out<T>(v, gr.keeps(c), xv, f); });
	} else if (!v.log) {
		write([&](A xv, A, int) { return row_exp<T>(xv, f.m, v.ex) * f.r; });
	} else if (v.scale == 1.0) {
		const A ls = row_log_sum<T>(f.s);
		write([&](A xv, A, int) { return (xv - f.m) - ls; });
	} else {
		write([&](A xv, A, int) { return Num<T>::logout(xv, f.m, v.scale, f.lsum); });
	}
	trace_stamp(4);
	if constexpr (BULK && SHIFT) grid_store_edges<T>(dst, cache, e);
	else if (BULK) bulk_store(dst, cache, sl.len * (unsigned)sizeof(T));
	trace_stamp(5);
}

// BULK: whole-pack shares (vec) move by bulk copies. SHIFT: a shifted
// share (GridSlice::shifted; no mask), whole packs but where the buffer
// ends.
template <typename T, bool BULK, bool SHIFT = false, typename Meet>
__device__ __forceinline__ void fwd_grid_body(const T* x, T* y, const View& v, bool vec, const GridSlice& sl,
                                              i64 chunk, i64 splits, const Meet& meet) {
	constexpr int P = PackWidth<T, 16>::value;
	T* cache = reinterpret_cast<T*>(sm_dynamic);
	unsigned char* mc = reinterpret_cast<unsigned char*>(cache + chunk);
	const GridRow gr(v, sl, P, mc);
	if constexpr (SHIFT) {
		const T* src = x + sl.row * v.n + sl.lo;
		const int in = grid_in_buffer(v, sl);
		if constexpr (BULK) {
			__shared__ unsigned long long sbar;
			const int whole = in / P * P;
			if (threadIdx.x == 0) {
				bulk_expect(&sbar, whole * (unsigned)sizeof(T));
				bulk_load(cache, src, whole * (unsigned)sizeof(T), &sbar);
			}
			for (int k = whole + threadIdx.x; k < in; k += blockDim.x) cache[k] = src[k];
			grid_landed(); // the tail's copies, and sbar's init before the waits
			bulk_wait(&sbar);
		} else {
			grid_copy_shifted<T>(cache, src, in);
			grid_landed();
		}
		trace_stamp(1);
		grid_fill_edges<T>(cache, v, sl, Num<T>::out(-sm_inf<typename Num<T>::acc>()));
		__syncthreads();
		fwd_grid_slice<T, P, BULK, true>(y, v, meet, sl, gr, splits, cache);
		return;
	}
	if constexpr (BULK) {
		if (vec) {
			__shared__ unsigned long long cbar;
			// the share's mask bytes ride the data's bulk copy and mbarrier where
			// they are one run of 16-byte units (masked half rows 2.7-4.7%
			// faster than by cp.async, docs/PERFORMANCE.md GPU entry 63); else mg is
			// nullptr and grid_copy_mask moves them
			const unsigned char* mg = v.mask ? v.mask + gr.mrow + gr.lo : nullptr;
			if (mg && !(gr.vmask && (unsigned long long)mg % 16 == 0 && sl.len % 16 == 0)) mg = nullptr;
			if (threadIdx.x == 0) {
				bulk_expect(&cbar, sl.len * (unsigned)sizeof(T) + (mg ? sl.len : 0));
				bulk_load(cache, x + sl.row * v.n + sl.lo, sl.len * (unsigned)sizeof(T), &cbar);
				if (mg) bulk_load(mc, mg, sl.len, &cbar);
			}
			if (v.mask && !mg) grid_copy_mask<P>(mc, v, gr, sl.len, vec);
			grid_landed(); // the mask's copies, and cbar's init before the waits
			bulk_wait(&cbar);
			trace_stamp(1);
			fwd_grid_slice<T, P, true>(y, v, meet, sl, gr, splits, cache);
			return;
		}
	}
	grid_copy<T>(cache, x + sl.row * v.n + sl.lo, sl.len, vec);
	if (v.mask) grid_copy_mask<P>(mc, v, gr, sl.len, vec);
	grid_landed();
	if (vec) fwd_grid_slice<T, P, false>(y, v, meet, sl, gr, splits, cache);
	else fwd_grid_slice<T, 1, false>(y, v, meet, sl, gr, splits, cache);
}

template <typename T>
__device__ __forceinline__ void fwd_grid(const T* x, T* y, const View& v, bool vec, Part* work, i64 chunk, i64 splits,
                                         unsigned* sync) {
	const GridSlice sl(v, chunk, splits);
	fwd_grid_body<T, false>(x, y, v, vec, sl, chunk, splits,
	                        GridMeet{work + sl.row * splits, sync + SM_SYNC_STRIDE * sl.row, (unsigned)splits});
}

// bwd_grid_slice is bwd_grid's work on units of width U: masked (y, dy)
// become (0, 0) (log: (-Inf, 0)) in the cache, so the sums need no mask
// and are exact; a Part carries the chunk's sum in s and, for
// log-softmax, whether some kept y is not -Inf in nan. A row whose sum is
// finite takes the long-row tiers' arithmetic (LongLogGrad), others
// grad_out's.
template <typename T, int U, bool SHIFT = false, typename Meet>
__device__ __forceinline__ void bwd_grid_slice(T* dx, const View& v, const Meet& meet, const GridSlice& sl,
                                               const GridRow& gr, i64 splits, T* cy, T* cg) {
	typedef typename Num<T>::acc A;
	const GridUnits<T, U> uy(cy, sl.len), ug(cg, sl.len);
	const A yfill = v.log ? -sm_inf<A>() : A(0);
	GradStats<A> g{0.0, 0};
	for (int u = threadIdx.x; u < uy.count; u += blockDim.x) {
		Pack<T, U> a = uy.p[u], b = ug.p[u];
		if (gr.filter) {
			const unsigned keep = gr.keep<U>(u);
			grid_filter<T, U>(a, keep, yfill);
			grid_filter<T, U>(b, keep, A(0));
			uy.p[u] = a;
			ug.p[u] = b;
		}
#pragma unroll
		for (int j = 0; j < U; ++j) grad_add(v, g, Num<T>::in(a.v[j]), Num<T>::in(b.v[j]));
	}
	g = block_reduce(g, GradOp(), GradStats<A>{0.0, 0});
	meet.publish(Part{0.0, g.c, g.any, 0}, sl.b);
	g = meet_gather(
	    meet, splits, [](const Part& p) { return GradStats<A>{p.s, (int)p.nan}; }, GradOp(), GradStats<A>{0.0, 0});
	const bool fast = g.c - g.c == 0.0 && (v.log ? g.any : SoftGrad<A>::fits(v.scale, g.c));
	const A s = A(v.scale);
	const SoftGrad<A> sg(v.scale, g.c);
	const LongLogGrad<T> lg(v.scale * g.c);
	Pack<T, U>* out = reinterpret_cast<Pack<T, U>*>(dx + sl.row * v.n + sl.lo);
	GridEdges e;
	if constexpr (SHIFT) e = GridEdges::of<U>(v, sl);
	auto write = [&](auto f) {
		if constexpr (SHIFT) grid_write_edges<T, U>(uy, ug, reinterpret_cast<T*>(out), e, f);
		else grid_write<T, U>(uy, ug, out, f);
	};
	if (!fast) {
		write([&](A yv, A dv, int col) { return grad_out<T>(v, gr.keeps(col), yv, dv, g); });
	} else if (v.log) {
		write([&](A yv, A dv, int) { return lg.at(yv, s * dv); });
	} else {
		write([&](A yv, A dv, int) { return sg.at(yv, dv); });
	}
}

// bwd_grid holds y and dy (dy at cache + chunk: chunk is a whole number of
// packs, so both stay 16-byte aligned), and a masked row's mask bytes
// after dy. SHIFT: a shifted share (no mask), its edges filled with what
// the filter gives columns the row does not keep.
template <typename T, bool SHIFT = false, typename Meet>
__device__ __forceinline__ void bwd_grid_body(const T* y, const T* dy, T* dx, const View& v, bool vec,
                                              const GridSlice& sl, i64 chunk, i64 splits, const Meet& meet) {
	typedef typename Num<T>::acc A;
	constexpr int P = PackWidth<T, 16>::value;
	const i64 base = sl.row * v.n + sl.lo;
	T* cy = reinterpret_cast<T*>(sm_dynamic);
	T* cg = cy + chunk;
	unsigned char* mc = reinterpret_cast<unsigned char*>(cg + chunk);
	const GridRow gr(v, sl, P, mc);
	if constexpr (SHIFT) {
		const int in = grid_in_buffer(v, sl);
		grid_copy_shifted<T>(cy, y + base, in);
		grid_copy_shifted<T>(cg, dy + base, in);
		grid_landed();
		grid_fill_edges<T>(cy, v, sl, Num<T>::out(v.log ? -sm_inf<A>() : A(0)));
		grid_fill_edges<T>(cg, v, sl, Num<T>::out(A(0)));
		__syncthreads();
		bwd_grid_slice<T, P, true>(dx, v, meet, sl, gr, splits, cy, cg);
		return;
	}
	grid_copy<T>(cy, y + base, sl.len, vec);
	grid_copy<T>(cg, dy + base, sl.len, vec);
	if (v.mask) grid_copy_mask<P>(mc, v, gr, sl.len, vec);
	grid_landed();
	if (vec) bwd_grid_slice<T, P>(dx, v, meet, sl, gr, splits, cy, cg);
	else bwd_grid_slice<T, 1>(dx, v, meet, sl, gr, splits, cy, cg);
}

template <typename T>
__device__ __forceinline__ void bwd_grid(const T* y, const T* dy, T* dx, const View& v, bool vec, Part* work, i64 chunk,
                                         i64 splits, unsigned* sync) {
	const GridSlice sl(v, chunk, splits);
	bwd_grid_body<T>(y, dy, dx, v, vec, sl, chunk, splits,
	                 GridMeet{work + sl.row * splits, sync + SM_SYNC_STRIDE * sl.row, (unsigned)splits});
}

// ------------------------------------ tier 4 fused: split rows, one launch --
// LongQueue walks a row's warp steps (32 lanes x U packs) in the order
// the row's queues hand them out, the row's last steps first. A warp
// takes a step at a time, so the blocks whose rereads come from L2 take
// more steps than those whose come from DRAM, and no block waits on a
// share left to a slow one: with a fixed share each, the fused kernel's
// blocks finished their writes 73 to 102 us into a 102 us launch
// (float32 4x8388608, docs/PERFORMANCE.md, GPU entry 30; how evenly the
// queued blocks finish was not traced). A row has SM_QUEUES counters, each
// on its own 128-byte line: queue q hands out the steps congruent to q,
// to the warps whose number in the row is congruent to q. One counter a
// row took 5.5-5.8 ns an atomic, which bounded the write pass (16384
// warp steps a row at 4x8388608 float32: 95 us); 32 ran up to 2% ahead
// of 16 at 4x8388608 and within 1% of it at 4x33554432. Lane 0 asks for the next
// step as the warp starts on this one, so the counter's round trip hides
// behind the step's loads. The walk is done when bk < 0. A row needs at
// least SM_QUEUES warps, or some queue's steps go unwritten: the Go side
// (splitFused) launches it only so.
#ifndef SM_QUEUES
#define SM_QUEUES 32
#endif
template <int U> struct LongQueue : LongWalk<U> {
	static constexpr unsigned queues = SM_QUEUES, line = 32; // a queue's line in counters
	unsigned* ctr;  // this warp's queue
	unsigned q, mine; // the queue's number and its steps
	unsigned ahead;   // lane 0: the queue's answer for the warp's next step
	i64 lo;           // the walk's first pack (the packs before are the blocks' stashes)
	// Deferred: the first take is asked for, and the walk starts at the
	// first next(), so the take's round trip can overlap other work.
	struct Deferred {};
	__device__ __forceinline__ LongQueue(unsigned* row_queues, i64 warp, i64 lo_, i64 phi_, Deferred)
	    : LongWalk<U>(0, phi_), lo(lo_) {
		this->t = threadIdx.x % 32;
		this->step = 32;
		q = (unsigned)(warp % queues);
		ctr = row_queues + q * line;
		const unsigned steps = (unsigned)((phi_ - lo_ + this->span() - 1) / this->span());
		mine = steps > q ? (steps - 1 - q) / queues + 1 : 0;
		ahead = take();
	}
	__device__ __forceinline__ LongQueue(unsigned* row_queues, i64 warp, i64 lo_, i64 phi_)
	    : LongQueue(row_queues, warp, lo_, phi_, Deferred{}) {
		next();
	}
	__device__ __forceinline__ unsigned take() const { return threadIdx.x % 32 == 0 ? atomicAdd(ctr, 1u) : 0u; }
	__device__ __forceinline__ void next() {
		const unsigned k = __shfl_sync(0xffffffffu, ahead, 0);
		ahead = take();
		this->bk = k < mine ? lo + ((i64)(mine - 1 - k) * queues + q) * this->span() : -1;
	}
};

// fill_step writes o to this thread's packs of w's step.
template <typename T, int P, int U>
__device__ __forceinline__ void fill_step(T* p, const LongWalk<U>& w, const Pack<T, P>& o) {
	Pack<T, P>* q = reinterpret_cast<Pack<T, P>*>(p) + w.bk;
	const int left = w.left();
#pragma unroll
	for (int u = 0; u < U; ++u)
		if (w.off(u) < left) q[w.off(u)] = o;
}

template <typename T, int P, int U> __device__ __forceinline__ void fill_rest(T* p, LongQueue<U> w, const Pack<T, P>& o) {
	for (; w.bk >= 0; w.next()) fill_step<T, P>(p, w, o);
}

// write_packs over LongQueue (long.cuh's for the other walks): the steps
// come in no fixed order, so the kind of each (whole, partial, past the
// causal limit) is decided step by step.
template <typename T, int P, int MODE, int U>
__device__ __forceinline__ void write_packs(const T* xr, T* yr, const View& v, const LongKeep& ck, LongQueue<U> w,
                                            const Fin<typename Num<T>::acc>& f, typename Num<T>::acc c) {
	typedef typename Num<T>::acc A;
	static_assert(U == LongUnroll<T>::fwd, "the forward walk");
	const Pack<T, P> masked = long_pack_of<T, P>(v.log ? -sm_inf<A>() : A(0));
	for (; w.bk >= 0; w.next()) {
		if (w.full(ck.pfull)) {
			LongPacks<T, P, U, true> s;
			s.load(xr, w);
			write_step<T, P, U, MODE>(s, yr, w, v, f, c);
		} else if (w.bk < ck.pkept) {
			LongPacks<T, P, U, false> s;
			s.load(xr, w);
			keep_step(s, ck, w);
			write_step<T, P, U, MODE>(s, yr, w, v, f, c);
		} else {
			fill_step<T, P>(yr, w, masked);
		}
	}
}

// StashTiles walks block b's stash (fwd_split_fused's head forms): the
// first `keep` steps of its LongTiles walk, whole steps all, whose packs
// this thread holds in shared memory at stash[(k*U + u)*blockDim.x] (step
// k, pack u), as loaded. MASKED: the stash's steps have keep bits (the
// masked form's), so steps with keep bits load from the stash too; in the
// unmasked form every stashed step is whole and kept, and the code for
// others reads the row, as it did before the masked form (that form's SASS
// stays as measured). Past the last, bk is phi: no step is left to write. A row
// with nothing kept (every value -Inf) takes write_chunk's fill_rest,
// which walks the sliced LongTiles over the block's whole share: the
// masked output the queue already wrote, written again (those rows
// only; the output is the same).
template <typename T, int P, int U, bool MASKED> struct StashTiles : LongTiles<U> {
	const Pack<T, P>* stash; // this thread's first stashed pack
	int keep, k;
	__device__ __forceinline__ StashTiles(const Pack<T, P>* stash_, i64 first, i64 phi_, i64 stride_, int keep_)
	    : LongTiles<U>(keep_ > 0 ? first : phi_, phi_, stride_), stash(stash_), keep(keep_), k(0) {}
	__device__ __forceinline__ void next() { this->bk = ++k < keep ? this->bk + this->stride : this->phi; }
};

// load_step for StashTiles: the step from shared memory (from the row for
// a step with keep bits in the unmasked form, which has none).
template <typename T, int P, int U, bool ALL, bool MASKED>
__device__ __forceinline__ void load_step(LongPacks<T, P, U, ALL>& s, const T* xr, const StashTiles<T, P, U, MASKED>& w) {
	if constexpr (ALL || MASKED) {
#pragma unroll
		for (int u = 0; u < U; ++u) s.r[u] = w.stash[(w.k * U + u) * (int)blockDim.x];
	} else {
		s.load(xr, w);
	}
}

// tiles_stats_head is tiles_stats for the fused kernel's head form: block
// b's whole steps that start below pack `head` are loaded evict-first
// (sm_load_first), the rest as usual. Lines so marked are the first L2
// gives up, so more of the row's last columns, which the write pass
// rereads first, are still there when it does (docs/PERFORMANCE.md, GPU
// entry 31). head = 0: no marks.
template <typename T>
__device__ __forceinline__ void tiles_stats_head(const T* xr, const View& v, i64 mrow, i64 kept, i64 b, i64 splits,
                                                 bool vec, i64 head, unsigned char* bits,
                                                 Stats<typename Num<T>::acc>& st, i64 k0) {
	constexpr int P = PackWidth<T, 16>::value, U = LongUnroll<T>::fwd;
	if (!vec || head <= 0) {
		tiles_stats<T>(xr, v, mrow, kept, b, splits, vec, bits, st, k0);
		return;
	}
	const i64 span = (i64)U * blockDim.x;
	const LongKeep ck = long_keep_bits<P>(v, mrow, kept, 0, v.n, bits);
	LongTiles<U> w((b + k0 * splits) * span, v.n / P, splits * span);
	for (; w.bk < head && w.full(ck.pfull); w.next()) {
		LongPacks<T, P, U, true> s;
		s.load_first(xr, w);
		step_stats(st, s, v.ex);
	}
	stats_packs<T, P>(xr, v, ck, w, st);
}

// The split tier's forward in one cooperative launch (the Go side takes it
// where every block of the grid (splits, rows) is resident at once): block
// b folds its steps of the row (LongTiles), publishes its Part, meets the
// row's blocks at tier 7's barrier and merges the row's Parts; then the
// row's warps write it a step at a time from the row's queues
// (LongQueue), last steps first, so that they reread first what was read
// last, which L2 may still hold. The workspace holds the Parts, then (at
// the next 128 bytes) each row's queues: block 0 zeroes its row's before
// the barrier, which orders that before any warp's first take. One launch
// where the split tier takes two, and no workspace traffic between them.
// FORM (FusedForm): the plain form; the head form, whose statistics pass
// loads the row below pack `head` evict-first (tiles_stats_head) and
// whose blocks stash their first steps; the masked head form, which
// stashes them with their keep bits and marks only the mask's lines, read
// once, evict-first.
enum FusedForm { FUSED_PLAIN, FUSED_HEAD, FUSED_MASKED };
template <typename T, int FORM>
__device__ __forceinline__ void fwd_split_fused(const T* x, T* y, const View& v, bool vec, Part* work, i64 splits,
                                                i64 head, unsigned* sync) {
	typedef typename Num<T>::acc A;
	constexpr int P = PackWidth<T, 16>::value, U = LongUnroll<T>::fwd;
	const i64 row = blockIdx.y, b = blockIdx.x;
	const i64 kept = v.kept(row), mrow = v.mask ? v.mask_row(row) : 0;
	constexpr unsigned Q = LongQueue<U>::queues, L = LongQueue<U>::line;
	const i64 qbase = (gridDim.y * splits * sizeof(Part) + 127) / 128 * 32; // words
	unsigned* queues = reinterpret_cast<unsigned*>(work) + qbase + row * Q * L;
	unsigned char* bits = split_bits(work, 4 * (qbase + (i64)gridDim.y * Q * L), v, vec, row);
	Stats<A> st = stats_init<A>();
	// The head forms' stash: block b's first `keep` steps (the row's first
	// keep*splits steps, which L2 gives up first) stay in its dynamic
	// shared memory, a thread its own packs, and are written from there
	// after the queues: as many whole steps as the launch gave it room for
	// (docs/PERFORMANCE.md, GPU entries 64 and 68), kept whole in the head
	// form; in the masked form below the causal limit, each with its keep
	// bits written as the statistics pass writes them.
	const i64 bspan = (i64)U * blockDim.x; // packs a block's step
	int keep = 0;
	Pack<T, P>* stash = reinterpret_cast<Pack<T, P>*>(sm_dynamic) + threadIdx.x;
	if constexpr (FORM == FUSED_HEAD) {
		if (vec) keep = (int)min((i64)(sm_dynamic_bytes() / (unsigned)(bspan * sizeof(Pack<T, P>))),
		                         long_keep_bits<P>(v, mrow, kept, 0, v.n, bits).pfull / (splits * bspan));
		LongTiles<U> w(b * bspan, v.n / P, splits * bspan);
		for (int k = 0; k < keep; ++k, w.next()) {
			LongPacks<T, P, U, true> s;
			s.load_first(x + row * v.n, w);
#pragma unroll
			for (int u = 0; u < U; ++u) stash[(k * U + u) * (int)blockDim.x] = s.r[u];
			step_stats(st, s, v.ex);
		}
		tiles_stats_head<T>(x + row * v.n, v, mrow, kept, b, splits, vec, head, bits, st, keep);
	} else if constexpr (FORM == FUSED_MASKED) {
		const LongKeep ck = long_keep_bits<P>(v, mrow, kept, 0, v.n, bits);
		if (vec) keep = (int)min((i64)(sm_dynamic_bytes() / (unsigned)(bspan * sizeof(Pack<T, P>))),
		                         ck.pkept / (splits * bspan));
		LongTiles<U> w(b * bspan, v.n / P, splits * bspan);
		for (int k = 0; k < keep; ++k, w.next()) {
			LongPacks<T, P, U, false> s;
			s.load_first(x + row * v.n, w);
#pragma unroll
			for (int u = 0; u < U; ++u) stash[(k * U + u) * (int)blockDim.x] = s.r[u];
			s.template keep<true>(ck, w);
			if (ck.bits != nullptr) put_bits(s, ck.bits, w);
			s.mask_in();
			step_stats(st, s, v.ex);
		}
		tiles_stats<T, true>(x + row * v.n, v, mrow, kept, b, splits, vec, bits, st, keep);
	} else {
		tiles_stats<T>(x + row * v.n, v, mrow, kept, b, splits, vec, bits, st);
	}
	st = block_reduce(st, MergeOp<T>{v.ex}, stats_init<A>());
	if (b == 0 && threadIdx.x < Q) queues[threadIdx.x * L] = 0;
	const GridMeet meet{work + row * splits, sync + SM_SYNC_STRIDE * row, (unsigned)splits};
	meet.publish(stats_part(st), b);
	if constexpr (FORM == FUSED_PLAIN) {
		// The plain form keeps its code as measured: with the head forms'
		// early take and merge its rows took up to 1.4% longer, at
		// 4x33554432 and masked float32 4x8388608 (docs/PERFORMANCE.md, GPU
		// entry 74).
		const Stats<A> all = meet_gather(
		    meet, splits, [](const Part& p) { return part_stats<A>(p); }, MergeOp<T>{v.ex}, stats_init<A>());
		Fin<A> f = finish(all);
		set_sum(f, all.s, v.log);
		const T* xr = x + row * v.n;
		T* yr = y + row * v.n;
		const i64 warp = b * (blockDim.x / 32) + threadIdx.x / 32; // in the row
		if (vec) {
			const LongKeep ck = long_keep_bits<P>(v, mrow, kept, 0, v.n, bits);
			write_chunk<T, P>(xr, yr, v, ck, LongQueue<U>(queues, warp, 0, v.n / P), f); // no stash: from pack 0
		} else write_chunk<T, 1>(xr, yr, v, long_keep<1>(v, mrow, kept, 0, v.n), LongQueue<U>(queues, warp, 0, v.n), f);
	} else {
		// The head forms: the write pass's first take goes out with the
		// Parts' reads, and one warp a block merges them (1-3% off the
		// rows of 4x8388608, GPU entry 74).
		const i64 warp = b * (blockDim.x / 32) + threadIdx.x / 32; // in the row
		typedef typename LongQueue<U>::Deferred Deferred;
		LongQueue<U> wq = vec ? LongQueue<U>(queues, warp, (i64)keep * splits * bspan, v.n / P, Deferred{})
		                      : LongQueue<U>(queues, warp, 0, v.n, Deferred{});
		const Stats<A> all = meet_gather_one(
		    meet, splits, [](const Part& p) { return part_stats<A>(p); }, MergeOp<T>{v.ex}, stats_init<A>());
		wq.next();
		Fin<A> f = finish(all);
		set_sum(f, all.s, v.log);
		const T* xr = x + row * v.n;
		T* yr = y + row * v.n;
		if (vec) {
			const LongKeep ck = long_keep_bits<P>(v, mrow, kept, 0, v.n, bits);
			write_chunk<T, P>(xr, yr, v, ck, wq, f);
			if (keep > 0)
				write_chunk<T, P>(
				    xr, yr, v, ck,
				    StashTiles<T, P, U, FORM == FUSED_MASKED>(stash, b * bspan, v.n / P, splits * bspan, keep), f);
		} else write_chunk<T, 1>(xr, yr, v, long_keep<1>(v, mrow, kept, 0, v.n), wq, f);
	}
}

// ------------------------------------------- tier 8: rows over clusters --
// Many rows too long for tier 1: tier 7's work with a row per thread block
// cluster of `splits` blocks (at most ClusterMeet::most) and a cluster per
// row. A block holds its share of one row in shared memory, so several
// blocks share a multiprocessor, each at its own phase: while one waits
// on its copies or its cluster, another reduces or writes, and memory
// stays busy with no pipeline inside a block. The input is read once, no
// workspace is needed, and a finished block's place goes to another
// row's.
//
// SHIFT: rows of a part pack in buffers aligned to a pack, with neither
// mask nor causal limit (GridSlice::shifted); vec is not read.
template <typename T, bool SHIFT>
__device__ __forceinline__ GridSlice cgrid_slice(const View& v, i64 chunk, i64 splits) {
	if constexpr (SHIFT) return GridSlice::shifted<PackWidth<T, 16>::value>(v, chunk, splits);
	else return GridSlice(v, chunk, splits);
}
template <typename T, bool SHIFT = false>
__device__ __forceinline__ void fwd_cgrid(const T* x, T* y, const View& v, bool vec, i64 chunk, i64 splits,
                                          void* work) {
	__shared__ __align__(16) Part slots[ClusterMeet::most]; // 16: st.async stores a Part in 16-byte halves
#if SM_PTX8
	__shared__ unsigned long long bar;
	trace_stamp(0);
	ClusterMeetAsync::start(&bar);
	fwd_grid_body<T, true, SHIFT>(x, y, v, vec, cgrid_slice<T, SHIFT>(v, chunk, splits), chunk, splits,
	                              ClusterMeetAsync{slots, &bar, (unsigned)splits});
#ifdef SM_TRACE
	if (threadIdx.x == 0 && work) {
		unsigned long long* w = static_cast<unsigned long long*>(work) + 16 * (i64)blockIdx.x;
		for (int k = 0; k < 8; ++k) w[k] = trace_at[k];
		unsigned smid;
		asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
		w[8] = smid;
	}
#endif
#else
	ClusterMeet::start();
	fwd_grid_body<T, false, SHIFT>(x, y, v, vec, cgrid_slice<T, SHIFT>(v, chunk, splits), chunk, splits,
	                               ClusterMeet{slots, (unsigned)splits});
#endif
}

template <typename T, bool SHIFT = false>
__device__ __forceinline__ void bwd_cgrid(const T* y, const T* dy, T* dx, const View& v, bool vec, i64 chunk,
                                          i64 splits) {
	__shared__ __align__(16) Part slots[ClusterMeet::most];
	ClusterMeet::start();
	bwd_grid_body<T, SHIFT>(y, dy, dx, v, vec, cgrid_slice<T, SHIFT>(v, chunk, splits), chunk, splits,
	                        ClusterMeet{slots, (unsigned)splits});
}
