// SPDX-License-Identifier: Apache-2.0
// Chapter 11's float64 reference of norm -> linear and its tolerance (reference.hpp).
#include "reference.hpp"

#include <cmath>
#include <cstring>
#include <sstream>

#include "normlab/check.hpp"
#include "normlab/host_matrix.hpp"
#include "normlab/parallel.hpp"
#include "normlab/random.hpp"
#include "normlab/reference.hpp"

namespace normlab::ch11 {

namespace {

constexpr double kU16 = 0x1p-11;  // unit roundoff of fp16
constexpr double kU32 = 0x1p-24;  // unit roundoff of fp32

std::vector<__half> random_halves(std::int64_t rows, std::int64_t cols, const InputSpec& spec) {
  HostMatrix matrix(DType::f16, rows, cols);
  fill_random(matrix, spec);
  std::vector<__half> values(static_cast<std::size_t>(rows * cols));
  std::memcpy(values.data(), matrix.data(), values.size() * sizeof(__half));
  return values;
}

std::vector<double> to_doubles(const __half* values, std::int64_t count) {
  std::vector<double> out(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i)
    out[i] = __half2float(values[i]);
  return out;
}

}  // namespace

Problem random_problem(std::int64_t rows, std::int64_t k_cols, std::int64_t n_cols,
                       std::uint64_t seed) {
  Problem p{.rows = rows, .k_cols = k_cols, .n_cols = n_cols};
  p.x = random_halves(rows, k_cols, {.seed = seed});
  p.g = random_halves(
      1, k_cols,
      {.distribution = Distribution::uniform, .mean = 1.0, .scale = 0.2, .seed = seed + 1});
  p.w = random_halves(k_cols, n_cols,
                      {.scale = 1.0 / std::sqrt(static_cast<double>(k_cols)), .seed = seed + 2});
  return p;
}

double tolerance(double exact, double magnitude, std::int64_t k_cols) {
  const double accumulation = static_cast<double>(2 * k_cols + 8) * kU32;
  return kU16 * std::fabs(exact) + (kU16 + accumulation) * magnitude + 0x1p-24;
}

// [reference]
Reference reference(const Problem& p, const std::vector<std::int64_t>& rows_checked,
                    std::int64_t first_k, std::int64_t k_count) {
  const std::int64_t k = p.k_cols, n = p.n_cols;
  Reference ref{.rows_checked = rows_checked};
  ref.y.assign(rows_checked.size() * n, 0.0);
  ref.magnitude.assign(rows_checked.size() * n, 0.0);
  const std::vector<double> g = to_doubles(p.g.data(), k);
  parallel_for(static_cast<std::int64_t>(rows_checked.size()), [&](std::int64_t i) {
    // x̂ · g, the normalised activations, exact: the harness's RMSNorm reference of the row.
    const std::vector<double> scaled =
        rmsnorm_forward(to_doubles(p.x.data() + rows_checked[i] * k, k),
                        {.rows = 1, .cols = k, .eps = p.eps, .weight = g})
            .y;
    double* y = ref.y.data() + i * n;
    double* magnitude = ref.magnitude.data() + i * n;
    const std::int64_t last = k_count < 0 ? k : first_k + k_count;
    for (std::int64_t c = first_k; c < last; ++c) {
      // Each activation's row of W.
      const __half* w = p.w.data() + c * n;
      for (std::int64_t j = 0; j < n; ++j) {
        const double term = scaled[c] * __half2float(w[j]);
        y[j] += term;
        magnitude[j] += std::fabs(term);
      }
    }
  });
  return ref;
}
// [reference]

std::vector<std::int64_t> sample_rows(std::int64_t rows, std::int64_t most) {
  std::vector<std::int64_t> sample;
  if (rows <= most) {
    for (std::int64_t r = 0; r < rows; ++r)
      sample.push_back(r);
    return sample;
  }
  for (std::int64_t i = 0; i < most; ++i)
    sample.push_back(i * (rows - 1) / (most - 1));
  return sample;
}

Verdict compare(const Reference& ref, const std::vector<__half>& y, std::int64_t n_cols,
                std::int64_t k_cols) {
  Verdict v;
  double error_squares = 0.0, output_squares = 0.0;
  std::ostringstream first;
  for (std::size_t i = 0; i < ref.rows_checked.size(); ++i) {
    const std::int64_t row = ref.rows_checked[i];
    for (std::int64_t j = 0; j < n_cols; ++j) {
      const double exact = ref.y[i * n_cols + j];
      const double got = __half2float(y[row * n_cols + j]);
      const double error = std::fabs(got - exact);
      const double bound = tolerance(exact, ref.magnitude[i * n_cols + j], k_cols);
      ++v.checked;
      error_squares += std::isfinite(error) ? error * error : INFINITY;
      output_squares += exact * exact;
      if (!(error <= bound)) {
        if (v.mismatches++ == 0) {
          first << "y[" << row << "][" << j << "] = " << got << ", expected " << exact << " (error "
                << error << " over the bound " << bound << ")";
        }
      }
    }
  }
  v.rms_error_ratio = output_squares > 0.0 ? std::sqrt(error_squares / output_squares) : 0.0;
  const bool rms_ok = v.rms_error_ratio <= 4.0 * kU16;
  v.passed = v.mismatches == 0 && rms_ok;
  std::ostringstream report;
  report << v.checked << " outputs checked, " << v.mismatches << " outside the bound, RMS error "
         << v.rms_error_ratio << " of the RMS output (bar " << 4.0 * kU16 << ")";
  if (v.mismatches > 0) report << "; first: " << first.str();
  v.report = report.str();
  return v;
}

}  // namespace normlab::ch11
