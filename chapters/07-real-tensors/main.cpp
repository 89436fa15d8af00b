// SPDX-License-Identifier: Apache-2.0
// Chapter 07 program: RMSNorm, LayerNorm and add + norm on one problem, in any dtype.
#include "normlab/program.hpp"

namespace normlab::ch07 {
std::vector<KernelEntry> entries();  // entries.cpp
}

int main(int argc, char** argv) {
  return normlab::chapter_main(argc, argv, normlab::ch07::entries());
}
