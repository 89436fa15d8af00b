// SPDX-License-Identifier: Apache-2.0
// Known wrong: statistics accumulated in half precision. A bf16 significand has 8 bits, so a
// running sum of x^2 stops growing once its spacing (2 at 256, 4 at 512) dwarfs the terms; over
// a 4096-wide row the mean square keeps a few correct bits and every output is scaled wrongly.
// The kernel walks each row serially, one thread per row, the way a dtype-templated loop with a
// `T sum` would; its control twin accumulates in fp32 and is otherwise identical.
#include <cuda_bf16.h>

#include "half_statistics.hpp"
#include "known_wrong_launch.cuh"
#include "normlab/check.hpp"

namespace normlab::known_wrong {

namespace {

constexpr int kThreads = 64;

template <typename Accumulator, typename P>
__global__ void rmsnorm_row_per_thread(const __nv_bfloat16* x, std::int64_t x_stride,
                                       const P* weight, __nv_bfloat16* y, std::int64_t y_stride,
                                       std::int64_t rows, std::int64_t cols, float eps) {
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const __nv_bfloat16* in = x + row * x_stride;
  __nv_bfloat16* out = y + row * y_stride;
  Accumulator sum = static_cast<Accumulator>(0.0f);
  for (std::int64_t c = 0; c < cols; ++c) {
    const Accumulator v = static_cast<Accumulator>(__bfloat162float(in[c]));
    sum = sum + v * v;  // BUG when Accumulator is bf16: rounded to 8 bits at every step
  }
  const float rstd = rsqrtf(static_cast<float>(sum) / static_cast<float>(cols) + eps);
  for (std::int64_t c = 0; c < cols; ++c) {
    out[c] = __float2bfloat16_rn(__bfloat162float(in[c]) * rstd * static_cast<float>(weight[c]));
  }
}

template <typename Accumulator>
void launch(const NormCall& c, cudaStream_t stream) {
  const char* fn = "known_wrong::rmsnorm_half_statistics";
  validate_rmsnorm_call(fn, c);
  if (c.rows == 0) return;
  const auto blocks = static_cast<unsigned int>((c.rows + kThreads - 1) / kThreads);
  const auto* x = static_cast<const __nv_bfloat16*>(c.x);
  auto* y = static_cast<__nv_bfloat16*>(c.y);
  if (c.weight_dtype == DType::f32) {
    rmsnorm_row_per_thread<Accumulator><<<blocks, kThreads, 0, stream>>>(
        x, c.x_stride, static_cast<const float*>(c.weight), y, c.y_stride, c.rows, c.cols, c.eps);
  } else {
    rmsnorm_row_per_thread<Accumulator><<<blocks, kThreads, 0, stream>>>(
        x, c.x_stride, static_cast<const __nv_bfloat16*>(c.weight), y, c.y_stride, c.rows, c.cols,
        c.eps);
  }
  NORMLAB_CHECK_LAUNCH();
}

KernelEntry entry(const char* name, const char* summary, Launcher launcher) {
  return {.name = name,
          .chapter = 7,
          .summary = summary,
          .op = Op::rmsnorm,
          .can = {.dtypes = {DType::bf16}, .fp32_parameters = true},
          .launch = std::move(launcher)};
}

}  // namespace

KernelEntry rmsnorm_bf16_statistics() {
  return entry("known_wrong_rmsnorm_bf16_statistics", "sum of squares accumulated in bf16",
               launch<__nv_bfloat16>);
}

KernelEntry rmsnorm_fp32_statistics() {
  return entry("known_wrong_control_fp32_statistics", "the same kernel, sum in fp32",
               launch<float>);
}

}  // namespace normlab::known_wrong
