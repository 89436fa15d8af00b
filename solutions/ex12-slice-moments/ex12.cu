// SPDX-License-Identifier: Apache-2.0
// Exercise 12: the partial statistics of rows split across GPUs, and their merge.
//
// Tensor parallelism gives each GPU (a rank) a slice of the columns of every row, and LayerNorm
// needs each row's mean and variance, which no rank can compute alone. So each rank reduces its
// slice of every row to moments (count, mean, M2), twelve bytes a row; NCCL all-gathers them,
// so that every rank holds every rank's moments of every row, rank after rank; and every rank
// merges them, in the same order, into the row's statistics. Moments, not sums: a variance from
// sums, E[x^2] - E[x]^2, cancels on rows far from zero (chapter 05), while Chan's merge adds two
// sets' M2 without ever forming a sum of squares. All-gather, not all-reduce: NCCL reduces with
// sums, products, maxima and minima, and Chan's merge is none of them.
#include "ex12.cuh"

#include <algorithm>

#include "normlab/arguments.hpp"
#include "normlab/check.hpp"
#include "normlab/device/reduce.cuh"
#include "normlab/device/welford.cuh"

namespace normlab::ex12 {

namespace {

using device::Moments;
static_assert(sizeof(Moments) == kMomentFloats * sizeof(float), "three floats a row");

// Rows a block of the merge takes, one a thread.
constexpr int kMergeThreads = 128;

// The moments of the @p cols values of @p row, returned to thread 0 of the block at least.
// Every thread of the block calls it, once.
__device__ Moments row_moments(const float* row, std::int64_t cols) {
  // TODO(ex12) begin: each thread's Welford moments of its columns, then the block's merged
  Moments m{};
  for (std::int64_t c = threadIdx.x; c < cols; c += kThreads)
    m = device::welford_push(m, row[c]);
  return device::block_reduce_once<kThreads>(m, device::welford_merge);
  // TODO(ex12) end
}

// Block b reduces row b of the slice; thread t reads its columns t, t + kThreads, ..., so that
// a warp's loads are 128 neighbouring bytes.
__global__ void __launch_bounds__(kThreads)
    slice_moments_kernel(const float* x, std::int64_t x_stride, std::int64_t cols,
                         Moments* moments) {
  const Moments m = row_moments(x + blockIdx.x * x_stride, cols);
  if (threadIdx.x == 0) moments[blockIdx.x] = m;
}

// The moments of row @p row over all @p ranks ranks: rank 0's, then rank 1's merged into them,
// and so on, from all-gather's layout (rank p's row r at gathered[p * rows + r]).
__device__ Moments merge_ranks(const Moments* gathered, int ranks, std::int64_t rows,
                               std::int64_t row) {
  // TODO(ex12) begin: Chan's merge of every rank's moments of the row, in rank order
  Moments m{};
  for (int rank = 0; rank < ranks; ++rank) {
    const Moments part = gathered[rank * rows + row];
    const float count = m.count + part.count;
    const float delta = part.mean - m.mean;
    const float part_share = part.count / count;
    m = {count, m.mean + delta * part_share, m.m2 + part.m2 + delta * delta * m.count * part_share};
  }
  return m;
  // TODO(ex12) end
}

// One thread a row: its moments merged, its statistics written.
__global__ void __launch_bounds__(kMergeThreads)
    merge_statistics_kernel(const Moments* gathered, int ranks, std::int64_t rows, float eps,
                            float* mean, float* rstd) {
  for (std::int64_t row = blockIdx.x * std::int64_t{kMergeThreads} + threadIdx.x; row < rows;
       row += std::int64_t{gridDim.x} * kMergeThreads) {
    const Moments m = merge_ranks(gathered, ranks, rows, row);
    mean[row] = m.mean;
    rstd[row] = rsqrtf(m.m2 / m.count + eps);
  }
}

}  // namespace

void slice_moments(const float* x, std::int64_t x_stride, std::int64_t rows, std::int64_t cols,
                   float* moments, cudaStream_t stream) {
  const char* fn = "ex12::slice_moments";
  validate_shape(fn, rows, cols);
  validate_tensor(fn, "x", x, rows, cols, x_stride);
  check_argument(rows == 0 || moments != nullptr, fn, "moments", "is null");
  validate_one_block_per_row(fn, rows);
  if (rows == 0) return;
  slice_moments_kernel<<<static_cast<unsigned int>(rows), kThreads, 0, stream>>>(
      x, x_stride, cols, reinterpret_cast<Moments*>(moments));
  NORMLAB_CHECK_LAUNCH();
}

void merge_statistics(const float* gathered, int ranks, std::int64_t rows, float eps, float* mean,
                      float* rstd, cudaStream_t stream) {
  const char* fn = "ex12::merge_statistics";
  check_argument(ranks >= 1, fn, "ranks", "must be at least 1");
  check_argument(rows >= 0, fn, "rows", "must not be negative");
  validate_eps(fn, eps);
  check_argument(rows == 0 || gathered != nullptr, fn, "gathered", "is null");
  check_argument(rows == 0 || mean != nullptr, fn, "mean", "is null");
  check_argument(rows == 0 || rstd != nullptr, fn, "rstd", "is null");
  if (rows == 0) return;
  const auto blocks = static_cast<unsigned int>(
      std::min<std::int64_t>((rows + kMergeThreads - 1) / kMergeThreads, 4096));
  merge_statistics_kernel<<<blocks, kMergeThreads, 0, stream>>>(
      reinterpret_cast<const Moments*>(gathered), ranks, rows, eps, mean, rstd);
  NORMLAB_CHECK_LAUNCH();
}

}  // namespace normlab::ex12
