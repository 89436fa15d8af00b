// SPDX-License-Identifier: Apache-2.0
// Chapter 02 program: one block per row with a shared-memory tree reduction.
#include "ch02.cuh"
#include "normlab/program.hpp"

namespace normlab::ch02 {
std::vector<KernelEntry> entries();  // entries.cpp
}

int main(int argc, char** argv) {
  return normlab::chapter_main(argc, argv, normlab::ch02::entries());
}
