// SPDX-License-Identifier: Apache-2.0
#include "normlab/kernel_attributes.hpp"

#include <map>
#include <mutex>
#include <tuple>

#include "normlab/check.hpp"

namespace normlab {

namespace {

// The answers kept: each kernel's allowance on each device, and its resident clusters by shape.
struct Kept {
  std::mutex mutex;
  std::map<std::tuple<const void*, int>, std::size_t> allowed;
  std::map<std::tuple<const void*, int, int, unsigned int, std::size_t>, int> resident;
};

Kept& kept() {
  static Kept k;
  return k;
}

int current_device() {
  int device = 0;
  NORMLAB_CHECK(cudaGetDevice(&device));
  return device;
}

// Under the lock, so that no launch of this kernel on this device sees the allowance lowered by
// another thread's first, smaller one.
void allow_on(const void* kernel, int device, std::size_t bytes) {
  Kept& k = kept();
  const std::lock_guard<std::mutex> lock(k.mutex);
  std::size_t& allowed = k.allowed[{kernel, device}];
  if (allowed >= bytes) return;
  NORMLAB_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(bytes)));
  allowed = bytes;
}

}  // namespace

void allow_dynamic_shared(const void* kernel, std::size_t bytes) {
  if (bytes == 0) return;
  allow_on(kernel, current_device(), bytes);
}

int resident_clusters(const void* kernel, const cudaLaunchConfig_t& config, int blocks) {
  const int device = current_device();
  const auto key =
      std::make_tuple(kernel, device, blocks, config.blockDim.x, config.dynamicSmemBytes);
  Kept& k = kept();
  {
    const std::lock_guard<std::mutex> lock(k.mutex);
    const auto found = k.resident.find(key);
    if (found != k.resident.end()) return found->second;
  }
  if (blocks > 8) {  // beyond the portable cluster size
    NORMLAB_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  }
  if (config.dynamicSmemBytes > 0) allow_on(kernel, device, config.dynamicSmemBytes);
  int resident = 0;
  NORMLAB_CHECK(cudaOccupancyMaxActiveClusters(&resident, kernel, &config));
  const std::lock_guard<std::mutex> lock(k.mutex);
  k.resident.emplace(key, resident);
  return resident;
}

}  // namespace normlab
