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

/// The table (chapter 11's page has the 18 rows it rests on, `ch11_flashnorm`'s CUDA-graph
/// replays): the fused path (the packed warp split) up to 16 tokens through every weight up to
/// 4096 x 6144 (through 4096 x 6144, whose W* does not stay in L2, with its block of 8 warps two
/// an SM, which keeps DRAM busier), and up to 64 tokens through weights up to 1024 x 1024 (a
/// round number between 576 x 960 and 2048 x 2560); norm + cuBLAS everywhere else (at 64 tokens
/// through 2048 x 2560 and 4096 x 6144 the fused kernels read x once for every few columns).
/// The deferred path, whose row scale is a third launch on CUDA 13.0's cuBLASLt, never leads.
/// Chapter 11's worklog has the runs behind each bound. A fused rule must keep
/// most_rows <= kFusedMaxRows.
inline constexpr PathRule kPathTable[] = {
    {.most_rows = 16, .most_weights = 4096 * 6144, .path = Path::fused},
    {.most_rows = 64, .most_weights = 1024 * 1024, .path = Path::fused},
    {.most_rows = kAny, .most_weights = kAny, .path = Path::plain},
};
// [table]

/// The path the table gives a call of @p rows tokens through a K x N weight; the fused rules
/// are skipped where the fused kernel cannot run (@p fused_available false: no clusters).
Path choose_path(std::int64_t rows, std::int64_t k_cols, std::int64_t n_cols, bool fused_available);

}  // namespace normlab::ch11
