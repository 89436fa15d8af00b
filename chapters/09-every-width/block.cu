// SPDX-License-Identifier: Apache-2.0
// Chapter 09, medium rows: one row per block, as in chapter 07, with the vectors a thread
// keeps and its register budget chosen per width (choose.hpp's table) instead of one size.
//
// Chapter 07 compiles its register kernel with __launch_bounds__(512, 1): the compiler may use
// up to 128 registers a thread, and used 72 on bf16 rows, so at 4096 x 8192 only 3 blocks of
// 256 threads fit an SM (35% occupancy) and DRAM ran at 72% of its peak. Each configuration
// here names its own cap: __launch_bounds__(max_threads, min_blocks) promises min_blocks
// blocks of max_threads an SM, so the compiler keeps a thread within
// 65536 / (max_threads * min_blocks) registers.
#include <type_traits>

#include "balanced.cuh"
#include "launch.cuh"
#include "normlab/check.hpp"
#include "row_norm.cuh"

namespace normlab::ch09 {

using device::Vector;

namespace {

// [block]
// Few rows (decode): the parameters asked of L2 before the reduction. A row's statistics wait
// on its loads and a block reduction, and normalise_and_store then loads the weight (and bias):
// on a cold L2 a second trip to DRAM, after the first, on the one path a decode step waits
// for. Prefetched here, while x is still on its way, they come from L2 instead; no register
// holds them, so the blocks an SM do not change. Many rows find them in L2 anyway (every row
// reads the same parameters), so only calls of at most kFewRows rows ask.
template <typename T, typename P, int kVectors, bool kAligned>
__device__ void prefetch_parameters(const Tensors<T, P>& t, const ch07::Row<T, P, kAligned>& row) {
  constexpr int kWidth = Vector<T>::kWidth;
  const ch07::Slice slice = ch07::block_slice();
#pragma unroll
  for (int v = 0; v < kVectors; ++v) {
    const std::int64_t start = ch07::chunk_start(slice.chunk(v), kWidth, row.lead);
    const std::int64_t first = start < 0 ? 0 : start;  // a misaligned row's first chunk
    if (first >= t.cols) continue;
    if (t.weight != nullptr) device::prefetch_l2(t.weight + first);
    if (t.bias != nullptr) device::prefetch_l2(t.bias + first);
  }
}

// Chapter 07's row in registers (norm_row_in_registers), under this configuration's cap.
// kBalanced (LayerNorm, every thread holding kVectors whole chunks; launch_block says which
// configurations take it): the statistics in one reduction (balanced.cuh) instead of chapter
// 07's two.
template <typename T, typename P, int kVectors, int kMaxThreads, int kMinBlocks, bool kCentre,
          bool kAdd, bool kAligned, bool kResidualFirst, bool kBalanced>
__global__ void __launch_bounds__(kMaxThreads, kMinBlocks) norm_block(const Tensors<T, P> t) {
  const bool few = t.rows <= kFewRows;
  for (std::int64_t r = blockIdx.x; r < t.rows; r += gridDim.x) {
    ch07::norm_row_in_registers<T, P, kVectors, kCentre, kAdd, kAligned, kResidualFirst>(
        t, r, [&](const Vector<T>(&h)[kVectors], const ch07::Row<T, P, kAligned>& row) {
          if (few) prefetch_parameters<T, P, kVectors>(t, row);
          if constexpr (kBalanced) {
            return block_balanced_statistics(h, t.cols, t.eps);
          } else {
            return ch07::block_row_statistics<kCentre>(t, row, h);
          }
        });
  }
}
// [block]

}  // namespace

template <typename T, typename P, bool kCentre, bool kAdd>
void launch_block(const Tensors<T, P>& t, const Choice& choice, cudaStream_t stream) {
  with_config<Kind::block>(choice.config, [&]<int kConfig>() {
    constexpr Config c = kConfigs[kConfig];
    // The one-reduction statistics (balanced.cuh) for the 4-vector configurations (the
    // dispatcher's block4_128x6 and block4_256x3: 4 to 8 warps a row), where they were measured
    // to pay: H100, 2026-11-26, chapter 09's LayerNorm, two rounds, two reductions against one:
    // bf16 16384 x 5120 131.1 against 120.4 us, 16384 x 4096 99.1 against 97.8, fp32 4096 x 4096
    // 53.7 against 52.8; bf16 4096 x 8192, 32768 x 2048 and fp16 16384 x 4096 even. And for few
    // rows in block1 (a vector a thread, up to 1024 threads). With the warps merged in warp
    // order, the few-row block1's 16 warps cost more than they saved (bf16 1 x 4096 6.4 against
    // 6.8 us); merged in a tree (H100, book/results/runs/2026-11-27-h100-balanced-tree/, three
    // rounds, alternated) they are level or ahead: add + LayerNorm bf16 1 x 8192 6.8-6.9 ->
    // 6.6-6.7 us, 32 x 4096 6.3-6.5 -> 6.3; LayerNorm 1 x 4096 level; and the tree took 4096 x
    // 8192 LayerNorm (block4_256x3, 8 warps) from 80.4-80.8% to 81.8-82.3% of the copy roof.
    // And for the 2-vector configurations, since narrow rows of 97 to 256 chunks went to
    // block2_256x4 (choose.cpp): H100, 2026-11-27, two rounds, two reductions against one
    // (book/results/runs/2026-11-27-h100-backward-cost-and-narrow-rows/logs/x10-*): bf16
    // 8192 x 1024 LayerNorm 56.5-56.9% -> 59.1-59.4% of the copy roof, 16384 x 1024 69.5-69.8%
    // -> 73.0-73.4%, 32768 x 1024 80.4-80.8% -> 85.7-86.0% (narrow32x4, one reduction:
    // 83.5-83.7%), 65536 x 1024 87.5-87.7% -> 92.7-92.8%; fp32 8192 x 512 60.9-61.0% ->
    // 62.2-62.5%; add + LayerNorm at 16384 x 4096 and 4096 x 8192 (block2_256x4, block2_512x2)
    // level. And for the 8-vector configurations (block8_256x2: 16-bit rows of 1537 to 2048
    // chunks) with bf16 rows and bf16 parameters: H100, 2026-11-27, five rounds in two calls,
    // two reductions against one (book/results/runs/2026-11-27-h100-balanced-eight-vectors/):
    // LayerNorm bf16 4096 x 16384 84.7-85.1% -> 86.8-87.2% of the copy roof, 4096 x 14336
    // 77.7-77.9% -> 79.8-80.2%, 1024 x 16384 59.7-60.3% -> 60.6-61.5%. Not for fp16 rows nor
    // fp32 parameters: built for them, three instances spilled under block8_256x2's 128
    // registers (8 to 44 bytes), and fp16 4096 x 16384 measured 83.9-84.3% -> 83.2-83.4%.
    constexpr bool kEightBf16 =
        c.vectors == 8 && std::is_same_v<T, __nv_bfloat16> && std::is_same_v<P, __nv_bfloat16>;
    constexpr bool kAlways = c.vectors == 2 || c.vectors == 4 || kEightBf16;
    constexpr bool kForFewRows = c.max_threads == 1024;
    if constexpr (kCentre && c.aligned && (kAlways || kForFewRows)) {
      if ((kAlways || t.rows <= kFewRows) &&
          fills_exactly<T>(t.cols, static_cast<int>(choice.threads), c.vectors)) {
        norm_block<T, P, c.vectors, c.max_threads, c.min_blocks, kCentre, kAdd, c.aligned,
                   kAdd && c.residual_first, true><<<choice.blocks, choice.threads, 0, stream>>>(t);
        return;
      }
    }
    norm_block<T, P, c.vectors, c.max_threads, c.min_blocks, kCentre, kAdd, c.aligned,
               kAdd && c.residual_first, false><<<choice.blocks, choice.threads, 0, stream>>>(t);
  });
  NORMLAB_CHECK_LAUNCH();
}

#define NORMLAB_CH09_BLOCK(T, P, kCentre, kAdd)                                        \
  template void launch_block<T, P, kCentre, kAdd>(const Tensors<T, P>&, const Choice&, \
                                                  cudaStream_t);
NORMLAB_CH07_FOR_EACH_CALL(NORMLAB_CH09_BLOCK)

}  // namespace normlab::ch09
