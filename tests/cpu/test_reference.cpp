// SPDX-License-Identifier: Apache-2.0
// The float64 references against worked examples and against their own definitions.
#include "normlab_catch.hpp"

#include <cmath>
#include <vector>

#include "normlab/reference.hpp"

using normlab::ReferenceParams;

TEST_CASE("RMSNorm of [3, 1, 2, 2] matches the worked example", "[reference]") {
  const std::vector<double> x{3, 1, 2, 2};
  const auto out = normlab::rmsnorm_forward(x, {.rows = 1, .cols = 4, .eps = 0.0});
  // RMS = sqrt((9 + 1 + 4 + 4) / 4) = sqrt(4.5) = 2.1213...
  CHECK(1.0 / out.rstd[0] == Approx(2.1213203435596424).epsilon(1e-12));
  const std::vector<double> want{1.4142135623730951, 0.4714045207910317, 0.9428090415820634,
                                 0.9428090415820634};
  for (std::size_t i = 0; i < 4; ++i)
    CHECK(out.y[i] == Approx(want[i]).epsilon(1e-12));
  CHECK(out.y[0] == Approx(1.414).margin(5e-4));
  CHECK(out.y[1] == Approx(0.471).margin(5e-4));
}

TEST_CASE("LayerNorm of [1,2,3], [4,5,6], [7,8,9] gives [-1.2247, 0, 1.2247] per row",
          "[reference]") {
  const std::vector<double> x{1, 2, 3, 4, 5, 6, 7, 8, 9};
  const auto out = normlab::layernorm_forward(x, {.rows = 3, .cols = 3, .eps = 1e-6});
  for (int r = 0; r < 3; ++r) {
    CHECK(out.y[r * 3 + 0] == Approx(-1.2247).margin(1e-4));
    CHECK(out.y[r * 3 + 1] == Approx(0.0).margin(1e-12));
    CHECK(out.y[r * 3 + 2] == Approx(1.2247).margin(1e-4));
    CHECK(out.mean[r] == Approx(2.0 + 3 * r));
  }
}

TEST_CASE("weight, (1 + w) and bias are applied per column", "[reference]") {
  const std::vector<double> x{3, 1, 2, 2};
  const std::vector<double> w{2, 0, -1, 0.5};
  const std::vector<double> b{1, 1, 1, 1};
  const auto plain = normlab::rmsnorm_forward(x, {.rows = 1, .cols = 4, .eps = 0.0});
  const auto scaled = normlab::rmsnorm_forward(x, {.rows = 1, .cols = 4, .eps = 0.0, .weight = w});
  const auto gemma = normlab::rmsnorm_forward(
      x, {.rows = 1, .cols = 4, .eps = 0.0, .weight = w, .weight_plus_one = true});
  const auto ln =
      normlab::layernorm_forward(x, {.rows = 1, .cols = 4, .eps = 0.0, .weight = w, .bias = b});
  const auto ln_plain = normlab::layernorm_forward(x, {.rows = 1, .cols = 4, .eps = 0.0});
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(scaled.y[i] == Approx(plain.y[i] * w[i]));
    CHECK(gemma.y[i] == Approx(plain.y[i] * (1 + w[i])));
    CHECK(ln.y[i] == Approx(ln_plain.y[i] * w[i] + 1.0));
  }
}

TEST_CASE("eps sits inside the square root, added to the mean", "[reference]") {
  const std::vector<double> x{1e-3, -1e-3};
  const auto out = normlab::rmsnorm_forward(x, {.rows = 1, .cols = 2, .eps = 1e-5});
  CHECK(out.rstd[0] == Approx(1.0 / std::sqrt(1e-6 + 1e-5)).epsilon(1e-12));
}

TEST_CASE("add + norm normalises h = x + r and returns it", "[reference]") {
  const std::vector<double> x{1, 2, 3, 4};
  const std::vector<double> r{2, -1, 0, -2};
  const std::vector<double> h{3, 1, 3, 2};
  const auto fused = normlab::add_rmsnorm_forward(x, r, {.rows = 2, .cols = 2, .eps = 1e-6});
  const auto direct = normlab::rmsnorm_forward(h, {.rows = 2, .cols = 2, .eps = 1e-6});
  CHECK(fused.residual == h);
  for (std::size_t i = 0; i < 4; ++i)
    CHECK(fused.y[i] == Approx(direct.y[i]));
  const auto ln = normlab::add_layernorm_forward(x, r, {.rows = 2, .cols = 2, .eps = 1e-6});
  const auto ln_direct = normlab::layernorm_forward(h, {.rows = 2, .cols = 2, .eps = 1e-6});
  for (std::size_t i = 0; i < 4; ++i)
    CHECK(ln.y[i] == Approx(ln_direct.y[i]));
}

namespace {

// Sum over the outputs of dy * y, the scalar whose gradient the backward references return.
double loss(bool layer, const std::vector<double>& x, const std::vector<double>& dy,
            const ReferenceParams& p) {
  const auto out = layer ? normlab::layernorm_forward(x, p) : normlab::rmsnorm_forward(x, p);
  double sum = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i)
    sum += dy[i] * out.y[i];
  return sum;
}

void check_backward_by_finite_differences(bool layer) {
  const std::vector<double> x{0.3, -1.2, 2.0, 0.7, -0.4, 1.5, 0.1, -2.2, 0.9, 1.1};
  const std::vector<double> dy{0.5, -0.3, 1.0, 0.2, -0.7, 0.4, -1.1, 0.6, 0.3, -0.2};
  std::vector<double> w{1.1, 0.9, -0.5, 2.0, 0.3};
  std::vector<double> b{0.1, -0.2, 0.3, 0.0, 0.5};
  ReferenceParams p{.rows = 2, .cols = 5, .eps = 1e-5, .weight = w};
  if (layer) p.bias = b;
  const auto grads =
      layer ? normlab::layernorm_backward(dy, x, p) : normlab::rmsnorm_backward(dy, x, p);
  constexpr double h = 1e-6;
  for (std::size_t i = 0; i < x.size(); ++i) {
    auto plus = x, minus = x;
    plus[i] += h;
    minus[i] -= h;
    CHECK(grads.dx[i] ==
          Approx((loss(layer, plus, dy, p) - loss(layer, minus, dy, p)) / (2 * h)).epsilon(1e-6));
  }
  for (std::size_t j = 0; j < w.size(); ++j) {
    const double saved = w[j];
    w[j] = saved + h;
    const double up = loss(layer, x, dy, p);
    w[j] = saved - h;
    const double down = loss(layer, x, dy, p);
    w[j] = saved;
    CHECK(grads.dweight[j] == Approx((up - down) / (2 * h)).epsilon(1e-6));
  }
  if (layer) {
    for (std::size_t j = 0; j < b.size(); ++j) {
      CHECK(grads.dbias[j] == Approx(dy[j] + dy[j + 5]));
    }
  }
}

}  // namespace

TEST_CASE("RMSNorm backward agrees with finite differences of the forward", "[reference]") {
  check_backward_by_finite_differences(false);
}

TEST_CASE("LayerNorm backward agrees with finite differences of the forward", "[reference]") {
  check_backward_by_finite_differences(true);
}

TEST_CASE("a reference rejects tensors of the wrong size", "[reference]") {
  const std::vector<double> x{1, 2, 3};
  CHECK_THROWS_WITH(normlab::rmsnorm_forward(x, {.rows = 2, .cols = 2}),
                    Catch::Contains("expected 4"));
}
