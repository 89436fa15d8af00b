// SPDX-License-Identifier: Apache-2.0
// Chapter 12: a row split across GPUs, on one GPU (the multi-GPU tests are test_ch12_nccl).
#include "ch12.hpp"
#include "normlab_catch.hpp"

using normlab::ch12::columns_of;

TEST_CASE("ch12: columns_of gives every column to exactly one rank, the first ones one more") {
  for (std::int64_t cols : {2, 7, 8, 1001}) {
    for (int ranks : {1, 2, 3}) {
      std::int64_t next = 0;
      for (int rank = 0; rank < ranks; ++rank) {
        const auto c = columns_of(cols, ranks, rank);
        CHECK(c.first == next);
        CHECK(c.count == cols / ranks + (rank < cols % ranks ? 1 : 0));
        next += c.count;
      }
      CHECK(next == cols);
    }
  }
}
