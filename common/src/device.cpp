#include "normlab/device.hpp"

#include <cuda_runtime.h>

#include "normlab/check.hpp"

namespace normlab {

std::string gpu_unavailable_reason() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    return std::string("no usable CUDA device (cudaGetDeviceCount: ") + cudaGetErrorString(status) +
           ")";
  }
  if (count == 0) return "no CUDA device is visible";
  return {};
}

std::string device_name() {
  int device = 0;
  NORMLAB_CHECK(cudaGetDevice(&device));
  cudaDeviceProp properties{};
  NORMLAB_CHECK(cudaGetDeviceProperties(&properties, device));
  return properties.name;
}

int l2_cache_bytes() {
  int device = 0, bytes = 0;
  NORMLAB_CHECK(cudaGetDevice(&device));
  NORMLAB_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device));
  return bytes;
}

int compute_capability() {
  int device = 0, major = 0, minor = 0;
  NORMLAB_CHECK(cudaGetDevice(&device));
  NORMLAB_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  NORMLAB_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return major * 10 + minor;
}

}  // namespace normlab
