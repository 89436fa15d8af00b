// SPDX-License-Identifier: Apache-2.0
/// @file head_view_cases.hpp
/// @brief Head views (issue 52, point 3): cases whose x has two-level rows, as q = qkv[:, :H, :]
/// of a fused projection, for the GPU tests and the known-wrong test.
#pragma once

#include <cstdint>
#include <vector>

#include "normlab/runner.hpp"

namespace normlab::head_view_cases {

/// @p tokens tokens of @p heads rows each, @p gap elements of other heads (poisoned) after each
/// token's rows; a ragged last group when @p rows is not a multiple of heads.
inline Case head_view(Op op, std::int64_t rows, std::int64_t cols, DType dtype, std::int64_t heads,
                      std::int64_t gap) {
  Case c = default_case(op, rows, cols, dtype);
  c.group_rows = heads;
  c.group_gap = gap;
  c.statistics = is_forward_norm(op);
  c.input.seed = static_cast<std::uint64_t>(rows * 31 + cols + heads);
  return c;
}

/// Ragged shapes on every side of the kernels' choices: narrow rows (a group of lanes a row),
/// rows a block holds, few rows, rows wider than registers (streamed); group
/// strides on and off the 16-byte grid; misaligned bases and padded rows; fp32 parameters and an
/// fp32 dy with 16-bit x (the backward's widened path). Every gap is > 0, so that a kernel
/// reading the rows one stride apart reads poison.
inline std::vector<Case> cases(Op op) {
  const bool backward = is_backward(op);
  std::vector<Case> all = {
      head_view(op, 99 * 7, 64, DType::bf16, 7, 7 * 64),   // the (99, 7, 64) view
      head_view(op, 693, 128, DType::bf16, 32, 16 * 128),  // QK-norm, a ragged last token
      head_view(op, 300, 1000, DType::f16, 5, 3),          // the group stride off the grid
      head_view(op, 130, 4100, DType::f32, 4, 4),          // fp32, wider than a warp's
      head_view(op, 40, backward ? 8192 : 12000, DType::bf16, 3, 8),  // few rows, in registers
      head_view(op, 9, 2048, DType::bf16, 2, 2048),                   // one block a row, 9 rows
  };
  Case misaligned = head_view(op, 257, 576, DType::bf16, 6, 40);
  misaligned.misalign = 1;
  misaligned.pad = 3;
  misaligned.shape.weight_dtype = DType::f32;
  misaligned.weight_plus_one = !is_layernorm(op);
  all.push_back(misaligned);
  if (!backward) {
    all.push_back(head_view(op, 4, 70000, DType::bf16, 2, 16));  // streamed: chapter 10 refuses
    all.push_back(head_view(op, 1, 512, DType::f32, 7, 64));     // one row: a partial group
  } else {
    Case widened = head_view(op, 50, 256, DType::bf16, 3, 16);
    widened.shape.dy_dtype = DType::f32;  // x widened in the scratch through its groups
    widened.residual_gradient = true;
    all.push_back(widened);
  }
  return all;
}

}  // namespace normlab::head_view_cases
