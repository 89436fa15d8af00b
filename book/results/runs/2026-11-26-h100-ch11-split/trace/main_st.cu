#include "fused_trace_st.cu"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
using namespace normlab::ch11;
int main(int argc, char** argv) {
  long rows = atol(argv[1]), k = atol(argv[2]), n = atol(argv[3]);
  __half *x, *w, *y;
  cudaMalloc(&x, rows * k * 2); cudaMalloc(&w, k * n * 2); cudaMalloc(&y, rows * n * 2);
  std::vector<__half> hx(rows * k), hw(k * n);
  for (auto& v : hx) v = __float2half(0.5f);
  for (auto& v : hw) v = __float2half(0.01f);
  cudaMemcpy(x, hx.data(), rows * k * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(w, hw.data(), k * n * 2, cudaMemcpyHostToDevice);
  const FusedKernel kernel = FusedKernel::cluster_split;
  for (int i = 0; i < 2000; ++i) fused_rmsnorm_linear(kernel, x, w, rows, k, n, 1e-6f, y, nullptr);
  cudaDeviceSynchronize();
  fused_rmsnorm_linear(kernel, x, w, rows, k, n, 1e-6f, y, nullptr);  // the traced launch, L2 warm
  cudaDeviceSynchronize();
  static unsigned long long t[4096][8];
  cudaMemcpyFromSymbol(t, g_trace, sizeof(t));
  int blocks = (int)((n + 63) / 64) * 8;
  unsigned long long t0 = ~0ull;
  for (int i = 0; i < blocks; ++i) t0 = std::min(t0, t[i][0]);
  const char* names[] = {"entry", "stage 0 landed", "loop done", "before start wait",
                         "after start wait", "sent", "inbox full, rstd", "exit"};
  printf("%ld x %ld -> %ld: %d blocks; ns after the first block's entry: min / median / max\n", rows, k, n, blocks);
  for (int p = 0; p < 8; ++p) {
    std::vector<long> v;
    for (int i = 0; i < blocks; ++i) v.push_back((long)(t[i][p] - t0));
    std::sort(v.begin(), v.end());
    printf("  %-22s %6ld %6ld %6ld\n", names[p], v.front(), v[v.size() / 2], v.back());
  }
  printf("error: %s\n", cudaGetErrorString(cudaGetLastError()));
}
