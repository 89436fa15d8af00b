// SPDX-License-Identifier: Apache-2.0
/// @file ch09.cuh
/// @brief Chapter 09: every width and every batch. The four forward norms of chapter 07 on the
/// same Tensors, each launched by a kernel chosen for the call's rows, width, dtype and
/// alignment (choose.hpp): several rows per block for narrow rows, a register budget per width
/// for medium rows, a row split over a whole block for few rows, chapter 07's launcher beyond.
#pragma once

#include <cuda_runtime.h>

#include "ch07.cuh"

namespace normlab::ch09 {

using ch07::Tensors;

/// The launchers, for T = P = float and for T = __half or __nv_bfloat16 with P = T or float,
/// with chapter 07's contract (ch07.cuh): any stride and element alignment, in place, (1 + w),
/// optional parameters and statistics; std::invalid_argument naming the argument before
/// anything is launched. @p config null: the dispatcher's choice (choose()); the name of a
/// configuration of kConfigs: that one (the sweep), refused by name with std::invalid_argument
/// when it cannot hold the row.
template <typename T, typename P>
void rmsnorm(const Tensors<T, P>& t, cudaStream_t stream, const char* config = nullptr);
template <typename T, typename P>
void layernorm(const Tensors<T, P>& t, cudaStream_t stream, const char* config = nullptr);
template <typename T, typename P>
void add_rmsnorm(const Tensors<T, P>& t, cudaStream_t stream, const char* config = nullptr);
template <typename T, typename P>
void add_layernorm(const Tensors<T, P>& t, cudaStream_t stream, const char* config = nullptr);

/// Enqueues a kernel that does nothing (one warp) on @p stream.
void launch_empty_kernel(cudaStream_t stream);

/// The event-timed duration of an empty kernel launched back to back on @p stream, in
/// microseconds: the floor under every few-row figure.
double empty_kernel_microseconds(cudaStream_t stream);

}  // namespace normlab::ch09
