// SPDX-License-Identifier: Apache-2.0
// The lanes family (taught in chapter 09), narrow rows: several rows per block, a group of lanes
// per row.
//
// The general launcher gives each row a block sized to it. A 576-wide bf16 row is 72 chunks: a
// block of 96 threads (three warps, 24 of them idle), two __syncthreads() per reduction, and a
// block that finishes after moving 2.3 KB. Here a group of kLanes lanes (a power of two, at most a
// warp) holds one row in registers and reduces it with shuffles alone: no shared memory, no
// barrier, and kNarrowThreads / kLanes rows per block.
#include "balanced.cuh"
#include "configured_launch.cuh"
#include "normlab/check.hpp"
#include "normlab/device/reduce.cuh"
#include "row_norm.cuh"

namespace normlab::kernels::configured {

namespace {

using device::group_sum;
using device::load_chunk;
using device::Vector;

// [narrow]
// What changed from the general launcher's norm_in_registers: the block holds kNarrowThreads /
// kLanes rows, one per group of kLanes lanes, and the statistics are summed over the group with
// shuffles only. The shuffles name the whole warp, so every lane of it
// must reach them the same number of times: the loop walks blocks of rows, and a group past
// the last row loads nothing (cols 0: every chunk reads as zero), computes, and stores nothing.
// Registers: __launch_bounds__(256, kMinBlocks) caps a thread at 65536 / (256 * kMinBlocks),
// so at least kMinBlocks blocks, kMinBlocks * 256 / kLanes rows, fit an SM.
// kBalanced (LayerNorm, every lane holding kVectors whole chunks): the statistics in one group
// reduction (balanced.cuh) instead of chapter 07's two. kHeld: the parameters loaded with the
// row and kept in registers (chapter 07's norm_row_in_registers says why).
// kTwoLevel: x's rows may be in groups (row_of), the instances launch_narrow gives a head view.
template <typename T, typename P, int kLanes, int kVectors, int kMinBlocks, bool kCentre, bool kAdd,
          bool kAligned, bool kResidualFirst, bool kBalanced, bool kHeld, bool kTwoLevel>
__global__ void __launch_bounds__(kNarrowThreads, kMinBlocks) norm_narrow(const Tensors<T, P> t) {
  constexpr int kWidth = Vector<T>::kWidth;
  constexpr int kRowsPerBlock = kNarrowThreads / kLanes;
  const int lane = static_cast<int>(threadIdx.x) % kLanes;
  const int group = static_cast<int>(threadIdx.x) / kLanes;
  for (std::int64_t first_row = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock;
       first_row < t.rows; first_row += static_cast<std::int64_t>(gridDim.x) * kRowsPerBlock) {
    const std::int64_t r = first_row + group;
    const bool live = r < t.rows;
    const auto row = row_of<kAligned, kTwoLevel>(t, live ? r : first_row);
    const std::int64_t cols = live ? t.cols : 0;
    // As in chapter 07's row, with kResidualFirst every chunk of x and of the residual is
    // requested before any h is stored.
    Vector<T> h[kVectors];  // x, or x + residual rounded to T
    Vector<T> residual[kResidualFirst ? kVectors : 1];
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      const std::int64_t first = chunk_start(v * kLanes + lane, kWidth, row.lead);
      h[v] = load_chunk<kAligned>(row.x, first, cols, true);
      if constexpr (kResidualFirst) {
        residual[v] = load_chunk<kAligned>(row.residual, first, cols, row.residual_aligned);
      } else if (kAdd && live) {
        h[v] = add_residual(t, row, first, h[v]);
      }
    }
    if (kResidualFirst && live) {
#pragma unroll
      for (int v = 0; v < kVectors; ++v) {
        const std::int64_t first = chunk_start(v * kLanes + lane, kWidth, row.lead);
        h[v] = add_residual(t, row, first, h[v], residual[v]);
      }
    }
    Affine<kWidth> held[kHeld ? kVectors : 1];
#pragma unroll
    for (int v = 0; kHeld && v < kVectors; ++v)
      load_affine(t, row, chunk_start(v * kLanes + lane, kWidth, row.lead), held[v]);
    // Chapter 07's two passes over the registers, summed over the row's group of lanes: lane l
    // of the group keeps chunks l, l + kLanes, ...
    Statistics s;
    if constexpr (kBalanced) {
      s = group_balanced_statistics<kLanes>(h, t.cols, t.eps);
    } else {
      s = row_statistics<kCentre, kAligned, kVectors>([&](int v) { return h[v]; },
                                                      Slice{lane, kLanes}, row.lead, t.cols, t.eps,
                                                      [](float v) { return group_sum<kLanes>(v); });
    }
    if (!live) continue;
    if (lane == 0) {
      if (kCentre && t.mean != nullptr) t.mean[r] = s.mean;
      if (t.rstd != nullptr) t.rstd[r] = s.rstd;
    }
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      const std::int64_t first = chunk_start(v * kLanes + lane, kWidth, row.lead);
      if constexpr (kHeld) {
        normalise_and_store(t, row, first, s, h[v], held[v]);
      } else {
        normalise_and_store(t, row, first, s, h[v]);
      }
    }
  }
}
// [narrow]

}  // namespace

template <typename T, typename P, bool kCentre, bool kAdd>
void launch_narrow(const Tensors<T, P>& t, const Choice& choice, cudaStream_t stream) {
  with_config<Kind::narrow>(choice.config, [&]<int kConfig>() {
    constexpr Config c = kConfigs[kConfig];
    if constexpr (kCentre && !c.layernorm) {
      throw std::logic_error(std::string("ch09: ") + c.name + " has no LayerNorm kernel");
    } else {
      // The one-reduction statistics (balanced.cuh) on rows that fill the group exactly, up to
      // 4 vectors a lane: there is no barrier to save, only a second chain of shuffles, and with
      // 8 (narrow32x8) that no longer pays, so those keep chapter 07's two (chapter 09's worklog).
      auto launch = [&]<bool kTwoLevel>() {
        constexpr Config config = kConfigs[kConfig];  // a constant here too
        if constexpr (kCentre && config.aligned && config.vectors <= 4) {
          if (fills_exactly<T>(t.cols, config.lanes, config.vectors)) {
            norm_narrow<T, P, config.lanes, config.vectors, config.min_blocks, kCentre, kAdd,
                        config.aligned, kAdd && config.residual_first, true, config.held, kTwoLevel>
                <<<choice.blocks, choice.threads, 0, stream>>>(t);
            return;
          }
        }
        norm_narrow<T, P, config.lanes, config.vectors, config.min_blocks, kCentre, kAdd,
                    config.aligned, kAdd && config.residual_first, false, config.held, kTwoLevel>
            <<<choice.blocks, choice.threads, 0, stream>>>(t);
      };
      // x's rows in groups (a head view; never with add + norm): the kTwoLevel instances.
      if constexpr (!kAdd) {
        if (t.x_group_rows > 1) return launch.template operator()<true>();
      }
      launch.template operator()<false>();
    }
  });
  NORMLAB_CHECK_LAUNCH();
}

#define NORMLAB_CONFIGURED_NARROW(T, P, kCentre, kAdd)                                  \
  template void launch_narrow<T, P, kCentre, kAdd>(const Tensors<T, P>&, const Choice&, \
                                                   cudaStream_t);
NORMLAB_FORWARD_FOR_EACH_CALL(NORMLAB_CONFIGURED_NARROW)

}  // namespace normlab::kernels::configured
