// SPDX-License-Identifier: Apache-2.0
// Chapter 11, the fused decode kernels: y = diag(1/rms(x)) · (x · W*) in one launch for at most
// 64 tokens. With so few rows the work is reading W* (K x N halves) once; the rows of x (at
// most 64 x K halves) are read by every column tile from L2. The normalised activations never
// exist: 1/RMS is a per-row scalar applied to the finished sums (proposition 2), and the sum of
// squares it needs comes from the same x the product reads.
//
// The product runs on tensor cores (16 x 16 tiles of tokens and K, fp16 summed in fp32), so
// that 64 tokens cost the same reads of W* as one, and both kernels read W* packed in the order
// of the tensor cores' registers (pack_weights, ch11.cuh) straight from L2 into registers. A
// layer has too few column tiles to fill the GPU, so K is split too, two ways:
//
// - Over the warps of one block, fused_warp_split_kernel: a block covers 8 or 24 columns for
//   all of K, each warp every so many units of 32 rows of K, multiplied by mma.sync with x read
//   straight into registers too; the block adds its warps' sums once, in warp order. No
//   cluster, no shared memory on the way in: at one token through 576 -> 960 the exchange of
//   the first cluster kernel took more than half of a block's time (traced; chapter 11's page).
// - Over the blocks of a thread-block cluster (chapter 10), fused_kernel: a block covers 192
//   columns for an eighth of K, multiplied by Hopper's warpgroup wgmma with x staged in shared
//   memory once a block; the cluster adds its blocks' sums through distributed shared memory,
//   in rank order. At 17 to 64 tokens each warp-split block reading all of x costs more than
//   the exchange.
//
// Either way the sums are added in a fixed order, so the result does not depend on which warp
// or block finished first. Nothing is written to global memory but y, and nothing needs
// resetting between launches.
//
// What changed from this chapter's first fused kernel (a CUDA-core GEMV that split K over
// independent blocks and summed fp32 partials in global memory, the last block of a column
// tile finishing): it re-read W* for every 8 tokens and waited on each load it made, and lost to
// norm + cuBLAS on nearly every shape (chapter 11's page).
#include <cooperative_groups.h>
#include <cuda_fp16.h>

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
using device::Vector;

// Whether this library was compiled for sm_90a, the Hopper target with wgmma (CMakeLists.txt).
#if defined(NORMLAB_CH11_SM90A)
constexpr bool kBuiltForSm90a = true;
#else
constexpr bool kBuiltForSm90a = false;
#endif
constexpr int kFragment = 16;                   // a tensor-core tile of tokens (16 rows)
constexpr int kWidth = Vector<__half>::kWidth;  // 8 halves a 16-byte chunk
constexpr int kSumSkew = 4;                     // floats after each row of sums

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
// (chapter 11's page).
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

// A lane's 16 bytes of a unit (of x's rows group and group + 8, or of W*) hold 8 rows of K:
// elements 0 to 3 are its share of the unit's first 16 rows (logical pairs 2 quad and
// 2 quad + 8), 4 to 7 of the second (second_half). The four words of an m16n8k16 A fragment
// from the unit's top and bottom 8 rows (wgmma's A registers are the same, in each warp).
__device__ __forceinline__ uint4 a_fragment(const uint4& top, const uint4& bottom,
                                            bool second_half) {
  return second_half ? make_uint4(top.z, bottom.z, top.w, bottom.w)
                     : make_uint4(top.x, bottom.x, top.y, bottom.y);
}

// mma.sync m16n8k16, fp16 in, fp32 accumulated: c += a · b on one warp's fragments.
__device__ __forceinline__ void mma_16816(float (&c)[4], const uint4& a_top, const uint4& a_bottom,
                                          bool second_half, const uint4& b) {
  const uint4 a = a_fragment(a_top, a_bottom, second_half);
  const unsigned b0 = second_half ? b.z : b.x, b1 = second_half ? b.w : b.y;
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b0), "r"(b1));
}

// What a launch of either fused kernel reads and writes (32-bit sizes: the launcher checks them).
struct PackedCall {
  const __half* __restrict__ x;
  const uint4* __restrict__ packed;
  __half* __restrict__ y;
  int rows, k_cols, n_cols;
  float eps;
};

// Units of 32 rows of K, tiles of 8 columns of the packed W*.
__host__ __device__ constexpr int units_of(int k_cols) {
  return (k_cols + kUnitRows - 1) / kUnitRows;
}
__host__ __device__ constexpr int tiles_of(int n_cols) {
  return (n_cols + kColsATile - 1) / kColsATile;
}

// A lane's 16 bytes of the packed W* for tile @p tile and unit @p unit (pack_doc, ch11.cuh).
__device__ __forceinline__ uint4 packed_chunk(const PackedCall& c, int units, int tile, int unit,
                                              int lane) {
  return __ldg(c.packed + (static_cast<std::size_t>(tile) * units + unit) * device::kWarpSize +
               lane);
}

// 8 halves of a row of x from column @p first: one 16-byte load where rows are on the 16-byte
// grid and K is a multiple of 32 (kAligned: every chunk of a unit is in the row), element by
// element with zeros past K otherwise.
template <bool kAligned>
__device__ __forceinline__ uint4 x_chunk(const __half* row, int first, int k_cols) {
  return kAligned ? __ldg(reinterpret_cast<const uint4*>(row + first))
                  : device::same_bits<uint4>(device::load_chunk<false>(row, first, k_cols, false));
}

// Where a lane is: its warp, and its fragments' row (group) and column pair (quad).
struct Lane {
  int warp, lane, group, quad;
  __device__ Lane()
      : warp(static_cast<int>(threadIdx.x) / device::kWarpSize),
        lane(static_cast<int>(threadIdx.x) % device::kWarpSize),
        group(lane / 4),
        quad(lane % 4) {}
};

// [warp_split_units]
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
__device__ __forceinline__ void load_units(const PackedCall& c, const Lane& l, int units, int tiles,
                                           int first_tile, int start,
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
        } else {
          batch.x[i][t][h] = x_chunk<kAligned>(row, first, c.k_cols);
        }
      }
    }
#pragma unroll
    for (int b = 0; b < kTiles; ++b) {
      batch.w[i][b] = first_tile + b < tiles ? packed_chunk(c, units, first_tile + b, unit, l.lane)
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
// [warp_split_units]

// The block's finish: each warp parks its sums and its rows' sums of squares in shared memory;
// after one barrier they are added in warp order, 1/RMS taken, and y written.
//
// What changed: x's loads now go out before W*'s in each unit, and each output's thread adds
// its row's squares itself, where one thread a row took 1/RMS into shared memory behind a
// second barrier, so the block waits at one barrier, not two (chapter 11's worklog has the
// comparison with the previous kernel).
template <int kMTiles, int kTiles, int kSplitWarps>
__device__ __forceinline__ void finish_warp_split(const PackedCall& c, const Lane& l,
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

// [warp_split_kernel]
// A block: all of K for its kTiles tiles of columns, in batches of kUnits units a warp.
template <int kMTiles, int kTiles, int kSplitWarps, int kUnits, bool kAligned>
__global__ void __launch_bounds__(kSplitWarps* device::kWarpSize)
    fused_warp_split_kernel(const PackedCall c) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800  // mma.sync m16n8k16 needs sm_80
  const Lane l;
  const int units = units_of(c.k_cols);
  const int tiles = tiles_of(c.n_cols);
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
// [warp_split_kernel]

// Blocks of @p tile_cols columns across n_cols outputs: a kernel's blocks along x.
std::int64_t blocks_of(std::int64_t n_cols, int tile_cols) {
  return (n_cols + tile_cols - 1) / tile_cols;
}

template <int kMTiles, int kTiles, int kSplitWarps, int kUnits, bool kAligned>
void launch_warp_split(const PackedCall& call, cudaStream_t stream) {
  using Shape = WarpSplit<kMTiles, kTiles, kSplitWarps>;
  const auto kernel = fused_warp_split_kernel<kMTiles, kTiles, kSplitWarps, kUnits, kAligned>;
  NORMLAB_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(Shape::kBytes)));
  const auto blocks = static_cast<unsigned int>(blocks_of(call.n_cols, kTiles * kColsATile));
  kernel<<<blocks, Shape::kThreads, Shape::kBytes, stream>>>(call);
}

// [warp_split_shapes]
// The warp split's block for a call. Up to 16 tokens through K past 1024: 3 tiles (24 columns)
// a block, 16 warps of 4 units (2048 rows of K in flight at once), or, through weights too large
// to stay in L2 between calls, 8 warps of 4 units, two blocks an SM; otherwise a tile a block, 8
// warps of 3 units, and tokens padded to 16, 32 or 64. Why: 3 tiles a block spread W*'s columns
// over more blocks than 4 do, leaving fewer bytes to each SM, while 1 or 2 tiles take more blocks
// than the SMs hold at once. A narrow W* has too few columns for that, and one tile a block
// keeps the most SMs busy. Where W* is read from DRAM every call, two blocks an SM of 8 warps
// keep DRAM busier and take the 3-tile blocks in about one wave where blocks of 16 warps need
// two; where W* stays in L2, the 16-warp block does better. kWarpSplitDramWeights (ch11.cuh) is
// a round number between weights on either side. Chapter 11's worklog has the comparisons, each
// block beside the others in one process.

template <bool kAligned>
void launch_warp_split(const PackedCall& call, cudaStream_t stream) {
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

// [fused_cluster]
// The cluster kernel, Hopper's way: a block covers kGroups x 64 columns of W* for a slice of K,
// the blocks of a thread-block cluster (chapter 10) cover all of K, and the cluster adds its
// blocks' sums through distributed shared memory, in rank order. Each warpgroup (4 warps)
// multiplies with wgmma, Hopper's asynchronous warpgroup multiply: D (64 columns of W* x the
// tokens) += A (W*, transposed, from registers) x B (x, transposed, from shared memory). So W*
// comes straight from L2 into registers in the packed order the warp split reads (a warp's 16
// rows of A are its two tiles of 8 columns), and x is read from L2 once a block, staged in
// shared memory in the tensor cores' 8 x 8 core matrices, and shared by every warpgroup.
//
// What changed from the first cluster kernel (64 columns a block, stages of W* and x copied by
// cp.async into a ring of shared memory and multiplied by wmma, four warps each reading all of
// x from there): W* no longer passes through shared memory, x is staged once for three times the
// columns, and the multiply is asynchronous, so a warpgroup issues a slice's multiplies back to
// back and waits once.
constexpr int kGroupCols = 64;  // columns of W* a warpgroup: wgmma's m64
constexpr int kGroupThreads = 4 * device::kWarpSize;
// Warpgroups a block: 192 columns of W*. Three, not one, whose narrower column tiles read x
// from L2 three times as often, nor two, whose blocks for a wide W* outnumber one wave at one
// block an SM; chapter 11's worklog has the comparison.
constexpr int kGroups = 3;
constexpr int kBatchUnits = 8;  // units of 32 rows of K staged at once
// ... where x's rows are on the 16-byte grid; a chunk of an unaligned row is loaded element by
// element into more registers, and half the batch fits.
template <bool kAligned>
constexpr int kBatchUnitsOf = kAligned ? kBatchUnits : kBatchUnits / 2;
constexpr int kMostClusterBlocks = 8;  // the portable cluster size

template <int kTokens>
struct ClusterSplit {
  static_assert(kTokens % kFragment == 0, "whole tensor-core tiles of tokens");
  static constexpr int kThreads = kGroups * kGroupThreads;
  static constexpr int kCols = kGroups * kGroupCols;
  static constexpr int kStepBytes = kTokens * 2 * 16;  // x's tokens x 16 rows of K, in cores
  static constexpr int kXBytes = kBatchUnits * 2 * kStepBytes;
  using Sums = float[kTokens][kCols + kSumSkew];
  static constexpr std::size_t kBytes = std::max<std::size_t>(kXBytes, sizeof(Sums));
};
// [fused_cluster]

// [fused_split]
// Units of 32 rows of K a block multiplies: all of K over the portable cluster size; fewer
// blocks when K is short.
__host__ __device__ constexpr int split_units_for(int k_cols) {
  return (units_of(k_cols) + kMostClusterBlocks - 1) / kMostClusterBlocks;
}
// [fused_split]

#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)  // the kernel's helpers: sm_90a
constexpr int kCoreBytes = 128;  // a core matrix of wgmma's operands: 8 rows of 16 bytes

// [fused_stage]
// Stages x's rows for the batch of units starting at @p first_unit in shared memory, as the B
// operand of wgmma wants it: for each step of 16 rows of K, 8 x 8 core matrices (8 tokens, 8
// rows of K, 16 bytes a token), the two of a step's K side by side (128 bytes apart), then the
// next 8 tokens (256 bytes on). A thread loads a token's 64 bytes of a unit in the permuted order
// of the packed W* (ch11.cuh: quad q holds rows 8q to 8q + 7), and a 4 x 4 transpose of 32-bit
// words puts each logical row of 8 in one 16-byte store. It adds the squares of what it loaded.
template <int kTokens, bool kAligned>
struct StagedX {
  using Shape = ClusterSplit<kTokens>;
  static constexpr int kUnitLanes = Shape::kThreads / kTokens;  // threads staging a token's units
  static_assert(Shape::kThreads % kTokens == 0, "a thread stages the same token in every pass");
  static constexpr int kPasses = (kBatchUnitsOf<kAligned> + kUnitLanes - 1) / kUnitLanes;
  uint4 quads[kPasses][4];  // this thread's token's 64 bytes of each of its units

  // Issues every load. Tokens past the last are a copy of the last row (their outputs are never
  // written), and units past the batch a copy of its last unit (never stored): every load is
  // unconditional, so all of them go out before the first lands.
  __device__ void load(const PackedCall& c, int first_unit, int batch_units) {
    const int m = static_cast<int>(threadIdx.x) % kTokens;
    const __half* row = c.x + static_cast<std::size_t>(min(m, c.rows - 1)) * c.k_cols;
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      const int i = static_cast<int>(threadIdx.x) / kTokens + pass * kUnitLanes;
      const int unit = first_unit + min(i, batch_units - 1);
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const int first = unit * kUnitRows + q * kWidth;
        quads[pass][q] = x_chunk<kAligned>(row, first, c.k_cols);
      }
    }
  }

  // Stores what landed in the core-matrix order, and adds its squares (tokens past the last add
  // their copy's squares to a sum nobody reads).
  __device__ void store(int batch_units, unsigned char* staged, float& squares) const {
    const int m = static_cast<int>(threadIdx.x) % kTokens;
#pragma unroll
    for (int pass = 0; pass < kPasses; ++pass) {
      const int i = static_cast<int>(threadIdx.x) / kTokens + pass * kUnitLanes;
      if (i >= batch_units) break;
#pragma unroll
      for (int q = 0; q < 4; ++q)
        device::accumulate_squares(squares, device::same_bits<Vector<__half>>(quads[pass][q]));
        // Word p of quad q is rows 8q + 2p, 8q + 2p + 1: step p / 2, core p % 2, position q.
#pragma unroll
      for (int p = 0; p < 4; ++p) {
        const auto word = [&](int q) {
          const uint4& v = quads[pass][q];
          return p == 0 ? v.x : p == 1 ? v.y : p == 2 ? v.z : v.w;
        };
        const int step = 2 * i + p / 2;
        *reinterpret_cast<uint4*>(staged + step * Shape::kStepBytes + m / 8 * 2 * kCoreBytes +
                                  p % 2 * kCoreBytes + m % 8 * 16) =
            make_uint4(word(0), word(1), word(2), word(3));
      }
    }
  }
};
// [fused_stage]

// [fused_multiply]
// The shared-memory descriptor of one step's B for wgmma: no swizzle, the K-side core matrices
// 128 bytes apart (leading byte offset), the token-side ones 256 (stride byte offset).
__device__ __forceinline__ std::uint64_t step_descriptor(const unsigned char* step) {
  const auto address = static_cast<std::uint64_t>(__cvta_generic_to_shared(step));
  return ((address & 0x3FFFF) >> 4) | (std::uint64_t{kCoreBytes >> 4} << 16) |
         (std::uint64_t{2 * kCoreBytes >> 4} << 32);
}

// wgmma m64nNk16, fp16 in, fp32 accumulated, A from registers (a lane's four words of W*, as
// for mma.sync: a_fragment), B from shared memory by descriptor; N is the token count, 16, 32
// or 64.
template <int kTokens>
__device__ __forceinline__ void wgmma_step(float (&d)[kTokens / 2], const uint4& a,
                                           std::uint64_t b);

#define NORMLAB_WGMMA_A "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "l"(b)

template <>
__device__ __forceinline__ void wgmma_step<16>(float (&d)[8], const uint4& a, std::uint64_t b) {
  asm volatile(
      "{.reg .pred p; setp.ne.b32 p, 1, 0; "
      "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7}, {%8, %9, %10, %11}, %12, p, 1, 1, 0;}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7])
      : NORMLAB_WGMMA_A);
}
// [fused_multiply]

template <>
__device__ __forceinline__ void wgmma_step<32>(float (&d)[16], const uint4& a, std::uint64_t b) {
  asm volatile(
      "{.reg .pred p; setp.ne.b32 p, 1, 0; "
      "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
      "{%16, %17, %18, %19}, %20, p, 1, 1, 0;}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15])
      : NORMLAB_WGMMA_A);
}

template <>
__device__ __forceinline__ void wgmma_step<64>(float (&d)[32], const uint4& a, std::uint64_t b) {
  asm volatile(
      "{.reg .pred p; setp.ne.b32 p, 1, 0; "
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "{%32, %33, %34, %35}, %36, p, 1, 1, 0;}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : NORMLAB_WGMMA_A);
}
#undef NORMLAB_WGMMA_A

// Keeps the compiler from moving the accumulators' uses across the asynchronous multiplies.
template <int kN>
__device__ __forceinline__ void hold(float (&d)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i)
    asm volatile("" : "+f"(d[i])::"memory");
}

// [fused_cluster_sum]
// Every block of the cluster has its sums of x · W* over its slice of K in shared memory, and
// its sums of squares of x. After cluster.sync() each block reads all of them through DSMEM:
// first the whole sums of squares, for 1/RMS of each row; then it adds, for its share of the
// tile's outputs (every cluster-size-th), the blocks' sums in rank order, scales, and writes
// fp16. The last cluster.sync() keeps every block's shared memory alive until all have read it.
template <int kTokens>
__device__ void finish_on_cluster(const PackedCall& c, const cg::cluster_group& cluster,
                                  typename ClusterSplit<kTokens>::Sums& sums,
                                  float (&row_squares)[kTokens], float (&rstd)[kTokens]) {
  using Shape = ClusterSplit<kTokens>;
  const int blocks = static_cast<int>(cluster.num_blocks());
  const int rank = static_cast<int>(cluster.block_rank());
  cluster.sync();
  if (threadIdx.x < kTokens) {
    float total = 0.0f;
#pragma unroll
    for (int b = 0; b < kMostClusterBlocks; ++b)
      if (b < blocks) total += *cluster.map_shared_rank(&row_squares[threadIdx.x], b);
    rstd[threadIdx.x] = rsqrtf(total / static_cast<float>(c.k_cols) + c.eps);
  }
  __syncthreads();
  // Four consecutive outputs a thread: one 16-byte load from each block, all issued together.
  const int tile_col = static_cast<int>(blockIdx.x) * Shape::kCols;
  constexpr int kQuads = Shape::kCols / 4;
  for (int o = rank * Shape::kThreads + static_cast<int>(threadIdx.x); o < kTokens * kQuads;
       o += blocks * Shape::kThreads) {
    const int m = o / kQuads, col = o % kQuads * 4;
    if (m >= c.rows || tile_col + col >= c.n_cols) continue;
    float4 part[kMostClusterBlocks];
#pragma unroll
    for (int b = 0; b < kMostClusterBlocks; ++b) {
      part[b] = b < blocks
                    ? *reinterpret_cast<const float4*>(cluster.map_shared_rank(&sums[m][col], b))
                    : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
    float4 sum = part[0];
#pragma unroll
    for (int b = 1; b < kMostClusterBlocks; ++b) {
      sum.x += part[b].x;
      sum.y += part[b].y;
      sum.z += part[b].z;
      sum.w += part[b].w;
    }
    const float scaled[4] = {sum.x * rstd[m], sum.y * rstd[m], sum.z * rstd[m], sum.w * rstd[m]};
    __half* out = c.y + static_cast<std::size_t>(m) * c.n_cols + tile_col + col;
#pragma unroll
    for (int e = 0; e < 4; ++e)
      if (tile_col + col + e < c.n_cols) out[e] = __float2half_rn(scaled[e]);
  }
  // Only to keep this block's shared memory alive until every block has read it: the reads
  // above have returned (their sums are written), so the arrival needs no release.
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\nbarrier.cluster.wait.aligned;" ::
                   : "memory");
}
// [fused_cluster_sum]
#endif

// [fused_batches]
// A block: its slice of K for its kGroups x 64 columns, in batches of 8 units. Each batch: every
// thread issues its loads of x and of W* (two tiles a unit, into registers), all before any is
// used; the block stages x; each warpgroup issues the batch's 16 multiplies and waits for them
// once. Then the cluster adds.
template <int kTokens, bool kAligned>
__global__ void __launch_bounds__(kGroups* kGroupThreads) fused_kernel(const PackedCall c) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)  // wgmma: sm_90a
  using Shape = ClusterSplit<kTokens>;
  extern __shared__ __align__(128) unsigned char shared[];
  __shared__ float lane_squares[StagedX<kTokens, kAligned>::kUnitLanes][kTokens];
  __shared__ float row_squares[kTokens];
  __shared__ float rstd[kTokens];
  const Lane l;
  const int units = units_of(c.k_cols);
  const int tiles = tiles_of(c.n_cols);
  // The warp's 16 rows of A are columns 16 w to 16 w + 15 of its warpgroup's 64: two tiles.
  const int first_tile = static_cast<int>(blockIdx.x) * (Shape::kCols / kColsATile) + 2 * l.warp;
  const int split_units = split_units_for(c.k_cols);
  const int unit_begin = static_cast<int>(blockIdx.y) * split_units;
  const int unit_end = min(unit_begin + split_units, units);
  float acc[kTokens / 2] = {};
  float squares = 0.0f;
  for (int batch = unit_begin; batch < unit_end; batch += kBatchUnitsOf<kAligned>) {
    const int batch_units = min(kBatchUnitsOf<kAligned>, unit_end - batch);
    StagedX<kTokens, kAligned> staged_x;
    staged_x.load(c, batch, batch_units);
    // Tiles past N are a copy of the last tile (rows of A whose outputs are never written),
    // units past the batch a copy of its last (never multiplied): unconditional loads.
    uint4 w[kBatchUnitsOf<kAligned>][2];
#pragma unroll
    for (int i = 0; i < kBatchUnitsOf<kAligned>; ++i) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int tile = min(first_tile + h, tiles - 1), unit = batch + min(i, batch_units - 1);
        w[i][h] = packed_chunk(c, units, tile, unit, l.lane);
      }
    }
    staged_x.store(batch_units, shared, squares);
    // The stores above are the generic proxy's; wgmma reads through the async proxy.
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int i = 0; i < kBatchUnitsOf<kAligned>; ++i) {
      if (i >= batch_units) break;
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        wgmma_step<kTokens>(acc, a_fragment(w[i][0], w[i][1], half == 1),
                            step_descriptor(shared + (2 * i + half) * Shape::kStepBytes));
      }
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    hold(acc);
    __syncthreads();  // every warpgroup is done with the staged x
  }
  // [fused_batches]

  // Park the sums (D: a lane's rows g and g + 8 of its warp's 16 columns, tokens 8 j + 2 q and
  // 8 j + 2 q + 1) and each staging thread's squares, in the staged x's place.
  auto& sums = *reinterpret_cast<typename Shape::Sums*>(shared);
  const int col = (l.warp / 4) * kGroupCols + (l.warp % 4) * kFragment + l.group;
#pragma unroll
  for (int j = 0; j < kTokens / 8; ++j) {
    const int m = 8 * j + 2 * l.quad;
    sums[m][col] = acc[4 * j];
    sums[m + 1][col] = acc[4 * j + 1];
    sums[m][col + 8] = acc[4 * j + 2];
    sums[m + 1][col + 8] = acc[4 * j + 3];
  }
  lane_squares[threadIdx.x / kTokens][threadIdx.x % kTokens] = squares;
  __syncthreads();
  if (threadIdx.x < kTokens) {
    float total = 0.0f;
#pragma unroll
    for (int i = 0; i < StagedX<kTokens, kAligned>::kUnitLanes; ++i)
      total += lane_squares[i][threadIdx.x];
    row_squares[threadIdx.x] = total;
  }
  finish_on_cluster<kTokens>(c, cg::this_cluster(), sums, row_squares, rstd);
#else
  __trap();  // the launcher refuses GPUs and builds without sm_90a
#endif
}

template <int kTokens, bool kAligned>
void launch_cluster(const PackedCall& call, cudaStream_t stream) {
  using Shape = ClusterSplit<kTokens>;
  const auto kernel = fused_kernel<kTokens, kAligned>;
  const int split_units = split_units_for(call.k_cols);
  const auto blocks =
      static_cast<unsigned int>((units_of(call.k_cols) + split_units - 1) / split_units);
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = 1;
  cluster.val.clusterDim.y = blocks;
  cluster.val.clusterDim.z = 1;
  NORMLAB_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(Shape::kBytes)));
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned int>(blocks_of(call.n_cols, Shape::kCols)), blocks);
  config.blockDim = dim3(Shape::kThreads);
  config.dynamicSmemBytes = Shape::kBytes;
  config.stream = stream;
  config.attrs = &cluster;
  config.numAttrs = 1;
  NORMLAB_CHECK(cudaLaunchKernelEx(&config, kernel, call));
}

template <bool kAligned>
void launch_cluster(const PackedCall& call, cudaStream_t stream) {
  if (call.rows <= 16) return launch_cluster<16, kAligned>(call, stream);
  if (call.rows <= 32) return launch_cluster<32, kAligned>(call, stream);
  launch_cluster<64, kAligned>(call, stream);
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
  check_argument(w.packed != nullptr && reinterpret_cast<std::uintptr_t>(w.packed) % 16 == 0, fn,
                 "w.packed", "must be pack_weights()'s W*, 16-byte aligned");
  check_argument(y != nullptr, fn, "y", "must not be null");
  check_argument(fused_kernel_runs_here(kernel), fn, "device",
                 kernel == FusedKernel::warp_split
                     ? "needs mma.sync m16n8k16 (compute capability 8.0 or newer)"
                     : "needs wgmma and thread-block clusters (compute capability 9.0, a build "
                       "for sm_90a)");
  const PackedCall call{.x = x,
                        .packed = reinterpret_cast<const uint4*>(w.packed),
                        .y = y,
                        .rows = static_cast<int>(rows),
                        .k_cols = static_cast<int>(k_cols),
                        .n_cols = static_cast<int>(n_cols),
                        .eps = eps};
  // The aligned instances read whole units of x: rows on the 16-byte grid, K a multiple of 32.
  const bool aligned = k_cols % kPackRows == 0 && reinterpret_cast<std::uintptr_t>(x) % 16 == 0;
  if (kernel == FusedKernel::warp_split) {
    aligned ? launch_warp_split<true>(call, stream) : launch_warp_split<false>(call, stream);
  } else {
    aligned ? launch_cluster<true>(call, stream) : launch_cluster<false>(call, stream);
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
  return kernel == FusedKernel::warp_split ? compute_capability() >= 80
                                           : kBuiltForSm90a && compute_capability() == 90;
}

bool fused_available() {
  return fused_kernel_runs_here(FusedKernel::cluster_split);
}

}  // namespace normlab::ch11
