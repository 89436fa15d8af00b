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
#include "launch.cuh"
#include "normlab/check.hpp"
#include "row_norm.cuh"

namespace normlab::ch09 {

namespace {

// [block]
// Chapter 07's row in registers (norm_row_in_registers), under this configuration's cap.
template <typename T, typename P, int kVectors, int kMaxThreads, int kMinBlocks, bool kCentre,
          bool kAdd, bool kAligned, bool kResidualFirst>
__global__ void __launch_bounds__(kMaxThreads, kMinBlocks) norm_block(const Tensors<T, P> t) {
  for (std::int64_t r = blockIdx.x; r < t.rows; r += gridDim.x)
    ch07::norm_row_in_registers<T, P, kVectors, kCentre, kAdd, kAligned, kResidualFirst>(t, r);
}
// [block]

}  // namespace

template <typename T, typename P, bool kCentre, bool kAdd>
void launch_block(const Tensors<T, P>& t, const Choice& choice, cudaStream_t stream) {
  with_config<Kind::block>(choice.config, [&]<int kConfig>() {
    constexpr Config c = kConfigs[kConfig];
    norm_block<T, P, c.vectors, c.max_threads, c.min_blocks, kCentre, kAdd, c.aligned,
               kAdd && c.residual_first><<<choice.blocks, choice.threads, 0, stream>>>(t);
  });
  NORMLAB_CHECK_LAUNCH();
}

#define NORMLAB_CH09_BLOCK(T, P, kCentre, kAdd)                                        \
  template void launch_block<T, P, kCentre, kAdd>(const Tensors<T, P>&, const Choice&, \
                                                  cudaStream_t);
NORMLAB_CH07_FOR_EACH_CALL(NORMLAB_CH09_BLOCK)

}  // namespace normlab::ch09
