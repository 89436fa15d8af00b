// SPDX-License-Identifier: Apache-2.0
// Chapter 10 program: the chapter's choice and each of its three paths (a cluster, the whole
// GPU, a split row) on one problem, for every op: the course's 2048 x 8192 by default, which
// chapter 07 holds in one block; its rows, e.g. --rows 512 --cols 65536 --dtype bf16 or
// --rows 16 --cols 4194304, are what the chapter is for.
#include "normlab/program.hpp"

namespace normlab::ch10 {
std::vector<KernelEntry> entries();  // entries.cpp
}

int main(int argc, char** argv) {
  return normlab::chapter_main(argc, argv, normlab::ch10::entries());
}
