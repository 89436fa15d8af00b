// SPDX-License-Identifier: Apache-2.0
// Chapter 11, the fused decode kernel: y = diag(1/rms(x)) · (x · W*) in one launch for at most
// 64 tokens. With so few rows the work is reading W* (K x N halves) once from DRAM; the rows of
// x (at most 64 x K halves) stay in L1 and L2. The normalised activations never exist: 1/RMS
// is a per-row scalar applied to the finished sums (proposition 2), and the sum of squares it
// needs comes from the same reads of x the product makes.
//
// The grid is column tiles x splits of K. A block of 256 threads covers 64 columns: 8 threads a
// row of W* (8 halves, one 16-byte load each: 128 contiguous bytes) times 32 rows of W* at a
// time. Splitting K over blocks gives the GPU enough blocks to keep DRAM busy when N is small
// (576 -> 960 has 15 column tiles). Each block writes fp32 partial sums; the last block of a
// tile to finish (a counter per tile) adds the splits in a fixed order, so the result does not
// depend on which block finished first, scales and writes fp16, and sets the counter back to 0.
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>

#include "ch11.cuh"
#include "normlab/check.hpp"
#include "normlab/device/reduce.cuh"
#include "normlab/device/vector.cuh"

namespace normlab::ch11 {

namespace {

using device::Vector;
constexpr int kThreads = 256;
constexpr int kWidth = Vector<__half>::kWidth;      // 8 halves a 16-byte chunk
constexpr int kChunksPerTile = 8;                   // threads along a row of W*
constexpr int kTileCols = kChunksPerTile * kWidth;  // 64 columns a block
constexpr int kKLanes = kThreads / kChunksPerTile;  // 32 rows of W* at a time
constexpr int kWarps = kThreads / device::kWarpSize;
constexpr std::int64_t kLeastSplitRows = 128;  // rows of W* a split reads at least

struct FusedCall {
  const __half* x;
  const __half* w;
  __half* y;
  float* partials;         // [split][row][col], then the sums of squares [split][row]
  unsigned int* counters;  // one per column tile
  std::int64_t rows, k_cols, n_cols, split_rows;
  int splits;
  float eps;
  bool w_aligned;  // every row of W* starts on a 16-byte boundary
};

// [fused_accumulate]
// Rows [m0, m0 + kRows) of x times this block's slice of W*: each thread keeps kRows x 8 sums
// for its 8 columns over the rows k of W* it strides across, and kRows sums of squares of x.
template <int kRows>
__device__ void accumulate(const FusedCall& c, std::int64_t m0, std::int64_t first_col,
                           std::int64_t k_begin, std::int64_t k_end, float (&acc)[kRows][kWidth],
                           float (&squares)[kRows]) {
  const auto k_lane = static_cast<std::int64_t>(threadIdx.x / kChunksPerTile);
#pragma unroll 4
  for (std::int64_t k = k_begin + k_lane; k < k_end; k += kKLanes) {
    const Vector<__half> w =
        device::load_chunk<false>(c.w + k * c.n_cols, first_col, c.n_cols, c.w_aligned);
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      const float xv = m0 + r < c.rows ? __half2float(c.x[(m0 + r) * c.k_cols + k]) : 0.0f;
      squares[r] += xv * xv;
#pragma unroll
      for (int j = 0; j < kWidth; ++j)
        acc[r][j] += xv * __half2float(w.element[j]);
    }
  }
}
// [fused_accumulate]

// Adds the block's 32 k-lanes (4 in each warp by shuffles, then the 8 warps in shared memory)
// and stores this split's partial sums of rows [m0, m0 + kRows).
template <int kRows>
__device__ void store_partials(const FusedCall& c, std::int64_t m0, float (&acc)[kRows][kWidth],
                               float (&squares)[kRows]) {
  __shared__ float sums[kWarps][kRows][kTileCols];
  __shared__ float sums_of_squares[kWarps][kRows];
  const int lane = static_cast<int>(threadIdx.x) % device::kWarpSize;
  const int warp = static_cast<int>(threadIdx.x) / device::kWarpSize;
  const int chunk = static_cast<int>(threadIdx.x) % kChunksPerTile;
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
#pragma unroll
    for (int mask = kChunksPerTile; mask < device::kWarpSize; mask *= 2) {
#pragma unroll
      for (int j = 0; j < kWidth; ++j)
        acc[r][j] += device::shuffle_xor(acc[r][j], mask);
      squares[r] += device::shuffle_xor(squares[r], mask);
    }
  }
  if (lane < kChunksPerTile) {
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
#pragma unroll
      for (int j = 0; j < kWidth; ++j)
        sums[warp][r][chunk * kWidth + j] = acc[r][j];
      if (lane == 0) sums_of_squares[warp][r] = squares[r];
    }
  }
  __syncthreads();
  const std::int64_t split = blockIdx.y;
  const std::int64_t tile_col = static_cast<std::int64_t>(blockIdx.x) * kTileCols;
  for (int o = static_cast<int>(threadIdx.x); o < kRows * kTileCols; o += kThreads) {
    const int r = o / kTileCols, col = o % kTileCols;
    float total = 0.0f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w)
      total += sums[w][r][col];
    if (m0 + r < c.rows && tile_col + col < c.n_cols)
      c.partials[(split * c.rows + m0 + r) * c.n_cols + tile_col + col] = total;
  }
  if (threadIdx.x < kRows && m0 + threadIdx.x < c.rows) {
    float total = 0.0f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w)
      total += sums_of_squares[w][threadIdx.x];
    c.partials[c.splits * c.rows * c.n_cols + split * c.rows + m0 + threadIdx.x] = total;
  }
  __syncthreads();  // the next row group reuses the shared sums
}

// [fused_finish]
// The last block of a column tile: every split's partial sums of its columns, added in split
// order, times 1/RMS of the row (its sums of squares, added the same way), rounded to fp16.
__device__ void finish_tile(const FusedCall& c) {
  const std::int64_t tile_col = static_cast<std::int64_t>(blockIdx.x) * kTileCols;
  const float* squares = c.partials + c.splits * c.rows * c.n_cols;
  for (std::int64_t o = threadIdx.x; o < c.rows * kTileCols; o += kThreads) {
    const std::int64_t m = o / kTileCols, n = tile_col + o % kTileCols;
    if (n >= c.n_cols) continue;
    float sum = 0.0f, sum_of_squares = 0.0f;
    for (int s = 0; s < c.splits; ++s) {
      sum += __ldcg(c.partials + (s * c.rows + m) * c.n_cols + n);  // L2: other blocks wrote it
      sum_of_squares += __ldcg(squares + s * c.rows + m);
    }
    const float rstd = rsqrtf(sum_of_squares / static_cast<float>(c.k_cols) + c.eps);
    c.y[m * c.n_cols + n] = __float2half_rn(sum * rstd);
  }
}
// [fused_finish]

template <int kRows>
__global__ void __launch_bounds__(kThreads) fused_kernel(const FusedCall c) {
  const std::int64_t first_col =
      static_cast<std::int64_t>(blockIdx.x) * kTileCols + (threadIdx.x % kChunksPerTile) * kWidth;
  const std::int64_t k_begin = static_cast<std::int64_t>(blockIdx.y) * c.split_rows;
  const std::int64_t k_end = k_begin + c.split_rows < c.k_cols ? k_begin + c.split_rows : c.k_cols;
  for (std::int64_t m0 = 0; m0 < c.rows; m0 += kRows) {
    float acc[kRows][kWidth] = {};
    float squares[kRows] = {};
    accumulate<kRows>(c, m0, first_col, k_begin, k_end, acc, squares);
    store_partials<kRows>(c, m0, acc, squares);
  }
  // [fused_last_block]
  // Publish this block's partials before counting it in; the block that counts last sees them.
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0)
    last = atomicAdd(c.counters + blockIdx.x, 1u) == static_cast<unsigned int>(c.splits - 1);
  __syncthreads();
  if (!last) return;
  __threadfence();
  finish_tile(c);
  if (threadIdx.x == 0) c.counters[blockIdx.x] = 0;  // ready for the next launch
  // [fused_last_block]
}

std::int64_t tiles_of(std::int64_t n_cols) {
  return (n_cols + kTileCols - 1) / kTileCols;
}

// Rows of W* a split reads: enough splits for about two blocks an SM, none shorter than
// kLeastSplitRows, in whole strides of the block's 32 k-lanes.
std::int64_t split_rows_for(std::int64_t k_cols, std::int64_t n_cols) {
  int device = 0, sms = 0;
  NORMLAB_CHECK(cudaGetDevice(&device));
  NORMLAB_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::int64_t wanted = (2 * sms + tiles_of(n_cols) - 1) / tiles_of(n_cols);
  const std::int64_t most = std::max<std::int64_t>(1, k_cols / kLeastSplitRows);
  const std::int64_t splits = std::clamp<std::int64_t>(wanted, 1, most);
  const std::int64_t rows = (k_cols + splits - 1) / splits;
  return (rows + kKLanes - 1) / kKLanes * kKLanes;
}

template <int kRows>
void launch(const FusedCall& call, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned int>(tiles_of(call.n_cols)),
                  static_cast<unsigned int>(call.splits));
  fused_kernel<kRows><<<grid, kThreads, 0, stream>>>(call);
}

}  // namespace

FusedWorkspace::FusedWorkspace(std::int64_t rows, std::int64_t k_cols, std::int64_t n_cols)
    : rows_(rows), k_cols_(k_cols), n_cols_(n_cols) {
  const char* fn = "ch11::FusedWorkspace";
  check_argument(rows > 0 && rows <= kFusedMaxRows, fn, "rows", "must be in [1, 64]");
  check_argument(k_cols > 0, fn, "k_cols", "must be positive");
  check_argument(n_cols > 0 && tiles_of(n_cols) <= 0x7fffffff, fn, "n_cols",
                 "must be positive, at most 2^31 - 1 column tiles");
  split_rows_ = split_rows_for(k_cols, n_cols);
  splits_ = static_cast<int>((k_cols + split_rows_ - 1) / split_rows_);
  const std::int64_t floats = splits_ * rows * n_cols + splits_ * rows;
  NORMLAB_CHECK(cudaMalloc(&partials_, static_cast<std::size_t>(floats) * sizeof(float)));
  const std::size_t counter_bytes = static_cast<std::size_t>(tiles_of(n_cols)) * sizeof(unsigned);
  NORMLAB_CHECK(cudaMalloc(&counters_, counter_bytes));
  NORMLAB_CHECK(cudaMemset(counters_, 0, counter_bytes));
}

FusedWorkspace::~FusedWorkspace() {
  cudaFree(partials_);
  cudaFree(counters_);
}

// [fused_launch]
void fused_rmsnorm_linear(const __half* x, const __half* w_folded, std::int64_t rows,
                          std::int64_t k_cols, std::int64_t n_cols, float eps, __half* y,
                          const FusedWorkspace& workspace, cudaStream_t stream) {
  const char* fn = "ch11::fused_rmsnorm_linear";
  check_argument(rows >= 0 && rows <= kFusedMaxRows, fn, "rows",
                 "must be in [0, 64]: the fused kernel is for decode-sized batches");
  check_argument(k_cols > 0, fn, "k_cols", "must be positive");
  check_argument(n_cols > 0, fn, "n_cols", "must be positive");
  check_argument(eps > 0.0f, fn, "eps", "must be positive");
  if (rows == 0) return;
  check_argument(x != nullptr, fn, "x", "must not be null");
  check_argument(w_folded != nullptr, fn, "w_folded", "must not be null");
  check_argument(y != nullptr, fn, "y", "must not be null");
  check_argument(
      workspace.k_cols() == k_cols && workspace.n_cols() == n_cols && rows <= workspace.rows(), fn,
      "workspace", "must be made for this k_cols x n_cols and at least these rows");
  const FusedCall call{
      .x = x,
      .w = w_folded,
      .y = y,
      .partials = workspace.partials(),
      .counters = workspace.counters(),
      .rows = rows,
      .k_cols = k_cols,
      .n_cols = n_cols,
      .split_rows = workspace.split_rows(),
      .splits = workspace.splits(),
      .eps = eps,
      .w_aligned = n_cols % kWidth == 0 && reinterpret_cast<std::uintptr_t>(w_folded) % 16 == 0};
  // Rows of x a pass holds: as few as the call has, up to 8 (64 sums a thread).
  if (rows == 1) {
    launch<1>(call, stream);
  } else if (rows == 2) {
    launch<2>(call, stream);
  } else if (rows <= 4) {
    launch<4>(call, stream);
  } else {
    launch<8>(call, stream);
  }
  NORMLAB_CHECK_LAUNCH();
}
// [fused_launch]

}  // namespace normlab::ch11
