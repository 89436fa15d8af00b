// The kernel registry: tour, tests and benchmarks iterate over this one list.
// Adding a chapter declares its entries() (chapters/NN-slug/entries.cpp) and adds it below.
#include "registry.hpp"

namespace normlab {

namespace ch00 {
std::vector<KernelEntry> entries();
}
namespace ch01 {
std::vector<KernelEntry> entries();
}
namespace ch02 {
std::vector<KernelEntry> entries();
}
namespace ch03 {
std::vector<KernelEntry> entries();
}
namespace ch04 {
std::vector<KernelEntry> entries();
}
namespace ch05 {
std::vector<KernelEntry> entries();
}
namespace ch06 {
std::vector<KernelEntry> entries();
}
namespace ch07 {
std::vector<KernelEntry> entries();
}
namespace ch09 {
std::vector<KernelEntry> entries();
}

const std::vector<KernelEntry>& kernel_registry() {
  static const std::vector<KernelEntry> entries = [] {
    std::vector<KernelEntry> all;
    for (auto chapter :
         {&ch00::entries, &ch01::entries, &ch02::entries, &ch03::entries, &ch04::entries,
          &ch05::entries, &ch06::entries, &ch07::entries, &ch09::entries}) {
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
