// SPDX-License-Identifier: Apache-2.0
// Chapter 06 program: fused add + RMSNorm / LayerNorm, and the unfused pair (--op add_rmsnorm or
// --op add_layernorm).
#include "ch06.cuh"
#include "normlab/program.hpp"

namespace normlab::ch06 {
std::vector<KernelEntry> entries();  // entries.cpp
}

int main(int argc, char** argv) {
  return normlab::chapter_main(argc, argv, normlab::ch06::entries());
}
