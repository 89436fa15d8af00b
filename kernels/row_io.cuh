// SPDX-License-Identifier: Apache-2.0
/// @file row_io.cuh
/// @brief Row I/O (taught in chapter 07): one row of each tensor of a call (Tensors, general.cuh)
/// cut into chunks on the 16-byte grid of memory (peeling a misaligned head), and the parameters
/// of a chunk in fp32. Every forward and backward family includes it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "general.cuh"
#include "normlab/device/vector.cuh"

namespace normlab::kernels {

using device::from_float;
using device::from_floats;
using device::kVectorBytes;
using device::load_chunk;
using device::store_chunk;
using device::to_float;
using device::to_floats;
using device::Vector;

// kWidth parameters of a narrower type than the activations' (fp16 or bf16 with an fp32 row):
// half a 16-byte vector, in one 8-byte load where the chunk lies inside the row and @p aligned
// (the parameters' chunks are on the 16-byte grid of their own elements, so each half-vector is on
// an 8-byte boundary), else element by element; outside the row 0.
template <bool kAligned, int kWidth, typename P>
__device__ void load_narrow_parameters(const P* parameters, std::int64_t first, std::int64_t cols,
                                       bool aligned, float (&out)[kWidth]) {
  struct alignas(kWidth * sizeof(P)) Part {
    P element[kWidth];
  };
  Part part;
  if (kAligned ? first < cols : aligned && first >= 0 && first + kWidth <= cols) {
    part = *reinterpret_cast<const Part*>(parameters + first);
  } else {
#pragma unroll
    for (int j = 0; j < kWidth; ++j) {
      const std::int64_t col = first + j;
      part.element[j] = !kAligned && col >= 0 && col < cols ? parameters[col] : from_float<P>(0.0f);
    }
  }
#pragma unroll
  for (int j = 0; j < kWidth; ++j)
    out[j] = to_float(part.element[j]);
}

// kWidth weights or biases from element first on, as fp32: one vector when P is the
// activation type, two when fp32 parameters go with a 16-bit tensor, half of one when 16-bit
// parameters go with an fp32 tensor.
template <bool kAligned, int kWidth, typename P>
__device__ void load_parameters(const P* parameters, std::int64_t first, std::int64_t cols,
                                bool aligned, float (&out)[kWidth]) {
  constexpr int kPerVector = Vector<P>::kWidth;
  if constexpr (kPerVector > kWidth) {
    load_narrow_parameters<kAligned>(parameters, first, cols, aligned, out);
  } else {
#pragma unroll
    for (int i = 0; i < kWidth; i += kPerVector) {
      float part[kPerVector];
      to_floats(load_chunk<kAligned>(parameters, first + i, cols, aligned), part);
#pragma unroll
      for (int j = 0; j < kPerVector; ++j)
        out[i + j] = part[j];
    }
  }
}
// The first element of chunk c: chunks start on the 16-byte grid, lead elements before the row.
__device__ inline std::int64_t chunk_start(std::int64_t c, int width, int lead) {
  return c * width - lead;
}

__device__ inline bool in_row(std::int64_t col, std::int64_t cols) {
  return col >= 0 && col < cols;
}

// [peel]
// Whether the chunks of a row start on 16-byte boundaries. Chunk c starts at element
// c * width - lead, and width * sizeof(T) is a multiple of 16, so it holds for every chunk
// when it holds for element -lead.
template <typename T>
__device__ inline bool chunks_aligned(const T* row, int lead) {
  return (reinterpret_cast<std::uintptr_t>(row) - lead * sizeof(T)) % kVectorBytes == 0;
}

// One row of every tensor, cut into chunks on the 16-byte grid of x's row: chunk c holds
// elements [c * width - lead, (c + 1) * width - lead) (an fp32 residual's chunk two vectors).
template <typename T, typename P, bool kAligned, typename R = T>
struct Row {
  const T* x;
  const R* residual;
  T* y;
  R* residual_out;
  int lead;             // elements of the first chunk that lie before the row
  std::int64_t chunks;  // chunks holding at least one element of the row
  bool residual_aligned, y_aligned, residual_out_aligned, weight_aligned, bias_aligned;
};

// kTwoLevel: x's rows in two levels (a head view: x_row in general.cuh).
template <bool kAligned, bool kTwoLevel = false, typename T, typename P, typename R>
__device__ Row<T, P, kAligned, R> row_of(const Tensors<T, P, R>& t, std::int64_t r) {
  constexpr int kWidth = Vector<T>::kWidth;
  Row<T, P, kAligned, R> row{};
  row.x = x_row<kTwoLevel>(t, r);
  row.y = t.y + r * t.y_stride;
  if (t.residual != nullptr) {
    row.residual = t.residual + r * t.residual_stride;
    row.residual_out = t.residual_out + r * t.residual_out_stride;
  }
  if (!kAligned) {
    row.lead = static_cast<int>(reinterpret_cast<std::uintptr_t>(row.x) % kVectorBytes / sizeof(T));
  }
  row.chunks = (row.lead + t.cols + kWidth - 1) / kWidth;
  row.y_aligned = kAligned || chunks_aligned(row.y, row.lead);
  row.weight_aligned = kAligned || chunks_aligned(t.weight, row.lead);
  row.bias_aligned = kAligned || chunks_aligned(t.bias, row.lead);
  row.residual_aligned = kAligned || chunks_aligned(row.residual, row.lead);
  row.residual_out_aligned = kAligned || chunks_aligned(row.residual_out, row.lead);
  return row;
}
// [peel]

}  // namespace normlab::kernels
