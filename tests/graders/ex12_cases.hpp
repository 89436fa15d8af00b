// SPDX-License-Identifier: Apache-2.0
/// @file ex12_cases.hpp
/// @brief Exercise 12's cases and their grading, shared by the one-GPU grader (ex12.cpp), the
/// test that plants bugs into the solution (ex12_planted.cpp) and the two-GPU grader
/// (ex12_nccl.cpp), so that each bug is caught by the very cases a student is graded on. The
/// exercise's statistics are no registry op (a rank writes no y), so the graders run their own
/// cases with the harness's parts: random fill, poisoned device buffers, compare.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ex12.cuh"
#include "grading.hpp"
#include "normlab/buffer.hpp"
#include "normlab/check.hpp"
#include "normlab/compare.hpp"
#include "normlab/host_matrix.hpp"
#include "normlab/random.hpp"
#include "normlab/reference.hpp"
#include "normlab/runner.hpp"

namespace normlab::ex12_grader {

inline constexpr const char* kKernel = "ex12_slice_moments";
inline constexpr float kEps = 1e-5f;
/// NaN elements after each row of a slice: a read past the slice's end reads poison.
inline constexpr std::int64_t kPad = 4;
/// Poisoned rows after the last row of the moments and of the statistics, which must stay so.
inline constexpr std::int64_t kGuardRows = 8;
/// The mean of the shifted rows. 1e3 leaves fp32's E[x^2] - E[x]^2 (about 1e6 - 1e6, where
/// floats lie 0.06 apart) no correct digit of a variance of 1; Welford's moments and Chan's
/// merge keep it to a tenth of the tolerance. At 1e4 the fp32 mean of a row itself is rounded
/// by up to 5e-4, and through the merges' (delta of the means)^2 that costs a row of 37 values
/// up to the whole tolerance of its rstd, however it is merged (chapter 05 shifts by a pivot
/// for that, which a rank cannot share without another exchange).
inline constexpr double kShift = 1e3;
/// The drift added across a drifting row: from -kDrift to +kDrift.
inline constexpr double kDrift = 4.0;

/// What the rows hold.
enum class Rows {
  shifted,   ///< N(kShift, 1): the sum of squares cancels
  drifting,  ///< N(0, 1) plus a drift from -kDrift to kDrift: the slices' means lie far apart
};

/// A rows x cols fp32 problem split over @p ranks ranks by columns.
struct SplitCase {
  std::int64_t rows = 0, cols = 0;
  int ranks = 1;
  Rows data = Rows::shifted;
  std::uint64_t seed = 1;

  /// The ranks hold different numbers of columns.
  bool ragged() const { return cols % ranks != 0; }
  std::string describe() const {
    return "layernorm statistics fp32 " + std::to_string(rows) + "x" + std::to_string(cols) +
           " over " + std::to_string(ranks) + (ragged() ? " ranks (ragged) " : " ranks (even) ") +
           (data == Rows::shifted ? "shifted to 1e3" : "drifting -4 to 4") + " seed " +
           std::to_string(seed);
  }
};

/// The columns [first, first + count) rank @p rank of @p ranks holds: chapter 12's split
/// (ch12::columns_of), the first cols % ranks ranks one column more. The one-GPU grader needs
/// no NCCL, so not the chapter's function itself; the two-GPU grader checks that they agree.
struct Split {
  std::int64_t first = 0, count = 0;
};
inline Split split_of(std::int64_t cols, int ranks, int rank) {
  const std::int64_t share = cols / ranks, extra = cols % ranks;
  return {rank * share + std::min<std::int64_t>(rank, extra), share + (rank < extra ? 1 : 0)};
}

/// The whole rows of case @p c, dense.
inline HostMatrix make_rows(const SplitCase& c) {
  HostMatrix x(DType::f32, c.rows, c.cols);
  const bool shifted = c.data == Rows::shifted;
  fill_random(x, {.distribution = shifted ? Distribution::shifted : Distribution::normal,
                  .mean = shifted ? kShift : 0.0,
                  .seed = c.seed});
  if (!shifted) {
    for (std::int64_t r = 0; r < c.rows; ++r)
      for (std::int64_t col = 0; col < c.cols; ++col)
        x.set(r, col, x.at(r, col) + kDrift * (2.0 * (col + 0.5) / c.cols - 1.0));
  }
  return x;
}

/// Columns @p s of every row of @p x, each row followed by kPad NaN.
inline HostMatrix slice_of(const HostMatrix& x, Split s) {
  HostMatrix slice(DType::f32, x.rows(), s.count, s.count + kPad);
  for (std::int64_t r = 0; r < x.rows(); ++r)
    for (std::int64_t col = 0; col < s.count; ++col)
      slice.set(r, col, x.at(r, s.first + col));
  return slice;
}

/// Floats of the moments of @p rows rows of one rank.
inline std::int64_t moment_floats(std::int64_t rows) {
  return rows * ex12::kMomentFloats;
}

/// The elements of @p m from row @p first_row on that no longer hold the poison pattern.
inline std::int64_t written_from(const HostMatrix& m, std::int64_t first_row) {
  std::int64_t written = 0;
  for (std::int64_t r = first_row; r < m.rows(); ++r)
    for (std::int64_t col = 0; col < m.cols(); ++col)
      written += m.is_poison(r, col) ? 0 : 1;
  return written;
}

/// @p mean and @p rstd (rows + kGuardRows floats each, the guard poisoned before the kernels
/// ran) against the float64 LayerNorm statistics of @p x, at the row-statistic tolerance; the
/// guard rows must still be poison.
inline CaseResult compare_statistics(const SplitCase& c, const HostMatrix& x,
                                     const HostMatrix& mean, const HostMatrix& rstd) {
  const ReferenceForward want =
      layernorm_forward(x.to_dense(), {.rows = c.rows, .cols = c.cols, .eps = kEps});
  const Tolerance tolerance = tolerance_for(DType::f32, OutputKind::row_statistic);
  CaseResult result{.kernel = kKernel, .case_description = c.describe()};
  for (const auto& [got, expected, what] :
       {std::tuple{&mean, &want.mean, "mean"}, std::tuple{&rstd, &want.rstd, "rstd"}}) {
    CompareReport report = compare_rows(*got, 0, *expected, tolerance, what);
    report.guard_overwrites = written_from(*got, c.rows);
    result.reports.push_back(report);
  }
  return result;
}

/// The guard rows after @p used rows of @p moments, which must still be poison.
inline CompareReport moments_guard(const HostMatrix& moments, std::int64_t used) {
  CompareReport report;
  report.what = "moments past the last row";
  report.guard_overwrites = written_from(moments, used);
  return report;
}

/// Case @p c on this GPU: each rank's slice in its own buffer, its moments written where
/// all-gather would put them (rank p's at row p * rows of one buffer), then one merge of them
/// all, the statistics compared with the float64 reference.
inline CaseResult grade_on_one_gpu(const SplitCase& c) {
  const HostMatrix x = make_rows(c);
  HostMatrix gathered(DType::f32, c.ranks * c.rows + kGuardRows, ex12::kMomentFloats);
  const PlacedMatrix gathered_device = PlacedMatrix::poisoned_like(gathered, 0);
  auto* moments = static_cast<float*>(gathered_device.data());
  std::vector<PlacedMatrix> slices;
  for (int rank = 0; rank < c.ranks; ++rank) {
    const Split s = split_of(c.cols, c.ranks, rank);
    slices.emplace_back(slice_of(x, s), 0);
    ex12::slice_moments(static_cast<const float*>(slices.back().data()), s.count + kPad, c.rows,
                        s.count, moments + rank * moment_floats(c.rows), nullptr);
  }
  HostMatrix mean(DType::f32, c.rows + kGuardRows, 1), rstd(DType::f32, c.rows + kGuardRows, 1);
  const PlacedMatrix mean_device = PlacedMatrix::poisoned_like(mean, 0);
  const PlacedMatrix rstd_device = PlacedMatrix::poisoned_like(rstd, 0);
  ex12::merge_statistics(moments, c.ranks, c.rows, kEps, static_cast<float*>(mean_device.data()),
                         static_cast<float*>(rstd_device.data()), nullptr);
  NORMLAB_CHECK(cudaDeviceSynchronize());
  gathered_device.download(gathered);
  mean_device.download(mean);
  rstd_device.download(rstd);
  CaseResult result = compare_statistics(c, x, mean, rstd);
  result.reports.push_back(moments_guard(gathered, c.ranks * c.rows));
  return result;
}

/// Shifted rows (where a sum of squares fails) and drifting rows (where weights and the spread
/// between the ranks' means matter), of 2, 37, 1000 and 4099 columns, one to four ranks (ragged
/// splits but for 2 over 1 or 2, 1000 over 1, 2 or 4, and 4099 over 1), rows 1, 5 and 130.
inline std::vector<SplitCase> correctness_cases() {
  std::vector<SplitCase> cases;
  std::uint64_t seed = 1200;
  for (Rows data : {Rows::shifted, Rows::drifting})
    for (std::int64_t rows : {1, 5, 130})
      for (std::int64_t cols : {2, 37, 1000, 4099})
        for (int ranks : {1, 2, 3, 4})
          if (cols >= ranks) cases.push_back({rows, cols, ranks, data, seed++});
  return cases;
}

}  // namespace normlab::ex12_grader
