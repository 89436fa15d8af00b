// SPDX-License-Identifier: Apache-2.0
// Chapter 09 program: the dispatcher and, beside it, every configuration of its table that
// holds the problem's row (the sweep), for every op; then the empty-kernel floor, the time
// under which no launch goes, to read the few-row figures against.
#include <cstdio>
#include <exception>
#include <vector>

#include "configured_entries.hpp"
#include "empty_kernel.cuh"
#include "normlab/device.hpp"
#include "normlab/program.hpp"

namespace normlab::ch09 {
std::vector<KernelEntry> entries();  // entries.cpp
}

int main(int argc, char** argv) {
  std::vector<normlab::KernelEntry> kernels = normlab::ch09::entries();
  try {
    const normlab::ProgramOptions options = normlab::parse_program_options(argc, argv, 1);
    for (normlab::KernelEntry& entry :
         normlab::kernels::configured::sweep_entries(options.rows, options.cols, options.dtype))
      kernels.push_back(std::move(entry));
  } catch (const std::exception&) {
    // Bad options or --help: chapter_main says so.
  }
  const int code = normlab::chapter_main(argc, argv, kernels);
  if ((code == 0 || code == 1) && normlab::gpu_unavailable_reason().empty()) {
    std::printf("empty kernel, launched back to back and event-timed: %.2f us\n",
                normlab::ch09::empty_kernel_microseconds(nullptr));
  }
  return code;
}
