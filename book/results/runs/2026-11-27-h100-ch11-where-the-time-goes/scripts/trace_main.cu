#include <cstdio>
#include <random>
#include <vector>
#include <cuda_fp16.h>
#include "ch11.cuh"
void dump_trace(int blocks);
using namespace normlab::ch11;
int main(int argc, char** argv) {
  const int m = argc > 1 ? atoi(argv[1]) : 64, k = argc > 2 ? atoi(argv[2]) : 2048, n = argc > 3 ? atoi(argv[3]) : 2560;
  std::mt19937 rng(1); std::normal_distribution<float> d(0.f, 1.f);
  std::vector<__half> x(m * k), w(std::size_t(k) * n);
  for (auto& v : x) v = __float2half(d(rng));
  for (auto& v : w) v = __float2half(d(rng) * 0.02f);
  auto packed = pack_weights(w, k, n);
  __half *dx, *dw, *dy; cudaMalloc(&dx, x.size() * 2); cudaMalloc(&dw, packed.size() * 2); cudaMalloc(&dy, m * n * 2);
  cudaMemcpy(dx, x.data(), x.size() * 2, cudaMemcpyHostToDevice); cudaMemcpy(dw, packed.data(), packed.size() * 2, cudaMemcpyHostToDevice);
  FoldedWeights fw{dw};
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < 50; ++i) fused_rmsnorm_linear(FusedKernel::cluster_split, dx, fw, m, k, n, 1e-6f, dy, 0);
  cudaEventRecord(a);
  for (int i = 0; i < 200; ++i) fused_rmsnorm_linear(FusedKernel::cluster_split, dx, fw, m, k, n, 1e-6f, dy, 0);
  cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b);
  printf("%d tokens %d -> %d: %.2f us a launch (back to back)\n", m, k, n, ms * 1000 / 200);
  cudaDeviceSynchronize();
  fused_rmsnorm_linear(FusedKernel::cluster_split, dx, fw, m, k, n, 1e-6f, dy, 0);
  printf("sync: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  dump_trace(((n + 191) / 192) * 8);
}
