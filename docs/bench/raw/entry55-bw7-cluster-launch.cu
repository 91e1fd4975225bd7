// Probe, written in session 34, run in session 35 (output: entry55-call1-bw7.txt): what a thread block cluster
// launch costs against a plain one, the GPU's side only (launches queued
// behind a 1 GiB memset, each between its own events), at tier 8's launch
// shape for 1024x32000 float32 (4096 blocks of 256 threads, 32000 bytes of
// dynamic shared memory). Question (GPU entry 54): tier 8's fixed cost is
// 1.4-1.9 us above a read kernel's; how much of that is the cluster launch?
//   nvcc -std=c++17 -O3 -gencode arch=compute_90,code=sm_90 -o bw7 entry55-bw7-cluster-launch.cu
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("ERR %s line %d: %s\n", #x, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void __launch_bounds__(256) empty(int* out) {
  extern __shared__ int s[];
  if (threadIdx.x == 1023) out[0] = s[0]; // never: keeps the shared memory
}

// med: the median of reps launches, each between its own pair of events, a
// 1 GiB memset queued before every 20th so that the host stays ahead.
template <typename F>
static float med(F launch, void* big, int reps) {
  std::vector<cudaEvent_t> ev(2 * reps);
  for (auto& e : ev) CK(cudaEventCreate(&e));
  for (int i = 0; i < 10; i++) launch();
  for (int r = 0; r < reps; r++) {
    if (r % 20 == 0) CK(cudaMemsetAsync(big, r, 1 << 30));
    CK(cudaEventRecord(ev[2 * r]));
    launch();
    CK(cudaEventRecord(ev[2 * r + 1]));
  }
  CK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int r = 0; r < reps; r++) {
    if (r % 20 == 0) continue;
    float ms; CK(cudaEventElapsedTime(&ms, ev[2 * r], ev[2 * r + 1]));
    t.push_back(ms * 1e3f);
  }
  for (auto& e : ev) CK(cudaEventDestroy(e));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  int* out; CK(cudaMalloc(&out, 64));
  void* big; CK(cudaMalloc(&big, 1 << 30));
  CK(cudaFuncSetAttribute(empty, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  const int grid = 4096, threads = 256, smem = 32000;
  for (int round = 0; round < 2; round++) {
    float plain = med([&] { empty<<<grid, threads, smem>>>(out); }, big, 200);
    float plain0 = med([&] { empty<<<grid, threads, 0>>>(out); }, big, 200);
    printf("round %d: plain %.2f us (no shared memory %.2f)", round, plain, plain0);
    for (int cl : {2, 4, 8, 16})
      for (int balance = 0; balance < 2; balance++) {
        cudaLaunchAttribute attr[2];
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = cl; attr[0].val.clusterDim.y = 1; attr[0].val.clusterDim.z = 1;
        attr[1].id = cudaLaunchAttributeClusterSchedulingPolicyPreference;
        attr[1].val.clusterSchedulingPolicyPreference = cudaClusterSchedulingPolicyLoadBalancing;
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(grid); cfg.blockDim = dim3(threads); cfg.dynamicSmemBytes = smem;
        cfg.attrs = attr; cfg.numAttrs = balance ? 2 : 1;
        float t = med([&] { CK(cudaLaunchKernelEx(&cfg, empty, out)); }, big, 200);
        printf("; clusters of %d%s %.2f", cl, balance ? " balanced" : "", t);
      }
    printf("\n");
  }
  printf("done\n");
  return 0;
}
