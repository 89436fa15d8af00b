// SPDX-License-Identifier: Apache-2.0
/// @file compare.hpp
/// @brief Comparison with the float64 reference: per-dtype tolerances (defined once, here) and
/// a readable report of what went wrong.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "normlab/dtype.hpp"
#include "normlab/host_matrix.hpp"

namespace normlab {

/// An element passes when |got - want| <= abs + rel * |want|.
struct Tolerance {
  double abs = 0.0;
  double rel = 0.0;
};

/// What an output is, for its tolerance: the error a correct kernel makes differs by kind.
enum class OutputKind {
  element,        ///< one value per element of a row (y, h, dx), stored in the tensor dtype
  row_statistic,  ///< one fp32 value per row (mean, rstd)
  sum_over_rows,  ///< one value per column summed over every row (dweight, dbias)
};

/// The tolerance for outputs of @p kind stored as @p dtype; a sum over rows widens with the
/// number of @p rows it adds. Derived in compare.cpp.
Tolerance tolerance_for(DType dtype, OutputKind kind = OutputKind::element, std::int64_t rows = 1);

struct Mismatch {
  std::int64_t row = 0, col = 0;
  double got = 0.0, want = 0.0;
};

/// Everything a comparison found. passed() only when every category is empty.
struct CompareReport {
  std::string what;  ///< which result ("y", "residual_out", "rstd", "dweight", ...)
  Tolerance tolerance;
  std::int64_t checked = 0;
  std::int64_t mismatches = 0;        ///< finite values outside the tolerance
  std::int64_t non_finite = 0;        ///< NaN or Inf the kernel wrote
  std::int64_t unwritten = 0;         ///< elements still holding the poison pattern
  std::int64_t guard_overwrites = 0;  ///< writes into a row's guard band (past cols)
  double max_abs_error = 0.0;
  double max_rel_error = 0.0;
  std::vector<Mismatch> first;  ///< the first few bad elements, in memory order

  bool passed() const noexcept {
    return mismatches == 0 && non_finite == 0 && unwritten == 0 && guard_overwrites == 0;
  }
  /// One line when it passed; the counts and the first mismatches as (row, col, got, want)
  /// when it did not.
  std::string describe() const;
};

/// Compares the rows x cols elements of @p got with @p want (dense, rows x cols), and checks
/// that each row's guard band [cols, stride) still holds poison. @p check_unwritten can be
/// turned off for outputs that alias an input (in place).
CompareReport compare(const HostMatrix& got, std::span<const double> want, Tolerance tolerance,
                      std::string what, bool check_unwritten = true);

/// compare() on rows [@p first_row, @p first_row + want.size() / cols) of @p got only, @p want
/// holding just those rows: a large tensor is compared block by block, in parallel.
CompareReport compare_rows(const HostMatrix& got, std::int64_t first_row,
                           std::span<const double> want, Tolerance tolerance, std::string what,
                           bool check_unwritten = true);

/// Adds the counts of @p later (the report of rows after those of @p into) into @p into,
/// keeping the first mismatches in memory order.
void merge(CompareReport& into, const CompareReport& later);

}  // namespace normlab
