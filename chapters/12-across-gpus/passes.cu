// SPDX-License-Identifier: Apache-2.0
// Chapter 12's two passes over each GPU's slice of the rows, with the exchange between them.
//
// They are chapter 10's split row (split.cu) with the team resized. There a part of a row was
// 4096 chunks of a row of up to millions of columns, and a block of 512 threads reduced it.
// Here a GPU's slice of a tensor-parallel row is a few thousand columns (4096 of a row of
// 8192 on 2 GPUs): 512 chunks of bf16, one a thread in such a block, whose reduction and
// barriers then cost more than its loads (the first version's passes ran far below the copy
// roof; chapter 12's page and worklog have the figures). So a warp takes a row, chapter 09's
// lesson: the team sized to the row, no barrier, the warp's shuffles for the reduction.
#include <algorithm>
#include <climits>

#include "general_launch.cuh"
#include "normlab/check.hpp"
#include "part_moments.cuh"
#include "passes.cuh"

namespace normlab::ch12 {

namespace {

using device::kWarpSize;
using device::Vector;
using kernels::chunk_start;

constexpr int kRowsPerBlock = 8;
constexpr int kThreads = kRowsPerBlock * kWarpSize;
// Registers: the passes of rows on the 16-byte grid (chapter 07's aligned instantiation, no
// element-by-element code) take 40 to 76 and are held to 85 (at least 3 blocks, 24 warps, an
// SM). A version with only the general instantiation, which also loaded four chunks a lane
// before storing any, took up to 106: 2 blocks an SM, and DRAM well short of its peak (chapter
// 12's page has the profile).

// This warp's first row and the step to its next; its lane strides over a row's chunks.
__device__ inline std::int64_t first_row() {
  return static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / kWarpSize;
}
__device__ inline std::int64_t row_step() {
  return static_cast<std::int64_t>(gridDim.x) * kRowsPerBlock;
}
__device__ inline int lane() {
  return static_cast<int>(threadIdx.x % kWarpSize);
}

// [passes]
// Pass 1: the moments of each row's slice (add + norm: h = x + r, stored here and read back by
// pass 2), lane 0 writing them into the exchange buffer.
template <typename T, typename P, bool kCentre, bool kAdd, bool kAligned>
__global__ void __launch_bounds__(kThreads, kAligned ? 3 : 1)
    slice_moments(const Tensors<T, P> t, device::Moments* moments) {
  constexpr int kWidth = Vector<T>::kWidth;
  for (std::int64_t r = first_row(); r < t.rows; r += row_step()) {
    const auto row = kernels::row_of<kAligned>(t, r);
    device::Moments m{};
#pragma unroll 4
    for (std::int64_t c = lane(); c < row.chunks; c += kWarpSize) {
      const std::int64_t first = chunk_start(c, kWidth, row.lead);
      Vector<T> h = device::load_chunk<kAligned>(row.x, first, t.cols, true);
      if constexpr (kAdd) h = kernels::add_residual(t, row, first, h);
      m = kernels::spread::add_chunk<kCentre, kAligned>(m, h, first, t.cols);
    }
    m = kernels::spread::warp_merge(m);
    if (lane() == 0) moments[r] = m;
  }
}

// Pass 2: each row's statistics from the exchanged moments, merged by chapter 10's
// merge_parts in the same order on every GPU, then the slice normalised, read a second time.
template <typename T, typename P, bool kCentre, bool kAdd, bool kAligned>
__global__ void __launch_bounds__(kThreads, kAligned ? 3 : 1)
    slice_normalise(const Tensors<T, P> t, const Exchanged exchanged) {
  constexpr int kWidth = Vector<T>::kWidth;
  for (std::int64_t r = first_row(); r < t.rows; r += row_step()) {
    const auto row = kernels::row_of<kAligned>(t, r);
    const T* source = kAdd ? row.residual_out : row.x;
    const bool source_aligned = kAdd ? row.residual_out_aligned : true;
    const device::Moments m =
        kernels::spread::merge_parts(exchanged.moments + r, exchanged.parts, exchanged.part_stride);
    const kernels::Statistics s = kernels::statistics_of<kCentre>(m, exchanged.cols, t.eps);
    kernels::write_statistics(t, r, s, kCentre, {lane(), kWarpSize});
#pragma unroll 4
    for (std::int64_t c = lane(); c < row.chunks; c += kWarpSize) {
      const std::int64_t first = chunk_start(c, kWidth, row.lead);
      kernels::normalise_and_store(
          t, row, first, s, device::load_chunk<kAligned>(source, first, t.cols, source_aligned));
    }
  }
}
// [passes]

unsigned int blocks_for(std::int64_t rows) {
  return static_cast<unsigned int>(
      std::min<std::int64_t>((rows + kRowsPerBlock - 1) / kRowsPerBlock, INT_MAX));
}

}  // namespace

// Chapter 07's two instantiations: rows on the 16-byte grid and a whole number of vectors
// wide take no element-by-element code.
template <typename T, typename P, bool kCentre, bool kAdd>
void launch_slice_moments(const Tensors<T, P>& t, device::Moments* moments, cudaStream_t stream) {
  if (kernels::vectors_aligned(t)) {
    slice_moments<T, P, kCentre, kAdd, true>
        <<<blocks_for(t.rows), kThreads, 0, stream>>>(t, moments);
  } else {
    slice_moments<T, P, kCentre, kAdd, false>
        <<<blocks_for(t.rows), kThreads, 0, stream>>>(t, moments);
  }
  NORMLAB_CHECK_LAUNCH();
}

template <typename T, typename P, bool kCentre, bool kAdd>
void launch_slice_normalise(const Tensors<T, P>& t, const Exchanged& exchanged,
                            cudaStream_t stream) {
  if (kernels::vectors_aligned(t)) {
    slice_normalise<T, P, kCentre, kAdd, true>
        <<<blocks_for(t.rows), kThreads, 0, stream>>>(t, exchanged);
  } else {
    slice_normalise<T, P, kCentre, kAdd, false>
        <<<blocks_for(t.rows), kThreads, 0, stream>>>(t, exchanged);
  }
  NORMLAB_CHECK_LAUNCH();
}

#define NORMLAB_CH12_PASSES(T, P, kCentre, kAdd)                                                  \
  template void launch_slice_moments<T, P, kCentre, kAdd>(const Tensors<T, P>&, device::Moments*, \
                                                          cudaStream_t);                          \
  template void launch_slice_normalise<T, P, kCentre, kAdd>(const Tensors<T, P>&,                 \
                                                            const Exchanged&, cudaStream_t);
NORMLAB_FORWARD_FOR_EACH_CALL(NORMLAB_CH12_PASSES)

}  // namespace normlab::ch12
