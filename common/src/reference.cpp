// SPDX-License-Identifier: Apache-2.0
#include "normlab/reference.hpp"

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace normlab {

namespace {

void check_sizes(const char* function, std::span<const double> tensor, const ReferenceParams& p) {
  const auto want = static_cast<std::size_t>(p.rows * p.cols);
  if (tensor.size() != want) {
    throw std::invalid_argument(std::string(function) + ": tensor has " +
                                std::to_string(tensor.size()) + " elements, expected " +
                                std::to_string(want));
  }
  if (!p.weight.empty() && p.weight.size() != static_cast<std::size_t>(p.cols)) {
    throw std::invalid_argument(std::string(function) + ": weight must have cols elements");
  }
  if (!p.bias.empty() && p.bias.size() != static_cast<std::size_t>(p.cols)) {
    throw std::invalid_argument(std::string(function) + ": bias must have cols elements");
  }
}

// The per-element scale: w, 1 + w, or 1 without a weight.
double scale(const ReferenceParams& p, std::int64_t col) {
  if (p.weight.empty()) return 1.0;
  const double w = p.weight[static_cast<std::size_t>(col)];
  return p.weight_plus_one ? 1.0 + w : w;
}

double shift(const ReferenceParams& p, std::int64_t col) {
  return p.bias.empty() ? 0.0 : p.bias[static_cast<std::size_t>(col)];
}

// Normalises each row of x in place into out; 'centre' selects LayerNorm over RMSNorm.
ReferenceForward normalise(std::span<const double> x, const ReferenceParams& p, bool centre) {
  ReferenceForward out;
  out.y.resize(x.size());
  out.rstd.resize(static_cast<std::size_t>(p.rows));
  if (centre) out.mean.resize(static_cast<std::size_t>(p.rows));
  for (std::int64_t r = 0; r < p.rows; ++r) {
    const double* row = x.data() + r * p.cols;
    double mean = 0.0;
    if (centre) {
      for (std::int64_t c = 0; c < p.cols; ++c)
        mean += row[c];
      mean /= static_cast<double>(p.cols);
      out.mean[static_cast<std::size_t>(r)] = mean;
    }
    double sum_squares = 0.0;
    for (std::int64_t c = 0; c < p.cols; ++c)
      sum_squares += (row[c] - mean) * (row[c] - mean);
    const double rstd = 1.0 / std::sqrt(sum_squares / static_cast<double>(p.cols) + p.eps);
    out.rstd[static_cast<std::size_t>(r)] = rstd;
    for (std::int64_t c = 0; c < p.cols; ++c) {
      out.y[static_cast<std::size_t>(r * p.cols + c)] =
          (row[c] - mean) * rstd * scale(p, c) + shift(p, c);
    }
  }
  return out;
}

ReferenceForward add_then_normalise(std::span<const double> x, std::span<const double> r,
                                    const ReferenceParams& p, double (*rounding)(double),
                                    bool centre) {
  check_sizes("add_norm_forward(r)", r, p);
  std::vector<double> h(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    h[i] = rounding ? rounding(x[i] + r[i]) : x[i] + r[i];
  ReferenceForward out = normalise(h, p, centre);
  out.residual = std::move(h);
  return out;
}

}  // namespace

ReferenceForward rmsnorm_forward(std::span<const double> x, const ReferenceParams& params) {
  check_sizes("rmsnorm_forward", x, params);
  return normalise(x, params, false);
}

ReferenceForward layernorm_forward(std::span<const double> x, const ReferenceParams& params) {
  check_sizes("layernorm_forward", x, params);
  return normalise(x, params, true);
}

ReferenceForward add_rmsnorm_forward(std::span<const double> x, std::span<const double> r,
                                     const ReferenceParams& params,
                                     double (*residual_rounding)(double)) {
  check_sizes("add_rmsnorm_forward", x, params);
  return add_then_normalise(x, r, params, residual_rounding, false);
}

ReferenceForward add_layernorm_forward(std::span<const double> x, std::span<const double> r,
                                       const ReferenceParams& params,
                                       double (*residual_rounding)(double)) {
  check_sizes("add_layernorm_forward", x, params);
  return add_then_normalise(x, r, params, residual_rounding, true);
}

namespace {

// Shared by both backward passes. With x_hat = (x - mean) * rstd and g = dy * scale:
//   RMSNorm   (mean = 0):  dx = rstd * (g - x_hat * mean(g * x_hat))
//   LayerNorm:             dx = rstd * (g - mean(g) - x_hat * mean(g * x_hat))
// and dw = sum over rows of dy * x_hat, db = sum over rows of dy.
ReferenceBackward backward(std::span<const double> dy, std::span<const double> x,
                           const ReferenceParams& p, bool centre) {
  const ReferenceForward forward = normalise(x, p, centre);
  ReferenceBackward grads;
  grads.dx.resize(x.size());
  if (!p.weight.empty()) grads.dweight.assign(static_cast<std::size_t>(p.cols), 0.0);
  if (!p.bias.empty()) grads.dbias.assign(static_cast<std::size_t>(p.cols), 0.0);
  std::vector<double> x_hat(static_cast<std::size_t>(p.cols));
  for (std::int64_t r = 0; r < p.rows; ++r) {
    const double mean = centre ? forward.mean[static_cast<std::size_t>(r)] : 0.0;
    const double rstd = forward.rstd[static_cast<std::size_t>(r)];
    double mean_g = 0.0, mean_g_xhat = 0.0;
    for (std::int64_t c = 0; c < p.cols; ++c) {
      const auto i = static_cast<std::size_t>(r * p.cols + c);
      x_hat[static_cast<std::size_t>(c)] = (x[i] - mean) * rstd;
      const double g = dy[i] * scale(p, c);
      mean_g += g;
      mean_g_xhat += g * x_hat[static_cast<std::size_t>(c)];
    }
    mean_g = centre ? mean_g / static_cast<double>(p.cols) : 0.0;
    mean_g_xhat /= static_cast<double>(p.cols);
    for (std::int64_t c = 0; c < p.cols; ++c) {
      const auto i = static_cast<std::size_t>(r * p.cols + c);
      const double xh = x_hat[static_cast<std::size_t>(c)];
      grads.dx[i] = rstd * (dy[i] * scale(p, c) - mean_g - xh * mean_g_xhat);
      if (!grads.dweight.empty()) grads.dweight[static_cast<std::size_t>(c)] += dy[i] * xh;
      if (!grads.dbias.empty()) grads.dbias[static_cast<std::size_t>(c)] += dy[i];
    }
  }
  return grads;
}

}  // namespace

ReferenceBackward rmsnorm_backward(std::span<const double> dy, std::span<const double> x,
                                   const ReferenceParams& params) {
  check_sizes("rmsnorm_backward", x, params);
  check_sizes("rmsnorm_backward(dy)", dy, params);
  return backward(dy, x, params, false);
}

ReferenceBackward layernorm_backward(std::span<const double> dy, std::span<const double> x,
                                     const ReferenceParams& params) {
  check_sizes("layernorm_backward", x, params);
  check_sizes("layernorm_backward(dy)", dy, params);
  return backward(dy, x, params, true);
}

}  // namespace normlab
