// Probe (not part of the module): read-only, write-only and copy bandwidth on
// this GPU, by unroll, block size and blocks per SM, with events.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("ERR %s line %d: %s\n", #x, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

template <int U>
__global__ void rd(const float4* __restrict__ in, size_t n4, float* out) {
  float acc = 0;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + (U - 1) * stride < n4; i += U * stride) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; u++) v[u] = in[i + u * stride];
#pragma unroll
    for (int u = 0; u < U; u++) acc += v[u].x + v[u].y + v[u].z + v[u].w;
  }
  for (; i < n4; i += stride) { float4 v = in[i]; acc += v.x + v.y + v.z + v.w; }
  if (acc == 1234.5f) out[threadIdx.x] = acc;
}

template <int U>
__global__ void wr(float4* __restrict__ o, size_t n4) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  float4 v = make_float4(1.f, 2.f, 3.f, 4.f);
  for (; i < n4; i += stride) o[i] = v;
}

template <int U>
__global__ void cp(const float4* __restrict__ in, float4* __restrict__ o, size_t n4) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + (U - 1) * stride < n4; i += U * stride) {
    float4 v[U];
#pragma unroll
    for (int u = 0; u < U; u++) v[u] = in[i + u * stride];
#pragma unroll
    for (int u = 0; u < U; u++) o[i + u * stride] = v[u];
  }
  for (; i < n4; i += stride) o[i] = in[i];
}

static int SMS;
static cudaEvent_t E0, E1;

template <typename F>
static float med(F launch, int reps) {
  for (int i = 0; i < 5; i++) launch(i);
  std::vector<float> t;
  for (int r = 0; r < reps; r++) {
    CK(cudaEventRecord(E0));
    launch(r);
    CK(cudaEventRecord(E1));
    CK(cudaEventSynchronize(E1));
    float ms; CK(cudaEventElapsedTime(&ms, E0, E1));
    t.push_back(ms * 1e3f);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <int U>
static void sweepRead(float4** bufs, int nb, size_t bytes, float* out, const char* tag) {
  size_t n4 = bytes / 16;
  for (int th : {256, 512, 1024})
    for (int per : {1, 2, 4, 8, 16}) {
      if (th * per > 2048) continue;
      int grid = SMS * per;
      float us = med([&](int r) { rd<U><<<grid, th>>>(bufs[r % nb], n4, out); }, 30);
      printf("%s read U=%d th=%d perSM=%d: %.2f us %.0f GB/s\n", tag, U, th, per, us, bytes / us / 1e3);
    }
}

int main() {
  CK(cudaDeviceGetAttribute(&SMS, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaEventCreate(&E0)); CK(cudaEventCreate(&E1));
  float* out; CK(cudaMalloc(&out, 4096));
  const size_t G = 1ull << 30;
  float4 *a, *b; CK(cudaMalloc(&a, G)); CK(cudaMalloc(&b, G));
  CK(cudaMemset(a, 0x3c, G)); CK(cudaMemset(b, 0x3c, G));
  float us = med([&](int) { CK(cudaMemcpyAsync(b, a, G, cudaMemcpyDeviceToDevice)); }, 20);
  printf("memcpy 1GiB: %.1f us %.0f GB/s (read+write)\n", us, 2.0 * G / us / 1e3);
  for (int th : {256, 512, 1024})
    for (int per : {1, 2, 4, 8}) {
      if (th * per > 2048) continue;
      int grid = SMS * per;
      us = med([&](int) { cp<4><<<grid, th>>>(a, b, G / 16); }, 10);
      printf("copy U=4 th=%d perSM=%d 1GiB: %.1f us %.0f GB/s\n", th, per, us, 2.0 * G / us / 1e3);
      us = med([&](int) { wr<1><<<grid, th>>>(b, G / 16); }, 10);
      printf("write th=%d perSM=%d 1GiB: %.1f us %.0f GB/s\n", th, per, us, 1.0 * G / us / 1e3);
    }
  float4* one[1] = {a};
  sweepRead<1>(one, 1, G, out, "1GiB");
  sweepRead<2>(one, 1, G, out, "1GiB");
  sweepRead<4>(one, 1, G, out, "1GiB");
  sweepRead<8>(one, 1, G, out, "1GiB");
  // 64 MiB and 16 MiB inputs, rotated over 1 GiB so L2 cannot hold them.
  for (size_t mb : {64, 16}) {
    size_t bytes = mb << 20; int nb = (int)(G / bytes);
    std::vector<float4*> bs(nb);
    for (int i = 0; i < nb; i++) bs[i] = (float4*)((char*)a + i * bytes);
    char tag[32]; snprintf(tag, sizeof tag, "%zuMiB", mb);
    sweepRead<4>(bs.data(), nb, bytes, out, tag);
    sweepRead<8>(bs.data(), nb, bytes, out, tag);
    // copy of the same bytes, rotated (output in b)
    us = med([&](int r) { cp<4><<<SMS * 4, 512>>>(bs[r % nb], (float4*)((char*)b + (r % nb) * bytes), bytes / 16); }, 30);
    printf("%s copy U=4 th=512 perSM=4: %.2f us %.0f GB/s (read+write)\n", tag, us, 2.0 * bytes / us / 1e3);
    // read after a write of the same size dirtied L2 (only the read timed)
    std::vector<float> t;
    for (int r = 0; r < 30; r++) {
      wr<1><<<SMS * 4, 512>>>((float4*)((char*)b + (r % nb) * bytes), bytes / 16);
      CK(cudaEventRecord(E0));
      rd<4><<<SMS * 4, 512>>>(bs[(r + 3) % nb], bytes / 16, out);
      CK(cudaEventRecord(E1)); CK(cudaEventSynchronize(E1));
      float ms; CK(cudaEventElapsedTime(&ms, E0, E1)); t.push_back(ms * 1e3f);
    }
    std::sort(t.begin(), t.end());
    printf("%s read after a dirtying write U=4 th=512 perSM=4: %.2f us %.0f GB/s\n", tag, t[15], bytes / t[15] / 1e3);
  }
  CK(cudaDeviceSynchronize());
  printf("done\n");
  return 0;
}
