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
#include "balanced.cuh"
#include "launch.cuh"
#include "normlab/check.hpp"
#include "row_norm.cuh"

namespace normlab::ch09 {

using device::Vector;

namespace {

// [block]
// Chapter 07's row in registers (norm_row_in_registers), under this configuration's cap.
// kBalanced (LayerNorm, 4 vectors a thread, every thread holding kVectors whole chunks): the
// statistics in one reduction (balanced.cuh) instead of chapter 07's two.
template <typename T, typename P, int kVectors, int kMaxThreads, int kMinBlocks, bool kCentre,
          bool kAdd, bool kAligned, bool kResidualFirst, bool kBalanced>
__global__ void __launch_bounds__(kMaxThreads, kMinBlocks) norm_block(const Tensors<T, P> t) {
  for (std::int64_t r = blockIdx.x; r < t.rows; r += gridDim.x) {
    if constexpr (kBalanced) {
      ch07::norm_row_in_registers<T, P, kVectors, kCentre, kAdd, kAligned, kResidualFirst>(
          t, r, [&](const Vector<T>(&h)[kVectors], const auto&) {
            return block_balanced_statistics(h, t.cols, t.eps);
          });
    } else {
      ch07::norm_row_in_registers<T, P, kVectors, kCentre, kAdd, kAligned, kResidualFirst>(t, r);
    }
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
    // 53.7 against 52.8; bf16 4096 x 8192, 32768 x 2048 and fp16 16384 x 4096 even. With 2
    // vectors a thread (8 to 16 warps, the few-row block1's 16) the in-order merge of the warps
    // cost more than it saved: bf16 1 x 4096 6.4 against 6.8 us, 16384 x 4096 under
    // block2_256x4 108.5 against 110.4.
    if constexpr (kCentre && c.aligned && c.vectors == 4) {
      if (fills_exactly<T>(t.cols, static_cast<int>(choice.threads), c.vectors)) {
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
