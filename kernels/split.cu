// SPDX-License-Identifier: Apache-2.0
// The split family (taught in chapter 10), the portable fallback: a split row, read twice.
//
// Without clusters (before Hopper), or for a row wider than the whole GPU holds, the row
// cannot stay on chip between its statistics and its normalisation. So each row is split over
// several blocks, in two kernels: the first reduces every block's part of the row to its
// moments, the second merges a row's moments and normalises, reading the row again. Unlike
// the general launcher's streaming kernel (one block a row), a few rows still fill the GPU.
#include <algorithm>
#include <climits>

#include "normlab/check.hpp"
#include "part_moments.cuh"
#include "spread_launch.cuh"

namespace normlab::kernels::spread {

namespace {

// Part p of row r, for item = r * parts + p: thread t of the part's block visits chunks
// p * blockDim.x + t, then every parts * blockDim.x further.
struct Part {
  std::int64_t row;
  Slice slice;
};

__device__ inline Part part_of(std::int64_t item, std::int64_t parts) {
  const auto p = static_cast<int>(item % parts);
  const auto threads = static_cast<int>(blockDim.x);
  return {item / parts,
          {p * threads + static_cast<int>(threadIdx.x), static_cast<int>(parts) * threads}};
}

// [split_kernels]
// Pass 1: the moments of each part of each row into moments[item] (add + norm: h = x + r
// stored here, and read back by pass 2).
template <typename T, typename P, bool kCentre, bool kAdd>
__global__ void __launch_bounds__(kSplitThreads)
    split_moments(const Tensors<T, P> t, std::int64_t parts, Moments* moments) {
  constexpr int kWidth = Vector<T>::kWidth;
  for (std::int64_t item = blockIdx.x; item < t.rows * parts; item += gridDim.x) {
    const Part part = part_of(item, parts);
    const auto row = row_of<false>(t, part.row);
    Moments m{};
    for (std::int64_t c = part.slice.offset; c < row.chunks; c += part.slice.stride) {
      const std::int64_t first = chunk_start(c, kWidth, row.lead);
      Vector<T> h = device::load_chunk<false>(row.x, first, t.cols, true);
      if constexpr (kAdd) h = add_residual(t, row, first, h);
      m = add_chunk<kCentre, false>(m, h, first, t.cols);
    }
    m = device::block_reduce(m, device::welford_merge);
    if (threadIdx.x == 0) moments[item] = m;
  }
}

// Pass 2: every block merges its row's parts, in the same order, and normalises its part of
// the row, read a second time (from x, or from the stored h).
template <typename T, typename P, bool kCentre, bool kAdd>
__global__ void __launch_bounds__(kSplitThreads)
    split_normalise(const Tensors<T, P> t, std::int64_t parts, const Moments* moments) {
  constexpr int kWidth = Vector<T>::kWidth;
  for (std::int64_t item = blockIdx.x; item < t.rows * parts; item += gridDim.x) {
    const Part part = part_of(item, parts);
    const auto row = row_of<false>(t, part.row);
    const T* source = kAdd ? row.residual_out : row.x;
    const bool source_aligned = kAdd ? row.residual_out_aligned : true;
    const Statistics s =
        statistics_of<kCentre>(merge_parts(moments + part.row * parts, parts), t.cols, t.eps);
    write_statistics(t, part.row, s, kCentre, part.slice);
    for (std::int64_t c = part.slice.offset; c < row.chunks; c += part.slice.stride) {
      const std::int64_t first = chunk_start(c, kWidth, row.lead);
      normalise_and_store(t, row, first, s,
                          device::load_chunk<false>(source, first, t.cols, source_aligned));
    }
  }
}
// [split_kernels]

}  // namespace

std::size_t split_scratch_bytes(std::int64_t rows, std::int64_t chunks) {
  return static_cast<std::size_t>(rows * split_blocks_per_row(chunks)) * sizeof(Moments);
}

template <typename T, typename P, bool kCentre, bool kAdd>
void launch_split(const Tensors<T, P>& t, std::int64_t chunks, Scratch scratch,
                  cudaStream_t stream) {
  const std::int64_t parts = split_blocks_per_row(chunks);
  const auto grid = static_cast<unsigned int>(std::min<std::int64_t>(t.rows * parts, INT_MAX));
  auto* moments = static_cast<Moments*>(scratch.data);
  split_moments<T, P, kCentre, kAdd><<<grid, kSplitThreads, 0, stream>>>(t, parts, moments);
  NORMLAB_CHECK_LAUNCH();
  split_normalise<T, P, kCentre, kAdd><<<grid, kSplitThreads, 0, stream>>>(t, parts, moments);
  NORMLAB_CHECK_LAUNCH();
}

#define NORMLAB_SPREAD_SPLIT(T, P, kCentre, kAdd)                                              \
  template void launch_split<T, P, kCentre, kAdd>(const Tensors<T, P>&, std::int64_t, Scratch, \
                                                  cudaStream_t);
NORMLAB_FORWARD_FOR_EACH_CALL(NORMLAB_SPREAD_SPLIT)

}  // namespace normlab::kernels::spread
