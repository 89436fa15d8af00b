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
#include "normlab/device/reduce.cuh"
#include "row_norm.cuh"

namespace normlab::ch09 {

using device::Vector;

namespace {

// [balanced]
// LayerNorm's statistics in one block reduction, for rows where every thread holds kVectors
// whole chunks of the row (cols = threads x kVectors x width): each thread's mean and sum of
// squared deviations (M2) from two passes over its registers, then merged pairwise (Chan's
// parallel update). With equal counts n on both sides a merge needs no division: the mean is
// the average of the two, and M2 = M2a + M2b + (mean_b - mean_a)^2 n / 2. The warps' results
// are merged in order after one barrier. Used by the 4-vector configurations (the dispatcher's
// block4_128x6 and block4_256x3: 4 to 8 warps a row), where it was measured to pay: H100,
// 2026-11-26, chapter 09's LayerNorm, two rounds, two-pass against one reduction: bf16 16384 x 5120
// 131.1 against 120.4 us, 16384 x 4096 99.1 against 97.8, fp32 4096 x 4096 53.7 against 52.8; bf16
// 4096 x 8192, 32768 x 2048 and fp16 16384 x 4096 even. With 2 vectors a thread (8 to 16 warps,
// and the few-row block1's 16) its in-order merge of the warps cost more than it saved: bf16
// 1 x 4096 6.4 against 6.8 us, 16384 x 4096 under block2_256x4 108.5 against 110.4.
template <typename T, int kVectors>
__device__ __forceinline__ ch07::Statistics balanced_statistics(const Vector<T> (&h)[kVectors],
                                                                std::int64_t cols, float eps) {
  constexpr int kWidth = Vector<T>::kWidth;
  float x[kVectors][kWidth];
#pragma unroll
  for (int v = 0; v < kVectors; ++v)
    device::to_floats(h[v], x[v]);
  float mean = 0.0f;
#pragma unroll
  for (int v = 0; v < kVectors; ++v)
#pragma unroll
    for (int j = 0; j < kWidth; ++j)
      mean += x[v][j];
  float count = kVectors * kWidth;  // elements behind each side of the next merge
  mean *= 1.0f / count;
  float m2 = 0.0f;
#pragma unroll
  for (int v = 0; v < kVectors; ++v)
#pragma unroll
    for (int j = 0; j < kWidth; ++j) {
      const float d = x[v][j] - mean;
      m2 += d * d;
    }
#pragma unroll
  for (int lanes = 1; lanes < device::kWarpSize; lanes *= 2) {
    const float other_mean = __shfl_xor_sync(device::kFullMask, mean, lanes);
    const float other_m2 = __shfl_xor_sync(device::kFullMask, m2, lanes);
    const float d = other_mean - mean;
    mean = 0.5f * (mean + other_mean);
    m2 = m2 + other_m2 + d * d * (0.5f * count);
    count *= 2.0f;
  }
  __shared__ float2 per_warp[device::kWarpSize];
  const int warp = static_cast<int>(threadIdx.x) / device::kWarpSize;
  if (static_cast<int>(threadIdx.x) % device::kWarpSize == 0) per_warp[warp] = {mean, m2};
  __syncthreads();
  const int warps = static_cast<int>(blockDim.x) / device::kWarpSize;
  mean = per_warp[0].x;
  m2 = per_warp[0].y;
  for (int w = 1; w < warps; ++w) {  // w warps merged so far, count elements each
    const float2 next = per_warp[w];
    const float d = next.x - mean;
    const float share = __frcp_rn(static_cast<float>(w + 1));
    mean += d * share;
    m2 += next.y + d * d * (count * static_cast<float>(w) * share);
  }
  __syncthreads();  // the slots are read before the next row writes them
  return {mean, rsqrtf(m2 / static_cast<float>(cols) + eps)};
}
// [balanced]

// [block]
// Chapter 07's row in registers (norm_row_in_registers), under this configuration's cap.
// kBalanced (LayerNorm, 4 vectors a thread, every thread holding kVectors whole chunks): the
// statistics in one reduction (balanced_statistics) instead of chapter 07's two.
template <typename T, typename P, int kVectors, int kMaxThreads, int kMinBlocks, bool kCentre,
          bool kAdd, bool kAligned, bool kResidualFirst, bool kBalanced>
__global__ void __launch_bounds__(kMaxThreads, kMinBlocks) norm_block(const Tensors<T, P> t) {
  for (std::int64_t r = blockIdx.x; r < t.rows; r += gridDim.x) {
    if constexpr (kBalanced) {
      const auto row = ch07::row_of<kAligned>(t, r);
      const ch07::Slice slice = ch07::block_slice();
      Vector<T> h[kVectors];
      ch07::load_row<T, P, kVectors, kAdd, kAligned, kResidualFirst>(t, row, slice, h);
      const ch07::Statistics s = balanced_statistics(h, t.cols, t.eps);
      ch07::write_statistics(t, r, s, kCentre, slice);
#pragma unroll
      for (int v = 0; v < kVectors; ++v)
        ch07::normalise_and_store(
            t, row, ch07::chunk_start(slice.chunk(v), Vector<T>::kWidth, row.lead), s, h[v]);
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
    if constexpr (kCentre && c.aligned && c.vectors == 4) {
      if (t.cols == static_cast<std::int64_t>(choice.threads) * c.vectors * Vector<T>::kWidth) {
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
