// Does the harness's L2 flush (a memset of 2 x L2) cost the timed kernel DRAM write-back?
// A copy of B bytes is timed after (a) a memset flush, (b) a read-only flush (a kernel that reads
// 2 x L2 and writes one word), (c) no flush. Median of 21 repetitions, CUDA events.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <vector>
#define CK(x)                                                          \
  do {                                                                 \
    cudaError_t err_ = (x);                                            \
    if (err_ != cudaSuccess) {                                         \
      printf("CUDA %s line %d\n", cudaGetErrorString(err_), __LINE__); \
      return 1;                                                        \
    }                                                                  \
  } while (0)

__global__ void copy4(const float4* __restrict__ in, float4* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    out[i] = in[i];
}
__global__ void read_all(const float4* __restrict__ in, size_t n, float* sink) {
  float s = 0.f;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    float4 v = in[i];
    s += v.x + v.y + v.z + v.w;
  }
  if (s == 12345.678f) *sink = s;
}

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  const size_t l2 = p.l2CacheSize;
  printf("%s, L2 %zu MB\n", p.name, l2 >> 20);
  unsigned char* flush;
  CK(cudaMalloc(&flush, 2 * l2));
  CK(cudaMemset(flush, 1, 2 * l2));
  float* sink;
  CK(cudaMalloc(&sink, 4));
  const size_t most = size_t{512} << 20;
  float4 *a, *b;
  CK(cudaMalloc(&a, most));
  CK(cudaMalloc(&b, most));
  CK(cudaMemset(a, 0, most));
  CK(cudaMemset(b, 0, most));
  cudaEvent_t s, e;
  CK(cudaEventCreate(&s));
  CK(cudaEventCreate(&e));
  const int sms = p.multiProcessorCount;
  printf("%10s %12s %12s %12s   (GB/s of the copy, read + written)\n", "MB each", "memset",
         "read-only", "none");
  for (size_t mb : {4, 8, 16, 24, 32, 48, 64, 128, 256, 512}) {
    const size_t bytes = mb << 20, n = bytes / 16;
    double gbps[3];
    for (int mode = 0; mode < 3; ++mode) {
      std::vector<float> t;
      for (int r = 0; r < 24; ++r) {
        if (mode == 0) CK(cudaMemsetAsync(flush, r & 1, 2 * l2));
        if (mode == 1)
          read_all<<<sms * 8, 256>>>(reinterpret_cast<const float4*>(flush), 2 * l2 / 16, sink);
        CK(cudaEventRecord(s));
        copy4<<<sms * 8, 256>>>(a, b, n);
        CK(cudaEventRecord(e));
        CK(cudaEventSynchronize(e));
        float ms;
        CK(cudaEventElapsedTime(&ms, s, e));
        if (r >= 3) t.push_back(ms);
      }
      std::sort(t.begin(), t.end());
      gbps[mode] = 2.0 * bytes / (t[t.size() / 2] * 1e6);
    }
    printf("%10zu %12.0f %12.0f %12.0f\n", mb, gbps[0], gbps[1], gbps[2]);
  }
  return 0;
}
