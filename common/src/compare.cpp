// SPDX-License-Identifier: Apache-2.0
#include "normlab/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <string>

namespace normlab {

// [tolerances]
namespace {

// An element (y, h, dx): statistics are accumulated in fp32 everywhere, so the output's own
// rounding sets the bar: half an ulp is 6e-8 (fp32), 4.9e-4 (fp16) and 3.9e-3 (bf16) relative;
// the fp32 bar leaves room for reduction order and rsqrtf, not for a wrong formula.
Tolerance element_tolerance(DType dtype) {
  switch (dtype) {
    case DType::f32:
      return {1e-4, 1e-4};
    case DType::f16:
      return {2e-3, 2e-3};
    case DType::bf16:
      return {1e-2, 1e-2};
  }
  return {};
}

}  // namespace

Tolerance tolerance_for(DType dtype, OutputKind kind, std::int64_t rows) {
  const Tolerance element = element_tolerance(dtype);
  switch (kind) {
    case OutputKind::element:
      return element;
    case OutputKind::row_statistic:
      // mean and rstd are stored in fp32 whatever the tensors' dtype, and a row's fp32 sum of
      // cols exactly representable inputs is off by about log2(cols) * 6e-8 relative (1e-6 at
      // 12288 columns): the fp32 element bar, 100 times wider, fits every dtype.
      return element_tolerance(DType::f32);
    case OutputKind::sum_over_rows: {
      // dweight[c] = sum over rows of dy * x_hat, dbias[c] = sum over rows of dy. The inputs
      // are exact (the reference reads the same rounded values) and each term carries only
      // x_hat's fp32 error (~1e-7 relative). Adding the terms (|dy * x_hat| ~ 0.64 on average
      // for unit inputs) in fp32 rounds each running sum, ~0.8 sqrt(r) after r rows of random
      // signs, by up to 6e-8 of itself: about rows * 5e-8 in all when the roundings are
      // random, at most 0.53 * rows^1.5 * 6e-8 when they all agree. The error grows with the
      // rows, not with |sum| (which cancels), so the bar does: 1e-5 per row is 200 times the
      // typical error and above the worst case up to ~1e5 rows (a tree sum does far better),
      // while one dropped row (~0.64) stays above it up to ~6e4 rows. Storing the sum in the
      // parameter dtype rounds it relative to itself: the element rel.
      constexpr double kPerRow = 1e-5;
      return {kPerRow * static_cast<double>(rows > 0 ? rows : 1), element.rel};
    }
  }
  return element;
}
// [tolerances]

namespace {
constexpr std::size_t kShown = 5;  // mismatches a report keeps
}  // namespace

CompareReport compare(const HostMatrix& got, std::span<const double> want, Tolerance tolerance,
                      std::string what, bool check_unwritten) {
  return compare_rows(got, 0, want, tolerance, std::move(what), check_unwritten);
}

CompareReport compare_rows(const HostMatrix& got, std::int64_t first_row,
                           std::span<const double> want, Tolerance tolerance, std::string what,
                           bool check_unwritten) {
  CompareReport report;
  report.what = std::move(what);
  report.tolerance = tolerance;
  const std::int64_t rows =
      got.cols() == 0 ? 0 : static_cast<std::int64_t>(want.size()) / got.cols();
  if (first_row < 0 || first_row + rows > got.rows()) {
    throw std::invalid_argument("compare_rows: rows " + std::to_string(first_row) + " to " +
                                std::to_string(first_row + rows) + " are outside " + report.what +
                                "'s " + std::to_string(got.rows()));
  }
  // [compare_loop]
  for (std::int64_t r = first_row; r < first_row + rows; ++r) {
    for (std::int64_t c = 0; c < got.cols(); ++c) {
      ++report.checked;
      const double expected = want[static_cast<std::size_t>((r - first_row) * got.cols() + c)];
      const bool poison = check_unwritten && got.is_poison(r, c);
      const double value = got.at(r, c);
      const double abs_error = std::abs(value - expected);
      bool bad = true;
      if (poison) {
        ++report.unwritten;
      } else if (!std::isfinite(value)) {
        ++report.non_finite;
      } else {
        report.max_abs_error = std::max(report.max_abs_error, abs_error);
        if (expected != 0.0) {
          report.max_rel_error = std::max(report.max_rel_error, abs_error / std::abs(expected));
        }
        bad = abs_error > tolerance.abs + tolerance.rel * std::abs(expected);
        if (bad) ++report.mismatches;
      }
      if (bad && report.first.size() < kShown) report.first.push_back({r, c, value, expected});
    }
    for (std::int64_t c = got.cols(); c < got.stride(); ++c) {
      if (!got.is_poison(r, c)) ++report.guard_overwrites;
    }
  }
  // [compare_loop]
  return report;
}

void merge(CompareReport& into, const CompareReport& later) {
  into.checked += later.checked;
  into.mismatches += later.mismatches;
  into.non_finite += later.non_finite;
  into.unwritten += later.unwritten;
  into.guard_overwrites += later.guard_overwrites;
  into.max_abs_error = std::max(into.max_abs_error, later.max_abs_error);
  into.max_rel_error = std::max(into.max_rel_error, later.max_rel_error);
  for (const Mismatch& m : later.first) {
    if (into.first.size() < kShown) into.first.push_back(m);
  }
}

std::string CompareReport::describe() const {
  std::ostringstream out;
  out << what << ": ";
  if (passed()) {
    out << "ok, " << checked << " elements, max abs error " << max_abs_error << ", max rel error "
        << max_rel_error;
    return out.str();
  }
  out << "FAILED (" << checked << " checked; tolerance abs " << tolerance.abs << " + rel "
      << tolerance.rel << ")\n";
  out << "  mismatches " << mismatches << ", NaN/Inf " << non_finite << ", unwritten " << unwritten
      << ", writes past a row (guard band) " << guard_overwrites << "\n";
  out << "  max abs error " << max_abs_error << ", max rel error " << max_rel_error << "\n";
  for (const Mismatch& m : first) {
    char line[160];
    std::snprintf(line, sizeof line, "  (row %lld, col %lld): got %.9g, want %.9g\n",
                  static_cast<long long>(m.row), static_cast<long long>(m.col), m.got, m.want);
    out << line;
  }
  return out.str();
}

}  // namespace normlab
