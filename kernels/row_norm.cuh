// SPDX-License-Identifier: Apache-2.0
/// @file row_norm.cuh
/// @brief Row statistics and normalisation (taught in chapter 07): h = x + r rounded to the dtype,
/// the statistics of a row in fp32, y rounded once, and the two kernels built from them (the row in
/// registers; rows too wide for registers streamed). The other forward families include it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "normlab/device/reduce.cuh"
#include "normlab/device/welford.cuh"
#include "row_io.cuh"

namespace normlab::kernels {

using device::block_sum;

// The largest block for a kernel whose threads keep kVectors vectors of the row: an SM's 65536
// registers must hold one block, so 512 threads may use 128 registers each and 384 threads 170.
// The 1 in __launch_bounds__(threads, 1) lets the compiler use them all rather than spill
// (kLeastBlocks below names the one case that needs 2).
template <int kVectors>
inline constexpr int kMostThreads = kVectors <= 4 ? 512 : 384;
// Blocks an SM must hold at the most threads: 2 for aligned fp32 rows of 4 vectors a thread,
// so their registers stay within 64 a thread. They need about 62, but nothing held them there:
// at 66 (LayerNorm, after the Slice change) a block of 512 threads took 33792 registers, an SM
// held one block instead of two, and fp32 LayerNorm lost much of its share of the copy roof
// (chapter 07's page has the figures). 16-bit rows with fp32 parameters, and misaligned rows,
// need more.
template <typename T, int kVectors, bool kAligned>
inline constexpr int kLeastBlocks = sizeof(T) == 4 && kVectors == 4 && kAligned ? 2 : 1;
inline constexpr int kStreamingThreads = 512;

struct Statistics {
  float mean;  // 0 for RMSNorm
  float rstd;
};

// [rounding]
// h = x + r in fp32, rounded to T; add_residual stores it as the new residual. The norm is taken
// of this rounded h, the value the next layer will read back, not of the fp32 sum.
template <typename T>
__device__ __forceinline__ Vector<T> rounded_sum(const Vector<T>& x, const Vector<T>& r) {
  constexpr int kWidth = Vector<T>::kWidth;
  float xs[kWidth], rs[kWidth];
  to_floats(x, xs);
  to_floats(r, rs);
#pragma unroll
  for (int j = 0; j < kWidth; ++j)
    xs[j] += rs[j];
  return from_floats<T>(xs);
}

// The same, stored as the new residual.
template <typename T, typename P, bool kAligned>
__device__ Vector<T> add_residual(const Tensors<T, P>& t, const Row<T, P, kAligned>& row,
                                  std::int64_t first, const Vector<T>& x, const Vector<T>& r) {
  const Vector<T> h = rounded_sum(x, r);
  store_chunk<kAligned>(row.residual_out, first, t.cols, row.residual_out_aligned, h);
  return h;
}

// The same, loading the chunk's residual first.
template <typename T, typename P, bool kAligned>
__device__ Vector<T> add_residual(const Tensors<T, P>& t, const Row<T, P, kAligned>& row,
                                  std::int64_t first, const Vector<T>& x) {
  return add_residual(t, row, first, x,
                      load_chunk<kAligned>(row.residual, first, t.cols, row.residual_aligned));
}

// The scale of (1 + w) weights: the weight as loaded, plus one. Only such calls pay the add: every
// other call would spend an instruction an element adding zero, and at a row's element rate a
// kernel issues little else. Without a weight the scale is 1 already.
template <typename T, typename P, typename R, int kWidth>
__device__ __forceinline__ void plus_one(const Tensors<T, P, R>& t, float (&scale)[kWidth]) {
  if (t.weight == nullptr || !t.weight_plus_one) return;
#pragma unroll
  for (int j = 0; j < kWidth; ++j)
    scale[j] += 1.0f;
}

// y = (y - mean) * rstd * scale + shift in fp32, element by element, y coming in as a chunk of
// the row widened to fp32: the arithmetic of every forward kernel, before its one rounding.
template <int kWidth>
__device__ __forceinline__ void normalise(float (&y)[kWidth], Statistics s,
                                          const float (&scale)[kWidth],
                                          const float (&shift)[kWidth]) {
#pragma unroll
  for (int j = 0; j < kWidth; ++j) {
    const float normalised = (y[j] - s.mean) * s.rstd;
    y[j] = normalised * scale[j] + shift[j];
  }
}

// y = (h - mean) * rstd * scale + shift, all in fp32, rounded to T once. h: a chunk of the row
// as the statistics saw it, a Vector<T> (or an fp32 stream's Fp32Chunk, fp32_residual.cuh).
template <typename T, typename P, bool kAligned, typename R, typename H>
__device__ void normalise_and_store(const Tensors<T, P, R>& t, const Row<T, P, kAligned, R>& row,
                                    std::int64_t first, Statistics s, const H& h) {
  constexpr int kWidth = Vector<T>::kWidth;
  float scale[kWidth], shift[kWidth];
  if (t.weight != nullptr) {
    load_parameters<kAligned>(t.weight, first, t.cols, row.weight_aligned, scale);
  } else {
#pragma unroll
    for (int j = 0; j < kWidth; ++j)
      scale[j] = 1.0f;
  }
  if (t.bias != nullptr) {
    load_parameters<kAligned>(t.bias, first, t.cols, row.bias_aligned, shift);
  } else {
#pragma unroll
    for (int j = 0; j < kWidth; ++j)
      shift[j] = 0.0f;
  }
  float y[kWidth];
  to_floats(h, y);
  plus_one(t, scale);
  normalise(y, s, scale, shift);
  store_chunk<kAligned>(row.y, first, t.cols, row.y_aligned, from_floats<T>(y));
}

// [rounding]

// A chunk's weight (1 without one) and bias (0 without one) in fp32, loaded ahead of its
// normalisation (chapter 09's held configurations).
template <int kWidth>
struct Affine {
  float scale[kWidth];
  float shift[kWidth];
};

template <typename T, typename P, bool kAligned>
__device__ void load_affine(const Tensors<T, P>& t, const Row<T, P, kAligned>& row,
                            std::int64_t first, Affine<Vector<T>::kWidth>& a) {
  constexpr int kWidth = Vector<T>::kWidth;
  if (t.weight != nullptr) {
    load_parameters<kAligned>(t.weight, first, t.cols, row.weight_aligned, a.scale);
    plus_one(t, a.scale);
  } else {
#pragma unroll
    for (int j = 0; j < kWidth; ++j)
      a.scale[j] = 1.0f;
  }
  if (t.bias != nullptr) {
    load_parameters<kAligned>(t.bias, first, t.cols, row.bias_aligned, a.shift);
  } else {
#pragma unroll
    for (int j = 0; j < kWidth; ++j)
      a.shift[j] = 0.0f;
  }
}

// normalise_and_store's arithmetic, step for step, with the parameters loaded ahead.
template <typename T, typename P, bool kAligned>
__device__ void normalise_and_store(const Tensors<T, P>& t, const Row<T, P, kAligned>& row,
                                    std::int64_t first, Statistics s, const Vector<T>& h,
                                    const Affine<Vector<T>::kWidth>& a) {
  constexpr int kWidth = Vector<T>::kWidth;
  float y[kWidth];
  to_floats(h, y);
  normalise(y, s, a.scale, a.shift);
  store_chunk<kAligned>(row.y, first, t.cols, row.y_aligned, from_floats<T>(y));
}

// A row's statistics from its mean (0 for RMSNorm) and the row's total of squared deviations
// from it: rstd = 1 / sqrt(squares / cols + eps).
__device__ inline Statistics statistics_from(float mean, float squares, std::int64_t cols,
                                             float eps) {
  return {mean, rsqrtf(squares / static_cast<float>(cols) + eps)};
}

// A row's statistics from its moments (device/welford.cuh; RMSNorm's are moments about zero):
// chapters 09 and 10 reduce moments instead of chapter 07's two sums.
template <bool kCentre>
__device__ Statistics statistics_of(device::Moments row, std::int64_t cols, float eps) {
  return statistics_from(kCentre ? row.mean : 0.0f, row.m2, cols, eps);
}

// Which chunks of a row a thread keeps: chunk v * stride + offset is its v-th vector. One block
// per row (this chapter): offset threadIdx.x, stride blockDim.x; chapter 10 spreads a row over
// the blocks of a cluster or of the whole GPU with other offsets and strides.
struct Slice {
  int offset;
  int stride;
  __device__ std::int64_t chunk(int v) const {
    return static_cast<std::int64_t>(v) * stride + offset;
  }
};

__device__ inline Slice block_slice() {
  return {static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x)};
}

// The weight (and bias) of this thread's chunks of @p row asked of L2, no register held. A row's
// statistics wait on its loads and a reduction, and normalise_and_store then loads the
// parameters: on a cold L2 a second trip to DRAM, after the first, on the one path a call of few
// rows waits for. Asked while x is still on its way, they come from L2 instead.
template <typename T, typename P, int kVectors, bool kAligned>
__device__ void prefetch_parameters(const Tensors<T, P>& t, const Row<T, P, kAligned>& row,
                                    Slice slice) {
  constexpr int kWidth = Vector<T>::kWidth;
#pragma unroll
  for (int v = 0; v < kVectors; ++v) {
    const std::int64_t start = chunk_start(slice.chunk(v), kWidth, row.lead);
    const std::int64_t first = start < 0 ? 0 : start;  // a misaligned row's first chunk
    if (first >= t.cols) continue;
    if (t.weight != nullptr) device::prefetch_l2(t.weight + first);
    if (t.bias != nullptr) device::prefetch_l2(t.bias + first);
  }
}

// The statistics of row r, written once: by the thread holding the row's first chunk. @p t: the
// call's Tensors, or any arguments with their mean and rstd (slim.cu's).
template <typename Args>
__device__ void write_statistics(const Args& t, std::int64_t r, Statistics s, bool centre,
                                 Slice slice) {
  if (slice.offset != 0) return;
  if (centre && t.mean != nullptr) t.mean[r] = s.mean;
  if (t.rstd != nullptr) t.rstd[r] = s.rstd;
}

// [statistics]
// Mean (LayerNorm) and 1 / sqrt(mean square + eps) of a row held in registers, in fp32 and in
// two passes over the registers: first the mean, then the squared deviations around it.
// Why not chapter 05's Welford: the row is already in registers, so a second pass costs no
// memory traffic, only one more block_sum; the sum of squared deviations never subtracts two
// large nearly equal numbers (the cancellation of E[x^2] - E[x]^2), and the rounding of the
// mean enters the variance only squared; and each element costs an add and a multiply-add
// instead of Welford's division, with one-word shuffles instead of three-word ones. What it
// does not have is chapter 05's pivot: y is centred on the fp32 mean, so on rows whose mean is
// far larger than their spread (1e4 against 1) y inherits that mean's rounding.
// Elements outside the row hold zero: harmless in the sums of h and h^2, masked out of the
// deviations. chunk(v) is the thread's v-th chunk (here h[v] in registers; chapter 10 reads it
// from shared memory), and sum(value) the total of value over every thread holding the row
// (here block_sum; chapter 09 passes a group of lanes' sum, chapter 10 a cluster's).
// row_deviations is its first part: the mean, and this thread's share of the squared
// deviations before their sum (chapter 10 starts that sum, and finishes it a row later).
struct Deviations {
  float mean;     // 0 for RMSNorm
  float squares;  // this thread's sum of (h - mean)^2
};

template <bool kCentre, bool kAligned, int kVectors, typename Chunk, typename Sum>
__device__ __forceinline__ Deviations row_deviations(Chunk&& chunk, Slice slice, int lead,
                                                     std::int64_t cols, Sum&& sum) {
  constexpr int kWidth = std::remove_cvref_t<decltype(chunk(0))>::kWidth;
  float mean = 0.0f;
  if constexpr (kCentre) {
    float total = 0.0f;
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      float h[kWidth];
      to_floats(chunk(v), h);
#pragma unroll
      for (int j = 0; j < kWidth; ++j)
        total += h[j];
    }
    mean = sum(total) / static_cast<float>(cols);
  }
  float squares = 0.0f;
#pragma unroll
  for (int v = 0; v < kVectors; ++v) {
    const std::int64_t first = chunk_start(slice.chunk(v), kWidth, lead);
    float h[kWidth];
    to_floats(chunk(v), h);
#pragma unroll
    for (int j = 0; j < kWidth; ++j) {
      float d = h[j] - mean;
      if (kCentre && !(kAligned ? first < cols : in_row(first + j, cols))) d = 0.0f;
      squares += d * d;
    }
  }
  return {mean, squares};
}

template <bool kCentre, bool kAligned, int kVectors, typename Chunk, typename Sum>
__device__ __forceinline__ Statistics row_statistics(Chunk&& chunk, Slice slice, int lead,
                                                     std::int64_t cols, float eps, Sum&& sum) {
  const Deviations d = row_deviations<kCentre, kAligned, kVectors>(chunk, slice, lead, cols, sum);
  return statistics_from(d.mean, sum(d.squares), cols, eps);
}
// [statistics]

// [row_in_registers]
// One block per row; thread t keeps chunks t, t + blockDim.x, ... (kVectors of them) in
// registers, as loaded: 16 bytes each, converted to fp32 where they are used. What changed
// from chapter 06: the row stays in its storage dtype (fp32, fp16 or bf16) until it is used;
// chunks follow memory's 16-byte grid, so a misaligned row still moves as whole vectors; the
// block is sized to the row's chunks; blocks loop over rows, so any number of rows fits the
// grid; the scale may be (1 + w); and LayerNorm's statistics come from two passes over the
// registers instead of Welford's moments (row_statistics says why).
// (Chapter 09 launches the same row with other register caps; chapter 10 spreads it over a
// cluster: load_row, row_statistics and normalise_and_store with a slice and a sum.)
// The row's chunks that @p slice gives this thread, loaded into @p h: x, or for add + norm
// x + residual rounded to T (and stored as the new residual).
template <typename T, typename P, int kVectors, bool kAdd, bool kAligned, bool kResidualFirst>
__device__ __forceinline__ void load_row(const Tensors<T, P>& t, const Row<T, P, kAligned>& row,
                                         Slice slice, Vector<T> (&h)[kVectors]) {
  constexpr int kWidth = Vector<T>::kWidth;
  // kResidualFirst: every chunk of x and of the residual is requested before any h is stored.
  // The store to residual_out, which may be the residual itself (in place), is one the compiler
  // cannot prove apart from the next chunk's loads: stored chunk by chunk, as chapter 06 did,
  // only one chunk's loads were in flight at a time. It costs a row of residual chunks in
  // registers, which misaligned rows (and chapter 09's tightest caps) cannot give unspilled.
  static_assert(kAdd || !kResidualFirst, "only add + norm has a residual");
  Vector<T> residual[kResidualFirst ? kVectors : 1];
#pragma unroll
  for (int v = 0; v < kVectors; ++v) {
    const std::int64_t first = chunk_start(slice.chunk(v), kWidth, row.lead);
    h[v] = load_chunk<kAligned>(row.x, first, t.cols, true);
    if constexpr (kResidualFirst) {
      residual[v] = load_chunk<kAligned>(row.residual, first, t.cols, row.residual_aligned);
    } else if constexpr (kAdd) {
      h[v] = add_residual(t, row, first, h[v]);
    }
  }
  if constexpr (kResidualFirst) {
#pragma unroll
    for (int v = 0; v < kVectors; ++v)
      h[v] = add_residual(t, row, chunk_start(slice.chunk(v), kWidth, row.lead), h[v], residual[v]);
  }
}

// @p statistics(h, row) gives the row's statistics from the chunks the thread holds (chapter 09
// passes its one-reduction moments for rows that fill the block exactly); without it, the two
// passes of row_statistics over the block.
// kHeld: the parameters of every chunk the thread holds are loaded with the row, before the
// statistics, and kept in registers (chapter 09's held configurations, for few rows, where
// nothing else hides a load made after the reduction); otherwise each chunk loads its own as
// it is normalised. kTwoLevel: x's rows may be in groups (row_of). @p slice: which chunks this
// thread keeps, one block's by default (the cluster row kernel passes a cluster's, and a
// statistics that sums over it).
template <typename T, typename P, int kVectors, bool kCentre, bool kAdd, bool kAligned,
          bool kResidualFirst = kAdd, bool kHeld = false, bool kTwoLevel = false,
          typename RowStatistics>
__device__ __forceinline__ void norm_row_in_registers(const Tensors<T, P>& t, std::int64_t r,
                                                      RowStatistics&& statistics,
                                                      Slice slice = block_slice()) {
  constexpr int kWidth = Vector<T>::kWidth;
  const auto row = row_of<kAligned, kTwoLevel>(t, r);
  Vector<T> h[kVectors];  // x, or x + residual rounded to T
  load_row<T, P, kVectors, kAdd, kAligned, kResidualFirst>(t, row, slice, h);
  Affine<kWidth> held[kHeld ? kVectors : 1];
#pragma unroll
  for (int v = 0; kHeld && v < kVectors; ++v)
    load_affine(t, row, chunk_start(slice.chunk(v), kWidth, row.lead), held[v]);
  const Statistics s = statistics(h, row);
  write_statistics(t, r, s, kCentre, slice);
#pragma unroll
  for (int v = 0; v < kVectors; ++v) {
    const std::int64_t first = chunk_start(slice.chunk(v), kWidth, row.lead);
    if constexpr (kHeld) {
      normalise_and_store(t, row, first, s, h[v], held[v]);
    } else {
      normalise_and_store(t, row, first, s, h[v]);
    }
  }
}
// [row_in_registers]

// The statistics of a row a block holds in registers, h[v] being this thread's v-th chunk.
template <bool kCentre, bool kAligned, int kVectors, typename T, typename P>
__device__ __forceinline__ Statistics block_row_statistics(const Tensors<T, P>& t,
                                                           const Row<T, P, kAligned>& row,
                                                           const Vector<T> (&h)[kVectors]) {
  return row_statistics<kCentre, kAligned, kVectors>([&](int v) { return h[v]; }, block_slice(),
                                                     row.lead, t.cols, t.eps,
                                                     [](float v) { return block_sum(v); });
}

template <typename T, typename P, int kVectors, bool kCentre, bool kAdd, bool kAligned,
          bool kResidualFirst = kAdd, bool kTwoLevel = false>
__device__ __forceinline__ void norm_row_in_registers(const Tensors<T, P>& t, std::int64_t r) {
  norm_row_in_registers<T, P, kVectors, kCentre, kAdd, kAligned, kResidualFirst, false, kTwoLevel>(
      t, r, [&](const Vector<T>(&h)[kVectors], const Row<T, P, kAligned>& row) {
        return block_row_statistics<kCentre>(t, row, h);
      });
}

// [norm_in_registers]
template <typename T, typename P, int kVectors, bool kCentre, bool kAdd, bool kAligned,
          bool kTwoLevel = false>
__global__ void __launch_bounds__(kMostThreads<kVectors>, (kLeastBlocks<T, kVectors, kAligned>))
    norm_in_registers(const Tensors<T, P> t) {
  for (std::int64_t r = blockIdx.x; r < t.rows; r += gridDim.x)
    norm_row_in_registers<T, P, kVectors, kCentre, kAdd, kAligned, kAdd && kAligned, kTwoLevel>(t,
                                                                                                r);
}
// [norm_in_registers]

// [streaming]
// Rows too wide for registers: the same arithmetic, reading the row from memory once per pass
// (RMSNorm two passes, LayerNorm three). After the first pass the row is read back from x, or
// for add + norm from the stored h. Every pass gives a chunk to the same thread, so a chunk is
// always read before that thread overwrites it, and in place stays safe.
template <typename T, typename P, bool kCentre, bool kAdd, bool kTwoLevel = false>
__global__ void __launch_bounds__(kStreamingThreads, 1) norm_streaming(const Tensors<T, P> t) {
  constexpr int kWidth = Vector<T>::kWidth;
  constexpr bool kAligned = false;
  for (std::int64_t r = blockIdx.x; r < t.rows; r += gridDim.x) {
    const auto row = row_of<kAligned, kTwoLevel>(t, r);
    const T* source = kAdd ? row.residual_out : row.x;
    const bool source_aligned = kAdd ? row.residual_out_aligned : true;
    float sum = 0.0f;  // of h (LayerNorm) or of h^2 (RMSNorm)
    for (std::int64_t c = threadIdx.x; c < row.chunks; c += blockDim.x) {
      Vector<T> h = load_chunk<kAligned>(row.x, chunk_start(c, kWidth, row.lead), t.cols, true);
      if constexpr (kAdd) h = add_residual(t, row, chunk_start(c, kWidth, row.lead), h);
#pragma unroll
      for (int j = 0; j < kWidth; ++j) {
        const float value = to_float(h.element[j]);
        sum += kCentre ? value : value * value;
      }
    }
    Statistics s{0.0f, 0.0f};
    float squares = block_sum(sum);
    if constexpr (kCentre) {
      s.mean = squares / static_cast<float>(t.cols);
      float deviations = 0.0f;
      for (std::int64_t c = threadIdx.x; c < row.chunks; c += blockDim.x) {
        const std::int64_t first = chunk_start(c, kWidth, row.lead);
        const Vector<T> h = load_chunk<kAligned>(source, first, t.cols, source_aligned);
#pragma unroll
        for (int j = 0; j < kWidth; ++j) {
          const float d = in_row(first + j, t.cols) ? to_float(h.element[j]) - s.mean : 0.0f;
          deviations += d * d;
        }
      }
      squares = block_sum(deviations);
    }
    s = statistics_from(s.mean, squares, t.cols, t.eps);
    write_statistics(t, r, s, kCentre, block_slice());
    for (std::int64_t c = threadIdx.x; c < row.chunks; c += blockDim.x) {
      const std::int64_t first = chunk_start(c, kWidth, row.lead);
      normalise_and_store(t, row, first, s,
                          load_chunk<kAligned>(source, first, t.cols, source_aligned));
    }
  }
}
// [streaming]

}  // namespace normlab::kernels
