// SPDX-License-Identifier: Apache-2.0
// Chapter 10's decisions on the CPU: the smallest cluster that holds a row, and the path on
// both sides of each boundary (a cluster's capacity, clusters on the GPU or not, the whole
// GPU's capacity, half of it and, for the lean kernel, a fifth or the held form's narrowest row;
// cooperative launches or not).
#include "normlab_catch.hpp"

#include "choose_path.hpp"

using namespace normlab::kernels::spread;

TEST_CASE("cluster_for: blocks of 256 threads while 16 hold the row, then 512", "[ch10]") {
  auto shape = [](std::int64_t chunks, bool aligned = true) {
    const ClusterShape s = cluster_for(chunks, aligned);
    return std::to_string(s.blocks) + "x" + std::to_string(s.threads);
  };
  CHECK(shape(1) == "1x256");
  CHECK(shape(1024) == "1x256");
  CHECK(shape(1025) == "2x256");
  CHECK(shape(8192) == "8x256");  // 65536 bf16 columns
  CHECK(shape(8193) == "16x256");
  CHECK(shape(16384) == "16x256");
  CHECK(shape(16385) == "16x512");
  CHECK(shape(cluster_chunks(true)) == "16x512");
  CHECK(shape(16384, false) == "16x256");  // off the 16-byte grid: at most 256 threads a block
  CHECK(cluster_chunks(false) == 16384);
}

TEST_CASE("choose: a cluster, else the whole GPU, else a split row", "[ch10]") {
  const Gpu hopper{.clusters = true, .cooperative = true, .whole_gpu_chunks = 2'400'000};
  Gpu ampere = hopper;
  ampere.clusters = false;
  Gpu no_cooperative = hopper;
  no_cooperative.cooperative = false;
  // Any call but the lean kernel's (fp32, on the grid, nothing to add), then the lean kernel's.
  auto path = [](std::int64_t chunks, bool aligned, const Gpu& gpu, bool lean = false) {
    return choose(chunks, aligned, lean, gpu).path;
  };

  CHECK(path(8192, true, hopper) == Path::cluster);
  CHECK(path(8192, true, hopper, true) == Path::cluster);
  CHECK(path(16384, false, hopper) == Path::cluster);
  CHECK(path(16385, false, hopper) == Path::split);  // a cluster holds less off the grid
  CHECK(path(cluster_chunks(true), true, hopper) == Path::cluster);
  // Past a cluster: the whole GPU once the row is half of what it holds.
  CHECK(path(cluster_chunks(true) + 1, true, hopper) == Path::split);
  CHECK(path(1'199'999, true, hopper) == Path::split);
  CHECK(path(1'200'000, true, hopper) == Path::whole_gpu);
  CHECK(path(2'400'000, true, hopper) == Path::whole_gpu);
  CHECK(path(2'400'001, true, hopper) == Path::split);
  CHECK(choose(2'400'001, true, false, hopper).why.find("wider than the whole GPU") !=
        std::string::npos);
  // The lean kernel: from a fifth of what the GPU holds.
  CHECK(path(cluster_chunks(true) + 1, true, hopper, true) == Path::split);
  CHECK(path(479'999, true, hopper, true) == Path::split);
  CHECK(choose(479'999, true, true, hopper).why.find("too narrow") != std::string::npos);
  CHECK(path(480'000, true, hopper, true) == Path::whole_gpu);
  CHECK(path(1'048'576, true, hopper, true) == Path::whole_gpu);  // fp32 16 x 4194304
  CHECK(path(2'400'000, true, hopper, true) == Path::whole_gpu);
  CHECK(path(2'400'001, true, hopper, true) == Path::split);
  // ... and wherever the held form takes the row, below that fifth too.
  Gpu held = hopper;
  held.held_chunks = 337'921;
  CHECK(path(337'920, true, held, true) == Path::split);
  CHECK(path(337'921, true, held, true) == Path::whole_gpu);
  CHECK(path(479'999, true, held, true) == Path::whole_gpu);
  CHECK(path(337'921, true, held) == Path::split);  // not a lean call
  CHECK(path(2'400'001, true, held, true) == Path::split);
  held.cooperative = false;
  CHECK(path(337'921, true, held, true) == Path::split);
  // Without clusters, rows a cluster would hold are split; without cooperative launches, all.
  CHECK(path(8192, true, ampere) == Path::split);
  CHECK(choose(8192, true, false, ampere).why.find("no clusters") != std::string::npos);
  CHECK(path(1'300'000, true, ampere) == Path::whole_gpu);
  CHECK(path(1'300'000, true, no_cooperative) == Path::split);
  CHECK(path(1'300'000, true, no_cooperative, true) == Path::split);
  CHECK(choose(1'300'000, true, false, no_cooperative).why.find("no cooperative") !=
        std::string::npos);
}

TEST_CASE("split_blocks_per_row: 4096 chunks a block", "[ch10]") {
  CHECK(split_blocks_per_row(0) == 1);
  CHECK(split_blocks_per_row(1) == 1);
  CHECK(split_blocks_per_row(4096) == 1);
  CHECK(split_blocks_per_row(4097) == 2);
  CHECK(split_blocks_per_row(1'048'576) == 256);
}
