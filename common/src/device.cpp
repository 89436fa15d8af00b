// SPDX-License-Identifier: Apache-2.0
#include "normlab/device.hpp"

#include <cuda_runtime.h>

#include <cstdio>

#include "normlab/check.hpp"

namespace normlab {

// The first call into CUDA of every program. Without a GPU (no driver, no device, or
// CUDA_VISIBLE_DEVICES hiding them all) CUDA answers with errors such as "driver version is
// insufficient", which point at the wrong fix: the line says first that no GPU is visible.
std::string gpu_unavailable_reason() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    return std::string("no CUDA GPU is visible (cudaGetDeviceCount: ") + cudaGetErrorName(status) +
           ")";
  }
  if (count == 0) return "no CUDA GPU is visible (cudaGetDeviceCount found none)";
  return {};
}

bool report_missing_gpu(std::string_view program) {
  const std::string reason = gpu_unavailable_reason();
  if (reason.empty()) return false;
  std::fprintf(stderr, "%.*s: %s; it runs kernels and needs a CUDA GPU.\n",
               static_cast<int>(program.size()), program.data(), reason.c_str());
  return true;
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

int most_shared_bytes_per_block() {
  int device = 0, bytes = 0;
  NORMLAB_CHECK(cudaGetDevice(&device));
  NORMLAB_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return bytes;
}

bool has_clusters() {
  int device = 0, clusters = 0;
  NORMLAB_CHECK(cudaGetDevice(&device));
  NORMLAB_CHECK(cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, device));
  return clusters != 0;
}

}  // namespace normlab
