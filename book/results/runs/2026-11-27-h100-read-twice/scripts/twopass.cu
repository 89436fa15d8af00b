// Feasibility check: a row read twice, the second time from L2, against a row held in
// registers (normlab's chapter 09), bf16, aligned rows. Pass 1: the statistics (RMSNorm: sum of
// squares; LayerNorm: each thread's chunks merged as equal-count moments, then the block's
// threads in a tree); pass 2: the row read again (from L2) and normalised.
#include <cuda_bf16.h>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t ck_e = (x); if (ck_e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(ck_e)); exit(1); } } while (0)
struct M { float n, mean, m2; };
__device__ __forceinline__ M merge(M a, M b) {
  const float n = a.n + b.n; if (n == 0.f) return a;
  const float d = b.mean - a.mean, f = b.n / n;
  return {n, a.mean + d * f, a.m2 + b.m2 + d * d * a.n * f};
}
template <int kThreads>
__device__ __forceinline__ M block_moments(M m) {
  __shared__ float3 part[kThreads / 32];
  for (int o = 16; o; o >>= 1) m = merge(m, {__shfl_xor_sync(~0u, m.n, o), __shfl_xor_sync(~0u, m.mean, o), __shfl_xor_sync(~0u, m.m2, o)});
  const int w = threadIdx.x / 32, l = threadIdx.x % 32;
  if (l == 0) part[w] = {m.n, m.mean, m.m2};
  __syncthreads();
  float3 p = l < kThreads / 32 ? part[l] : make_float3(0.f, 0.f, 0.f);
  M r{p.x, p.y, p.z};
  for (int o = 16; o; o >>= 1) r = merge(r, {__shfl_xor_sync(~0u, r.n, o), __shfl_xor_sync(~0u, r.mean, o), __shfl_xor_sync(~0u, r.m2, o)});
  __syncthreads();
  return r;
}
template <int kThreads>
__device__ __forceinline__ float block_sum(float v) {
  __shared__ float part[kThreads / 32];
  for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(~0u, v, o);
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = v;
  __syncthreads();
  float r = threadIdx.x % 32 < kThreads / 32 ? part[threadIdx.x % 32] : 0.f;
  for (int o = 16; o; o >>= 1) r += __shfl_xor_sync(~0u, r, o);
  __syncthreads();
  return r;
}
__device__ __forceinline__ void floats(uint4 v, float (&f)[8]) {
  const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&v);
  for (int i = 0; i < 4; ++i) { float2 t = __bfloat1622float2(h[i]); f[2 * i] = t.x; f[2 * i + 1] = t.y; }
}
// kUnroll chunks of 16 bytes a thread in flight per step; cols / 8 chunks a row.
template <bool kCentre, int kThreads, int kUnroll, int kMinBlocks>
__global__ void __launch_bounds__(kThreads, kMinBlocks) two_pass(const uint4* x, const uint4* w, const uint4* b, uint4* y, int rows, int chunks, float eps) {
  for (int r = blockIdx.x; r < rows; r += gridDim.x) {
    const uint4* xr = x + (size_t)r * chunks;
    M m{0.f, 0.f, 0.f}; float sq = 0.f;
    for (int c0 = threadIdx.x; c0 < chunks; c0 += kThreads * kUnroll) {
      uint4 v[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) { int c = c0 + u * kThreads; v[u] = c < chunks ? __ldg(xr + c) : make_uint4(0, 0, 0, 0); }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        if (c0 + u * kThreads >= chunks) break;
        float f[8]; floats(v[u], f);
        if (kCentre) {
          float s = 0.f; for (int j = 0; j < 8; ++j) s += f[j];
          const float mean = s * 0.125f; float m2 = 0.f; for (int j = 0; j < 8; ++j) { float d = f[j] - mean; m2 += d * d; }
          m = merge(m, {8.f, mean, m2});
        } else { for (int j = 0; j < 8; ++j) sq += f[j] * f[j]; }
      }
    }
    float mean = 0.f, var;
    if (kCentre) { M t = block_moments<kThreads>(m); mean = t.mean; var = t.m2 / t.n; }
    else var = block_sum<kThreads>(sq) / (chunks * 8.f);
    const float rstd = rsqrtf(var + eps);
    uint4* yr = y + (size_t)r * chunks;
    for (int c0 = threadIdx.x; c0 < chunks; c0 += kThreads * kUnroll) {
      uint4 v[kUnroll], wv[kUnroll], bv[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) { int c = c0 + u * kThreads; if (c < chunks) { v[u] = __ldg(xr + c); wv[u] = __ldg(w + c); if (kCentre) bv[u] = __ldg(b + c); } }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        int c = c0 + u * kThreads; if (c >= chunks) break;
        float f[8], g[8], h[8]; floats(v[u], f); floats(wv[u], g); if (kCentre) floats(bv[u], h);
        uint4 o; __nv_bfloat162* p = reinterpret_cast<__nv_bfloat162*>(&o);
        for (int i = 0; i < 4; ++i) {
          float a0 = (f[2*i] - mean) * rstd * g[2*i] + (kCentre ? h[2*i] : 0.f);
          float a1 = (f[2*i+1] - mean) * rstd * g[2*i+1] + (kCentre ? h[2*i+1] : 0.f);
          p[i] = __floats2bfloat162_rn(a0, a1);
        }
        yr[c] = o;
      }
    }
  }
}
template <bool kCentre, int kThreads, int kUnroll, int kMinBlocks>
float time_it(const uint4* x, const uint4* w, const uint4* b, uint4* y, int rows, int chunks, char* flush, size_t flush_bytes) {
  auto k = two_pass<kCentre, kThreads, kUnroll, kMinBlocks>;
  int per_sm = 0; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, kThreads, 0));
  const int grid = std::min(rows, per_sm * 132);
  cudaEvent_t a, e; cudaEventCreate(&a); cudaEventCreate(&e);
  std::vector<float> t;
  for (int i = 0; i < 25; ++i) {
    CK(cudaMemsetAsync(flush, i, flush_bytes));
    cudaEventRecord(a); k<<<grid, kThreads>>>(x, w, b, y, rows, chunks, 1e-5f); cudaEventRecord(e);
    CK(cudaEventSynchronize(e)); float ms; cudaEventElapsedTime(&ms, a, e); if (i >= 5) t.push_back(ms);
  }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
#include <algorithm>
int main(int argc, char** argv) {
  const int rows = atoi(argv[1]), cols = atoi(argv[2]); const int chunks = cols / 8;
  size_t n = (size_t)rows * cols;
  std::vector<__nv_bfloat16> hx(n), hw(cols), hb(cols); srand(1);
  for (auto& v : hx) v = __float2bfloat16(3.f + (rand() / (float)RAND_MAX - 0.5f) * 4.f);
  for (auto& v : hw) v = __float2bfloat16(0.5f + rand() / (float)RAND_MAX);
  for (auto& v : hb) v = __float2bfloat16(rand() / (float)RAND_MAX - 0.5f);
  uint4 *x, *w, *b, *y; CK(cudaMalloc(&x, n * 2)); CK(cudaMalloc(&y, n * 2)); CK(cudaMalloc(&w, cols * 2)); CK(cudaMalloc(&b, cols * 2));
  CK(cudaMemcpy(x, hx.data(), n * 2, cudaMemcpyHostToDevice)); CK(cudaMemcpy(w, hw.data(), cols * 2, cudaMemcpyHostToDevice)); CK(cudaMemcpy(b, hb.data(), cols * 2, cudaMemcpyHostToDevice));
  size_t flush_bytes = 100u << 20; char* flush; CK(cudaMalloc(&flush, flush_bytes));
  // copy roof: cudaMemcpy of 512 MiB device to device, bytes read + written
  char *c0, *c1; size_t cb = 512u << 20; CK(cudaMalloc(&c0, cb)); CK(cudaMalloc(&c1, cb));
  cudaEvent_t a, e; cudaEventCreate(&a); cudaEventCreate(&e); std::vector<float> ct;
  for (int i = 0; i < 12; ++i) { cudaEventRecord(a); CK(cudaMemcpy(c1, c0, cb, cudaMemcpyDeviceToDevice)); cudaEventRecord(e); cudaEventSynchronize(e); float ms; cudaEventElapsedTime(&ms, a, e); if (i >= 2) ct.push_back(ms); }
  std::sort(ct.begin(), ct.end()); const double roof = 2.0 * cb / (ct[ct.size() / 2] * 1e-3) / 1e9;
  cudaFree(c0); cudaFree(c1);
  for (int centre = 0; centre < 2; ++centre) {
    const double bytes = 2.0 * n * 2 + cols * 2.0 * (centre ? 2 : 1);
    auto report = [&](const char* name, float ms) {
      // check 4 rows against float64
      std::vector<__nv_bfloat16> hy(n); CK(cudaMemcpy(hy.data(), y, n * 2, cudaMemcpyDeviceToHost));
      double worst = 0; for (int r : {0, 1, rows / 2, rows - 1}) { double s = 0, s2 = 0; for (int c = 0; c < cols; ++c) { double v = __bfloat162float(hx[(size_t)r * cols + c]); s += v; s2 += v * v; }
        double mean = centre ? s / cols : 0, var = centre ? s2 / cols - mean * mean : s2 / cols; double rs = 1 / sqrt(var + 1e-5);
        for (int c = 0; c < cols; ++c) { double v = (__bfloat162float(hx[(size_t)r * cols + c]) - mean) * rs * __bfloat162float(hw[c]) + (centre ? __bfloat162float(hb[c]) : 0);
          double got = __bfloat162float(hy[(size_t)r * cols + c]); double err = fabs(got - v) / (0.01 + 0.01 * fabs(v)); if (err > worst) worst = err; } }
      printf("%s %s %d x %d: %.1f us, %.1f%% of the copy roof (%.0f GB/s), worst error %.2f of tolerance\n", centre ? "layernorm" : "rmsnorm", name, rows, cols, ms * 1e3, 100.0 * bytes / (ms * 1e-3) / 1e9 / roof, roof, worst);
    };
    if (centre) {
      report("512x4u x2", time_it<true, 512, 4, 2>(x, w, b, y, rows, chunks, flush, flush_bytes));
      report("256x4u x4", time_it<true, 256, 4, 4>(x, w, b, y, rows, chunks, flush, flush_bytes));
      report("512x2u x2", time_it<true, 512, 2, 2>(x, w, b, y, rows, chunks, flush, flush_bytes));
      report("1024x2u x1", time_it<true, 1024, 2, 1>(x, w, b, y, rows, chunks, flush, flush_bytes));
      report("256x8u x2", time_it<true, 256, 8, 2>(x, w, b, y, rows, chunks, flush, flush_bytes));
    } else {
      report("512x4u x2", time_it<false, 512, 4, 2>(x, w, b, y, rows, chunks, flush, flush_bytes));
      report("256x4u x4", time_it<false, 256, 4, 4>(x, w, b, y, rows, chunks, flush, flush_bytes));
      report("512x2u x2", time_it<false, 512, 2, 2>(x, w, b, y, rows, chunks, flush, flush_bytes));
      report("1024x2u x1", time_it<false, 1024, 2, 1>(x, w, b, y, rows, chunks, flush, flush_bytes));
      report("256x8u x2", time_it<false, 256, 8, 2>(x, w, b, y, rows, chunks, flush, flush_bytes));
    }
  }
}
