// How many clusters of 8 blocks (one block an SM) an H100 runs at once, and where.
#include <cstdio>
#include <cuda_runtime.h>
__global__ void stamp(unsigned long long* t, int* sm, unsigned long long spin) {
  unsigned long long s; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(s));
  unsigned long long e = s; while (e - s < spin) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(e));
  if (threadIdx.x == 0) { int id; asm("mov.u32 %0, %%smid;" : "=r"(id));
    int b = blockIdx.y * gridDim.x + blockIdx.x; t[2*b] = s; t[2*b+1] = e; sm[b] = id; }
}
int main() {
  const int smem = 150 * 1024;
  cudaFuncSetAttribute(stamp, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  for (int csize : {2, 4, 8, 16}) {
    if (csize == 16) cudaFuncSetAttribute(stamp, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    cudaLaunchAttribute a{}; a.id = cudaLaunchAttributeClusterDimension; a.val.clusterDim = {1, (unsigned)csize, 1};
    cudaLaunchConfig_t c{}; c.gridDim = dim3(112 / csize * 1, csize); c.blockDim = dim3(384);
    c.dynamicSmemBytes = smem; c.attrs = &a; c.numAttrs = 1;
    int clusters = 0; cudaError_t e = cudaOccupancyMaxActiveClusters(&clusters, stamp, &c);
    printf("cluster %2d: max active clusters %d (%s) = %d blocks\n", csize, clusters, cudaGetErrorString(e), clusters * csize);
  }
  // 14 clusters of 8, 112 blocks, each spinning 5 us: do they all start together?
  for (int grid_clusters : {14, 16, 17}) {
    cudaLaunchAttribute a{}; a.id = cudaLaunchAttributeClusterDimension; a.val.clusterDim = {1, 8, 1};
    cudaLaunchConfig_t c{}; c.gridDim = dim3(grid_clusters, 8); c.blockDim = dim3(384);
    c.dynamicSmemBytes = smem; c.attrs = &a; c.numAttrs = 1;
    const int n = grid_clusters * 8;
    unsigned long long* t; int* sm; cudaMalloc(&t, n * 16); cudaMalloc(&sm, n * 4);
    for (int rep = 0; rep < 3; ++rep) cudaLaunchKernelEx(&c, stamp, t, sm, 5000ull);
    cudaError_t e = cudaDeviceSynchronize();
    unsigned long long h[2 * 160]; int s[160];
    cudaMemcpy(h, t, n * 16, cudaMemcpyDeviceToHost); cudaMemcpy(s, sm, n * 4, cudaMemcpyDeviceToHost);
    unsigned long long t0 = ~0ull, last_start = 0, end = 0;
    for (int b = 0; b < n; ++b) { if (h[2*b] < t0) t0 = h[2*b]; }
    for (int b = 0; b < n; ++b) { if (h[2*b] - t0 > last_start) last_start = h[2*b] - t0; if (h[2*b+1] - t0 > end) end = h[2*b+1] - t0; }
    printf("%d clusters of 8 (%s): last block starts %.2f us after the first, all end by %.2f us\n", grid_clusters, cudaGetErrorString(e), last_start / 1e3, end / 1e3);
    if (grid_clusters == 14) { for (int b = 0; b < n; ++b) printf("%d:%d@%.1f ", b, s[b], (h[2*b]-t0)/1e3); printf("\n"); }
  }
}
