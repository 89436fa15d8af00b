// Minimal: every block of a cluster pushes one float into every block's inbox by st.async,
// counted on the receiver's mbarrier; each block checks the total. Clusters of 8 and 16.
#include <cooperative_groups.h>
#include <cuda/ptx>
#include <cstdio>
#include <cuda_pipeline.h>
namespace cg = cooperative_groups;
__global__ void exchange(int* bad, int rounds, const uint4* src) {
  extern __shared__ uint4 stash[];
  stash[threadIdx.x] = make_uint4(threadIdx.x, 0, 0, 0);
  __shared__ float total[2][16];
  __shared__ std::uint64_t landed[2];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned blocks = cluster.num_blocks(), rank = cluster.block_rank();
  if (threadIdx.x == 0) {
    for (auto& l : landed) cuda::ptx::mbarrier_init(&l, 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  cluster.sync();
  for (int round = 0; round < rounds; ++round) {
    const int box = round % 2;
    const std::uint32_t parity = round / 2 % 2;
    __syncthreads();
    if (threadIdx.x == 0)
      cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cluster,
                                           cuda::ptx::space_shared, &landed[box], blocks * 4u);
    __pipeline_memcpy_async(&stash[threadIdx.x + 256], src + (blockIdx.x * 256 + threadIdx.x) % 65536, 16);
    __pipeline_commit();
    const float mine = float(rank + round);
    if (threadIdx.x < blocks)
      cuda::ptx::st_async(cluster.map_shared_rank(&total[box][rank], threadIdx.x), mine,
                          cluster.map_shared_rank(&landed[box], threadIdx.x));
    while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cluster,
                                                &landed[box], parity)) {
    }
    if (threadIdx.x == 0) {
      float sum = 0.f;
      for (unsigned b = 0; b < blocks; ++b) sum += total[box][b];
      const float want = blocks * (blocks - 1) / 2.0f + blocks * float(round);
      if (sum != want || stash[5].x != 5) atomicAdd(bad, 1);
    }
    __pipeline_wait_prior(0);
    __syncthreads();
  }
}
int main() {
  int* bad;
  cudaMalloc(&bad, 4);
  void* src;
  cudaMalloc(&src, 65536 * 16);
  for (int dyn : {16384, 49152})
  for (int size : {8, 16}) {
    cudaFuncSetAttribute(exchange, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn);
    cudaMemset(bad, 0, 4);
    cudaFuncSetAttribute(exchange, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    cudaLaunchAttribute a{};
    a.id = cudaLaunchAttributeClusterDimension;
    a.val.clusterDim.x = size; a.val.clusterDim.y = 1; a.val.clusterDim.z = 1;
    cudaLaunchConfig_t c{};
    c.gridDim = dim3(size);
    c.blockDim = dim3(256); c.attrs = &a; c.numAttrs = 1;
    c.dynamicSmemBytes = dyn;
    int resident = 0;
    cudaOccupancyMaxActiveClusters(&resident, exchange, &c);
    c.gridDim = dim3(size * resident); c.blockDim = dim3(256); c.attrs = &a; c.dynamicSmemBytes = dyn < 4096 ? 4096 : dyn; c.numAttrs = 1;
    cudaError_t e = cudaLaunchKernelEx(&c, exchange, bad, 10, (const uint4*)src);
    cudaError_t s = cudaDeviceSynchronize();
    int h = -1;
    cudaMemcpy(&h, bad, 4, cudaMemcpyDeviceToHost);
    printf("clusters %d dyn %d cluster %d: launch %s, sync %s, wrong totals %d\n", resident, dyn, size, cudaGetErrorString(e), cudaGetErrorString(s), h);
    if (s != cudaSuccess) return 1;
  }
  return 0;
}
