// SPDX-License-Identifier: Apache-2.0
/// @file ch07_cases.hpp
/// @brief The cases chapter 07 is graded on, shared by its tests and its known-wrong kernel.
#pragma once

#include <cstdint>
#include <vector>

#include "normlab/runner.hpp"

namespace normlab::ch07_cases {

/// Ragged widths: one element, less than one vector, odd, around 1024, a whole 4096 row, and
/// 5000 (a multiple of 8 but not of a warp's 256 elements).
inline const std::vector<std::int64_t> kRaggedCols{1, 2, 7, 31, 33, 1023, 1025, 4096, 5000};

/// The bf16 grader: @p op in bf16 with bf16 and with fp32 weights on rows of every ragged width,
/// then 4096-wide rows strided to a 16-byte multiple, strided oddly, misaligned, in place.
inline std::vector<Case> bf16_grader(Op op) {
  std::vector<Case> cases;
  std::uint64_t seed = 700;
  for (DType weight_dtype : {DType::bf16, DType::f32}) {
    for (std::int64_t rows : {1, 7, 64}) {
      for (std::int64_t cols : kRaggedCols) {
        Case c = default_case(op, rows, cols, DType::bf16);
        c.shape.weight_dtype = weight_dtype;
        c.input.seed = seed++;
        cases.push_back(c);
      }
    }
  }
  for (int variant = 0; variant < 4; ++variant) {
    Case c = default_case(op, 33, 4096, DType::bf16);
    c.input.seed = seed++;
    c.pad = variant == 0 ? 8 : variant == 1 ? 3 : 0;
    c.misalign = variant == 2 ? 3 : 0;
    c.in_place = variant == 3;
    cases.push_back(c);
  }
  return cases;
}

}  // namespace normlab::ch07_cases
