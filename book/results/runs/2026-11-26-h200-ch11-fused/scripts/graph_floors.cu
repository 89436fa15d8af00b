// Graph-replay floors: empty kernels with and without clusters, cluster barriers and big shared memory.
#include <cooperative_groups.h>
#include <cstdio>
#include <vector>
#include <algorithm>
namespace cg = cooperative_groups;
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)
template <int kSyncs, bool kDsmem>
__global__ void k(float* out) {
  extern __shared__ float s[];
  if (kSyncs > 0) {
    auto cl = cg::this_cluster();
    s[threadIdx.x] = threadIdx.x;
    cl.sync();
    float v = 0;
    if (kDsmem) v = *cl.map_shared_rank(&s[threadIdx.x], (cl.block_rank() + 1) % cl.num_blocks());
    if (kSyncs > 1) cl.sync();
    if (v == -1.0f) out[0] = v;
  }
}
template <typename K>
double time_graph(K kernel, int blocks, int cluster, int smem) {
  cudaStream_t st; CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  float* out; CK(cudaMalloc(&out, 4));
  if (smem > 48 * 1024) CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  cudaLaunchAttribute at{}; at.id = cudaLaunchAttributeClusterDimension; at.val.clusterDim.x = cluster; at.val.clusterDim.y = 1; at.val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg{}; cfg.gridDim = dim3(blocks); cfg.blockDim = dim3(128); cfg.dynamicSmemBytes = smem; cfg.stream = st; cfg.attrs = &at; cfg.numAttrs = cluster > 0 ? 1 : 0;
  cudaGraph_t g; cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
  CK(cudaLaunchKernelEx(&cfg, kernel, out));
  CK(cudaStreamEndCapture(st, &g)); CK(cudaGraphInstantiate(&ge, g, 0));
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<double> v;
  for (int s = 0; s < 8; ++s) {
    CK(cudaEventRecord(a, st)); for (int r = 0; r < 200; ++r) CK(cudaGraphLaunch(ge, st)); CK(cudaEventRecord(b, st)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b)); if (s) v.push_back(ms * 1000 / 200);
  }
  std::sort(v.begin(), v.end()); return v[v.size() / 2];
}
int main() {
  printf("1 block, no cluster: %.2f us\n", time_graph(k<0, false>, 1, 0, 0));
  for (int blocks : {120, 320, 768}) {
    printf("%d blocks, no cluster: %.2f\n", blocks, time_graph(k<0, false>, blocks, 0, 0));
    printf("%d blocks, cluster 8, no sync: %.2f\n", blocks, time_graph(k<0, false>, blocks, 8, 0));
    printf("%d blocks, cluster 8, 1 sync: %.2f\n", blocks, time_graph(k<1, false>, blocks, 8, 1024));
    printf("%d blocks, cluster 8, 2 syncs + dsmem: %.2f\n", blocks, time_graph(k<2, true>, blocks, 8, 1024));
    printf("%d blocks, cluster 8, 2 syncs + dsmem, 34 KB smem: %.2f\n", blocks, time_graph(k<2, true>, blocks, 8, 34 * 1024));
    printf("%d blocks, cluster 8, 2 syncs + dsmem, 55 KB smem: %.2f\n", blocks, time_graph(k<2, true>, blocks, 8, 55 * 1024));
    printf("%d blocks, cluster 4, 2 syncs + dsmem: %.2f\n", blocks, time_graph(k<2, true>, blocks, 4, 1024));
    printf("%d blocks, cluster 1, 2 syncs + dsmem: %.2f\n", blocks, time_graph(k<2, true>, blocks, 1, 1024));
  }
}
