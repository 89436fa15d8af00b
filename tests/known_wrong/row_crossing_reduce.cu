// SPDX-License-Identifier: Apache-2.0
// Known wrong: a sub-warp reduction wider than the row's group of lanes. Chapter 09's narrow
// kernel gives each row kLanes lanes and sums over exactly those (device::group_sum<kLanes>); a
// kernel that keeps 8 lanes a row but sums over 16 adds the neighbouring row's squares into
// each row's, and every output of both rows is scaled wrongly. A row without a live neighbour
// (one row alone: its neighbour's lanes load nothing) comes out right, which is why the cases
// need several rows. Its control twin sums over 8 lanes and is otherwise identical.
#include "known_wrong_launch.cuh"
#include "normlab/device/reduce.cuh"
#include "row_crossing_reduce.hpp"

namespace normlab::known_wrong {

namespace {

constexpr int kLanes = 8;  // lanes a row
constexpr int kPerLane = 4;
constexpr int kThreads = 256;
constexpr int kRowsPerBlock = kThreads / kLanes;
constexpr std::int64_t kMostCols = kLanes * kPerLane;

template <int kReduceLanes>
__global__ void rmsnorm_group_per_row(const float* x, std::int64_t x_stride, const float* weight,
                                      float* y, std::int64_t y_stride, std::int64_t rows,
                                      std::int64_t cols, float eps) {
  const int lane = static_cast<int>(threadIdx.x) % kLanes;
  const std::int64_t row =
      static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / kLanes;
  const bool live = row < rows;  // every lane stays for the shuffles
  float v[kPerLane];
  float squares = 0.0f;
#pragma unroll
  for (int i = 0; i < kPerLane; ++i) {
    const std::int64_t col = lane + i * kLanes;
    v[i] = live && col < cols ? x[row * x_stride + col] : 0.0f;
    squares += v[i] * v[i];
  }
  // BUG when kReduceLanes is 16: the butterfly's offset 8 reaches the next row's lanes.
  const float rstd =
      rsqrtf(device::group_sum<kReduceLanes>(squares) / static_cast<float>(cols) + eps);
  if (!live) return;
#pragma unroll
  for (int i = 0; i < kPerLane; ++i) {
    const std::int64_t col = lane + i * kLanes;
    if (col < cols) y[row * y_stride + col] = v[i] * rstd * weight[col];
  }
}

template <int kReduceLanes>
void launch(const NormCall& c, cudaStream_t stream) {
  const char* fn = "known_wrong::rmsnorm_group_per_row";
  validate_rmsnorm_call(fn, c);
  check_argument(c.cols <= kMostCols, fn, "cols", "at most 32");
  if (c.rows == 0) return;
  const auto blocks = static_cast<unsigned int>((c.rows + kRowsPerBlock - 1) / kRowsPerBlock);
  rmsnorm_group_per_row<kReduceLanes><<<blocks, kThreads, 0, stream>>>(
      static_cast<const float*>(c.x), c.x_stride, static_cast<const float*>(c.weight),
      static_cast<float*>(c.y), c.y_stride, c.rows, c.cols, c.eps);
  NORMLAB_CHECK_LAUNCH();
}

KernelEntry entry(const char* name, const char* summary, Launcher launcher) {
  return {.name = name,
          .chapter = 9,
          .summary = summary,
          .op = Op::rmsnorm,
          .can = {.dtypes = {DType::f32}, .max_cols = kMostCols},
          .launch = std::move(launcher)};
}

}  // namespace

KernelEntry rmsnorm_rows_crossing_reduce() {
  return entry("known_wrong_rmsnorm_rows_crossing_reduce", "8 lanes a row, summed over 16",
               launch<2 * kLanes>);
}

KernelEntry rmsnorm_rows_own_reduce() {
  return entry("known_wrong_control_rmsnorm_rows_own_reduce", "8 lanes a row, summed over 8",
               launch<kLanes>);
}

}  // namespace normlab::known_wrong
