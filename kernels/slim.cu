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
// first; otherwise each chunk's loaded after the statistics, as it is normalised. Held, every
// load goes through device::load_vector, parameters first, which keeps them in that order: the
// compiler would otherwise issue a weight's load after x's sums, just before the weight's use.
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "configured_launch.cuh"
#include "slim_row.cuh"

namespace normlab::kernels::configured {

using device::group_sum;
using device::load_vector;
using device::Vector;

namespace {

// [slim_args]
// What a slim kernel reads of its call, and no more. A launch copies the kernel's parameters to
// the GPU, and on a call of a few microseconds the bytes show: Tensors' 128 hold the fields of
// every op and layout. Here LayerNorm's bias and add + norm's residual are fields only of the ops
// that have them, and the row count and width are 32-bit (the launcher refuses more rows).
template <typename T, bool kCentre>
struct BiasArgs {};
template <typename T>
struct BiasArgs<T, true> {
  const T* bias;
};
template <typename T, bool kAdd>
struct ResidualArgs {};
template <typename T>
struct ResidualArgs<T, true> {
  const T* residual;
  T* residual_out;  ///< h = x + residual, rounded to T
  std::int64_t residual_stride;
  std::int64_t residual_out_stride;
};
template <typename T, bool kCentre, bool kAdd>
struct SlimArgs : BiasArgs<T, kCentre>, ResidualArgs<T, kAdd> {
  const T* x;
  T* y;
  const T* weight;
  float* mean;  ///< null: not written (LayerNorm only)
  float* rstd;  ///< null: not written
  std::int64_t x_stride;
  std::int64_t y_stride;
  int rows;
  int cols;
  float eps;
};
static_assert(sizeof(SlimArgs<__nv_bfloat16, false, false>) == 72 &&
                  sizeof(SlimArgs<__nv_bfloat16, true, true>) == 112,
              "a slim kernel's parameters: the op's fields only");

template <bool kCentre, bool kAdd, typename T>
SlimArgs<T, kCentre, kAdd> slim_args(const Tensors<T, T>& t) {
  SlimArgs<T, kCentre, kAdd> a{};
  a.x = t.x;
  a.y = t.y;
  a.weight = t.weight;
  a.mean = t.mean;
  a.rstd = t.rstd;
  a.x_stride = t.x_stride;
  a.y_stride = t.y_stride;
  a.rows = static_cast<int>(t.rows);
  a.cols = static_cast<int>(t.cols);
  a.eps = t.eps;
  if constexpr (kCentre) a.bias = t.bias;
  if constexpr (kAdd) {
    a.residual = t.residual;
    a.residual_out = t.residual_out;
    a.residual_stride = t.residual_stride;
    a.residual_out_stride = t.residual_out_stride;
  }
  return a;
}
// [slim_args]

// [slim]
// kLanes 0: the block holds one row. Otherwise a group of kLanes lanes holds one (a power of two,
// at most a warp), blockDim.x / kLanes rows a block, and sums with shuffles alone, as chapter 09's
// lanes family does: narrow rows then keep every lane busy and need no barrier. A group past the
// last row loads and stores nothing but still reduces, since the shuffles name the whole warp.
// The grid holds every row (the launcher sees to it), so there is no loop over rows, and a
// block's sums each have slots of their own (block_sum_in): one barrier a sum, not two.
template <typename T, int kLanes, int kVectors, int kMaxThreads, int kMinBlocks, bool kCentre,
          bool kAdd, bool kHeld>
__global__ void __launch_bounds__(kMaxThreads, kMinBlocks)
    norm_slim(const SlimArgs<T, kCentre, kAdd> a) {
  constexpr int kWidth = Vector<T>::kWidth;
  __shared__ float slots[kCentre ? 2 : 1][device::kWarpSize];  // a block row's sums
  const int rows_per_block = kLanes > 0 ? static_cast<int>(blockDim.x) / kLanes : 1;
  const int group = kLanes > 0 ? static_cast<int>(threadIdx.x) / kLanes : 0;
  const Slice slice =
      kLanes > 0 ? Slice{static_cast<int>(threadIdx.x) % kLanes, kLanes} : block_slice();
  const Vector<T> zero = device::same_bits<Vector<T>>(make_uint4(0u, 0u, 0u, 0u));
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * rows_per_block + group;
  const bool live = row < a.rows;
  const std::int64_t r = live ? row : 0;
  const int chunks = live ? a.cols / kWidth : 0;
  const T* x = a.x + r * a.x_stride;
  T* y = a.y + r * a.y_stride;
  Vector<T> h[kVectors];  // x, or x + residual rounded to T
  Vector<T> weight[kHeld ? kVectors : 1], bias[kHeld && kCentre ? kVectors : 1];
  Vector<T> residual[kAdd ? kVectors : 1];
#pragma unroll
  for (int v = 0; v < kVectors; ++v) {
    const int c = slice.offset + v * slice.stride;
    h[v] = zero;
    if (c >= chunks) continue;
    if constexpr (kHeld) {  // the parameters, then the row, in this order (load_vector)
      weight[v] = load_vector(a.weight + c * kWidth);
      if constexpr (kCentre) bias[v] = load_vector(a.bias + c * kWidth);
    }
    h[v] = kHeld ? load_vector(x + c * kWidth) : load_row_vector(x + c * kWidth);
    if constexpr (kAdd) {
      const T* at = a.residual + r * a.residual_stride + c * kWidth;
      residual[v] = kHeld ? load_vector(at) : load_row_vector(at);
    }
  }
  if constexpr (kAdd) {
    T* residual_out = a.residual_out + r * a.residual_out_stride;
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      const int c = slice.offset + v * slice.stride;
      if (c >= chunks) continue;
      h[v] = rounded_sum(h[v], residual[v]);
      device::store_vector(residual_out + c * kWidth, h[v]);
    }
  }
  int sums = 0;  // LayerNorm's second sum takes the second slots
  auto sum = [&](float v) {
    if constexpr (kLanes > 0) {
      return group_sum<kLanes>(v);
    } else {
      return device::block_sum_in(slots[sums++], v);
    }
  };
  const Statistics s = row_statistics<kCentre, true, kVectors>([&](int v) { return h[v]; }, slice,
                                                               0, a.cols, a.eps, sum);
  if (live) write_statistics(a, r, s, kCentre, slice);
#pragma unroll
  for (int v = 0; v < kVectors; ++v) {
    const int c = slice.offset + v * slice.stride;
    if (c >= chunks) continue;
    if constexpr (kHeld) {
      normalise_slim<T, kCentre>(y + c * kWidth, s, h[v], weight[v], bias[kCentre ? v : 0]);
    } else {
      const Vector<T> w = load_row_vector(a.weight + c * kWidth);
      Vector<T> b = zero;
      if constexpr (kCentre) b = load_row_vector(a.bias + c * kWidth);
      normalise_slim<T, kCentre>(y + c * kWidth, s, h[v], w, b);
    }
  }
}
// [slim]

// Configuration kConfig's kernel on @p t, a call it takes (with_slim_config has refused the
// others). A template of the configuration, so that the launcher's instances for parameters in
// another dtype, which with_slim_config refuses, never build SlimArgs.
template <int kConfig, bool kCentre, bool kAdd, typename T>
void launch_slim_config(const Tensors<T, T>& t, const Choice& choice, cudaStream_t stream,
                        const char* fn) {
  constexpr Config c = kConfigs[kConfig];
  check_argument(t.rows <= INT_MAX, fn, "rows",
                 std::string(c.name) + " takes at most 2^31 - 1 rows (one a block or group)");
  const std::int64_t rows_per_block = c.lanes > 0 ? choice.threads / c.lanes : 1;
  if (std::int64_t{choice.blocks} * rows_per_block < t.rows) {
    throw std::logic_error(std::string("ch09: ") + c.name + "'s grid must hold every row");
  }
  norm_slim<T, c.lanes, c.vectors, c.max_threads, c.min_blocks, kCentre, kAdd, c.held>
      <<<choice.blocks, choice.threads, 0, stream>>>(slim_args<kCentre, kAdd>(t));
}

}  // namespace

template <typename T, typename P, bool kCentre, bool kAdd>
void launch_slim(const Tensors<T, P>& t, const Choice& choice, cudaStream_t stream) {
  const char* fn = "kernels::configured::slim";
  with_slim_config<Kind::slim, kCentre, kAdd>(t, choice.config, fn, [&]<int kConfig>() {
    launch_slim_config<kConfig, kCentre, kAdd>(t, choice, stream, fn);
  });
  NORMLAB_CHECK_LAUNCH();
}

#define NORMLAB_CONFIGURED_SLIM(T, P, kCentre, kAdd) \
  template void launch_slim<T, P, kCentre, kAdd>(const Tensors<T, P>&, const Choice&, cudaStream_t);
NORMLAB_FORWARD_FOR_EACH_CALL(NORMLAB_CONFIGURED_SLIM)

}  // namespace normlab::kernels::configured
