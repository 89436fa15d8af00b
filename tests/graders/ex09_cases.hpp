// SPDX-License-Identifier: Apache-2.0
/// @file ex09_cases.hpp
/// @brief Exercise 09's kernel as a registry entry and the cases its grader runs, shared by the
/// grader (ex09.cpp) and by the test that plants a row-crossing reduction into the solution
/// (ex09_row_crossing.cpp), so that the bug is caught by the very cases a student is graded on.
#pragma once

#include <cstdint>
#include <vector>

#include "ex09.cuh"
#include "normlab/arguments.hpp"
#include "normlab/kernel.hpp"
#include "normlab/runner.hpp"

namespace normlab::ex09_grader {

inline KernelEntry exercise_kernel() {
  return {.name = "ex09_rmsnorm_group_per_row",
          .chapter = 9,
          .summary = "narrow bf16 rows, a group of 8 to 32 lanes a row, sub-warp shuffles only",
          .op = Op::rmsnorm,
          // bf16 with a bf16 weight, rows up to 1024 wide, 16-byte aligned.
          .can = {.dtypes = {DType::bf16},
                  .alignment_bytes = 16,
                  .max_cols = ex09::kMostCols,
                  .max_rows = kMaxRowsOneBlockPerRow},
          .launch = [](const NormCall& c, cudaStream_t stream) {
            ex09::rmsnorm(static_cast<const __nv_bfloat16*>(c.x), c.x_stride,
                          static_cast<const __nv_bfloat16*>(c.weight),
                          static_cast<__nv_bfloat16*>(c.y), c.y_stride, c.rows, c.cols, c.eps,
                          stream);
          }};
}

/// A bf16 case whose rows start 16-byte aligned: the stride is cols rounded up to a multiple of
/// 8, plus 8 more guard elements, so a 16-byte access past the row lands on poison.
inline Case padded_case(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  Case c = default_case(Op::rmsnorm, rows, cols, DType::bf16);
  c.pad = (8 - cols % 8) % 8 + 8;
  c.input.seed = seed;
  return c;
}

/// Widths on both sides of each group's capacity (8 lanes hold 128 columns, 16 lanes 256, 32
/// lanes 768 with 3 chunks a lane and 1024 with 4) and of a chunk (8), by row counts that no
/// block's rows (32, 16 or 8) divide: 1 row alone, 2 rows sharing a warp with idle groups, 33
/// and 257 rows ending in a part-filled block. A reduction that crosses into a neighbouring
/// row's lanes fails every case of 2 rows or more whose groups are narrower than a warp.
inline std::vector<Case> correctness_cases() {
  std::vector<Case> cases;
  std::uint64_t seed = 99;
  for (std::int64_t rows : {1, 2, 33, 257}) {
    for (std::int64_t cols : {1, 7, 8, 9, 64, 127, 128, 129, 200, 255, 256, 257, 576, 767, 768, 769,
                              1000, 1023, 1024}) {
      cases.push_back(padded_case(rows, cols, seed++));
    }
  }
  for (std::int64_t cols : {100, 576})
    cases.push_back(padded_case(4097, cols, seed++));
  Case small = padded_case(64, 200, seed++);
  small.input.scale = 1e-3;  // mean(x^2) below eps: eps must sit inside the square root
  cases.push_back(small);
  return cases;
}

}  // namespace normlab::ex09_grader
