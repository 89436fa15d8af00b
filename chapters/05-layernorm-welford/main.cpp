// SPDX-License-Identifier: Apache-2.0
// Chapter 05 program: the sum-of-squares and the Welford LayerNorm on one problem.
#include "ch05.cuh"
#include "normlab/program.hpp"

namespace normlab::ch05 {
std::vector<KernelEntry> entries();  // entries.cpp
}

int main(int argc, char** argv) {
  return normlab::chapter_main(argc, argv, normlab::ch05::entries());
}
