// SPDX-License-Identifier: Apache-2.0
// Chapter 04 program: the fused single-pass float4 RMSNorm and its two-read fallback.
#include "ch04.cuh"
#include "normlab/program.hpp"

namespace normlab::ch04 {
std::vector<KernelEntry> entries();  // entries.cpp
}

int main(int argc, char** argv) {
  return normlab::chapter_main(argc, argv, normlab::ch04::entries());
}
