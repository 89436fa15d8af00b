// SPDX-License-Identifier: Apache-2.0
/// @file bench.hpp
/// @brief Chapter 11's measurement: one norm -> linear shape, each path verified against the
/// float64 reference and then timed as CUDA-graph replays.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ch11.cuh"
#include "choose.hpp"
#include "norm_linear.hpp"

namespace normlab::ch11 {

/// The paper's shapes (arXiv 2407.09577): hidden K -> outputs N of SmolLM2-135M, Llama-3.2-1B
/// and Llama-3.1-8B, each at these token counts.
struct LayerShape {
  std::int64_t k_cols, n_cols;
};
inline constexpr LayerShape kPaperLayers[] = {{576, 960}, {2048, 2560}, {4096, 6144}};
inline constexpr std::int64_t kPaperTokens[] = {1, 16, 64, 256, 1024, 4096};

/// How one path did on one shape.
struct PathResult {
  Path path = Path::plain;
  bool ran = false;     ///< false: the path refuses the shape (the fused kernel above 64 rows)
  bool passed = false;  ///< verified against the float64 reference
  std::string verdict;  ///< the comparison's report
  double microseconds = 0.0;  ///< median over samples of one graph replay
};

/// How one of the fused path's kernels did on a shape: both are verified and timed wherever
/// both take the shape, whichever the path picks.
struct KernelResult {
  FusedKernel kernel = FusedKernel::cluster_split;
  PathResult result;
};

struct ShapeResult {
  std::int64_t tokens = 0, k_cols = 0, n_cols = 0;
  std::int64_t rows_checked = 0;
  std::string row_scale;          ///< how the deferred path applied 1/RMS
  std::vector<PathResult> paths;  ///< plain, deferred, fused
  Path pick = Path::plain;        ///< choose_path's answer
  /// cuBLASLt's X · W* alone, no norm and no scale, microseconds a graph replay: not a path
  /// (its result is not normalised) but what any path that leaves the product to cuBLAS pays.
  double gemm_alone_us = 0.0;
  std::vector<KernelResult> fused_kernels;  ///< warp split, cluster split
};

struct BenchOptions {
  int samples = 7;    ///< timed samples; the median is reported
  int replays = 200;  ///< graph replays between a sample's two events
  std::int64_t most_rows_checked = 64;
  /// The fused kernels verified and timed on their own beside the paths.
  std::vector<FusedKernel> fused_kernels{FusedKernel::warp_split, FusedKernel::cluster_split};
};

/// The floor under every figure: graph replays of one empty kernel, and of two in a row (what
/// a path of one launch and a path of two cost before they do any work), microseconds.
struct GraphFloor {
  double one_kernel = 0.0;
  double two_kernels = 0.0;
};
GraphFloor measure_floor(const BenchOptions& options);

/// Verifies every path on one random problem of the shape, then times the paths that passed.
ShapeResult measure(const NormFunction& norm, std::int64_t tokens, std::int64_t k_cols,
                    std::int64_t n_cols, const BenchOptions& options, std::uint64_t seed);

}  // namespace normlab::ch11
