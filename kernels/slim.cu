// SPDX-License-Identifier: Apache-2.0
// The slim family (taught in chapter 09): one row per block, as in the block family, or per group
// of lanes, as in the lanes family, with the registers and instructions a thread spends cut down
// to the row itself, so that an SM holds more rows at once and issues less for each.
//
// A block kernel keeps more than its row: 64-bit chunk indices, compared with 64-bit widths, each
// chunk's alignment flags, the branches for an absent weight or bias and for (1 + w), and the
// prefetch of parameters for few rows. They serve any layout, and they cost the kernel's register
// count twice or more what its row needs: fewer blocks an SM, so fewer bytes in flight. A lanes
// kernel keeps the same, and on many narrow rows their instructions, not memory, set its pace. This
// family is compiled for one kind of call only and refuses the others by name: rows on the
// 16-byte grid, a weight always given (and a bias with LayerNorm), parameters in the activations'
// dtype, no (1 + w), x one stride a row. Each row's base addresses are computed once and its
// chunks are 32-bit offsets from them. The arithmetic is row_norm.cuh's, step for step.
//
// kHeld: each chunk's weight (and bias) loaded with the row, before the statistics, and kept as
// loaded (one vector each) where the block family's held configurations widen them to fp32
// first; otherwise each chunk's loaded after the statistics, as it is normalised.
#include <string>

#include "configured_launch.cuh"
#include "slim_row.cuh"

namespace normlab::kernels::configured {

using device::block_sum;
using device::group_sum;
using device::load_vector;
using device::Vector;

namespace {

// [slim]
// kLanes 0: the block holds one row. Otherwise a group of kLanes lanes holds one (a power of two,
// at most a warp), blockDim.x / kLanes rows a block, and sums with shuffles alone, as chapter 09's
// lanes family does: narrow rows then keep every lane busy and need no barrier. A group past the
// last row loads and stores nothing but still reduces, since the shuffles name the whole warp.
template <typename T, int kLanes, int kVectors, int kMaxThreads, int kMinBlocks, bool kCentre,
          bool kAdd, bool kHeld>
__global__ void __launch_bounds__(kMaxThreads, kMinBlocks) norm_slim(const Tensors<T, T> t) {
  constexpr int kWidth = Vector<T>::kWidth;
  const int rows_per_block = kLanes > 0 ? static_cast<int>(blockDim.x) / kLanes : 1;
  const int group = kLanes > 0 ? static_cast<int>(threadIdx.x) / kLanes : 0;
  const Slice slice =
      kLanes > 0 ? Slice{static_cast<int>(threadIdx.x) % kLanes, kLanes} : block_slice();
  const Vector<T> zero = device::same_bits<Vector<T>>(make_uint4(0u, 0u, 0u, 0u));
  for (std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * rows_per_block; first < t.rows;
       first += static_cast<std::int64_t>(gridDim.x) * rows_per_block) {
    const bool live = first + group < t.rows;
    const std::int64_t r = live ? first + group : first;
    const int chunks = live ? static_cast<int>(t.cols / kWidth) : 0;
    const T* x = t.x + r * t.x_stride;
    const T* residual_in = kAdd ? t.residual + r * t.residual_stride : nullptr;
    T* y = t.y + r * t.y_stride;
    Vector<T> h[kVectors];  // x, or x + residual rounded to T
    Vector<T> weight[kHeld ? kVectors : 1], bias[kHeld && kCentre ? kVectors : 1];
    Vector<T> residual[kAdd ? kVectors : 1];
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      const int c = slice.offset + v * slice.stride;
      h[v] = zero;
      if (c >= chunks) continue;
      h[v] = load_row_vector(x + c * kWidth);
      if constexpr (kAdd) residual[v] = load_row_vector(residual_in + c * kWidth);
      if constexpr (kHeld) {
        weight[v] = load_vector(t.weight + c * kWidth);
        if constexpr (kCentre) bias[v] = load_vector(t.bias + c * kWidth);
      }
    }
    if constexpr (kAdd) {
      T* residual_out = t.residual_out + r * t.residual_out_stride;
#pragma unroll
      for (int v = 0; v < kVectors; ++v) {
        const int c = slice.offset + v * slice.stride;
        if (c >= chunks) continue;
        h[v] = rounded_sum(h[v], residual[v]);
        device::store_vector(residual_out + c * kWidth, h[v]);
      }
    }
    auto sum = [](float v) {
      if constexpr (kLanes > 0) {
        return group_sum<kLanes>(v);
      } else {
        return block_sum(v);
      }
    };
    const Statistics s = row_statistics<kCentre, true, kVectors>([&](int v) { return h[v]; }, slice,
                                                                 0, t.cols, t.eps, sum);
    if (live) write_statistics(t, r, s, kCentre, slice);
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      const int c = slice.offset + v * slice.stride;
      if (c >= chunks) continue;
      if constexpr (kHeld) {
        normalise_slim<T, kCentre>(y + c * kWidth, s, h[v], weight[v], bias[kCentre ? v : 0]);
      } else {
        const Vector<T> w = load_row_vector(t.weight + c * kWidth);
        const Vector<T> b = kCentre ? load_row_vector(t.bias + c * kWidth) : zero;
        normalise_slim<T, kCentre>(y + c * kWidth, s, h[v], w, b);
      }
    }
  }
}
// [slim]

}  // namespace

template <typename T, typename P, bool kCentre, bool kAdd>
void launch_slim(const Tensors<T, P>& t, const Choice& choice, cudaStream_t stream) {
  with_slim_config<Kind::slim, kCentre, kAdd>(
      t, choice.config, "kernels::configured::slim", [&]<int kConfig>() {
        constexpr Config c = kConfigs[kConfig];
        norm_slim<T, c.lanes, c.vectors, c.max_threads, c.min_blocks, kCentre, kAdd, c.held>
            <<<choice.blocks, choice.threads, 0, stream>>>(t);
      });
  NORMLAB_CHECK_LAUNCH();
}

#define NORMLAB_CONFIGURED_SLIM(T, P, kCentre, kAdd) \
  template void launch_slim<T, P, kCentre, kAdd>(const Tensors<T, P>&, const Choice&, cudaStream_t);
NORMLAB_FORWARD_FOR_EACH_CALL(NORMLAB_CONFIGURED_SLIM)

}  // namespace normlab::kernels::configured
