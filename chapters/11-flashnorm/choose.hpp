// SPDX-License-Identifier: Apache-2.0
/// @file choose.hpp
/// @brief Chapter 11's dispatch among the three ways to run norm -> linear, as one table.
#pragma once

#include <cstdint>
#include <limits>

namespace normlab::ch11 {

/// The three ways to compute Y = rmsnorm(X; g, eps) · W.
enum class Path {
  plain,     ///< normlab's RMSNorm writes X̂ ⊙ g, then cuBLASLt multiplies it by W
  deferred,  ///< row_rstd writes 1/RMS, cuBLASLt multiplies raw X by W* and scales the rows
  fused,     ///< one launch: 1/RMS and X · W* together, for at most 64 tokens
};

/// "plain", "deferred", "fused".
const char* name_of(Path path);

// [table]
/// One rule of the table: calls of at most most_rows tokens and at most most_weights elements
/// of W (K · N) take path. The first rule that matches wins.
struct PathRule {
  std::int64_t most_rows;
  std::int64_t most_weights;
  Path path;
};

inline constexpr std::int64_t kAny = std::numeric_limits<std::int64_t>::max();

/// The table. Its rules are the chapter's prediction (the book's "where the time goes") until
/// the chapter program's benchmark on an H100 replaces them: `ch11_flashnorm` prints, per shape,
/// which path measured fastest. A fused rule must keep most_rows <= kFusedMaxRows.
inline constexpr PathRule kPathTable[] = {
    {.most_rows = 16, .most_weights = kAny, .path = Path::fused},
    {.most_rows = kAny, .most_weights = kAny, .path = Path::deferred},
};
// [table]

/// The path the table gives a call of @p rows tokens through a K x N weight.
Path choose_path(std::int64_t rows, std::int64_t k_cols, std::int64_t n_cols);

}  // namespace normlab::ch11
