// SPDX-License-Identifier: Apache-2.0
// Chapter 10's decisions on the CPU: the smallest cluster that holds a row, and the path on
// both sides of each boundary (a cluster's capacity, clusters on the GPU or not, the whole
// GPU's capacity and half of it, cooperative launches or not).
#include "normlab_catch.hpp"

#include "choose_path.hpp"

using namespace normlab::ch10;

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

  CHECK(choose(8192, true, hopper).path == Path::cluster);
  CHECK(choose(16384, false, hopper).path == Path::cluster);
  CHECK(choose(16385, false, hopper).path == Path::split);  // a cluster holds less off the grid
  CHECK(choose(cluster_chunks(true), true, hopper).path == Path::cluster);
  // Past a cluster: the whole GPU once the row is half of what it holds.
  CHECK(choose(cluster_chunks(true) + 1, true, hopper).path == Path::split);
  CHECK(choose(1'199'999, true, hopper).path == Path::split);
  CHECK(choose(1'200'000, true, hopper).path == Path::whole_gpu);
  CHECK(choose(2'400'000, true, hopper).path == Path::whole_gpu);
  CHECK(choose(2'400'001, true, hopper).path == Path::split);
  CHECK(choose(2'400'001, true, hopper).why.find("wider than the whole GPU") != std::string::npos);
  // Without clusters, rows a cluster would hold are split; without cooperative launches, all.
  CHECK(choose(8192, true, ampere).path == Path::split);
  CHECK(choose(8192, true, ampere).why.find("no clusters") != std::string::npos);
  CHECK(choose(1'300'000, true, ampere).path == Path::whole_gpu);
  CHECK(choose(1'300'000, true, no_cooperative).path == Path::split);
  CHECK(choose(1'300'000, true, no_cooperative).why.find("no cooperative") != std::string::npos);
}

TEST_CASE("split_blocks_per_row: 4096 chunks a block", "[ch10]") {
  CHECK(split_blocks_per_row(0) == 1);
  CHECK(split_blocks_per_row(1) == 1);
  CHECK(split_blocks_per_row(4096) == 1);
  CHECK(split_blocks_per_row(4097) == 2);
  CHECK(split_blocks_per_row(1'048'576) == 256);
}
