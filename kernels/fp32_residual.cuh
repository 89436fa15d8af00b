// SPDX-License-Identifier: Apache-2.0
/// @file fp32_residual.cuh
/// @brief Add + norm with the residual stream in fp32 and 16-bit x and y (Tensors<T, P, float>,
/// the general launcher's; taught beside chapter 07's rounding rule): h = x + residual added in
/// fp32 and stored as it is, the statistics taken of that fp32 h, y rounded to T once.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "row_norm.cuh"

namespace normlab::kernels {

// [fp32_residual]
// One chunk of h on x's 16-byte grid (8 elements of a 16-bit row) in fp32: the residual stream's
// values, which are never rounded to T. In memory it is two fp32 vectors of the residual.
template <typename T>
struct Fp32Chunk {
  static constexpr int kWidth = Vector<T>::kWidth;
  float element[kWidth];
};

// row_statistics and normalise_and_store read a chunk through to_floats.
template <typename T>
__device__ __forceinline__ void to_floats(const Fp32Chunk<T>& h,
                                          float (&out)[Fp32Chunk<T>::kWidth]) {
#pragma unroll
  for (int j = 0; j < Fp32Chunk<T>::kWidth; ++j)
    out[j] = h.element[j];
}

// The chunk of an fp32 row that starts at element first (outside the row 0): the loads that
// fp32 parameters of a 16-bit row take (row_io.cuh), a vector at a time where @p aligned.
template <bool kAligned, typename T>
__device__ Fp32Chunk<T> load_fp32_chunk(const float* row, std::int64_t first, std::int64_t cols,
                                        bool aligned) {
  Fp32Chunk<T> chunk;
  load_parameters<kAligned>(row, first, cols, aligned, chunk.element);
  return chunk;
}

// h = x + r in fp32, stored as the new residual as it is: the norm is taken of the value the next
// layer reads back, as with one dtype (add_residual), which here is the unrounded sum.
template <bool kAligned, typename T, typename P>
__device__ Fp32Chunk<T> add_fp32_residual(const Tensors<T, P, float>& t,
                                          const Row<T, P, kAligned, float>& row, std::int64_t first,
                                          const Vector<T>& x, const Fp32Chunk<T>& r) {
  constexpr int kHalf = Vector<float>::kWidth;
  Fp32Chunk<T> h;
  to_floats(x, h.element);
#pragma unroll
  for (int j = 0; j < Fp32Chunk<T>::kWidth; ++j)
    h.element[j] += r.element[j];
#pragma unroll
  for (int i = 0; i < Fp32Chunk<T>::kWidth; i += kHalf) {
    float part[kHalf];
#pragma unroll
    for (int j = 0; j < kHalf; ++j)
      part[j] = h.element[i + j];
    store_chunk<kAligned>(row.residual_out, first + i, t.cols, row.residual_out_aligned,
                          from_floats<float>(part));
  }
  return h;
}

// One block a row, the row's h in registers (kVectors chunks a thread, as norm_in_registers):
// every chunk of x and of the residual is loaded before any h is stored, so residual_out may be
// the residual and y may be x.
template <typename T, typename P, int kVectors, bool kCentre, bool kAligned>
__global__ void __launch_bounds__(kMostThreads<kVectors>, 1)
    fp32_residual_in_registers(const Tensors<T, P, float> t) {
  constexpr int kWidth = Vector<T>::kWidth;
  const Slice slice = block_slice();
  for (std::int64_t r = blockIdx.x; r < t.rows; r += gridDim.x) {
    const auto row = row_of<kAligned>(t, r);
    Vector<T> x[kVectors];
    Fp32Chunk<T> h[kVectors];  // the residual, then x + residual
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      const std::int64_t first = chunk_start(slice.chunk(v), kWidth, row.lead);
      x[v] = load_chunk<kAligned>(row.x, first, t.cols, true);
      h[v] = load_fp32_chunk<kAligned, T>(row.residual, first, t.cols, row.residual_aligned);
    }
#pragma unroll
    for (int v = 0; v < kVectors; ++v)
      h[v] = add_fp32_residual(t, row, chunk_start(slice.chunk(v), kWidth, row.lead), x[v], h[v]);
    const Statistics s = row_statistics<kCentre, kAligned, kVectors>(
        [&](int v) { return h[v]; }, slice, row.lead, t.cols, t.eps,
        [](float value) { return block_sum(value); });
    write_statistics(t, r, s, kCentre, slice);
#pragma unroll
    for (int v = 0; v < kVectors; ++v)
      normalise_and_store(t, row, chunk_start(slice.chunk(v), kWidth, row.lead), s, h[v]);
  }
}

// Rows too wide for registers: pass one adds and stores h and sums it (or its squares); later
// passes read the fp32 h back from residual_out, each chunk by the thread that stored it.
template <typename T, typename P, bool kCentre>
__global__ void __launch_bounds__(kStreamingThreads, 1)
    fp32_residual_streaming(const Tensors<T, P, float> t) {
  constexpr int kWidth = Vector<T>::kWidth;
  constexpr bool kAligned = false;
  for (std::int64_t r = blockIdx.x; r < t.rows; r += gridDim.x) {
    const auto row = row_of<kAligned>(t, r);
    auto stored = [&](std::int64_t first) {
      return load_fp32_chunk<kAligned, T>(row.residual_out, first, t.cols,
                                          row.residual_out_aligned);
    };
    float total = 0.0f;  // of h (LayerNorm) or of h^2 (RMSNorm)
    for (std::int64_t c = threadIdx.x; c < row.chunks; c += blockDim.x) {
      const std::int64_t first = chunk_start(c, kWidth, row.lead);
      const Fp32Chunk<T> h = add_fp32_residual(
          t, row, first, load_chunk<kAligned>(row.x, first, t.cols, true),
          load_fp32_chunk<kAligned, T>(row.residual, first, t.cols, row.residual_aligned));
#pragma unroll
      for (int j = 0; j < kWidth; ++j)
        total += kCentre ? h.element[j] : h.element[j] * h.element[j];
    }
    float mean = 0.0f;
    float squares = block_sum(total);
    if constexpr (kCentre) {
      mean = squares / static_cast<float>(t.cols);
      float deviations = 0.0f;
      for (std::int64_t c = threadIdx.x; c < row.chunks; c += blockDim.x) {
        const std::int64_t first = chunk_start(c, kWidth, row.lead);
        const Fp32Chunk<T> h = stored(first);
#pragma unroll
        for (int j = 0; j < kWidth; ++j) {
          const float d = in_row(first + j, t.cols) ? h.element[j] - mean : 0.0f;
          deviations += d * d;
        }
      }
      squares = block_sum(deviations);
    }
    const Statistics s = statistics_from(mean, squares, t.cols, t.eps);
    write_statistics(t, r, s, kCentre, block_slice());
    for (std::int64_t c = threadIdx.x; c < row.chunks; c += blockDim.x) {
      const std::int64_t first = chunk_start(c, kWidth, row.lead);
      normalise_and_store(t, row, first, s, stored(first));
    }
  }
}
// [fp32_residual]

}  // namespace normlab::kernels
