// SPDX-License-Identifier: Apache-2.0
/// @file layernorm_grading.hpp
/// @brief What the LayerNorm graders of exercises 01 and 02 share: the entry that wraps a
/// student's launcher, the graded cases, and the argument and sanitizer checks.
#pragma once

#include "normlab_catch.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "grading.hpp"

namespace normlab::grading {

/// The signature of the exercises' LayerNorm launchers (weight and bias required).
using LayerNormLauncher = void (*)(const float* x, std::int64_t x_stride, const float* weight,
                                   const float* bias, float* y, std::int64_t y_stride,
                                   std::int64_t rows, std::int64_t cols, float eps,
                                   cudaStream_t stream);

/// An unregistered fp32 LayerNorm entry that calls @p launch.
inline KernelEntry layernorm_entry(std::string name, int chapter, std::string summary,
                                   LayerNormLauncher launch) {
  return {.name = std::move(name),
          .chapter = chapter,
          .summary = std::move(summary),
          .op = Op::layernorm,
          .launch = [launch](const NormCall& c, cudaStream_t stream) {
            launch(static_cast<const float*>(c.x), c.x_stride, static_cast<const float*>(c.weight),
                   static_cast<const float*>(c.bias), static_cast<float*>(c.y), c.y_stride, c.rows,
                   c.cols, c.eps, stream);
          }};
}

/// Every shape of the grid, a padded stride and rows smaller than eps against the float64
/// reference; then, if all pass, the speed at 2048 x 8192. Prints the scorecard.
inline void require_layernorm_grid_passes(const KernelEntry& kernel) {
  std::vector<Case> cases = grid_cases(kernel, kGridRows, kGridCols);
  cases.push_back(small_magnitude_case(Op::layernorm, 64, 1000));
  Case padded = default_case(Op::layernorm, 33, 1025);
  padded.pad = 7;
  cases.push_back(padded);
  Scorecard card = grade(kernel, cases);
  if (card.all_passed()) add_speed(card, kernel, default_case(Op::layernorm, 2048, 8192));
  card.print(std::cout);
  CHECK(card.all_passed());
}

/// rows = 0 launches nothing; a null weight and a short stride are refused by name.
inline void require_layernorm_argument_errors(const KernelEntry& kernel, LayerNormLauncher launch) {
  CHECK_NOTHROW(verify(kernel, default_case(Op::layernorm, 0, 64)));
  const float* none = nullptr;
  float buffer = 0.0f;
  CHECK_THROWS_WITH(launch(&buffer, 8, none, &buffer, &buffer, 8, 1, 8, 1e-5f, nullptr),
                    Catch::Contains("'weight'"));
  CHECK_THROWS_WITH(launch(&buffer, 4, &buffer, &buffer, &buffer, 8, 1, 8, 1e-5f, nullptr),
                    Catch::Contains("'x_stride'"));
}

/// A few small odd shapes, for the compute-sanitizer runs (memcheck, racecheck).
inline void require_small_odd_shapes_pass(const KernelEntry& kernel) {
  for (const auto& [rows, cols] : {std::pair{37, 1029}, std::pair{3, 5}}) {
    const CaseResult result = verify(kernel, default_case(Op::layernorm, rows, cols));
    INFO(result.describe());
    CHECK(result.passed());
  }
}

}  // namespace normlab::grading
