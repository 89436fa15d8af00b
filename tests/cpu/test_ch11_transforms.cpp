// SPDX-License-Identifier: Apache-2.0
// Chapter 11 on the CPU: FlashNorm's two propositions hold (weight folding, 1/RMS deferred past
// the matmul), the fold is exact in fp32 and one rounding in fp16, the tolerance passes
// rounding and fails a 1% error, and the dispatch table keeps the fused path within 64 rows.
#include "normlab_catch.hpp"

#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "ch11.cuh"
#include "choose.hpp"
#include "reference.hpp"

namespace {

using namespace normlab::ch11;

std::vector<float> to_floats(const std::vector<__half>& h) {
  std::vector<float> f(h.size());
  for (std::size_t i = 0; i < h.size(); ++i)
    f[i] = __half2float(h[i]);
  return f;
}

// Y = diag(row_scale) · (X̂ · W), float64, X̂ = x ⊙ column_scale: both sides of each proposition.
std::vector<double> multiply(const Problem& p, const std::vector<double>& row_scale,
                             const std::vector<float>& column_scale, const std::vector<float>& w) {
  std::vector<double> y(p.rows * p.n_cols, 0.0);
  for (std::int64_t m = 0; m < p.rows; ++m) {
    for (std::int64_t k = 0; k < p.k_cols; ++k) {
      const double a = __half2float(p.x[m * p.k_cols + k]) * static_cast<double>(column_scale[k]);
      for (std::int64_t n = 0; n < p.n_cols; ++n)
        y[m * p.n_cols + n] += a * w[k * p.n_cols + n];
    }
    for (std::int64_t n = 0; n < p.n_cols; ++n)
      y[m * p.n_cols + n] *= row_scale[m];
  }
  return y;
}

std::vector<double> rstd_of(const Problem& p) {
  std::vector<double> rstd(p.rows);
  for (std::int64_t m = 0; m < p.rows; ++m) {
    double sum = 0.0;
    for (std::int64_t k = 0; k < p.k_cols; ++k)
      sum += std::pow(__half2float(p.x[m * p.k_cols + k]), 2);
    rstd[m] = 1.0 / std::sqrt(sum / p.k_cols + p.eps);
  }
  return rstd;
}

double largest_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double most = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i)
    most = std::max(most, std::fabs(a[i] - b[i]));
  return most;
}

}  // namespace

TEST_CASE("the fp32 fold is g[k] · W[k][n] exactly; the fp16 fold rounds it once", "[ch11]") {
  const Problem p = random_problem(1, 300, 77, 11);
  const std::vector<float> g = to_floats(p.g), w = to_floats(p.w);
  const std::vector<float> folded = fold_weights(g, w, 300, 77);
  const std::vector<__half> folded16 = fold_weights_fp16(p.g, p.w, 300, 77);
  for (std::int64_t k = 0; k < 300; ++k) {
    for (std::int64_t n = 0; n < 77; ++n) {
      const std::size_t i = k * 77 + n;
      const double exact = static_cast<double>(g[k]) * w[i];
      REQUIRE(static_cast<double>(folded[i]) == exact);  // 22 significant bits fit in fp32
      const double rounded = __half2float(folded16[i]);
      // Round to nearest: within half an fp16 ulp of the exact product (relative 2^-11).
      REQUIRE(std::fabs(rounded - exact) <= std::ldexp(std::fabs(exact), -11) + 0x1p-25);
    }
  }
}

TEST_CASE("proposition 1: rmsnorm(X; g) · W = rmsnorm(X; 1) · (diag(g) · W)", "[ch11]") {
  const Problem p = random_problem(5, 256, 40, 12);
  const std::vector<float> g = to_floats(p.g), w = to_floats(p.w), ones(p.k_cols, 1.0f);
  const std::vector<double> rstd = rstd_of(p);
  const std::vector<double> unfolded = multiply(p, rstd, g, w);
  const std::vector<double> folded = multiply(p, rstd, ones, fold_weights(g, w, 256, 40));
  CHECK(largest_difference(unfolded, folded) < 1e-12);  // float64 rounding only
  // With W* rounded to fp16: within the rounding of one factor a term, u16 · S.
  const std::vector<double> folded16 =
      multiply(p, rstd, ones, to_floats(fold_weights_fp16(p.g, p.w, 256, 40)));
  const Reference ref = reference(p, sample_rows(5, 5));
  for (std::size_t i = 0; i < folded16.size(); ++i)
    REQUIRE(std::fabs(folded16[i] - unfolded[i]) <= 0x1p-11 * ref.magnitude[i] + 1e-12);
}

TEST_CASE("proposition 2: diag(1/rms(X)) · (X · W*) = rmsnorm(X; 1) · W*", "[ch11]") {
  const Problem p = random_problem(7, 128, 33, 13);
  const std::vector<float> w = fold_weights(to_floats(p.g), to_floats(p.w), 128, 33);
  const std::vector<double> rstd = rstd_of(p);
  const std::vector<float> ones(p.k_cols, 1.0f);
  const std::vector<double> deferred = multiply(p, rstd, ones, w);  // scale after the sums
  // Normalise first: X̂ = diag(rstd) · X, then multiply with no row scale.
  std::vector<double> after(p.rows * p.n_cols, 0.0);
  for (std::int64_t m = 0; m < p.rows; ++m) {
    for (std::int64_t k = 0; k < p.k_cols; ++k) {
      const double xhat = __half2float(p.x[m * p.k_cols + k]) * rstd[m];
      for (std::int64_t n = 0; n < p.n_cols; ++n)
        after[m * p.n_cols + n] += xhat * w[k * p.n_cols + n];
    }
  }
  CHECK(largest_difference(deferred, after) < 1e-12);
}

TEST_CASE("the tolerance passes fp16 rounding of the exact result and fails a 1% error", "[ch11]") {
  const Problem p = random_problem(4, 1000, 101, 14);
  const Reference ref = reference(p, sample_rows(4, 4));
  std::vector<__half> rounded(4 * 101), off(4 * 101), wrong_row(4 * 101);
  for (std::size_t i = 0; i < rounded.size(); ++i) {
    rounded[i] = __float2half_rn(static_cast<float>(ref.y[i]));
    off[i] = __float2half_rn(static_cast<float>(ref.y[i] * 1.01));
    wrong_row[i] = __float2half_rn(static_cast<float>(ref.y[(i + 101) % rounded.size()]));
  }
  CHECK(compare(ref, rounded, 101, 1000).passed);
  const Verdict scaled = compare(ref, off, 101, 1000);
  CHECK_FALSE(scaled.passed);
  CHECK(scaled.rms_error_ratio > 4.0 * 0x1p-11);
  const Verdict swapped = compare(ref, wrong_row, 101, 1000);
  CHECK_FALSE(swapped.passed);
  CHECK(swapped.mismatches > 0);
}

TEST_CASE("sample_rows keeps the first and last rows and never repeats one", "[ch11]") {
  CHECK(sample_rows(3, 64) == std::vector<std::int64_t>{0, 1, 2});
  const std::vector<std::int64_t> sample = sample_rows(4096, 64);
  REQUIRE(sample.size() == 64);
  CHECK(sample.front() == 0);
  CHECK(sample.back() == 4095);
  for (std::size_t i = 1; i < sample.size(); ++i)
    CHECK(sample[i] > sample[i - 1]);
}

TEST_CASE("the dispatch table: fused only within 64 rows and on GPUs that can run it", "[ch11]") {
  for (std::int64_t rows : {1, 16, 17, 64, 65, 4096}) {
    for (auto [k, n] : {std::pair<std::int64_t, std::int64_t>{576, 960}, {4096, 6144}}) {
      const Path path = choose_path(rows, k, n, true);
      INFO(rows << " rows through " << k << " x " << n << ": " << name_of(path));
      if (rows > kFusedMaxRows) CHECK(path != Path::fused);
      CHECK(choose_path(rows, k, n, false) != Path::fused);
    }
  }
  // The measured picks of the paper's decode shapes (choose.hpp).
  CHECK(choose_path(64, 576, 960, true) == Path::fused);
  CHECK(choose_path(16, 2048, 2560, true) == Path::fused);
  CHECK(choose_path(64, 2048, 2560, true) == Path::plain);
  CHECK(choose_path(1, 4096, 6144, true) == Path::fused);
  CHECK(choose_path(16, 4096, 6144, true) == Path::fused);
  CHECK(choose_path(17, 4096, 6144, true) == Path::plain);
}

TEST_CASE("the fused path splits K over a cluster only for many tokens through a large weight",
          "[ch11]") {
  CHECK(fused_kernel_for(1, 576, 960) == FusedKernel::warp_split);
  CHECK(fused_kernel_for(64, 576, 960) == FusedKernel::warp_split);
  CHECK(fused_kernel_for(64, 1024, 1024) == FusedKernel::warp_split);
  CHECK(fused_kernel_for(64, 1024, 1025) == FusedKernel::cluster_split);
  CHECK(fused_kernel_for(16, 2048, 2560) == FusedKernel::warp_split);
  CHECK(fused_kernel_for(17, 2048, 2560) == FusedKernel::cluster_split);
  CHECK(fused_kernel_for(64, 2048, 2560) == FusedKernel::cluster_split);
}

TEST_CASE("packed W*: each lane's 16 bytes are 8 rows of K of one column, zeros past K and N",
          "[ch11]") {
  for (auto [k, n] : {std::pair<std::int64_t, std::int64_t>{64, 16}, {45, 11}, {1, 1}}) {
    std::vector<__half> w(static_cast<std::size_t>(k * n));
    for (std::size_t i = 0; i < w.size(); ++i)
      w[i] = __float2half_rn(static_cast<float>(i + 1));  // every value distinct and non-zero
    const std::vector<__half> packed = pack_weights(w, k, n);
    const std::int64_t units = (k + 31) / 32, tiles = (n + 7) / 8;
    REQUIRE(static_cast<std::int64_t>(packed.size()) == units * 32 * tiles * 8);
    REQUIRE(packed_size(k, n) == units * 32 * tiles * 8);
    std::int64_t values = 0;
    for (std::int64_t j = 0; j < tiles; ++j) {
      for (std::int64_t u = 0; u < units; ++u) {
        for (std::int64_t lane = 0; lane < 32; ++lane) {
          for (std::int64_t e = 0; e < 8; ++e) {
            const std::int64_t row = 32 * u + 8 * (lane % 4) + e, col = 8 * j + lane / 4;
            const float got = __half2float(packed[((j * units + u) * 32 + lane) * 8 + e]);
            INFO(k << " x " << n << ": tile " << j << " unit " << u << " lane " << lane << " e "
                   << e);
            if (row < k && col < n) {
              CHECK(got == __half2float(w[row * n + col]));
              ++values;
            } else {
              CHECK(got == 0.0f);
            }
          }
        }
      }
    }
    CHECK(values == k * n);  // every value of W* once
  }
  CHECK_THROWS_WITH(pack_weights(std::vector<__half>(5), 2, 3), Catch::Contains("'w_folded'"));
  CHECK_THROWS_WITH(pack_weights(std::vector<__half>(0), 0, 3), Catch::Contains("'k_rows'"));
}

TEST_CASE("the fold refuses shapes that do not match by name", "[ch11]") {
  const std::vector<float> g(4, 1.0f), w(12, 1.0f);
  CHECK_THROWS_WITH(fold_weights(g, w, 4, 4), Catch::Contains("'w'"));
  CHECK_THROWS_WITH(fold_weights(g, w, 3, 4), Catch::Contains("'g'"));
  CHECK_THROWS_WITH(fold_weights(g, w, 0, 4), Catch::Contains("'k_rows'"));
}
