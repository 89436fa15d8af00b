// SPDX-License-Identifier: Apache-2.0
/// @file spread_launch.cuh
/// @brief The spread launcher's launches, one per file: cluster.cu, cluster_row.cu, whole_gpu.cu,
/// split.cu. spread.cu checks the arguments, chooses, and calls one.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "choose_path.hpp"
#include "spread.cuh"

namespace normlab::kernels::spread {

/// The row over a cluster of @p shape (choose_path.hpp: cluster_for); needs compute capability 9.0.
template <typename T, typename P, bool kCentre, bool kAdd>
void launch_cluster(const Tensors<T, P>& t, bool aligned, ClusterShape shape, cudaStream_t stream);

/// One row a cluster of @p blocks blocks of @p shape (cluster_row.cu), rows on the 16-byte grid;
/// needs compute capability 9.0.
template <typename T, typename P, bool kCentre, bool kAdd>
void launch_cluster_row(const Tensors<T, P>& t, ClusterRowShape shape, int blocks,
                        cudaStream_t stream);

/// Whether a call takes the whole-GPU kernel's lean form on rows on the 16-byte grid: fp32
/// activations and parameters, nothing to add (whole_gpu.cu: 8 vectors a thread in registers,
/// two blocks an SM; the parameters held on chip, or rows in pairs). The chooser switches to it
/// on narrower rows.
template <typename T, typename P, bool kAdd>
inline constexpr bool kLeanWholeGpu = !kAdd && std::is_same_v<T, float> && std::is_same_v<P, float>;

/// The widest row, in chunks, the whole-GPU kernel of this op and dtype pairing holds on the
/// current GPU (every block resident at once; asked of the occupancy calculator once).
template <typename T, typename P, bool kCentre, bool kAdd>
std::int64_t whole_gpu_chunks(bool aligned);

/// The narrowest row, in chunks, the whole-GPU kernel's held form takes on the current GPU (lean
/// calls on the 16-byte grid: kHeldFewestVectors vectors a thread in whole_gpu.cu); 0 where its
/// shared memory does not fit.
template <bool kCentre>
std::int64_t whole_gpu_held_chunks();

/// The row over every SM, one row at a time; @p chunks the chunks of a row, at most
/// whole_gpu_chunks(). Uses whole_gpu_scratch_bytes() of @p scratch.
template <typename T, typename P, bool kCentre, bool kAdd>
void launch_whole_gpu(const Tensors<T, P>& t, bool aligned, std::int64_t chunks, Scratch scratch,
                      cudaStream_t stream);
std::size_t whole_gpu_scratch_bytes();

/// The split row: statistics from partial sums, then the row read again. Uses
/// split_scratch_bytes() of @p scratch.
template <typename T, typename P, bool kCentre, bool kAdd>
void launch_split(const Tensors<T, P>& t, std::int64_t chunks, Scratch scratch,
                  cudaStream_t stream);
std::size_t split_scratch_bytes(std::int64_t rows, std::int64_t chunks);

}  // namespace normlab::kernels::spread
