// SPDX-License-Identifier: Apache-2.0
/// @file ex13.hpp
/// @brief Exercise 13: the pruning rule of the tuner's search. Before `normlab tune` times a
/// configuration of chapter 09's table (kernels/configs.hpp) on a row, it asks whether the
/// configuration can hold that row at all; what cannot is pruned, never launched. Host code.
#pragma once

#include <cstdint>

#include "configs.hpp"

namespace normlab::ex13 {

/// One row of x, as a configuration meets it.
struct Row {
  std::int64_t cols = 0;  ///< elements, at least 1
  int element_bytes = 2;  ///< 2 (bf16, fp16) or 4 (fp32)
  /// Elements of the row's first 16-byte chunk that lie before the row: 0 when the row starts on
  /// the 16-byte grid, else 1 to 16 / element_bytes - 1.
  int lead = 0;
  bool layernorm = false;  ///< the op subtracts the mean (LayerNorm, add + LayerNorm)
};

/// Whether a configuration holds a row, or the first reason it does not, in this order.
enum class Fit {
  holds,
  rmsnorm_only,  ///< compiled for RMSNorm ops only, and the row is a LayerNorm's
  off_grid,      ///< compiled for rows of whole aligned chunks, and the row is not one
  too_wide,      ///< the row spans more 16-byte chunks than the configuration keeps
};

/// "holds", "rmsnorm_only", "off_grid", "too_wide".
const char* name_of(Fit fit);

/// The 16-byte chunks @p row spans, its lead included.
std::int64_t chunks_spanned(const Row& row);

/// The most 16-byte chunks of a row that @p config keeps in registers; 0 for chapter 07's
/// launcher (Kind::wide), which takes a row of any width.
std::int64_t chunks_kept(const kernels::configured::Config& config);

/// Whether @p config holds @p row: Fit::holds, or the first of the reasons above that applies.
Fit fit_of(const kernels::configured::Config& config, const Row& row);

}  // namespace normlab::ex13
