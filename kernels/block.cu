// SPDX-License-Identifier: Apache-2.0
// The block family (taught in chapter 09), medium rows: one row per block, as in the general
// launcher, with the vectors a thread keeps and its register budget chosen per width (configs.hpp's
// table) instead of one size.
//
// The general launcher compiles its register kernel with __launch_bounds__(512, 1): the compiler
// may use up to 128 registers a thread, and used 72 on bf16 rows, so at 4096 x 8192 only 3 blocks
// of 256 threads fit an SM and DRAM stayed well short of its peak (chapter 09's page has the
// profile). Each configuration here names its own cap:
// __launch_bounds__(max_threads, min_blocks) promises min_blocks blocks of max_threads an SM,
// so the compiler keeps a thread within 65536 / (max_threads * min_blocks) registers.
#include <stdexcept>
#include <string>
#include <type_traits>

#include "balanced.cuh"
#include "configured_launch.cuh"
#include "normlab/check.hpp"
#include "row_norm.cuh"

namespace normlab::kernels::configured {

using device::Vector;

namespace {

// [block]
// Chapter 07's row in registers (norm_row_in_registers), under this configuration's cap.
// kBalanced (LayerNorm, every thread holding kVectors whole chunks; launch_block says which
// configurations take it): the statistics in one reduction (balanced.cuh) instead of chapter
// 07's two.
// kHeld: the parameters held in registers from the start instead (the held configurations).
template <typename T, typename P, int kVectors, int kMaxThreads, int kMinBlocks, bool kCentre,
          bool kAdd, bool kAligned, bool kResidualFirst, bool kBalanced, bool kHeld>
__global__ void __launch_bounds__(kMaxThreads, kMinBlocks) norm_block(const Tensors<T, P> t) {
  const bool few = t.rows <= kFewRows;
  for (std::int64_t r = blockIdx.x; r < t.rows; r += gridDim.x) {
    norm_row_in_registers<T, P, kVectors, kCentre, kAdd, kAligned, kResidualFirst, kHeld>(
        t, r, [&](const Vector<T>(&h)[kVectors], const Row<T, P, kAligned>& row) {
          // Few rows (decode): the parameters from L2 rather than DRAM (prefetch_parameters).
          // Many rows find them in L2 anyway: every row reads the same parameters.
          if (!kHeld && few) prefetch_parameters<T, P, kVectors>(t, row, block_slice());
          if constexpr (kBalanced) {
            return block_balanced_statistics(h, t.cols, t.eps);
          } else {
            return block_row_statistics<kCentre>(t, row, h);
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
    // The one-reduction statistics (balanced.cuh) where the barrier they save outweighs their
    // merge of the warps (chapter 09's page and worklog have the comparisons): the 4-vector
    // configurations (the dispatcher's block4_128x6 and block4_256x3: 4 to 8 warps a row); block1
    // for few rows (a vector a thread, up to 1024 threads), whose 16 warps cost more than they
    // saved until the warps were merged in a tree rather than in warp order; the 2-vector
    // configurations, which narrow rows of 97 to 256 chunks take (configs.cpp); and the 8-vector
    // ones (block8_256x2: 16-bit rows of 1537 to 2048 chunks) with bf16 rows and bf16 parameters
    // only. Not for fp16 rows nor fp32 parameters: built for them, three instances spilled under
    // block8_256x2's 128 registers, and fp16 rows did not gain by it.
    constexpr bool kEightBf16 =
        c.vectors == 8 && std::is_same_v<T, __nv_bfloat16> && std::is_same_v<P, __nv_bfloat16>;
    constexpr bool kAlways = c.vectors == 2 || c.vectors == 4 || kEightBf16;
    constexpr bool kForFewRows = c.max_threads == 1024;
    if constexpr (kCentre && !c.layernorm) {
      throw std::logic_error(std::string("ch09: ") + c.name + " has no LayerNorm kernel");
    } else {
      // x's rows in groups (a head view; never with add + norm) run in chapter 07's launcher,
      // whose kernels have instances that take them: this family's read one stride.
      if (!kAdd && t.x_group_rows > 1)
        return kCentre ? kernels::layernorm(t, stream) : kernels::rmsnorm(t, stream);
      if constexpr (kCentre && c.aligned && (kAlways || kForFewRows)) {
        if ((kAlways || t.rows <= kFewRows) &&
            fills_exactly<T>(t.cols, static_cast<int>(choice.threads), c.vectors)) {
          norm_block<T, P, c.vectors, c.max_threads, c.min_blocks, kCentre, kAdd, c.aligned,
                     kAdd && c.residual_first, true, c.held>
              <<<choice.blocks, choice.threads, 0, stream>>>(t);
          return;
        }
      }
      norm_block<T, P, c.vectors, c.max_threads, c.min_blocks, kCentre, kAdd, c.aligned,
                 kAdd && c.residual_first, false, c.held>
          <<<choice.blocks, choice.threads, 0, stream>>>(t);
    }
  });
  NORMLAB_CHECK_LAUNCH();
}

#define NORMLAB_CONFIGURED_BLOCK(T, P, kCentre, kAdd)                                  \
  template void launch_block<T, P, kCentre, kAdd>(const Tensors<T, P>&, const Choice&, \
                                                  cudaStream_t);
NORMLAB_FORWARD_FOR_EACH_CALL(NORMLAB_CONFIGURED_BLOCK)

}  // namespace normlab::kernels::configured
