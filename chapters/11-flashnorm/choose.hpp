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

/// The table, as measured (`ch11_flashnorm`, CUDA-graph replays; the book's Measured section has
/// the 18 rows): the fused path (the packed warp split) is fastest up to 16 tokens through
/// 576 x 960 and 2048 x 2560 and up to 64 tokens through weights up to 1024 x 1024 (576 x 960:
/// 5.1-5.2 against 7.1-7.2 us; 2048 x 2560 was slower, the bound between them is a round
/// number), on an H100 and an H200 alike. Through 4096 x 6144 (W* 50 MB, more than either GPU's
/// L2) it depends on the GPU: on the H100 (2026-11-27) the fused path was 1.14x (1 token) and
/// 1.12x (16 tokens) faster than plain, on the H200 (2026-11-27) 1.03x and 0.95x, the faster
/// DRAM serving cuBLAS's stream of W* better than the fused kernel's. So one token takes the
/// fused path through every weight measured, and 16 tokens only through weights up to 4096 x
/// 3072 (W* of 24 MB, half the L2; a round number, not measured itself). Norm + cuBLAS
/// everywhere else (at 64 tokens through 2048 x 2560 and 4096 x 6144 the fused kernels read x
/// once for every few columns). The deferred path, whose row scale is a third launch on CUDA
/// 13.0's cuBLASLt, is never fastest. A fused rule must keep most_rows <= kFusedMaxRows.
inline constexpr PathRule kPathTable[] = {
    {.most_rows = 1, .most_weights = 4096 * 6144, .path = Path::fused},
    {.most_rows = 16, .most_weights = 4096 * 3072, .path = Path::fused},
    {.most_rows = 64, .most_weights = 1024 * 1024, .path = Path::fused},
    {.most_rows = kAny, .most_weights = kAny, .path = Path::plain},
};
// [table]

/// The path the table gives a call of @p rows tokens through a K x N weight; the fused rules
/// are skipped where the fused kernel cannot run (@p fused_available false: no clusters).
Path choose_path(std::int64_t rows, std::int64_t k_cols, std::int64_t n_cols, bool fused_available);

}  // namespace normlab::ch11
