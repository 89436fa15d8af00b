// SPDX-License-Identifier: Apache-2.0
/// @file ex10_cases.hpp
/// @brief Exercise 10's kernel as a registry entry and the cases its grader runs, shared by the
/// grader (ex10.cpp) and by the test that plants bugs into the solution's cluster_sum
/// (ex10_planted.cpp), so that each bug is caught by the very cases a student is graded on.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "ex10.cuh"
#include "normlab/kernel.hpp"
#include "normlab/runner.hpp"

namespace normlab::ex10_grader {

inline KernelEntry exercise_kernel() {
  return {.name = "ex10_rmsnorm_cluster_exchange",
          .chapter = 10,
          .summary = "fp32 rows split over a cluster of 4 blocks, partial sums through DSMEM",
          .op = Op::rmsnorm,
          // fp32 rows up to 32768 wide, 16-byte aligned, on sm_90 or newer.
          .can = {.dtypes = {DType::f32},
                  .alignment_bytes = 16,
                  .max_cols = ex10::kMostCols,
                  .min_compute_capability = ex10::kMinComputeCapability},
          .launch = [](const NormCall& c, cudaStream_t stream) {
            ex10::rmsnorm(static_cast<const float*>(c.x), c.x_stride,
                          static_cast<const float*>(c.weight), static_cast<float*>(c.y), c.y_stride,
                          c.rows, c.cols, c.eps, stream);
          }};
}

/// The blocks of the cluster whose slices hold part of a row of @p cols columns.
inline std::int64_t blocks_holding(std::int64_t cols) {
  return (cols + ex10::kSliceCols - 1) / ex10::kSliceCols;
}

/// An fp32 case whose rows start 16-byte aligned: the stride is cols rounded up to a multiple
/// of 4, plus 4 more guard elements, so that a 16-byte access past the row lands on poison.
inline Case padded_case(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  Case c = default_case(Op::rmsnorm, rows, cols);
  c.pad = (4 - cols % 4) % 4 + 4;
  c.input.seed = seed;
  return c;
}

/// Widths held by one block (a single element, a ragged few, 1000, both sides of a full slice
/// of 8192), by two, three and four (the first column of a slice alone, ragged tails, the
/// widest row), by row counts of one, a few, fewer than the clusters a GPU holds, and more (512:
/// each cluster loops over several rows, so a slot is written again while the exchange goes on).
inline std::vector<Case> correctness_cases() {
  std::vector<Case> cases;
  std::uint64_t seed = 1000;
  for (std::int64_t rows : {1, 3, 37, 512}) {
    for (std::int64_t cols : std::initializer_list<std::int64_t>{
             1, 6, 1000, 8191, 8192, 8193, 12290, 16387, 24577, 32765, ex10::kMostCols}) {
      cases.push_back(padded_case(rows, cols, seed++));
    }
  }
  return cases;
}

}  // namespace normlab::ex10_grader
