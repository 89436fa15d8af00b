// SPDX-License-Identifier: Apache-2.0
/// @file row_backward.cuh
/// @brief The backward family's device code: dx of one row with the row of x and dy in registers,
/// each thread's column sums of dy * x_hat and dy kept in fp32 registers across the rows its block
/// walks, and the fixed-order sum of the blocks' partial rows.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "backward.cuh"
#include "normlab/device/reduce.cuh"
#include "row_io.cuh"

namespace normlab::kernels::backward {

using device::block_reduce;
using device::block_sum;
using device::from_float;
using device::from_floats;
using device::load_chunk;
using device::store_chunk;
using device::to_float;
using device::to_floats;
using device::Vector;

// The largest block a kernel keeping kVectors vectors of x and of dy, and kVectors * width fp32
// column sums (LayerNorm: twice), may have: 512 threads get 128 registers each, 384 get 170.
// The bound is what lets each thread keep them all without spilling (the SASS test checks).
template <typename T, int kVectors>
inline constexpr int kMostThreads = kVectors == 2 || (kVectors == 4 && sizeof(T) == 4) ? 512 : 384;

// Whether a thread can hold the next row's chunks as well as this one's: not in the kernels of
// the widest rows (384 threads keeping 4 vectors of 16-bit or 8 of fp32 elements), whose
// column sums already fill the registers (the build spills there).
template <typename T, int kVectors>
inline constexpr bool kCanLoadAhead = kMostThreads<T, kVectors> == 512;

// [sums]
// The two row sums dx needs, reduced in one pass: sum(g) (LayerNorm only) and sum(g * x_hat).
struct RowSums {
  float g;
  float g_xhat;
};
struct AddRowSums {
  __device__ RowSums operator()(RowSums a, RowSums b) const {
    return {a.g + b.g, a.g_xhat + b.g_xhat};
  }
};
// [sums]

// [chunk_math]
// The first pass over one chunk (x, dy and the scale in fp32): its share of the row's sums, and
// its columns' sums of dy * x_hat (and dy, LayerNorm) across the rows a thread walks.
template <bool kCentre, int kWidth>
__device__ __forceinline__ void add_chunk(const float (&x)[kWidth], const float (&dy)[kWidth],
                                          const float (&scale)[kWidth], float mean, float rstd,
                                          RowSums& partial, float (&dy_xhat)[kWidth],
                                          float (&dy_sum)[kWidth]) {
#pragma unroll
  for (int j = 0; j < kWidth; ++j) {  // outside the row dy reads 0: it adds nothing
    const float xhat = (x[j] - mean) * rstd;
    const float d = dy[j];
    if constexpr (kCentre) partial.g += d * scale[j];
    partial.g_xhat += d * scale[j] * xhat;
    dy_xhat[j] += d * xhat;
    if constexpr (kCentre) dy_sum[j] += d;
  }
}

// The second pass: dx of one chunk from the row's two means, added to @p out when add is set
// (the residual's gradient), written to @p out.
template <int kWidth>
__device__ __forceinline__ void dx_of_chunk(const float (&x)[kWidth], const float (&dy)[kWidth],
                                            const float (&scale)[kWidth], float mean, float rstd,
                                            float mean_g, float mean_g_xhat, bool add,
                                            float (&out)[kWidth]) {
#pragma unroll
  for (int j = 0; j < kWidth; ++j) {
    const float xhat = (x[j] - mean) * rstd;
    const float gj = dy[j] * scale[j];
    const float value = rstd * (gj - mean_g - xhat * mean_g_xhat);
    out[j] = add ? out[j] + value : value;
  }
}
// [chunk_math]

// The scale of kWidth columns from first on, in fp32: w, 1 + w, or 1 without a weight.
// kPredicated: a missing weight is a row of no columns, so every load is predicated off and no
// branch stands around the loads (inside a branch each load was unpacked, and waited for, at
// once). Without it the null test branches, which costs fewer registers.
template <bool kAligned, bool kPredicated, int kWidth, typename P>
__device__ void load_scale(const P* weight, bool plus_one, std::int64_t first, std::int64_t cols,
                           bool aligned, float (&scale)[kWidth]) {
  if constexpr (kPredicated) {
    load_parameters<kAligned>(weight, first, weight != nullptr ? cols : 0, aligned, scale);
    const float offset = plus_one ? 1.0f : 0.0f;
#pragma unroll
    for (int j = 0; j < kWidth; ++j)
      scale[j] = weight != nullptr ? scale[j] + offset : 1.0f;
  } else {
    if (weight == nullptr) {
#pragma unroll
      for (int j = 0; j < kWidth; ++j)
        scale[j] = 1.0f;
      return;
    }
    load_parameters<kAligned>(weight, first, cols, aligned, scale);
    if (plus_one) {
#pragma unroll
      for (int j = 0; j < kWidth; ++j)
        scale[j] += 1.0f;
    }
  }
}

// Whether this compilation is for sm_90 or newer: the only GPUs on which the choices that
// spend registers (the held weight, kHeldWeight below; two narrow blocks an SM,
// kNarrowMinBlocks) were compared and checked for spills. Built for CI's sm_75, 80 and 89 they
// spilled, so those builds do without them.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
inline constexpr bool kSm90OrNewer = false;
#else
inline constexpr bool kSm90OrNewer = true;
#endif

// [held_weight]
// The weight under a thread's chunks, as stored (one vector of P per chunk, two for fp32
// weights with 16-bit rows). A thread owns the same columns in every row, so it loads them once,
// before its first row, as it keeps their column sums; a missing weight is loaded as a row of no
// columns (every load predicated off).
// Parameters narrower than the rows (16-bit with fp32) are never held (kHeldWeight): their
// unused HeldWeight keeps one part.
template <typename T, typename P, int kVectors>
struct HeldWeight {
  static constexpr bool kNarrower = Vector<P>::kWidth > Vector<T>::kWidth;
  static constexpr int kParts = kNarrower ? 1 : Vector<T>::kWidth / Vector<P>::kWidth;
  Vector<P> part[kVectors][kParts];

  __device__ void load(const P* weight, std::int64_t cols) {
    static_assert(!kNarrower, "a weight narrower than the rows is loaded for each row");
    const std::int64_t weight_cols = weight != nullptr ? cols : 0;
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
#pragma unroll
      for (int i = 0; i < kParts; ++i) {
        const std::int64_t first =
            (v * blockDim.x + threadIdx.x) * std::int64_t{Vector<T>::kWidth} +
            i * Vector<P>::kWidth;
        part[v][i] = load_chunk<true>(weight, first, weight_cols, true);
      }
    }
  }
  // Chunk v's scale in fp32: w, 1 + w, or 1 without a weight.
  __device__ void scale(int v, bool has_weight, bool plus_one,
                        float (&out)[Vector<T>::kWidth]) const {
    static_assert(!kNarrower, "a weight narrower than the rows is loaded for each row");
    constexpr int kPartWidth = Vector<P>::kWidth;
    const float offset = plus_one ? 1.0f : 0.0f;
#pragma unroll
    for (int i = 0; i < kParts; ++i) {
      float w[kPartWidth];
      to_floats(part[v][i], w);
#pragma unroll
      for (int j = 0; j < kPartWidth; ++j)
        out[i * kPartWidth + j] = has_weight ? w[j] + offset : 1.0f;
    }
  }
};
// [held_weight]

// [hand_on]
// How a block hands on its column sums when its rows are done.
// (a) The obvious way: every block adds into one fp32 row with atomics. The order of the adds
// is the order the blocks happen to finish in, so the rounding, and the bits, change from run
// to run; and every block hits the same addresses.
struct AddAtomically {
  __device__ static float* row(float* sums, std::int64_t) { return sums; }
  __device__ static void put(float* at, float value) { atomicAdd(at, value); }
};
// (b) The deterministic way: every block stores its own partial row; sum_partials adds them.
struct StorePartialRow {
  __device__ static float* row(float* sums, std::int64_t cols) {
    return sums + static_cast<std::int64_t>(blockIdx.x) * cols;
  }
  __device__ static void put(float* at, float value) { *at = value; }
};
// [hand_on]

// What the kernel reads of one row: its chunks of x and dy, and the statistics forward saved.
template <typename T, int kVectors>
struct RowInput {
  Vector<T> x[kVectors];
  Vector<T> dy[kVectors];
  float mean;
  float rstd;
};

// Chunk v of row r of x and dy, into @p in.
template <typename T, typename P, int kVectors, bool kAligned, bool kTwoLevel>
__device__ void load_row_chunk(const Gradients<T, P>& g, std::int64_t r, int v,
                               RowInput<T, kVectors>& in) {
  constexpr int kWidth = Vector<T>::kWidth;
  const T* x = x_row<kTwoLevel>(g, r);
  const T* dy = g.dy + r * g.dy_stride;
  const std::int64_t first = (v * blockDim.x + threadIdx.x) * std::int64_t{kWidth};
  in.x[v] = load_chunk<kAligned>(x, first, g.cols, kAligned || chunks_aligned(x, 0));
  in.dy[v] = load_chunk<kAligned>(dy, first, g.cols, kAligned || chunks_aligned(dy, 0));
}

template <typename T, typename P, int kVectors, bool kCentre>
__device__ void load_row_statistics(const Gradients<T, P>& g, std::int64_t r,
                                    RowInput<T, kVectors>& in) {
  in.mean = kCentre ? g.saved_mean[r] : 0.0f;
  in.rstd = g.saved_rstd[r];
}

// Row r of what the dx pass writes and adds: dx, and dresidual where given (null otherwise),
// each with whether its chunks lie on the 16-byte grid.
template <typename T>
struct OutputRow {
  T* dx;
  const T* dresidual;
  bool dx_aligned, dresidual_aligned;
};

template <bool kAligned, typename T, typename P>
__device__ OutputRow<T> output_row(const Gradients<T, P>& g, std::int64_t r) {
  T* dx = g.dx + r * g.dx_stride;
  const T* dresidual = g.dresidual ? g.dresidual + r * g.dresidual_stride : nullptr;
  return {dx, dresidual, kAligned || chunks_aligned(dx, 0),
          kAligned || chunks_aligned(dresidual, 0)};
}

// [one_row]
// The gradients of a call of one row, from its block's column sums: each rounded to P as
// sum_partials rounds the sum of one partial row (0 + s: the same bits, -0 becoming +0). The
// element of sums[v][j] is column(v, j).
template <bool kCentre, typename T, typename P, int kVectors, int kWidth, typename Column>
__device__ void write_gradients(const Gradients<T, P>& g, const float (&dy_xhat)[kVectors][kWidth],
                                const float (&dy_sum)[kCentre ? kVectors : 1][kWidth],
                                Column column) {
#pragma unroll
  for (int v = 0; v < kVectors; ++v) {
#pragma unroll
    for (int j = 0; j < kWidth; ++j) {
      const std::int64_t c = column(v, j);
      if (c >= g.cols) continue;
      if (g.dweight != nullptr) g.dweight[c] = from_float<P>(0.0f + dy_xhat[v][j]);
      if constexpr (kCentre) {
        if (g.dbias != nullptr) g.dbias[c] = from_float<P>(0.0f + dy_sum[v][j]);
      }
    }
  }
}
// [one_row]

// What is new against chapter 07: the block keeps two rows (x and dy) and needs two sums of
// the row, reduced in one pass; and besides each row's dx it owes a sum over all rows per
// column. Chunks follow the columns (chunk c holds columns [c * width, (c + 1) * width)), not
// memory's 16-byte grid, so a thread owns the same columns in every row and can keep their
// sums of dy * x_hat and dy in fp32 registers while the block walks rows blockIdx.x,
// blockIdx.x + gridDim.x, ...; at the end HandOn writes them out once. A misaligned row moves
// element by element (no peeling: its columns must not move between threads).
// kAhead: the block walks its rows one behind its loads. The next row's x, dy and statistics
// are requested before this row's reduction, so they are on their way while the block waits
// at its barrier and writes dx, instead of after (a persistent grid has no other block of the
// SM that could start a row meanwhile). It costs a row's worth of registers, which may cost a
// block an SM: backward_launch.cuh takes it only where it does not.
template <typename T, typename P, int kVectors, bool kCentre, bool kAligned, typename HandOn,
          bool kAhead = false, bool kTwoLevel = false>
__global__ void __launch_bounds__(kMostThreads<T, kVectors>, 1)
    backward_rows(const Gradients<T, P> g, float* sums, std::int64_t sums_rows) {
  static_assert(!kAhead || kCanLoadAhead<T, kVectors>, "no registers for a second row");
  constexpr int kWidth = Vector<T>::kWidth;
  float dy_xhat[kVectors][kWidth] = {};
  float dy_sum[kCentre ? kVectors : 1][kWidth] = {};
  const bool weight_aligned = kAligned || chunks_aligned(g.weight, 0);
  const float inverse_cols = 1.0f / static_cast<float>(g.cols);
  auto load_row = [&](std::int64_t r, RowInput<T, kVectors>& into) {
    load_row_statistics<T, P, kVectors, kCentre>(g, r, into);
#pragma unroll
    for (int v = 0; v < kVectors; ++v)
      load_row_chunk<T, P, kVectors, kAligned, kTwoLevel>(g, r, v, into);
  };
  // A row's chunks are all requested before any is used, so that their loads are in flight
  // together: loaded where each was first used, every chunk of a row waited for the one before
  // it (the weight's load and its null test stood between them). Rows off the 16-byte grid
  // still load chunk by chunk: loading them whole spilled the 16-bit 4-vector RMSNorm kernels.
  constexpr bool kWholeRow = kAhead || kAligned;
  // The weight's loads predicated (load_scale), no branch between them and the row's: LayerNorm,
  // and fp32 RMSNorm. Not 16-bit RMSNorm: predicated, its kernel takes more registers and loses a
  // block an SM, worth more than the branch (chapter 08's worklog has the register counts and the
  // figures). Rows off the 16-byte grid spill with it.
  constexpr bool kPredicatedWeight = kAligned && (kCentre || sizeof(T) == 4);
  // 16-bit LayerNorm, aligned, 2 vectors a thread: the weight is held in registers for all the
  // block's rows (HeldWeight), so no row waits on it (chapter 08's worklog has the figures). Not
  // for RMSNorm: where its kernel runs 3 blocks an SM the held weight's registers cost it one,
  // worth more than the wait saved. Not for fp32, where it gained nothing, nor wider kernels
  // (they spill).
  // Chosen on sm_90 only: built for sm_75, 80 and 89 these kernels spill (CI's older-GPU
  // build), so there the weight is loaded for each row as before. And chosen with weights in
  // the rows' dtype only: fp32 weights take a thread twice the registers (16, not 8), and with
  // dx stored as one 128-bit store asked for by name (store_chunk) the fp16 kernel that loads
  // ahead spilled.
  constexpr bool kHeldWeight = kSm90OrNewer && kAligned && kVectors == 2 && kCentre &&
                               sizeof(T) == 2 && sizeof(P) == sizeof(T);
  // fp32 rows off the 16-byte grid: after the first pass a chunk of dy is needed only as
  // g = dy * scale, which fits the same registers, so it is kept in their place and the dx pass
  // loads no weight (there element by element, each load a round trip of its own; chapter 08's
  // worklog has the figures). Not for aligned rows, whose weight comes in whole vectors: there it
  // did not pay, nor 16-bit rows (g would be rounded to 16 bits), nor the
  // 8-vector kernel (fp32 RMSNorm past 8192 columns), which spills with it.
  constexpr bool kKeepG = sizeof(T) == 4 && kVectors <= 4 && !kAligned;
  // [row_loop]
  HeldWeight<T, P, kHeldWeight ? kVectors : 1> held;
  if constexpr (kHeldWeight) held.load(g.weight, g.cols);
  const bool has_weight = g.weight != nullptr;
  auto scale_of = [&](int v, std::int64_t first, float(&scale)[kWidth]) {
    if constexpr (kHeldWeight) {
      held.scale(v, has_weight, g.weight_plus_one, scale);
    } else {
      load_scale<kAligned, kPredicatedWeight>(g.weight, g.weight_plus_one, first, g.cols,
                                              weight_aligned, scale);
    }
  };
  RowInput<T, kVectors> in;
  if (kAhead && blockIdx.x < g.rows) load_row(blockIdx.x, in);
  for (std::int64_t r = blockIdx.x; r < g.rows; r += gridDim.x) {
    if constexpr (!kAhead && kWholeRow) load_row(r, in);
    if constexpr (!kWholeRow) load_row_statistics<T, P, kVectors, kCentre>(g, r, in);
    RowSums partial{0.0f, 0.0f};
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      if constexpr (!kWholeRow) load_row_chunk<T, P, kVectors, kAligned, kTwoLevel>(g, r, v, in);
      const std::int64_t first = (v * blockDim.x + threadIdx.x) * std::int64_t{kWidth};
      float scale[kWidth], x[kWidth], dy[kWidth];
      scale_of(v, first, scale);
      to_floats(in.x[v], x);
      to_floats(in.dy[v], dy);
      add_chunk<kCentre>(x, dy, scale, in.mean, in.rstd, partial, dy_xhat[v],
                         dy_sum[kCentre ? v : 0]);
      if constexpr (kKeepG) {
        float dy_scaled[kWidth];
#pragma unroll
        for (int j = 0; j < kWidth; ++j)
          dy_scaled[j] = dy[j] * scale[j];
        in.dy[v] = from_floats<T>(dy_scaled);
      }
    }
    RowInput<T, kVectors> next;
    if (kAhead && r + gridDim.x < g.rows) load_row(r + gridDim.x, next);
    // One block reduction for both sums (RMSNorm needs only the second).
    if constexpr (kCentre) {
      partial = block_reduce(partial, AddRowSums{});
    } else {
      partial.g_xhat = block_sum(partial.g_xhat);
    }
    const float mean_g = kCentre ? partial.g * inverse_cols : 0.0f;  // RMSNorm does not centre
    const float mean_g_xhat = partial.g_xhat * inverse_cols;
    const auto [dx, dresidual, dx_aligned, dresidual_aligned] = output_row<kAligned>(g, r);
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      const std::int64_t first = (v * blockDim.x + threadIdx.x) * std::int64_t{kWidth};
      float scale[kWidth];
      if constexpr (kKeepG) {
#pragma unroll
        for (int j = 0; j < kWidth; ++j)
          scale[j] = 1.0f;  // in.dy holds g = dy * scale already
      } else {
        scale_of(v, first, scale);
      }
      Vector<T> more{};
      if (dresidual) more = load_chunk<kAligned>(dresidual, first, g.cols, dresidual_aligned);
      float x[kWidth], dy[kWidth], out[kWidth];
      to_floats(in.x[v], x);
      to_floats(in.dy[v], dy);
      to_floats(more, out);
      dx_of_chunk(x, dy, scale, in.mean, in.rstd, mean_g, mean_g_xhat, dresidual != nullptr, out);
      store_chunk<kAligned>(dx, first, g.cols, dx_aligned, from_floats<T>(out));
    }
    if constexpr (kAhead) in = next;
  }
  // [row_loop]
  // The column sums may start launching now (programmatic dependent launch, sm_90): they wait
  // for this grid to finish before they read.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
  // One row, one block (sums null): its column sums are the gradients, written here as
  // sum_partials would write the sum of one partial row, and no second launch runs.
  if (sums == nullptr)
    return write_gradients<kCentre>(g, dy_xhat, dy_sum, [](int v, int j) {
      return (v * blockDim.x + threadIdx.x) * std::int64_t{kWidth} + j;
    });
  // The block's column sums, once: sums_rows rows of cols for dweight, then as many for dbias.
  float* dweight_row = HandOn::row(sums, g.cols);
  float* dbias_row = HandOn::row(sums + sums_rows * g.cols, g.cols);
  // Partial rows on the 16-byte grid take a thread's columns as float4 stores: a float at a
  // time, each store of a warp touched 32 sectors for 128 bytes.
  const bool whole_vectors =
      std::is_same_v<HandOn, StorePartialRow> && g.cols % 4 == 0 && chunks_aligned(sums, 0);
#pragma unroll
  for (int v = 0; v < kVectors; ++v) {
    const std::int64_t first = (v * blockDim.x + threadIdx.x) * std::int64_t{kWidth};
    if (whole_vectors && first + kWidth <= g.cols) {
#pragma unroll
      for (int j = 0; j < kWidth; j += 4) {
        const float* w = &dy_xhat[v][j];
        *reinterpret_cast<float4*>(dweight_row + first + j) = make_float4(w[0], w[1], w[2], w[3]);
        if constexpr (kCentre) {
          const float* b = &dy_sum[v][j];
          *reinterpret_cast<float4*>(dbias_row + first + j) = make_float4(b[0], b[1], b[2], b[3]);
        }
      }
      continue;
    }
#pragma unroll
    for (int j = 0; j < kWidth; ++j) {
      if (first + j >= g.cols) continue;
      HandOn::put(dweight_row + first + j, dy_xhat[v][j]);
      if constexpr (kCentre) HandOn::put(dbias_row + first + j, dy_sum[v][j]);
    }
  }
}

// (c) Narrow rows. backward_rows sizes a block to a row: a 576-wide bf16 row is 72 chunks, a
// block of 64 threads (28 of them idle) and a barrier per row; and the grid, up to
// kMostBlocksPerSm such blocks an SM, stores a partial row a block: column sums of about a
// quarter of dy's bytes (LayerNorm: twice; chapter 08's worklog has the case). What changed: a warp
// holds a row (lane l keeps chunks l, l + 32, ...) and reduces it with shuffles alone, no barrier;
// the block's kNarrowWarps warps walk rows kNarrowWarps at a time; and at the end the warps, which
// own the same columns, add their column sums in shared memory in warp order, so the block stores
// one partial row as before, a fixed-order sum. Rows on the 16-byte grid only.
inline constexpr int kNarrowWarps = 8;
inline constexpr int kNarrowThreads = kNarrowWarps * device::kWarpSize;
inline constexpr int kNarrowMostVectors = 4;

// Two blocks an SM (at most 128 registers a thread) where the sm_90 build then does not spill:
// every fp32 row, and 16-bit rows of up to 2 vectors a lane, or 3 but for LayerNorm with fp32
// parameters; otherwise one. Below sm_90 one (kSm90OrNewer): built for sm_89 the fp16
// LayerNorm kernel of 3 vectors spilled with two.
template <typename T, typename P, int kVectors, bool kCentre>
inline constexpr int kNarrowMinBlocks = kSm90OrNewer &&
                                                (sizeof(T) == 4 || kVectors <= 2 ||
                                                 (kVectors == 3 && !(kCentre && sizeof(P) == 4)))
                                            ? 2
                                            : 1;

// [narrow_rows]
template <typename T, typename P, int kVectors, bool kCentre, bool kTwoLevel = false>
__global__ void __launch_bounds__(kNarrowThreads, kNarrowMinBlocks<T, P, kVectors, kCentre>)
    backward_narrow(const Gradients<T, P> g, float* sums, std::int64_t sums_rows) {
  constexpr int kWidth = Vector<T>::kWidth;
  constexpr int kLanes = device::kWarpSize;
  constexpr int kMostCols = kLanes * kVectors * kWidth;
  const int lane = static_cast<int>(threadIdx.x) % kLanes;
  const int warp = static_cast<int>(threadIdx.x) / kLanes;
  auto first_of = [&](int v) { return static_cast<std::int64_t>(v * kLanes + lane) * kWidth; };
  float dy_xhat[kVectors][kWidth] = {};
  float dy_sum[kCentre ? kVectors : 1][kWidth] = {};
  const float inverse_cols = 1.0f / static_cast<float>(g.cols);
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * kNarrowWarps;
  for (std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * kNarrowWarps + warp; r < g.rows;
       r += step) {  // the same for every lane of a warp: its shuffles always meet
    const T* x = x_row<kTwoLevel>(g, r);
    const T* dy = g.dy + r * g.dy_stride;
    Vector<T> xs[kVectors], dys[kVectors];
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      xs[v] = load_chunk<true>(x, first_of(v), g.cols, true);
      dys[v] = load_chunk<true>(dy, first_of(v), g.cols, true);
    }
    const float mean = kCentre ? g.saved_mean[r] : 0.0f;
    const float rstd = g.saved_rstd[r];
    RowSums partial{0.0f, 0.0f};
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      float scale[kWidth], xf[kWidth], dyf[kWidth];
      load_scale<true, true>(g.weight, g.weight_plus_one, first_of(v), g.cols, true, scale);
      to_floats(xs[v], xf);
      to_floats(dys[v], dyf);
      add_chunk<kCentre>(xf, dyf, scale, mean, rstd, partial, dy_xhat[v], dy_sum[kCentre ? v : 0]);
    }
    partial = device::warp_reduce(partial, AddRowSums{});
    const float mean_g = kCentre ? partial.g * inverse_cols : 0.0f;
    const float mean_g_xhat = partial.g_xhat * inverse_cols;
    // [narrow_rows]
    T* dx = g.dx + r * g.dx_stride;
    const T* dresidual = g.dresidual ? g.dresidual + r * g.dresidual_stride : nullptr;
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      Vector<T> more{};
      if (dresidual) more = load_chunk<true>(dresidual, first_of(v), g.cols, true);
      float scale[kWidth], xf[kWidth], dyf[kWidth], out[kWidth];
      load_scale<true, true>(g.weight, g.weight_plus_one, first_of(v), g.cols, true, scale);
      to_floats(xs[v], xf);
      to_floats(dys[v], dyf);
      to_floats(more, out);
      dx_of_chunk(xf, dyf, scale, mean, rstd, mean_g, mean_g_xhat, dresidual != nullptr, out);
      store_chunk<true>(dx, first_of(v), g.cols, true, from_floats<T>(out));
    }
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
  // [narrow_sums]
  // One row (sums null): warp 0 walked it alone, so its column sums are the gradients.
  if (sums == nullptr) {
    if (warp == 0)
      write_gradients<kCentre>(g, dy_xhat, dy_sum, [&](int v, int j) { return first_of(v) + j; });
    return;
  }
  // The warps' column sums, added in warp order: each warp parks its sums in its row of
  // by_warp, and after a barrier thread c adds column c down the warps.
  __shared__ float by_warp[kNarrowWarps][kMostCols];
  auto hand_on_sums = [&](const float(&column_sums)[kVectors][kWidth], float* row) {
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
#pragma unroll
      for (int j = 0; j < kWidth; ++j)
        by_warp[warp][first_of(v) + j] = column_sums[v][j];
    }
    __syncthreads();
    for (std::int64_t c = threadIdx.x; c < g.cols; c += kNarrowThreads) {
      float total = 0.0f;
#pragma unroll
      for (int w = 0; w < kNarrowWarps; ++w)
        total += by_warp[w][c];
      row[c] = total;
    }
    __syncthreads();  // by_warp is read before the next call writes it
  };
  hand_on_sums(dy_xhat, StorePartialRow::row(sums, g.cols));
  if constexpr (kCentre)
    hand_on_sums(dy_sum, StorePartialRow::row(sums + sums_rows * g.cols, g.cols));
}
// [narrow_sums]

// [sum_partials]
// out[c] = the sum of partials[p * cols + c] over p < count, in fp32, in an order fixed by the
// shape alone, rounded to P once: dweight's count partial rows, then dbias's, in one launch. A
// block takes a tile of kSumGroups groups of kWidth columns (kWidth 4: one float4 a load, where
// the partial rows lie on the 16-byte grid) of either gradient; its kSumSlices slices take
// partial rows s, s + kSumSlices, ..., and the slices are then added in a fixed tree, so the
// bits depend on count and cols, never on timing nor on kWidth. count = 0 writes zeros. What
// changed: it was a launch per gradient, a block per 32 columns, 16 slices added in order (see
// sum_columns in backward_launch.cuh for why one launch and float4 loads).
inline constexpr int kSumRuns = 8;
inline constexpr int kSumSlices = kSumRuns * kSumRuns;
inline constexpr int kSumGroups = 8;
inline constexpr int kSumThreads = kSumSlices * kSumGroups;
// kMinBlocks: blocks an SM the build must leave room for. 4 caps a thread at 32 registers
// (float4 loads take 45 with 1, so 2 blocks an SM): sum_columns takes it only where the blocks
// would not fit the SMs at once otherwise.
inline constexpr int kSumOneWaveBlocks = 4;

template <int kWidth>
__host__ __device__ constexpr std::int64_t sum_tiles(std::int64_t cols) {  // of one gradient
  return (cols + kSumGroups * kWidth - 1) / (kSumGroups * kWidth);
}

// S: the partial rows' type, stride apart; RMSNorm's dbias sums the rows of dy itself (a T).
template <int kWidth, typename P, int kMinBlocks = 1, typename S = float>
__global__ void __launch_bounds__(kSumThreads, kMinBlocks)
    sum_partials(const S* partials, std::int64_t count, std::int64_t stride, std::int64_t cols,
                 P* dweight, P* dbias) {
  static_assert(kWidth == 1 || (kWidth == 4 && std::is_same_v<S, float>), "float or float4");
  __shared__ float4 slices[kSumSlices][kSumGroups];
  __shared__ float4 runs[kSumRuns][kSumGroups];
  auto add = [](float4 a, float4 b) {
    return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
  };
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
  const std::int64_t tiles = sum_tiles<kWidth>(cols);
  const bool bias = blockIdx.x >= tiles;
  P* out = bias ? dbias : dweight;
  if (out == nullptr) return;  // the whole block: no gradient of this tensor
  const S* rows = partials + (bias ? count * stride : 0);
  const std::int64_t tile = bias ? blockIdx.x - tiles : blockIdx.x;
  const int group = static_cast<int>(threadIdx.x) % kSumGroups;
  const int slice = static_cast<int>(threadIdx.x) / kSumGroups;
  const std::int64_t col = (tile * kSumGroups + group) * kWidth;
  float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  if (col < cols) {
#pragma unroll 4
    for (std::int64_t p = slice; p < count; p += kSumSlices) {
      if constexpr (kWidth == 4) {
        sum = add(sum, *reinterpret_cast<const float4*>(rows + p * stride + col));
      } else {
        sum.x += to_float(rows[p * stride + col]);
      }
    }
  }
  slices[slice][group] = sum;
  __syncthreads();
  // The slices added in a fixed tree: kSumRuns threads a group each add a run of kSumRuns
  // slices in order, then one adds the runs in order.
  if (slice < kSumRuns) {
    float4 run = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int s = slice * kSumRuns; s < (slice + 1) * kSumRuns; ++s)
      run = add(run, slices[s][group]);
    runs[slice][group] = run;
  }
  __syncthreads();
  if (slice != 0 || col >= cols) return;
  float4 total = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
  for (int r = 0; r < kSumRuns; ++r)
    total = add(total, runs[r][group]);
  const float parts[4] = {total.x, total.y, total.z, total.w};
#pragma unroll
  for (int j = 0; j < kWidth; ++j)
    out[col + j] = from_float<P>(parts[j]);
}
// [sum_partials]

}  // namespace normlab::kernels::backward
