// SPDX-License-Identifier: Apache-2.0
/// @file hand_case.hpp
/// @brief A forward call whose tensors each have their own stride and alignment, built by hand
/// (the harness's Case shifts every tensor alike), run through any launcher and compared with
/// the float64 reference. Shared by the tests of chapters 07 and 09.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "normlab/buffer.hpp"
#include "normlab/check.hpp"
#include "normlab/compare.hpp"
#include "normlab/host_matrix.hpp"
#include "normlab/kernel.hpp"
#include "normlab/random.hpp"
#include "normlab/reference.hpp"
#include "normlab/runner.hpp"

namespace normlab::hand_case {

struct DTypes {
  DType dtype;
  DType weight_dtype;
};
struct Layout {
  std::int64_t pad = 0;       // guard elements after each row
  std::int64_t misalign = 0;  // elements the base is shifted by
};

struct HandCase {
  Op op = Op::rmsnorm;
  DTypes types{DType::bf16, DType::bf16};
  std::int64_t rows = 0, cols = 0;
  Layout x, residual, y, residual_out;
  std::int64_t weight_misalign = 0;  // weight and bias
  bool residual_in_place = false;
  std::uint64_t seed = 1;
};

// The comparisons (CaseResult), with what was compared.
struct HandResult : CaseResult {
  HostMatrix y, h;
  ReferenceForward want;
};

/// Runs @p launch (named @p kernel) on a case whose tensors each have their own stride and
/// alignment, and compares y (and h) with the float64 reference; @p residual_rounding rounds h
/// in the reference (the dtype's rounding: what the kernel stores).
inline HandResult run_by_hand(const HandCase& hc, Rounding residual_rounding,
                              const Launcher& launch, const char* kernel) {
  const DType dtype = hc.types.dtype;
  HostMatrix x(dtype, hc.rows, hc.cols, hc.cols + hc.x.pad);
  HostMatrix r(dtype, hc.rows, hc.cols, hc.cols + hc.residual.pad);
  HostMatrix w(hc.types.weight_dtype, 1, hc.cols), b(hc.types.weight_dtype, 1, hc.cols);
  fill_random(x, {.seed = hc.seed});
  fill_random(r, {.seed = hc.seed + 1});
  fill_random(
      w, {.distribution = Distribution::uniform, .mean = 1.0, .scale = 0.3, .seed = hc.seed + 2});
  fill_random(b, {.scale = 0.5, .seed = hc.seed + 3});
  const std::vector<double> xs = x.to_dense(), rs = r.to_dense(), ws = w.to_dense(),
                            bs = b.to_dense();
  ReferenceParams params{.rows = hc.rows, .cols = hc.cols, .eps = 1e-5, .weight = ws};
  if (is_layernorm(hc.op)) params.bias = bs;

  HandResult result;
  result.kernel = kernel;
  result.case_description = std::string(name_of(hc.op)) + " " + name_of(dtype) + " " +
                            std::to_string(hc.rows) + " x " + std::to_string(hc.cols) +
                            " with a stride and alignment per tensor";
  switch (hc.op) {
    case Op::rmsnorm:
      result.want = rmsnorm_forward(xs, params);
      break;
    case Op::layernorm:
      result.want = layernorm_forward(xs, params);
      break;
    case Op::add_rmsnorm:
      result.want = add_rmsnorm_forward(xs, rs, params, residual_rounding);
      break;
    default:
      result.want = add_layernorm_forward(xs, rs, params, residual_rounding);
      break;
  }

  result.y = HostMatrix(dtype, hc.rows, hc.cols, hc.cols + hc.y.pad);
  const Layout& h_layout = hc.residual_in_place ? hc.residual : hc.residual_out;
  result.h = HostMatrix(dtype, hc.rows, hc.cols, hc.cols + h_layout.pad);
  const PlacedMatrix x_device(x, hc.x.misalign), r_device(r, hc.residual.misalign);
  const PlacedMatrix w_device(w, hc.weight_misalign), b_device(b, hc.weight_misalign);
  const PlacedMatrix y_device(result.y, hc.y.misalign),
      h_device(result.h, hc.residual_out.misalign);

  NormCall call{.op = hc.op,
                .dtype = dtype,
                .weight_dtype = hc.types.weight_dtype,
                .rows = hc.rows,
                .cols = hc.cols,
                .eps = 1e-5f};
  call.x = x_device.data();
  call.x_stride = x.stride();
  call.y = y_device.data();
  call.y_stride = result.y.stride();
  call.weight = w_device.data();
  call.bias = is_layernorm(hc.op) ? b_device.data() : nullptr;
  if (is_add(hc.op)) {
    call.residual = r_device.data();
    call.residual_stride = r.stride();
    call.residual_out = hc.residual_in_place ? r_device.data() : h_device.data();
    call.residual_out_stride = result.h.stride();
  }
  launch(call, nullptr);
  NORMLAB_CHECK(cudaDeviceSynchronize());

  const Tolerance tolerance = tolerance_for(dtype);
  y_device.download(result.y);
  result.reports.push_back(compare(result.y, result.want.y, tolerance, "y"));
  if (is_add(hc.op)) {
    (hc.residual_in_place ? r_device : h_device).download(result.h);
    result.reports.push_back(
        compare(result.h, result.want.residual, tolerance, "residual", !hc.residual_in_place));
  }
  return result;
}

}  // namespace normlab::hand_case
