#include "normlab/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace normlab {

// [tolerances]
Tolerance tolerance_for(DType dtype) {
  // Statistics are accumulated in fp32 everywhere, so the output's own rounding sets the bar:
  // half an ulp is 6e-8 (fp32), 4.9e-4 (fp16) and 3.9e-3 (bf16) relative; the fp32 bar leaves
  // room for reduction order and rsqrtf, not for a wrong formula.
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
// [tolerances]

CompareReport compare(const HostMatrix& got, std::span<const double> want, Tolerance tolerance,
                      std::string what, bool check_unwritten) {
  constexpr std::size_t kShown = 5;
  CompareReport report;
  report.what = std::move(what);
  report.tolerance = tolerance;
  // [compare_loop]
  for (std::int64_t r = 0; r < got.rows(); ++r) {
    for (std::int64_t c = 0; c < got.cols(); ++c) {
      ++report.checked;
      const double expected = want[static_cast<std::size_t>(r * got.cols() + c)];
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
