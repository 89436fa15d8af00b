// SPDX-License-Identifier: Apache-2.0
// Chapter 11, the fused decode kernels: y = diag(1/rms(x)) · (x · W*) in one launch for at most
// 64 tokens. With so few rows the work is reading W* (K x N halves) once; the rows of x (at
// most 64 x K halves) are read by every column tile from L2. The normalised activations never
// exist: 1/RMS is a per-row scalar applied to the finished sums (proposition 2), and the sum of
// squares it needs comes from the same staged x the product reads.
//
// The product runs on tensor cores (wmma, 16 x 16 x 16 tiles of fp16 summed in fp32), so that
// 64 tokens cost the same reads of W* as one. Operands are copied to shared memory
// asynchronously (cp.async) into rings of slots, several ahead of the one being multiplied, so
// a warp waits on memory about once, not once a stage. A layer has too few column tiles to
// fill the GPU, so K is split too, two ways:
//
// - Over the blocks of a thread-block cluster (chapter 10), fused_kernel: a block covers 64
//   columns of W*, 16 a warp, the tokens padded to 16, 32 or 64 rows, its stages of 64 rows of
//   W* shared by its four warps; each block sums its slice of K, then the cluster adds its
//   blocks' sums through distributed shared memory, in rank order.
// - Over the warps of one block, fused_warp_split_kernel, for at most 16 tokens through a small
//   weight: a block covers 16 columns, each of its eight warps every eighth step of 16 rows of K,
//   through a ring that only that warp fills and reads, so no warp waits for another until the
//   block adds their sums once, in warp order. No cluster, no distributed shared memory: at one
//   token through 576 -> 960 the cluster's exchange was 1.9 of a block's 3.4 us (H200 trace).
//
// Either way the sums are added in a fixed order, so the result does not depend on which warp
// or block finished first. Nothing is written to global memory but y, and nothing needs
// resetting between launches.
//
// What changed from this chapter's first fused kernel (a CUDA-core GEMV that split K over
// independent blocks and summed fp32 partials in global memory, the last block of a column
// tile finishing): it re-read W* for every 8 tokens and waited on each load it made, and lost to
// norm + cuBLAS on 17 of 18 shapes (book/results/runs/2026-11-26-h200-ch11-fused/).
#include <cooperative_groups.h>
#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <mma.h>

#include <algorithm>
#include <cstdint>

#include "ch11.cuh"
#include "normlab/check.hpp"
#include "normlab/device.hpp"
#include "normlab/device/reduce.cuh"
#include "normlab/device/vector.cuh"

namespace normlab::ch11 {

namespace {

namespace cg = cooperative_groups;
namespace wmma = nvcuda::wmma;
using device::Vector;

constexpr int kThreads = 128;
constexpr int kWarps = kThreads / device::kWarpSize;
constexpr int kFragment = 16;                    // wmma's m16n16k16 tile
constexpr int kTileCols = kWarps * kFragment;    // 64 columns of W* a block, 16 a warp
constexpr int kStep = 64;                        // rows of W* (columns of x) a stage
constexpr int kStages = 3;                       // stages in the ring
constexpr int kWidth = Vector<__half>::kWidth;   // 8 halves a 16-byte chunk
constexpr int kWRowChunks = kTileCols / kWidth;  // chunks across a staged row of W*
constexpr int kXRowChunks = kStep / kWidth;      // chunks across a staged row of x
constexpr int kSkew = kWidth;                    // halves after each staged row (banks)
constexpr int kSumSkew = 4;                      // floats after each row of sums
constexpr int kMostClusterBlocks = 8;            // the portable cluster size
static_assert(kThreads % kWRowChunks == 0 && kThreads % kXRowChunks == 0,
              "a thread loads the same column of chunks in every pass");

struct FusedCall {
  const __half* x;
  const __half* w;
  __half* y;
  std::int64_t rows, k_cols, n_cols;
  std::int64_t split_rows;  // rows of W* a block of the cluster multiplies
  float eps;
};

// [fused_stage]
// Shared memory: a ring of kStages stages, each kStep rows of the block's 64 columns of W* and
// kStep columns of the kRows (padded) rows of x; after the last stage, the block's sums.
template <int kRows>
struct Ring {
  static_assert(kRows % kFragment == 0, "whole tensor-core tiles of rows");
  static_assert(kStep * kWRowChunks % kThreads == 0 && kRows * kXRowChunks % kThreads == 0,
                "whole passes of the block over W* and x");
  static constexpr int kWChunks = kStep * kWRowChunks / kThreads;  // a thread's, a stage
  static constexpr int kXChunks = kRows * kXRowChunks / kThreads;
  static constexpr int kWRowsAPass = kThreads / kWRowChunks;  // rows between a thread's chunks
  static constexpr int kXRowsAPass = kThreads / kXRowChunks;
  using WStage = __half[kStep][kTileCols + kSkew];
  using XStage = __half[kRows][kStep + kSkew];
  using Sums = float[kRows][kTileCols + kSumSkew];
  static constexpr std::size_t kBytes =
      std::max(kStages * (sizeof(WStage) + sizeof(XStage)), sizeof(Sums));

  __device__ explicit Ring(unsigned char* memory)
      : w(reinterpret_cast<WStage*>(memory)),
        x(reinterpret_cast<XStage*>(memory + kStages * sizeof(WStage))),
        sums(*reinterpret_cast<Sums*>(memory)) {}
  WStage* w;
  XStage* x;
  Sums& sums;  // the same bytes as the stages: used once they are all consumed
};

// One 16-byte chunk of a row into shared memory. With kAligned (rows of x and W* on the
// 16-byte grid, K and N multiples of 8) a chunk is whole inside the row or wholly past it: an
// asynchronous copy (cp.async: no registers, and the thread goes on at once), or zeros.
// Otherwise element by element through registers, zeros outside the row.
template <bool kAligned>
__device__ void stage_chunk(__half* to, const __half* row, std::int64_t first, std::int64_t cols) {
  if (kAligned && first < cols) {
    __pipeline_memcpy_async(to, row + first, sizeof(Vector<__half>));
  } else {
    *reinterpret_cast<Vector<__half>*>(to) = device::load_chunk<kAligned>(row, first, cols, false);
  }
}

// Starts the copies of the stage of rows [k0, k0 + kStep) of W* and of x into ring slot
// `slot`. Rows of W* past k_end, columns of x past k_end (another block sums their squares)
// and rows of x past the last token are zeros.
template <int kRows, bool kAligned>
__device__ void stage(const FusedCall& c, const Ring<kRows>& ring, int slot, std::int64_t tile_col,
                      std::int64_t k0, std::int64_t k_end) {
  const int w_row = static_cast<int>(threadIdx.x) / kWRowChunks;
  const int w_col = static_cast<int>(threadIdx.x) % kWRowChunks * kWidth;
#pragma unroll
  for (int i = 0; i < Ring<kRows>::kWChunks; ++i) {
    const int r = w_row + i * Ring<kRows>::kWRowsAPass;
    const std::int64_t k = k0 + r;
    if (k < k_end) {
      stage_chunk<kAligned>(&ring.w[slot][r][w_col], c.w + k * c.n_cols, tile_col + w_col,
                            c.n_cols);
    } else {
      *reinterpret_cast<Vector<__half>*>(&ring.w[slot][r][w_col]) = Vector<__half>{};
    }
  }
  const int x_row = static_cast<int>(threadIdx.x) / kXRowChunks;
  const int x_col = static_cast<int>(threadIdx.x) % kXRowChunks * kWidth;
#pragma unroll
  for (int i = 0; i < Ring<kRows>::kXChunks; ++i) {
    const int m = x_row + i * Ring<kRows>::kXRowsAPass;
    if (m < c.rows) {
      stage_chunk<kAligned>(&ring.x[slot][m][x_col], c.x + m * c.k_cols, k0 + x_col, k_end);
    } else {
      *reinterpret_cast<Vector<__half>*>(&ring.x[slot][m][x_col]) = Vector<__half>{};
    }
  }
}
// [fused_stage]

// Adds the squares of this thread's chunks of x in a landed stage to its sums of squares (one
// for each of its rows of x).
template <int kRows>
__device__ void add_squares(const Ring<kRows>& ring, int slot,
                            float (&squares)[Ring<kRows>::kXChunks]) {
  const int x_row = static_cast<int>(threadIdx.x) / kXRowChunks;
  const int x_col = static_cast<int>(threadIdx.x) % kXRowChunks * kWidth;
#pragma unroll
  for (int i = 0; i < Ring<kRows>::kXChunks; ++i) {
    device::accumulate_squares(squares[i],
                               *reinterpret_cast<const Vector<__half>*>(
                                   &ring.x[slot][x_row + i * Ring<kRows>::kXRowsAPass][x_col]));
  }
}

// [fused_multiply]
// The warp's 16 columns times a landed stage: for each 16 rows of W*, one fragment of W* and
// one of each 16 rows of x, multiplied and added on the tensor cores into the warp's
// accumulators.
template <int kRows>
__device__ void multiply_stage(const Ring<kRows>& ring, int slot,
                               wmma::fragment<wmma::accumulator, kFragment, kFragment, kFragment,
                                              float> (&acc)[kRows / kFragment]) {
  const int warp_col = static_cast<int>(threadIdx.x) / device::kWarpSize * kFragment;
#pragma unroll
  for (int k = 0; k < kStep; k += kFragment) {
    wmma::fragment<wmma::matrix_b, kFragment, kFragment, kFragment, __half, wmma::row_major> w;
    wmma::load_matrix_sync(w, &ring.w[slot][k][warp_col], kTileCols + kSkew);
#pragma unroll
    for (int f = 0; f < kRows / kFragment; ++f) {
      wmma::fragment<wmma::matrix_a, kFragment, kFragment, kFragment, __half, wmma::row_major> x;
      wmma::load_matrix_sync(x, &ring.x[slot][f * kFragment][k], kStep + kSkew);
      wmma::mma_sync(acc[f], x, w, acc[f]);
    }
  }
}
// [fused_multiply]

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
// [fused_cluster_sum]
// Every block of the cluster has its sums of x · W* over its slice of K in shared memory, and
// its sums of squares of x. After cluster.sync() each block reads all of them through DSMEM:
// first the whole sums of squares, for 1/RMS of each row; then it adds, for its share of the
// tile's outputs (every cluster-size-th), the blocks' sums in rank order, scales, and writes
// fp16. The last cluster.sync() keeps every block's shared memory alive until all have read it.
template <int kRows>
__device__ void finish_on_cluster(const FusedCall& c, const cg::cluster_group& cluster,
                                  typename Ring<kRows>::Sums& sums, float (&row_squares)[kRows],
                                  float (&rstd)[kRows]) {
  const int blocks = static_cast<int>(cluster.num_blocks());
  const int rank = static_cast<int>(cluster.block_rank());
  cluster.sync();
  if (threadIdx.x < kRows) {
    float total = 0.0f;
#pragma unroll
    for (int b = 0; b < kMostClusterBlocks; ++b)
      if (b < blocks) total += *cluster.map_shared_rank(&row_squares[threadIdx.x], b);
    rstd[threadIdx.x] = rsqrtf(total / static_cast<float>(c.k_cols) + c.eps);
  }
  __syncthreads();
  const std::int64_t tile_col = static_cast<std::int64_t>(blockIdx.x) * kTileCols;
  for (int o = rank * kThreads + static_cast<int>(threadIdx.x); o < kRows * kTileCols;
       o += blocks * kThreads) {
    const int m = o / kTileCols, col = o % kTileCols;
    if (m >= c.rows || tile_col + col >= c.n_cols) continue;
    float sum = 0.0f;
#pragma unroll
    for (int b = 0; b < kMostClusterBlocks; ++b)
      if (b < blocks) sum += *cluster.map_shared_rank(&sums[m][col], b);
    c.y[m * c.n_cols + tile_col + col] = __float2half_rn(sum * rstd[m]);
  }
  cluster.sync();
}
// [fused_cluster_sum]
#endif

// [fused_kernel]
// A block: its slice of K for its 64 columns, kStages - 1 stages ahead in flight, each multiplied
// on the tensor cores as it lands; then the cluster adds its blocks' sums.
template <int kRows, bool kAligned>
__global__ void __launch_bounds__(kThreads) fused_kernel(const FusedCall c) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  extern __shared__ __align__(128) unsigned char shared[];
  __shared__ float row_squares[kRows];
  __shared__ float rstd[kRows];
  const Ring<kRows> ring(shared);
  const std::int64_t tile_col = static_cast<std::int64_t>(blockIdx.x) * kTileCols;
  const std::int64_t k_begin = static_cast<std::int64_t>(blockIdx.y) * c.split_rows;
  const std::int64_t k_end = k_begin + c.split_rows < c.k_cols ? k_begin + c.split_rows : c.k_cols;
  const int stages = static_cast<int>((k_end - k_begin + kStep - 1) / kStep);
  wmma::fragment<wmma::accumulator, kFragment, kFragment, kFragment, float> acc[kRows / kFragment];
#pragma unroll
  for (auto& a : acc)
    wmma::fill_fragment(a, 0.0f);
  float squares[Ring<kRows>::kXChunks] = {};

  // Stage s goes to slot s % kStages, kStages - 1 stages ahead of the one being multiplied.
  // Each stage's copies are one commit group (empty past the last stage): before stage s, the
  // groups of stages up to s + kStages - 2 are committed, so waiting until at most kStages - 2
  // are pending means stage s has landed.
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < stages) stage<kRows, kAligned>(c, ring, s, tile_col, k_begin + s * kStep, k_end);
    __pipeline_commit();
  }
  for (int s = 0; s < stages; ++s) {
    __pipeline_wait_prior(kStages - 2);
    // Every thread's copies of stage s have landed, and every warp is done with stage s - 1,
    // whose slot the stage kStages - 1 ahead refills.
    __syncthreads();
    const int ahead = s + kStages - 1;
    if (ahead < stages) {
      stage<kRows, kAligned>(c, ring, ahead % kStages, tile_col, k_begin + ahead * kStep, k_end);
    }
    __pipeline_commit();
    add_squares(ring, s % kStages, squares);
    multiply_stage(ring, s % kStages, acc);
  }
  __syncthreads();  // the sums take the ring's place

  const int warp_col = static_cast<int>(threadIdx.x) / device::kWarpSize * kFragment;
#pragma unroll
  for (int f = 0; f < kRows / kFragment; ++f)
    wmma::store_matrix_sync(&ring.sums[f * kFragment][warp_col], acc[f], kTileCols + kSumSkew,
                            wmma::mem_row_major);
#pragma unroll
  for (int i = 0; i < Ring<kRows>::kXChunks; ++i) {
    const int m = static_cast<int>(threadIdx.x) / kXRowChunks + i * Ring<kRows>::kXRowsAPass;
    const float total = device::group_sum<kXRowChunks>(squares[i]);  // the row's threads
    if (threadIdx.x % kXRowChunks == 0) row_squares[m] = total;
  }
  finish_on_cluster<kRows>(c, cg::this_cluster(), ring.sums, row_squares, rstd);
#else
  __trap();  // the launcher refuses GPUs without clusters
#endif
}
// [fused_kernel]

// [fused_warp_split]
// The warp-split kernel's shape: a block of kSplitWarps warps covers kSplitCols columns of W*
// for one tensor-core tile of tokens (16 rows), each warp through a ring of kSplitSlots steps of
// 16 rows of K.
constexpr int kSplitWarps = 8;
constexpr int kSplitThreads = kSplitWarps * device::kWarpSize;
constexpr int kSplitCols = kFragment;
constexpr int kSplitRows = kFragment;
constexpr int kSplitSlots = 4;

// One warp's ring: slots of 16 rows of W* (kSplitCols wide) and 16 columns of x (16 rows);
// once consumed, the same bytes hold the warp's sums.
struct WarpRing {
  static constexpr int kRowChunks = kFragment / kWidth;  // chunks across a slot's row, both
  static_assert(kSplitRows * kRowChunks == device::kWarpSize && kSplitCols == kFragment,
                "a lane copies one chunk of W* and one of x a step");
  using WSlot = __half[kFragment][kSplitCols + kSkew];
  using XSlot = __half[kSplitRows][kFragment + kSkew];
  using Sums = float[kSplitRows][kSplitCols + kSumSkew];
  static constexpr std::size_t kBytes =
      (std::max(kSplitSlots * (sizeof(WSlot) + sizeof(XSlot)), sizeof(Sums)) + 127) / 128 * 128;

  __device__ explicit WarpRing(unsigned char* memory)
      : w(reinterpret_cast<WSlot*>(memory)),
        x(reinterpret_cast<XSlot*>(memory + kSplitSlots * sizeof(WSlot))),
        sums(*reinterpret_cast<Sums*>(memory)) {}
  WSlot* w;
  XSlot* x;
  Sums& sums;
};

// Starts the lane's copies of the step at row k0 of K into slot `slot` of the warp's ring: one
// chunk of W* (row k0 + lane / 2) and one of x (token lane / 2), zeros past K, N or the tokens.
template <bool kAligned>
__device__ void stage_step(const FusedCall& c, const WarpRing& ring, int slot, int lane,
                           std::int64_t tile_col, std::int64_t k0) {
  const int r = lane / WarpRing::kRowChunks;
  const int col = lane % WarpRing::kRowChunks * kWidth;
  if (k0 + r < c.k_cols) {
    stage_chunk<kAligned>(&ring.w[slot][r][col], c.w + (k0 + r) * c.n_cols, tile_col + col,
                          c.n_cols);
  } else {
    *reinterpret_cast<Vector<__half>*>(&ring.w[slot][r][col]) = Vector<__half>{};
  }
  if (r < c.rows) {
    stage_chunk<kAligned>(&ring.x[slot][r][col], c.x + r * c.k_cols, k0 + col, c.k_cols);
  } else {
    *reinterpret_cast<Vector<__half>*>(&ring.x[slot][r][col]) = Vector<__half>{};
  }
}

// A block: 16 columns of W* for up to 16 tokens, its warps each taking every kSplitWarps-th step
// of K, kSplitSlots - 1 steps ahead in flight; __syncwarp, not __syncthreads, between steps.
// Then one block barrier, and the block adds its warps' sums and sums of squares in warp order.
template <bool kAligned>
__global__ void __launch_bounds__(kSplitThreads) fused_warp_split_kernel(const FusedCall c) {
  extern __shared__ __align__(128) unsigned char shared[];
  __shared__ float row_squares[kSplitWarps][kSplitRows];
  __shared__ float rstd[kSplitRows];
  const int warp = static_cast<int>(threadIdx.x) / device::kWarpSize;
  const int lane = static_cast<int>(threadIdx.x) % device::kWarpSize;
  const WarpRing ring(shared + warp * WarpRing::kBytes);
  const std::int64_t tile_col = static_cast<std::int64_t>(blockIdx.x) * kSplitCols;
  const std::int64_t k_steps = (c.k_cols + kFragment - 1) / kFragment;
  const int steps = warp < k_steps ? static_cast<int>((k_steps - 1 - warp) / kSplitWarps) + 1 : 0;
  const auto k_of = [&](int s) {
    return (static_cast<std::int64_t>(s) * kSplitWarps + warp) * kFragment;
  };
  wmma::fragment<wmma::accumulator, kFragment, kFragment, kFragment, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  float squares = 0.0f;  // of the lane's chunks of x: token lane / 2

  for (int s = 0; s < kSplitSlots - 1; ++s) {
    if (s < steps) stage_step<kAligned>(c, ring, s, lane, tile_col, k_of(s));
    __pipeline_commit();
  }
  for (int s = 0; s < steps; ++s) {
    __pipeline_wait_prior(kSplitSlots - 2);
    // The lane's copies of step s have landed; __syncwarp makes the other lanes' visible, and
    // says every lane is done with step s - 1, whose slot the step kSplitSlots - 1 ahead refills.
    __syncwarp();
    const int ahead = s + kSplitSlots - 1;
    if (ahead < steps)
      stage_step<kAligned>(c, ring, ahead % kSplitSlots, lane, tile_col, k_of(ahead));
    __pipeline_commit();
    const int slot = s % kSplitSlots;
    device::accumulate_squares(
        squares,
        *reinterpret_cast<const Vector<__half>*>(
            &ring.x[slot][lane / WarpRing::kRowChunks][lane % WarpRing::kRowChunks * kWidth]));
    wmma::fragment<wmma::matrix_a, kFragment, kFragment, kFragment, __half, wmma::row_major> x;
    wmma::fragment<wmma::matrix_b, kFragment, kFragment, kFragment, __half, wmma::row_major> w;
    wmma::load_matrix_sync(x, &ring.x[slot][0][0], kFragment + kSkew);
    wmma::load_matrix_sync(w, &ring.w[slot][0][0], kSplitCols + kSkew);
    wmma::mma_sync(acc, x, w, acc);
  }
  __pipeline_wait_prior(0);
  __syncwarp();  // every lane is done with the ring: the warp's sums take its place
  wmma::store_matrix_sync(&ring.sums[0][0], acc, kSplitCols + kSumSkew, wmma::mem_row_major);
  const float token_squares = device::group_sum<WarpRing::kRowChunks>(squares);
  if (lane % WarpRing::kRowChunks == 0)
    row_squares[warp][lane / WarpRing::kRowChunks] = token_squares;
  __syncthreads();
  if (threadIdx.x < kSplitRows) {
    float total = 0.0f;
#pragma unroll
    for (int w = 0; w < kSplitWarps; ++w)
      total += row_squares[w][threadIdx.x];
    rstd[threadIdx.x] = rsqrtf(total / static_cast<float>(c.k_cols) + c.eps);
  }
  __syncthreads();
  for (int o = static_cast<int>(threadIdx.x); o < kSplitRows * kSplitCols; o += kSplitThreads) {
    const int m = o / kSplitCols, col = o % kSplitCols;
    if (m >= c.rows || tile_col + col >= c.n_cols) continue;
    float sum = 0.0f;
#pragma unroll
    for (int w = 0; w < kSplitWarps; ++w)
      sum += WarpRing(shared + w * WarpRing::kBytes).sums[m][col];
    c.y[m * c.n_cols + tile_col + col] = __float2half_rn(sum * rstd[m]);
  }
}
// [fused_warp_split]

// Column tiles of @p tile_cols across n_cols outputs: a kernel's blocks along x.
std::int64_t tiles_of(std::int64_t n_cols, int tile_cols) {
  return (n_cols + tile_cols - 1) / tile_cols;
}

template <bool kAligned>
void launch_warp_split(const FusedCall& call, cudaStream_t stream) {
  const auto kernel = fused_warp_split_kernel<kAligned>;
  constexpr int bytes = kSplitWarps * WarpRing::kBytes;
  NORMLAB_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  const auto tiles = static_cast<unsigned int>(tiles_of(call.n_cols, kSplitCols));
  kernel<<<tiles, kSplitThreads, bytes, stream>>>(call);
}

// [fused_split]
// Rows of W* a block multiplies: K over the portable cluster size, rounded up to the tensor
// cores' 16; fewer blocks when K is short.
std::int64_t split_rows_for(std::int64_t k_cols) {
  const std::int64_t rows = (k_cols + kMostClusterBlocks - 1) / kMostClusterBlocks;
  return (rows + kFragment - 1) / kFragment * kFragment;
}
// [fused_split]

template <int kRows, bool kAligned>
void launch(const FusedCall& call, cudaStream_t stream) {
  const auto kernel = fused_kernel<kRows, kAligned>;
  const auto blocks =
      static_cast<unsigned int>((call.k_cols + call.split_rows - 1) / call.split_rows);
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = 1;
  cluster.val.clusterDim.y = blocks;
  cluster.val.clusterDim.z = 1;
  if (blocks > 8) {  // beyond the portable cluster size
    NORMLAB_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  }
  NORMLAB_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(Ring<kRows>::kBytes)));
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned int>(tiles_of(call.n_cols, kTileCols)), blocks);
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = Ring<kRows>::kBytes;
  config.stream = stream;
  config.attrs = &cluster;
  config.numAttrs = 1;
  NORMLAB_CHECK(cudaLaunchKernelEx(&config, kernel, call));
}

}  // namespace

FusedKernel fused_kernel_for(std::int64_t rows, std::int64_t k_cols, std::int64_t n_cols) {
  return rows <= kWarpSplitMaxRows && n_cols > 0 && k_cols <= kWarpSplitMostWeights / n_cols
             ? FusedKernel::warp_split
             : FusedKernel::cluster_split;
}

// [fused_launch]
void fused_rmsnorm_linear(FusedKernel kernel, const __half* x, const __half* w_folded,
                          std::int64_t rows, std::int64_t k_cols, std::int64_t n_cols, float eps,
                          __half* y, cudaStream_t stream) {
  const char* fn = "ch11::fused_rmsnorm_linear";
  check_argument(rows >= 0 && rows <= kFusedMaxRows, fn, "rows",
                 "must be in [0, 64]: the fused kernel is for decode-sized batches");
  check_argument(kernel != FusedKernel::warp_split || rows <= kWarpSplitMaxRows, fn, "rows",
                 "must be at most 16 for the warp-split kernel (one tensor-core tile of tokens)");
  check_argument(k_cols > 0, fn, "k_cols", "must be positive");
  check_argument(n_cols > 0 && tiles_of(n_cols, kSplitCols) <= 0x7fffffff, fn, "n_cols",
                 "must be positive, at most 2^31 - 1 tiles of 16 columns");
  check_argument(eps > 0.0f, fn, "eps", "must be positive");
  if (rows == 0) return;
  check_argument(x != nullptr, fn, "x", "must not be null");
  check_argument(w_folded != nullptr, fn, "w_folded", "must not be null");
  check_argument(y != nullptr, fn, "y", "must not be null");
  check_argument(kernel != FusedKernel::cluster_split || has_clusters(), fn, "device",
                 "needs thread-block clusters (compute capability 9.0 or newer)");
  const FusedCall call{.x = x,
                       .w = w_folded,
                       .y = y,
                       .rows = rows,
                       .k_cols = k_cols,
                       .n_cols = n_cols,
                       .split_rows = split_rows_for(k_cols),
                       .eps = eps};
  const bool aligned = k_cols % kWidth == 0 && n_cols % kWidth == 0 &&
                       reinterpret_cast<std::uintptr_t>(x) % 16 == 0 &&
                       reinterpret_cast<std::uintptr_t>(w_folded) % 16 == 0;
  if (kernel == FusedKernel::warp_split) {
    aligned ? launch_warp_split<true>(call, stream) : launch_warp_split<false>(call, stream);
  } else if (rows <= 16) {  // tokens padded to whole tensor-core tiles: 16, 32 or 64 rows
    aligned ? launch<16, true>(call, stream) : launch<16, false>(call, stream);
  } else if (rows <= 32) {
    aligned ? launch<32, true>(call, stream) : launch<32, false>(call, stream);
  } else {
    aligned ? launch<64, true>(call, stream) : launch<64, false>(call, stream);
  }
  NORMLAB_CHECK_LAUNCH();
}

void fused_rmsnorm_linear(const __half* x, const __half* w_folded, std::int64_t rows,
                          std::int64_t k_cols, std::int64_t n_cols, float eps, __half* y,
                          cudaStream_t stream) {
  fused_rmsnorm_linear(fused_kernel_for(rows, k_cols, n_cols), x, w_folded, rows, k_cols, n_cols,
                       eps, y, stream);
}
// [fused_launch]

const char* name_of(FusedKernel kernel) {
  return kernel == FusedKernel::warp_split ? "warp split" : "cluster split";
}

bool fused_available() {
  return has_clusters();
}

}  // namespace normlab::ch11
