// SPDX-License-Identifier: Apache-2.0
/// @file reference.hpp
/// @brief The float64 reference of Y = rmsnorm(X; g, eps) · W and the tolerance every path is
/// held to.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>
#include <string>
#include <vector>

namespace normlab::ch11 {

/// One norm -> linear problem on the host, fp16: x rows x k, g k, w k x n (row-major).
struct Problem {
  std::int64_t rows = 0, k_cols = 0, n_cols = 0;
  float eps = 1e-6f;
  std::vector<__half> x, g, w;
};

/// Seeded inputs: x ~ N(0, 1), g uniform around 1 (standard deviation 0.2), w ~ N(0, 1/k), so
/// that each output is of order 1 and far from fp16's range.
Problem random_problem(std::int64_t rows, std::int64_t k_cols, std::int64_t n_cols,
                       std::uint64_t seed);

// [tolerance]
/// The bound every output is held to, derived in the book's page (Tolerance): with u16 = 2^-11
/// and u32 = 2^-24 the unit roundoffs of fp16 and fp32, y the exact output and
/// S = Σ_k |x̂_k · g_k · W_kn| its sum of magnitudes,
///   |ŷ − y| <= u16 · |y| + (u16 + (2K + 8) · u32) · S + 2^-24:
/// the final rounding to fp16; one fp16 rounding of each term's factor (X̂ ⊙ g on the plain
/// path, W* on the others); fp32 accumulation of K products and the fp32 sum of squares behind
/// 1/RMS (each at most K · u32 relative, any order of summation); fp16's subnormal spacing.
double tolerance(double exact, double magnitude, std::int64_t k_cols);
// [tolerance]

/// The float64 reference on rows @p rows_checked of @p p: for each, N exact outputs and their
/// sums of magnitudes S (for the tolerance), row after row.
struct Reference {
  std::vector<std::int64_t> rows_checked;
  std::vector<double> y, magnitude;
};
/// With @p k_count >= 0, only the terms of activations [first_k, first_k + k_count): the share
/// of one GPU of a row-parallel layer (chapter 12), normalised by the whole row's RMS.
Reference reference(const Problem& p, const std::vector<std::int64_t>& rows_checked,
                    std::int64_t first_k = 0, std::int64_t k_count = -1);

/// At most @p most rows of @p rows: all when they fit, else the first, the last and rows evenly
/// spread between (the full reference of 4096 x 4096 -> 6144 is 1e11 multiply-adds).
std::vector<std::int64_t> sample_rows(std::int64_t rows, std::int64_t most);

/// A result against the reference: every output within tolerance(), and, over all checked
/// outputs, the root-mean-square error at most 4 · u16 times the outputs' root mean square (a
/// statistical check: rounding errors are about u16 / 2 of it, a systematic error of 1% is 20
/// times the bar).
struct Verdict {
  bool passed = false;
  std::int64_t checked = 0, mismatches = 0;
  double rms_error_ratio = 0.0;  ///< RMS error / RMS output
  std::string report;            ///< the first mismatch, or the summary
};
Verdict compare(const Reference& ref, const std::vector<__half>& y, std::int64_t n_cols,
                std::int64_t k_cols);

}  // namespace normlab::ch11
