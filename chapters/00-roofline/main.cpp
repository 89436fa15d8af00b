// SPDX-License-Identifier: Apache-2.0
// Chapter 00 program: measures the copy roof, runs the two copies and the eager RMSNorm.
#include "ch00.cuh"
#include "normlab/program.hpp"

namespace normlab::ch00 {
std::vector<KernelEntry> entries();  // entries.cpp
}

int main(int argc, char** argv) {
  return normlab::chapter_main(argc, argv, normlab::ch00::entries());
}
