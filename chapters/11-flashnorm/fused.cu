// SPDX-License-Identifier: Apache-2.0
// Chapter 11, the fused decode kernels: y = diag(1/rms(x)) · (x · W*) in one launch for at most
// 64 tokens. With so few rows the work is reading W* (K x N halves) once; the rows of x (at
// most 64 x K halves) are read by every column tile from L2. The normalised activations never
// exist: 1/RMS is a per-row scalar applied to the finished sums (proposition 2), and the sum of
// squares it needs comes from the same x the product reads.
//
// The product runs on tensor cores (16 x 16 tiles of tokens and K, fp16 summed in fp32), so
// that 64 tokens cost the same reads of W* as one. A layer has too few column tiles to fill the
// GPU, so K is split too, two ways:
//
// - Over the blocks of a thread-block cluster (chapter 10), fused_kernel: a block covers 64
//   columns of W*, 16 a warp, the tokens padded to 16, 32 or 64 rows, its stages of 64 rows of
//   W* and x copied to shared memory asynchronously (cp.async) into a ring, several ahead of
//   the one wmma multiplies, and shared by its four warps; each block sums its slice of K,
//   then the cluster adds its blocks' sums through distributed shared memory, in rank order.
// - Over the warps of one block, fused_warp_split_kernel: a block covers 8 or 24 columns for
//   all of K, each warp every so many units of 32 rows of K, read with W* packed in the order
//   of the tensor cores' registers (pack_weights, ch11.cuh) straight into registers, no shared
//   memory on the way in; the block adds its warps' sums once, in warp order. No cluster, no
//   distributed shared memory: at one token through 576 -> 960 the cluster's exchange was 1.9
//   of a block's 3.4 us (H200 trace).
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
// The warp-split kernel: a block covers kTiles tiles of 8 columns of W* for all of K and up to
// 16 * kMTiles tokens; its kSplitWarps warps take every kSplitWarps-th unit of 32 rows of K,
// kUnits units a warp in flight at once. No shared memory on the way in: W* comes packed in the
// order of the tensor cores' registers (pack_weights), so each lane's fragments of a unit are
// one 16-byte load, and with K permuted the same way inside the unit, its fragments of x are
// one 16-byte load a row, straight from global memory (L2) into registers. Then one block
// barrier, and the block adds its warps' sums and sums of squares in warp order.
//
// What changed from the first warp split (16 columns a block, at most 16 tokens, stages of W*
// and x copied into a ring of shared memory and read back by ldmatrix): it read W* 32 bytes a
// row of K and waited for its ring every step of 16 rows; it won through 576 x 960 and
// 768 x 960 and lost to the cluster kernel through wider weights, 2048 x 2560 among them
// (book/results/runs/2026-11-26-h100-ch11-split/).
constexpr int kUnitRows = static_cast<int>(kPackRows);   // rows of K a unit: two m16n8k16 steps
constexpr int kColsATile = static_cast<int>(kPackCols);  // columns of W* a tile: one m16n8k16

template <int kMTiles, int kTiles, int kSplitWarps>
struct WarpSplit {
  static constexpr int kTokens = kMTiles * kFragment;
  static constexpr int kThreads = kSplitWarps * device::kWarpSize;
  static constexpr int kSumCols = kTiles * kColsATile + kSumSkew;
  using Sums = float[kSplitWarps][kTokens][kSumCols];  // each warp's, in shared memory
  static constexpr std::size_t kBytes = sizeof(Sums);
};

// mma.sync m16n8k16, fp16 in, fp32 accumulated: c += a · b on one warp's fragments. A lane's
// 16 bytes of a unit (of x's rows group and group + 8, and of W*) hold 8 rows of K: elements 0
// to 3 are its share of the unit's first 16 rows (logical pairs 2 quad and 2 quad + 8), 4 to 7
// of the second (second_half).
__device__ __forceinline__ void mma_16816(float (&c)[4], const uint4& a_top, const uint4& a_bottom,
                                          bool second_half, const uint4& b) {
  const unsigned a0 = second_half ? a_top.z : a_top.x, a1 = second_half ? a_bottom.z : a_bottom.x;
  const unsigned a2 = second_half ? a_top.w : a_top.y, a3 = second_half ? a_bottom.w : a_bottom.y;
  const unsigned b0 = second_half ? b.z : b.x, b1 = second_half ? b.w : b.y;
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// What a launch of the warp split reads and writes (32-bit sizes: the launcher checks them).
struct WarpSplitCall {
  const __half* __restrict__ x;
  const uint4* __restrict__ packed;
  __half* __restrict__ y;
  int rows, k_cols, n_cols;
  float eps;
};

// Where a lane is: its warp, and its fragments' row (group) and column pair (quad).
struct Lane {
  int warp, lane, group, quad;
  __device__ Lane()
      : warp(static_cast<int>(threadIdx.x) / device::kWarpSize),
        lane(static_cast<int>(threadIdx.x) % device::kWarpSize),
        group(lane / 4),
        quad(lane % 4) {}
};

// A warp's batch of kUnits units of 32 rows of K, in registers: each lane's 16 bytes of W* for
// each of the block's tiles, and of x for its two rows of each tile of tokens.
template <int kMTiles, int kTiles, int kUnits>
struct UnitBatch {
  uint4 w[kUnits][kTiles];
  uint4 x[kUnits][kMTiles][2];
};

// Issues every load of the batch whose first unit is @p start (units start, start + warps, ...),
// before any is used, x's before W*'s in each unit. Units past K are not loaded (and not
// multiplied); tiles past N and rows past the last token are zeros.
template <int kMTiles, int kTiles, int kSplitWarps, int kUnits, bool kAligned>
__device__ __forceinline__ void load_units(const WarpSplitCall& c, const Lane& l, int units,
                                           int tiles, int first_tile, int start,
                                           UnitBatch<kMTiles, kTiles, kUnits>& batch) {
#pragma unroll
  for (int i = 0; i < kUnits; ++i) {
    const int unit = start + i * kSplitWarps;
    if (unit >= units) continue;
#pragma unroll
    for (int t = 0; t < kMTiles; ++t) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int m = t * kFragment + h * 8 + l.group;
        const __half* row = c.x + static_cast<std::size_t>(m) * c.k_cols;
        const int first = unit * kUnitRows + l.quad * kWidth;
        if (m >= c.rows) {
          batch.x[i][t][h] = make_uint4(0u, 0u, 0u, 0u);
        } else if (kAligned) {  // K a multiple of 32: every chunk of a unit is in the row
          batch.x[i][t][h] = __ldg(reinterpret_cast<const uint4*>(row + first));
        } else {
          batch.x[i][t][h] =
              device::same_bits<uint4>(device::load_chunk<false>(row, first, c.k_cols, false));
        }
      }
    }
#pragma unroll
    for (int b = 0; b < kTiles; ++b) {
      batch.w[i][b] = first_tile + b < tiles
                          ? __ldg(c.packed +
                                  (static_cast<std::size_t>(first_tile + b) * units + unit) *
                                      device::kWarpSize +
                                  l.lane)
                          : make_uint4(0u, 0u, 0u, 0u);
    }
  }
}

// The batch's multiplies, two a unit for each tile of columns and of tokens, and the squares of
// x's rows from the same registers.
template <int kMTiles, int kTiles, int kSplitWarps, int kUnits>
__device__ __forceinline__ void multiply_units(const UnitBatch<kMTiles, kTiles, kUnits>& batch,
                                               int units, int start,
                                               float (&acc)[kMTiles][kTiles][4],
                                               float (&squares)[kMTiles][2]) {
#pragma unroll
  for (int i = 0; i < kUnits; ++i) {
    if (start + i * kSplitWarps >= units) continue;
#pragma unroll
    for (int t = 0; t < kMTiles; ++t) {
      const uint4 &top = batch.x[i][t][0], &bottom = batch.x[i][t][1];
      device::accumulate_squares(squares[t][0], device::same_bits<Vector<__half>>(top));
      device::accumulate_squares(squares[t][1], device::same_bits<Vector<__half>>(bottom));
#pragma unroll
      for (int b = 0; b < kTiles; ++b) {
        mma_16816(acc[t][b], top, bottom, false, batch.w[i][b]);
        mma_16816(acc[t][b], top, bottom, true, batch.w[i][b]);
      }
    }
  }
}

// The block's finish: each warp parks its sums and its rows' sums of squares in shared memory;
// after one barrier they are added in warp order, 1/RMS taken, and y written.
//
// What changed: x's loads now go out before W*'s in each unit (measured alone too, on an H100
// and an H200), and each output's thread adds its row's squares itself, where one
// thread a row took 1/RMS into shared memory behind a second barrier. Measured beside the
// previous kernel, alternated, three rounds (H200, 2026-11-27,
// book/results/runs/2026-11-27-h200-ch11-one-barrier/): 16 tokens through 2048 x 2560
// 1.28-1.29x -> 1.31-1.33x over plain, one token 1.50-1.51x -> 1.53-1.55x, 16 tokens through
// 576 x 960 1.97-2.06x -> 2.10-2.12x; 64 tokens through 576 x 960 level (1.38-1.39x ->
// 1.36-1.37x, its fused times 5.12-5.22 -> 5.13-5.24 us).
template <int kMTiles, int kTiles, int kSplitWarps>
__device__ __forceinline__ void finish_warp_split(const WarpSplitCall& c, const Lane& l,
                                                  int first_tile,
                                                  const float (&acc)[kMTiles][kTiles][4],
                                                  const float (&squares)[kMTiles][2]) {
  using Shape = WarpSplit<kMTiles, kTiles, kSplitWarps>;
  extern __shared__ __align__(16) unsigned char shared[];
  auto& sums = *reinterpret_cast<typename Shape::Sums*>(shared);
  __shared__ float row_squares[kSplitWarps][Shape::kTokens];
#pragma unroll
  for (int t = 0; t < kMTiles; ++t) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const float total = device::group_sum<4>(squares[t][h]);  // the row's four lanes
      if (l.quad == 0) row_squares[l.warp][t * kFragment + h * 8 + l.group] = total;
    }
#pragma unroll
    for (int b = 0; b < kTiles; ++b) {
      float* top = &sums[l.warp][t * kFragment + l.group][b * kColsATile + 2 * l.quad];
      float* bottom = &sums[l.warp][t * kFragment + l.group + 8][b * kColsATile + 2 * l.quad];
      top[0] = acc[t][b][0];
      top[1] = acc[t][b][1];
      bottom[0] = acc[t][b][2];
      bottom[1] = acc[t][b][3];
    }
  }
  __syncthreads();
  // Each output's thread adds its row's squares itself (in warp order, so every thread of a row
  // gets the same bits) rather than one thread a row before a second barrier.
  const int first_col = first_tile * kColsATile;
  for (int o = static_cast<int>(threadIdx.x); o < c.rows * kTiles * kColsATile;
       o += Shape::kThreads) {
    const int m = o / (kTiles * kColsATile), col = o % (kTiles * kColsATile);
    if (first_col + col >= c.n_cols) continue;
    float sum = 0.0f, squares_sum = 0.0f;
#pragma unroll
    for (int w = 0; w < kSplitWarps; ++w) {
      sum += sums[w][m][col];
      squares_sum += row_squares[w][m];
    }
    const float rstd = rsqrtf(squares_sum / static_cast<float>(c.k_cols) + c.eps);
    c.y[static_cast<std::size_t>(m) * c.n_cols + first_col + col] = __float2half_rn(sum * rstd);
  }
}

// A block: all of K for its kTiles tiles of columns, in batches of kUnits units a warp.
template <int kMTiles, int kTiles, int kSplitWarps, int kUnits, bool kAligned>
__global__ void __launch_bounds__(kSplitWarps* device::kWarpSize)
    fused_warp_split_kernel(const WarpSplitCall c) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800  // mma.sync m16n8k16 needs sm_80
  const Lane l;
  const int units = (c.k_cols + kUnitRows - 1) / kUnitRows;
  const int tiles = (c.n_cols + kColsATile - 1) / kColsATile;
  const int first_tile = static_cast<int>(blockIdx.x) * kTiles;
  float acc[kMTiles][kTiles][4] = {};
  float squares[kMTiles][2] = {};  // of rows group and group + 8 of each tile of tokens
  for (int start = l.warp; start < units; start += kSplitWarps * kUnits) {
    UnitBatch<kMTiles, kTiles, kUnits> batch;
    load_units<kMTiles, kTiles, kSplitWarps, kUnits, kAligned>(c, l, units, tiles, first_tile,
                                                               start, batch);
    multiply_units<kMTiles, kTiles, kSplitWarps, kUnits>(batch, units, start, acc, squares);
  }
  finish_warp_split<kMTiles, kTiles, kSplitWarps>(c, l, first_tile, acc, squares);
#else
  __trap();  // the launcher refuses GPUs before compute capability 8.0
#endif
}
// [fused_warp_split]

// Column tiles of @p tile_cols across n_cols outputs: a kernel's blocks along x.
std::int64_t tiles_of(std::int64_t n_cols, int tile_cols) {
  return (n_cols + tile_cols - 1) / tile_cols;
}

template <int kMTiles, int kTiles, int kSplitWarps, int kUnits, bool kAligned>
void launch_warp_split(const WarpSplitCall& call, cudaStream_t stream) {
  using Shape = WarpSplit<kMTiles, kTiles, kSplitWarps>;
  const auto kernel = fused_warp_split_kernel<kMTiles, kTiles, kSplitWarps, kUnits, kAligned>;
  NORMLAB_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(Shape::kBytes)));
  const auto blocks = static_cast<unsigned int>(tiles_of(call.n_cols, kTiles * kColsATile));
  kernel<<<blocks, Shape::kThreads, Shape::kBytes, stream>>>(call);
}

// [warp_split_shapes]
// The warp split's block for a call. Up to 16 tokens through K past 1024: 3 tiles (24 columns)
// a block, 16 warps of 4 units (2048 rows of K in flight at once), or, through weights too large
// to stay in L2 between calls, 8 warps of 4 units, two blocks an SM; otherwise a tile a block, 8
// warps of 3 units, and tokens padded to 16, 32 or 64. Measured on an H100, each beside the
// others in one process (book/results/runs/2026-11-27-h100-ch11-packed/): 16 tokens through
// 2048 x 2560, 3 tiles of 16 warps 6.2 us, 3 of 8 warps 6.5, 4 tiles of 8 or 16 warps 6.4 to
// 6.6, 1 or 2 tiles 7.6 to 8.4 (107 blocks of 3 tiles leave fewer bytes to each SM than 80 of
// 4, and 1 or 2 tiles take more blocks than the SMs hold at once); through 576 x 960 the
// one-tile block within 0.15 us of the best at 1 and 16 tokens and the best at 64 (5.2 us
// against 5.3 to 7.9). Through 4096 x 6144 (W* 50 MB, read from DRAM every call) the 3-tile
// block of 8 warps, two an SM, is the faster (H200, 2026-11-27,
// book/results/runs/2026-11-27-h200-ch11-one-barrier/, two rounds: 16 tokens 14.3-14.7 us against
// 18.6-18.7, one token 12.9-13.5 against 17.1; H100 21.3-21.4 against 21.5, 20.4 against 20.8),
// and the slower through 2048 x 2560 (6.7 against 5.8-6.3 us on both), where W* stays in L2.
// (Nsight Compute, same results folder: two blocks an SM keep DRAM busier, 48% of its peak
// against 37% at 16 tokens through 4096 x 4097 and 4096 x 4095, and take 256 blocks of 3 tiles
// in 0.97 of a wave where one block needs 1.94.)
// kWarpSplitDramWeights (ch11.cuh) is a round number between the two, not measured itself.

template <bool kAligned>
void launch_warp_split(const WarpSplitCall& call, cudaStream_t stream) {
  if (call.rows <= 16 && call.k_cols > 1024) {
    if (static_cast<std::int64_t>(call.k_cols) * call.n_cols >= kWarpSplitDramWeights)
      return launch_warp_split<1, 3, 8, 4, kAligned>(call, stream);
    return launch_warp_split<1, 3, 16, 4, kAligned>(call, stream);
  }
  if (call.rows <= 16) return launch_warp_split<1, 1, 8, 3, kAligned>(call, stream);
  if (call.rows <= 32) return launch_warp_split<2, 1, 8, 3, kAligned>(call, stream);
  launch_warp_split<4, 1, 8, 3, kAligned>(call, stream);
}
// [warp_split_shapes]

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
  return rows <= 16 || (n_cols > 0 && k_cols <= kWarpSplitMostWeights / n_cols)
             ? FusedKernel::warp_split
             : FusedKernel::cluster_split;
}

// [fused_launch]
void fused_rmsnorm_linear(FusedKernel kernel, const __half* x, const FoldedWeights& w,
                          std::int64_t rows, std::int64_t k_cols, std::int64_t n_cols, float eps,
                          __half* y, cudaStream_t stream) {
  const char* fn = "ch11::fused_rmsnorm_linear";
  check_argument(rows >= 0 && rows <= kFusedMaxRows, fn, "rows",
                 "must be in [0, 64]: the fused kernel is for decode-sized batches");
  constexpr std::int64_t kMostCols = std::int64_t{1} << 30;  // the kernels index in 32 bits
  check_argument(k_cols > 0 && k_cols <= kMostCols, fn, "k_cols", "must be in [1, 2^30]");
  check_argument(n_cols > 0 && n_cols <= kMostCols, fn, "n_cols", "must be in [1, 2^30]");
  check_argument(eps > 0.0f, fn, "eps", "must be positive");
  if (rows == 0) return;
  check_argument(x != nullptr, fn, "x", "must not be null");
  if (kernel == FusedKernel::warp_split) {
    check_argument(w.packed != nullptr && reinterpret_cast<std::uintptr_t>(w.packed) % 16 == 0, fn,
                   "w.packed", "must be pack_weights()'s W*, 16-byte aligned");
  } else {
    check_argument(w.row_major != nullptr, fn, "w.row_major", "must not be null");
  }
  check_argument(y != nullptr, fn, "y", "must not be null");
  check_argument(fused_kernel_runs_here(kernel), fn, "device",
                 kernel == FusedKernel::warp_split
                     ? "needs mma.sync m16n8k16 (compute capability 8.0 or newer)"
                     : "needs thread-block clusters (compute capability 9.0 or newer)");
  const bool x_aligned = k_cols % kWidth == 0 && reinterpret_cast<std::uintptr_t>(x) % 16 == 0;
  if (kernel == FusedKernel::warp_split) {
    const WarpSplitCall call{.x = x,
                             .packed = reinterpret_cast<const uint4*>(w.packed),
                             .y = y,
                             .rows = static_cast<int>(rows),
                             .k_cols = static_cast<int>(k_cols),
                             .n_cols = static_cast<int>(n_cols),
                             .eps = eps};
    // The aligned instance reads whole units of x: K a multiple of 32.
    if (x_aligned && k_cols % kPackRows == 0) {
      launch_warp_split<true>(call, stream);
    } else {
      launch_warp_split<false>(call, stream);
    }
    NORMLAB_CHECK_LAUNCH();
    return;
  }
  const FusedCall call{.x = x,
                       .w = w.row_major,
                       .y = y,
                       .rows = rows,
                       .k_cols = k_cols,
                       .n_cols = n_cols,
                       .split_rows = split_rows_for(k_cols),
                       .eps = eps};
  const bool aligned =
      x_aligned && n_cols % kWidth == 0 && reinterpret_cast<std::uintptr_t>(w.row_major) % 16 == 0;
  if (rows <= 16) {  // tokens padded to whole tensor-core tiles: 16, 32 or 64 rows
    aligned ? launch<16, true>(call, stream) : launch<16, false>(call, stream);
  } else if (rows <= 32) {
    aligned ? launch<32, true>(call, stream) : launch<32, false>(call, stream);
  } else {
    aligned ? launch<64, true>(call, stream) : launch<64, false>(call, stream);
  }
  NORMLAB_CHECK_LAUNCH();
}

void fused_rmsnorm_linear(const __half* x, const FoldedWeights& w, std::int64_t rows,
                          std::int64_t k_cols, std::int64_t n_cols, float eps, __half* y,
                          cudaStream_t stream) {
  fused_rmsnorm_linear(fused_kernel_for(rows, k_cols, n_cols), x, w, rows, k_cols, n_cols, eps, y,
                       stream);
}
// [fused_launch]

const char* name_of(FusedKernel kernel) {
  return kernel == FusedKernel::warp_split ? "warp split" : "cluster split";
}

bool fused_kernel_runs_here(FusedKernel kernel) {
  return kernel == FusedKernel::warp_split ? compute_capability() >= 80 : has_clusters();
}

bool fused_available() {
  return fused_kernel_runs_here(FusedKernel::cluster_split);
}

}  // namespace normlab::ch11
