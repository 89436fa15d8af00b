// SPDX-License-Identifier: Apache-2.0
// Test-only backward kernels: fp32 arithmetic, one block per row, CUB for the block sums, and
// the parameter gradients summed over rows by a second kernel from per-element partials in
// scratch. Slow and plain on purpose: they exist to exercise the harness, not to teach.
#include "backward_kernels.hpp"

#include <cuda_bf16.h>

#include <string>
#include <type_traits>

#include <cub/block/block_reduce.cuh>

#include "normlab/check.hpp"

namespace normlab::test_backward {

namespace {

constexpr int kThreads = 256;

__device__ float to_float(float v) {
  return v;
}
__device__ float to_float(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
template <typename T>
__device__ T from_float(float v) {
  if constexpr (std::is_same_v<T, float>) {
    return v;
  } else {
    return __float2bfloat16_rn(v);
  }
}

struct RowArgs {
  const void* x;
  std::int64_t x_stride;
  const void* dy;
  std::int64_t dy_stride;
  const void* dresidual;  // or null
  std::int64_t dresidual_stride;
  const void* weight;  // or null
  bool weight_plus_one;
  const float* saved_mean;  // null for RMSNorm
  const float* saved_rstd;
  void* dx;
  std::int64_t dx_stride;
  float* dy_xhat;  // rows x cols partials of dweight
  float* dy_only;  // rows x cols partials of dbias
  std::int64_t cols;
  bool drop_projection;
};

template <typename T, typename W>
__global__ void backward_rows(RowArgs a) {
  using BlockReduce = cub::BlockReduce<float, kThreads>;
  __shared__ typename BlockReduce::TempStorage temp;
  __shared__ float mean_g, mean_g_xhat;
  const std::int64_t row = blockIdx.x;
  const T* x = static_cast<const T*>(a.x) + row * a.x_stride;
  const T* dy = static_cast<const T*>(a.dy) + row * a.dy_stride;
  T* dx = static_cast<T*>(a.dx) + row * a.dx_stride;
  const W* w = static_cast<const W*>(a.weight);
  const float mean = a.saved_mean ? a.saved_mean[row] : 0.0f;
  const float rstd = a.saved_rstd[row];
  auto scale = [&](std::int64_t c) {
    if (!w) return 1.0f;
    return a.weight_plus_one ? 1.0f + to_float(w[c]) : to_float(w[c]);
  };

  float sum_g = 0.0f, sum_g_xhat = 0.0f;
  for (std::int64_t c = threadIdx.x; c < a.cols; c += kThreads) {
    const float xhat = (to_float(x[c]) - mean) * rstd;
    const float d = to_float(dy[c]);
    sum_g += d * scale(c);
    sum_g_xhat += d * scale(c) * xhat;
    a.dy_xhat[row * a.cols + c] = d * xhat;
    a.dy_only[row * a.cols + c] = d;
  }
  sum_g = BlockReduce(temp).Sum(sum_g);
  __syncthreads();  // temp is reused
  sum_g_xhat = BlockReduce(temp).Sum(sum_g_xhat);
  if (threadIdx.x == 0) {
    mean_g = a.saved_mean ? sum_g / static_cast<float>(a.cols) : 0.0f;  // RMSNorm: not centred
    mean_g_xhat = a.drop_projection ? 0.0f : sum_g_xhat / static_cast<float>(a.cols);
  }
  __syncthreads();
  // Each thread reads dy[c] before writing dx[c]: dx may be written over dy.
  for (std::int64_t c = threadIdx.x; c < a.cols; c += kThreads) {
    const float xhat = (to_float(x[c]) - mean) * rstd;
    float value = rstd * (to_float(dy[c]) * scale(c) - mean_g - xhat * mean_g_xhat);
    if (a.dresidual)
      value += to_float(static_cast<const T*>(a.dresidual)[row * a.dresidual_stride + c]);
    dx[c] = from_float<T>(value);
  }
}

// One thread per column sums the partials of rows [0, rows) in row order.
template <typename W>
__global__ void sum_columns(const float* partials, std::int64_t rows, std::int64_t cols, W* out) {
  const std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  float sum = 0.0f;
  for (std::int64_t r = 0; r < rows; ++r)
    sum += partials[r * cols + c];
  out[c] = from_float<W>(sum);
}

template <typename T, typename W>
void launch_typed(const NormCall& c, Bug bug, cudaStream_t stream) {
  float* dy_xhat = static_cast<float*>(c.scratch);
  float* dy_only = dy_xhat + c.rows * c.cols;
  const RowArgs args{c.x,          c.x_stride,
                     c.dy,         c.dy_stride,
                     c.dresidual,  c.dresidual_stride,
                     c.weight,     c.weight_plus_one,
                     c.saved_mean, c.saved_rstd,
                     c.dx,         c.dx_stride,
                     dy_xhat,      dy_only,
                     c.cols,       bug == Bug::projection_dropped};
  backward_rows<T, W><<<static_cast<unsigned>(c.rows), kThreads, 0, stream>>>(args);
  NORMLAB_CHECK_LAUNCH();
  const std::int64_t summed_rows = bug == Bug::last_row_dropped ? c.rows - 1 : c.rows;
  const auto blocks = static_cast<unsigned>((c.cols + kThreads - 1) / kThreads);
  if (c.dweight) {
    sum_columns<<<blocks, kThreads, 0, stream>>>(dy_xhat, summed_rows, c.cols,
                                                 static_cast<W*>(c.dweight));
    NORMLAB_CHECK_LAUNCH();
  }
  if (c.dbias) {
    sum_columns<<<blocks, kThreads, 0, stream>>>(dy_only, summed_rows, c.cols,
                                                 static_cast<W*>(c.dbias));
    NORMLAB_CHECK_LAUNCH();
  }
}

void launch(const NormCall& c, Bug bug, cudaStream_t stream) {
  const char* fn = "test_backward::launch";
  check_argument(c.rows >= 1 && c.cols >= 1, fn, "rows", "and cols must be at least 1");
  check_argument(c.scratch_bytes >= static_cast<std::size_t>(2 * c.rows * c.cols) * 4, fn,
                 "scratch", "must hold 2 * rows * cols floats");
  check_argument(c.saved_rstd != nullptr, fn, "saved_rstd", "must not be null");
  const bool fp32_weights = c.weight_dtype == DType::f32;
  if (c.dtype == DType::f32) {
    launch_typed<float, float>(c, bug, stream);
  } else if (fp32_weights) {
    launch_typed<__nv_bfloat16, float>(c, bug, stream);
  } else {
    launch_typed<__nv_bfloat16, __nv_bfloat16>(c, bug, stream);
  }
}

}  // namespace

KernelEntry entry(Op op, Bug bug) {
  const char* bugs[] = {"", "_last_row_dropped", "_projection_dropped"};
  return {.name = std::string("test_") + name_of(op) + bugs[static_cast<int>(bug)],
          .chapter = 0,
          .summary = "test-only backward: one block per row, column sums from scratch",
          .op = op,
          .can = {.dtypes = {DType::f32, DType::bf16},
                  .fp32_parameters = true,
                  .optional_parameters = true,
                  .weight_plus_one = true,
                  .in_place = true,
                  .residual_gradient = true},
          .launch = [bug](const NormCall& c, cudaStream_t stream) { launch(c, bug, stream); },
          .scratch_bytes =
              [](const Shape& s) {
                return static_cast<std::size_t>(2 * s.rows * s.cols) * sizeof(float);
              }};
}

}  // namespace normlab::test_backward
