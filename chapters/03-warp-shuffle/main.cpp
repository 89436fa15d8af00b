// SPDX-License-Identifier: Apache-2.0
// Chapter 03 program: one block per row, reduced with warp shuffles.
#include "ch03.cuh"
#include "normlab/program.hpp"

namespace normlab::ch03 {
std::vector<KernelEntry> entries();  // entries.cpp
}

int main(int argc, char** argv) {
  return normlab::chapter_main(argc, argv, normlab::ch03::entries());
}
