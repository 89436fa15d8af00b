// SPDX-License-Identifier: Apache-2.0
// Chapter 01 program: the one-thread-per-row RMSNorm against the eager baseline's figures.
#include "ch01.cuh"
#include "normlab/program.hpp"

namespace normlab::ch01 {
std::vector<KernelEntry> entries();  // entries.cpp
}

int main(int argc, char** argv) {
  return normlab::chapter_main(argc, argv, normlab::ch01::entries());
}
