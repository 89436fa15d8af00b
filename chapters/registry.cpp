// The kernel registry: tour, tests and benchmarks iterate over this one list.
// Adding a chapter adds its header and one line below.
#include "registry.hpp"
#include "ch00.cuh"
#include "ch01.cuh"
#include "ch02.cuh"
#include "ch03.cuh"
#include "ch04.cuh"
#include "ch05.cuh"
#include "ch06.cuh"
#include "ch07.cuh"

namespace normlab {

const std::vector<KernelEntry>& kernel_registry() {
  static const std::vector<KernelEntry> entries = [] {
    std::vector<KernelEntry> all;
    for (auto chapter : {&ch00::kernels, &ch01::kernels, &ch02::kernels, &ch03::kernels,
                         &ch04::kernels, &ch05::kernels, &ch06::kernels, &ch07::kernels}) {
      for (KernelEntry& entry : chapter())
        all.push_back(std::move(entry));
    }
    return all;
  }();
  return entries;
}

const KernelEntry* default_kernel(Op op) {
  for (const KernelEntry& kernel : kernel_registry()) {
    if (kernel.op == op && kernel.default_for_op) return &kernel;
  }
  return nullptr;
}

const KernelEntry* find_kernel(std::string_view name) {
  for (const KernelEntry& kernel : kernel_registry()) {
    if (kernel.name == name) return &kernel;
  }
  return nullptr;
}

}  // namespace normlab
