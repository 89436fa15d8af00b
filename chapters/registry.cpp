// The kernel registry: tour, tests and benchmarks iterate over this one list.
// Adding a chapter adds its header and one line below.
#include "ch00.cuh"
#include "normlab/registry.hpp"

namespace normlab {

const std::vector<KernelEntry>& kernel_registry() {
  static const std::vector<KernelEntry> entries = [] {
    std::vector<KernelEntry> all;
    for (auto chapter : {&ch00::kernels}) {
      for (KernelEntry& entry : chapter()) all.push_back(std::move(entry));
    }
    return all;
  }();
  return entries;
}

}  // namespace normlab
