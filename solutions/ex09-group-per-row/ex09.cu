// SPDX-License-Identifier: Apache-2.0
// Exercise 09: a group of lanes per row, for narrow rows.
//
// Chapter 07 gives every row a block. A 576-wide bf16 row is 72 16-byte chunks: a block of 96
// threads, 24 of them idle, and two barriers to reduce one row. Chapter 09 gives the row a
// group of kLanes lanes of a warp instead (8, 16 or 32, a power of two), so that a block of 256
// threads holds 256 / kLanes rows. The group keeps its row in registers and sums it with
// shuffles alone: device::group_sum<kLanes> is the warp's butterfly cut short, its XOR offsets
// all below kLanes, so it never leaves the group. No shared memory, no __syncthreads.
#include "ex09.cuh"

#include "normlab/arguments.hpp"
#include "normlab/check.hpp"
#include "normlab/device/reduce.cuh"
#include "normlab/device/vector.cuh"

namespace normlab::ex09 {

namespace {

using device::from_float;
using device::group_sum;
using device::load_chunk;
using device::store_chunk;
using device::to_float;
using device::Vector;
using Chunk = Vector<__nv_bfloat16>;  // eight bf16 values in 16 bytes

constexpr int kThreads = 256;
constexpr int kWidth = Chunk::kWidth;

template <int kLanes>
constexpr int kRowsPerBlock = kThreads / kLanes;

// The widest row a group of kLanes lanes holding kVectors chunks each takes.
template <int kLanes, int kVectors>
constexpr std::int64_t kColsHeld = std::int64_t{kLanes * kVectors * kWidth};

// What the kernel reads and writes; strides in elements.
struct Tensors {
  const __nv_bfloat16* x;
  std::int64_t x_stride;
  const __nv_bfloat16* weight;
  __nv_bfloat16* y;
  std::int64_t y_stride;
  std::int64_t rows;
  std::int64_t cols;
  float eps;
};

// Group g = threadIdx.x / kLanes of block b normalises row b * kRowsPerBlock<kLanes> + g. Lane
// l = threadIdx.x % kLanes of the group keeps chunks l, l + kLanes, ..., l + (kVectors - 1) *
// kLanes of the row (chunk k: elements 8k to 8k + 7), so the group's lanes read neighbouring
// 16 bytes; kVectors chunks a lane hold the whole row (the launcher chose kLanes and kVectors
// so). Rows start 16-byte aligned.
template <int kLanes, int kVectors>
__global__ void __launch_bounds__(kThreads) rmsnorm_group_per_row(const Tensors t) {
  // TODO(ex09) begin: hold the row in registers, sum its squares over the group, write y
  const int lane = static_cast<int>(threadIdx.x) % kLanes;
  const std::int64_t row =
      static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock<kLanes> + threadIdx.x / kLanes;
  // A group past the last row loads nothing (cols 0: its chunks read as zeros) but still
  // shuffles: the shuffles name all 32 lanes of the warp, so every lane must reach them.
  const bool live = row < t.rows;
  const std::int64_t cols = live ? t.cols : 0;
  const __nv_bfloat16* x_row = t.x + (live ? row : 0) * t.x_stride;
  Chunk h[kVectors];
  float squares = 0.0f;
#pragma unroll
  for (int v = 0; v < kVectors; ++v) {
    const std::int64_t first = std::int64_t{v * kLanes + lane} * kWidth;
    h[v] = load_chunk<false>(x_row, first, cols, true);
#pragma unroll
    for (int j = 0; j < kWidth; ++j)
      squares += to_float(h[v].element[j]) * to_float(h[v].element[j]);
  }
  const float rstd = rsqrtf(group_sum<kLanes>(squares) / static_cast<float>(t.cols) + t.eps);
  if (!live) return;
  __nv_bfloat16* y_row = t.y + row * t.y_stride;
#pragma unroll
  for (int v = 0; v < kVectors; ++v) {
    const std::int64_t first = std::int64_t{v * kLanes + lane} * kWidth;
    const Chunk w = load_chunk<false>(t.weight, first, t.cols, true);
    Chunk out;
#pragma unroll
    for (int j = 0; j < kWidth; ++j)
      out.element[j] =
          from_float<__nv_bfloat16>(to_float(h[v].element[j]) * rstd * to_float(w.element[j]));
    store_chunk<false>(y_row, first, t.cols, true, out);
  }
  // TODO(ex09) end
}

template <int kLanes, int kVectors>
void launch(const Tensors& t, cudaStream_t stream) {
  const std::int64_t blocks = (t.rows + kRowsPerBlock<kLanes> - 1) / kRowsPerBlock<kLanes>;
  rmsnorm_group_per_row<kLanes, kVectors>
      <<<static_cast<unsigned int>(blocks), kThreads, 0, stream>>>(t);
  NORMLAB_CHECK_LAUNCH();
}

}  // namespace

void rmsnorm(const __nv_bfloat16* x, std::int64_t x_stride, const __nv_bfloat16* weight,
             __nv_bfloat16* y, std::int64_t y_stride, std::int64_t rows, std::int64_t cols,
             float eps, cudaStream_t stream) {
  const char* fn = "ex09::rmsnorm";
  validate_register_rows(fn, rows, cols, kMostCols);
  validate_tensor(fn, "x", x, rows, cols, x_stride);
  validate_tensor(fn, "y", y, rows, cols, y_stride);
  validate_vector(fn, "weight", weight);
  validate_eps(fn, eps);
  validate_alignment(fn, "x", x, x_stride, sizeof(__nv_bfloat16), 16);
  validate_alignment(fn, "y", y, y_stride, sizeof(__nv_bfloat16), 16);
  validate_alignment(fn, "weight", weight, 0, sizeof(__nv_bfloat16), 16);
  if (rows == 0) return;
  const Tensors t{x, x_stride, weight, y, y_stride, rows, cols, eps};
  // The fewest lanes (the most rows a block) whose registers hold the row; narrower groups
  // leave fewer lanes idle on short rows.
  static_assert(kColsHeld<32, 4> == kMostCols);
  if (cols <= kColsHeld<8, 2>) {
    launch<8, 2>(t, stream);
  } else if (cols <= kColsHeld<16, 2>) {
    launch<16, 2>(t, stream);
  } else if (cols <= kColsHeld<32, 3>) {
    launch<32, 3>(t, stream);
  } else {
    launch<32, 4>(t, stream);
  }
}

}  // namespace normlab::ex09
