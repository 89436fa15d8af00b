// SPDX-License-Identifier: Apache-2.0
// Chapter 08 program: RMSNorm and LayerNorm backward on one problem, in any dtype.
#include "normlab/program.hpp"

namespace normlab::ch08 {
std::vector<KernelEntry> entries();  // entries.cpp
}

int main(int argc, char** argv) {
  return normlab::chapter_main(argc, argv, normlab::ch08::entries());
}
