// racecheck repro: cp.async into shared memory in a cluster kernel, then a DSMEM read.
#include <cooperative_groups.h>
#include <cuda_pipeline.h>
#include <cstdio>
namespace cg = cooperative_groups;
template <bool kAsync, bool kCluster>
__global__ void k(const float4* in, float* out) {
  __shared__ float4 tile[128];
  if (kAsync) { __pipeline_memcpy_async(&tile[threadIdx.x], &in[blockIdx.x * 128 + threadIdx.x], 16); __pipeline_commit(); __pipeline_wait_prior(0); }
  else tile[threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
  __syncthreads();
  float v = tile[(threadIdx.x + 1) % 128].x;
  if (kCluster) { auto cl = cg::this_cluster(); cl.sync(); v += cl.map_shared_rank(&tile[threadIdx.x], (cl.block_rank() + 1) % cl.num_blocks())->y; cl.sync(); }
  out[blockIdx.x * 128 + threadIdx.x] = v;
}
template <bool A, bool C> void run(const float4* in, float* out, const char* name) {
  cudaLaunchAttribute at{}; at.id = cudaLaunchAttributeClusterDimension; at.val.clusterDim.x = C ? 2 : 1; at.val.clusterDim.y = 1; at.val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg{}; cfg.gridDim = dim3(4); cfg.blockDim = dim3(128); cfg.attrs = &at; cfg.numAttrs = 1;
  cudaError_t e = cudaLaunchKernelEx(&cfg, k<A, C>, in, out); cudaError_t s = cudaDeviceSynchronize();
  printf("%s: launch %s, sync %s\n", name, cudaGetErrorString(e), cudaGetErrorString(s));
}
int main(int argc, char** argv) {
  float4* in; float* out; cudaMalloc(&in, 4 * 128 * 16); cudaMalloc(&out, 4 * 128 * 4); cudaMemset(in, 0, 4 * 128 * 16);
  int which = argc > 1 ? atoi(argv[1]) : 0;
  if (which == 0) run<false, false>(in, out, "plain loads, no cluster");
  if (which == 1) run<true, false>(in, out, "cp.async, no cluster");
  if (which == 2) run<false, true>(in, out, "plain loads, cluster of 2");
  if (which == 3) run<true, true>(in, out, "cp.async, cluster of 2");
  return 0;
}
