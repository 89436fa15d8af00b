// Experiment: a 16-byte-a-thread copy and the group RMSNorm, for launch-path comparisons.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
extern "C" __global__ void copy16(const uint4* x, uint4* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}
extern "C" __global__ void copy4(const unsigned* x, unsigned* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}
extern "C" int run_copy16(const void* x, void* y, int n, void* s) {
  copy16<<<(n + 127) / 128, 128, 0, (cudaStream_t)s>>>((const uint4*)x, (uint4*)y, n);
  return cudaGetLastError();
}
extern "C" int run_copy4(const void* x, void* y, int n, void* s) {
  copy4<<<(n + 127) / 128, 128, 0, (cudaStream_t)s>>>((const unsigned*)x, (unsigned*)y, n);
  return cudaGetLastError();
}
