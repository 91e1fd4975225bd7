// Probe 6 (not part of the module): the module's one-row kernel (loaded
// from the fatbin, launched with the Go side's 32 parameter slots) beside a
// plain softmax at 65536x128 float32, in one process. Event-timed medians over buffers rotated through a region, launches not waited for.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cstring>
#include <cuda_runtime.h>
#include <cuda.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("ERR %s line %d: %s\n", #x, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void empty() {}

// Grid-stride: the grid sweeps the buffer front to back together.
__global__ void rdStride(const float4* __restrict__ in, size_t n4, float* out) {
  float acc = 0;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n4; i += 4 * stride) {
    float4 v0 = in[i], v1 = in[i + stride], v2 = in[i + 2 * stride], v3 = in[i + 3 * stride];
    acc += v0.x + v0.y + v0.z + v0.w + v1.x + v1.y + v1.z + v1.w + v2.x + v2.y + v2.z + v2.w + v3.x + v3.y + v3.z + v3.w;
  }
  for (; i < n4; i += stride) { float4 v = in[i]; acc += v.x + v.y + v.z + v.w; }
  if (acc == 1234.5f) out[threadIdx.x] = acc;
}

// Block-contiguous: block b reads its own chunk, so the first wave touches
// every part of the buffer at once (as tier 8 and the split tier do).
__global__ void rdChunk(const float4* __restrict__ in, size_t n4, float* out) {
  size_t per = (n4 + gridDim.x - 1) / gridDim.x;
  size_t lo = blockIdx.x * per, hi = lo + per < n4 ? lo + per : n4;
  float acc = 0;
  size_t i = lo + threadIdx.x;
  for (; i + 3 * blockDim.x < hi; i += 4 * blockDim.x) {
    float4 v0 = in[i], v1 = in[i + blockDim.x], v2 = in[i + 2 * blockDim.x], v3 = in[i + 3 * blockDim.x];
    acc += v0.x + v0.y + v0.z + v0.w + v1.x + v1.y + v1.z + v1.w + v2.x + v2.y + v2.z + v2.w + v3.x + v3.y + v3.z + v3.w;
  }
  for (; i < hi; i += blockDim.x) { float4 v = in[i]; acc += v.x + v.y + v.z + v.w; }
  if (acc == 1234.5f) out[threadIdx.x] = acc;
}

__global__ void cpStride(const float4* __restrict__ in, float4* __restrict__ o, size_t n4) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n4; i += 4 * stride) {
    float4 v0 = in[i], v1 = in[i + stride], v2 = in[i + 2 * stride], v3 = in[i + 3 * stride];
    o[i] = v0; o[i + stride] = v1; o[i + 2 * stride] = v2; o[i + 3 * stride] = v3;
  }
  for (; i < n4; i += stride) o[i] = in[i];
}

// One load each 64 KB: walks the buffer's pages, moving almost no bytes.
__global__ void touch(const float* __restrict__ in, size_t n, float* out) {
  size_t i = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * 16384;
  if (i < n && in[i] == 1234.5f) out[0] = 1;
}

static int SMS;
static cudaEvent_t E0, E1;

// med times launch(r) between its own pair of events, launches not waited
// for in between (the benchmark's method); pre(r), if any, runs before the
// start event. batch (if not null) gets the back-to-back time a launch.
template <typename P, typename F>
static float med(P pre, F launch, int reps, float* batch = nullptr) {
  for (int i = 0; i < 10; i++) { pre(i); launch(i); }
  std::vector<cudaEvent_t> ev(2 * reps);
  for (auto& e : ev) CK(cudaEventCreate(&e));
  for (int r = 0; r < reps; r++) {
    pre(r);
    CK(cudaEventRecord(ev[2 * r]));
    launch(r);
    CK(cudaEventRecord(ev[2 * r + 1]));
  }
  CK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int r = 0; r < reps; r++) {
    float ms; CK(cudaEventElapsedTime(&ms, ev[2 * r], ev[2 * r + 1]));
    t.push_back(ms * 1e3f);
  }
  if (batch) {
    CK(cudaEventRecord(ev[0]));
    for (int r = 0; r < reps; r++) { pre(r); launch(r); }
    CK(cudaEventRecord(ev[1]));
    CK(cudaDeviceSynchronize());
    float ms; CK(cudaEventElapsedTime(&ms, ev[0], ev[1]));
    *batch = ms * 1e3f / reps;
  }
  for (auto& e : ev) CK(cudaEventDestroy(e));
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}


// rowsm: softmax over rows of 128 floats, 8 threads a row, 4 float4 each
// (the shape of tier 1's one-row kernel at 65536x128).
__global__ void __launch_bounds__(128) rowsm(const float4* __restrict__ in, float4* __restrict__ o, int rows) {
  int row = blockIdx.x * 16 + threadIdx.x / 8, lane = threadIdx.x % 8;
  if (row >= rows) return;
  const float4* p = in + (size_t)row * 32;
  float4 v[4];
#pragma unroll
  for (int k = 0; k < 4; k++) v[k] = p[lane + 8 * k];
  float m = -INFINITY;
#pragma unroll
  for (int k = 0; k < 4; k++) m = fmaxf(m, fmaxf(fmaxf(v[k].x, v[k].y), fmaxf(v[k].z, v[k].w)));
  for (int d = 4; d; d >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, d));
  float sum = 0;
#pragma unroll
  for (int k = 0; k < 4; k++) {
    v[k].x = __expf(v[k].x - m); v[k].y = __expf(v[k].y - m); v[k].z = __expf(v[k].z - m); v[k].w = __expf(v[k].w - m);
    sum += v[k].x + v[k].y + v[k].z + v[k].w;
  }
  for (int d = 4; d; d >>= 1) sum += __shfl_xor_sync(0xffffffff, sum, d);
  float inv = 1.f / sum;
  float4* q = o + (size_t)row * 32;
#pragma unroll
  for (int k = 0; k < 4; k++) q[lane + 8 * k] = make_float4(v[k].x * inv, v[k].y * inv, v[k].z * inv, v[k].w * inv);
}


// fill writes about N(0, 3) values from a hash of the index (sum of four uniforms).
__global__ void fill(float* p, size_t n, unsigned seed) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed;
    float s = 0;
    for (int k = 0; k < 4; k++) { h ^= h >> 15; h *= 2246822519u; h ^= h >> 13; h *= 3266489917u; h ^= h >> 16; s += (h & 0xffffff) / 16777216.f; }
    p[i] = (s - 2.f) * 3.f * 1.732f;
  }
}


struct Big { char pad[236]; };
__global__ void __launch_bounds__(128) rowsmBig(const float4* __restrict__ in, float4* __restrict__ o, int rows, Big b) {
  if (b.pad[0] == 7 && rows < 0) o[0] = make_float4(0, 0, 0, 0);
  int row = blockIdx.x * 16 + threadIdx.x / 8, lane = threadIdx.x % 8;
  if (row >= rows) return;
  const float4* p = in + (size_t)row * 32;
  float4 v[4];
#pragma unroll
  for (int k = 0; k < 4; k++) v[k] = p[lane + 8 * k];
  float m = -INFINITY;
#pragma unroll
  for (int k = 0; k < 4; k++) m = fmaxf(m, fmaxf(fmaxf(v[k].x, v[k].y), fmaxf(v[k].z, v[k].w)));
  for (int d = 4; d; d >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, d));
  float sum = 0;
#pragma unroll
  for (int k = 0; k < 4; k++) {
    v[k].x = __expf(v[k].x - m); v[k].y = __expf(v[k].y - m); v[k].z = __expf(v[k].z - m); v[k].w = __expf(v[k].w - m);
    sum += v[k].x + v[k].y + v[k].z + v[k].w;
  }
  for (int d = 4; d; d >>= 1) sum += __shfl_xor_sync(0xffffffff, sum, d);
  float inv = 1.f / sum;
  float4* q = o + (size_t)row * 32;
#pragma unroll
  for (int k = 0; k < 4; k++) q[lane + 8 * k] = make_float4(v[k].x * inv, v[k].y * inv, v[k].z * inv, v[k].w * inv);
}

#define CU(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { printf("ERR %s line %d: %d\n", #x, __LINE__, (int)r_); exit(1); } } while (0)

int main(int argc, char** argv) {
  CK(cudaDeviceGetAttribute(&SMS, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaFree(0));
  FILE* f = fopen(argv[1], "rb");
  if (!f) { printf("no fatbin %s\n", argv[1]); return 1; }
  fseek(f, 0, SEEK_END); long fl = ftell(f); fseek(f, 0, SEEK_SET);
  std::vector<char> fb(fl);
  if (fread(fb.data(), 1, fl, f) != (size_t)fl) { printf("short read\n"); return 1; }
  fclose(f);
  CUmodule mod; CU(cuModuleLoadData(&mod, fb.data()));
  CUfunction once; CU(cuModuleGetFunction(&once, mod, "softmax_fwd_once4_f32"));
  int regs; CU(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, once));
  int occ; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, rowsm, 128, 0));
  int occ18; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ18, rowsm, 128, 18 * 1024));
  int occOnce; CU(cuOccupancyMaxActiveBlocksPerMultiprocessor(&occOnce, once, 128, 0));
  printf("once4: %d registers, %d blocks an SM; rowsm %d, with 18 KB %d\n", regs, occOnce, occ, occ18);
  const size_t bytes = 32 << 20; const int rows = (int)(bytes / 512);
  auto none = [](int) {};
  const int nsets = 3;
  std::vector<float4*> x(nsets), y(nsets);
  for (auto& p : x) CK(cudaMalloc(&p, bytes));
  for (auto& p : y) CK(cudaMalloc(&p, bytes));
  for (int i = 0; i < nsets; i++) { fill<<<SMS * 8, 256>>>((float*)x[i], bytes / 4, 17u * i + 1); CK(cudaMemset(y[i], 0xff, bytes)); }
  CK(cudaDeviceSynchronize());
  unsigned long long slots[nsets][32];
  void* args[nsets][32];
  for (int i = 0; i < nsets; i++) {
    unsigned long long* s = slots[i];
    memset(s, 0, sizeof slots[i]);
    double one = 1.0;
    s[0] = (unsigned long long)x[i]; s[1] = (unsigned long long)y[i];
    s[2] = rows; s[3] = 128; s[4] = 1; memcpy(&s[5], &one, 8); s[6] = 0; s[7] = 0; s[8] = 0; s[9] = 0; s[10] = 0;
    for (int k = 0; k < 4; k++) { s[11 + k] = 1; s[19 + k] = 1; } // outer and inner sizes 1, strides 0
    s[27] = 0; s[28] = 1; s[29] = 8; s[30] = 0; s[31] = 0;       // work, vec, group, chunk, splits
    for (int k = 0; k < 32; k++) args[i][k] = &s[k];
  }
  Big big; memset(&big, 0, sizeof big);
  for (int round = 0; round < 3; round++) {
    float b1, b2, b3, b4;
    float t1 = med(none, [&](int r) { rowsm<<<rows / 16, 128>>>(x[r % nsets], y[r % nsets], rows); }, 100, &b1);
    float t2 = med(none, [&](int r) { rowsm<<<rows / 16, 128, 18 * 1024>>>(x[r % nsets], y[r % nsets], rows); }, 100, &b2);
    float t3 = med(none, [&](int r) { rowsmBig<<<rows / 16, 128>>>(x[r % nsets], y[r % nsets], rows, big); }, 100, &b3);
    float t4 = med(none, [&](int r) { CU(cuLaunchKernel(once, rows / 16, 1, 1, 128, 1, 1, 0, 0, args[r % nsets], nullptr)); }, 100, &b4);
    printf("round %d: rowsm %.2f us (b2b %.2f); at 12 blocks an SM %.2f (%.2f); 256-byte params %.2f (%.2f); once4_f32 %.2f (%.2f)\n",
           round, t1, b1, t2, b2, t3, b3, t4, b4);
  }
  // check once4's output: row 5 sums to 1
  std::vector<float> h(128);
  CK(cudaMemcpy(h.data(), (char*)y[0] + 5 * 512, 512, cudaMemcpyDeviceToHost));
  double sum = 0; for (float v : h) sum += v;
  printf("once4 row 5 of set 0 sums to %.6f\n", sum);
  CK(cudaDeviceSynchronize());
  printf("done\n");
  return 0;
}
