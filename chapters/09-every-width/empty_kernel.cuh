// SPDX-License-Identifier: Apache-2.0
/// @file empty_kernel.cuh
/// @brief Chapter 09's floor under every few-row figure: a kernel that does nothing, launched and
/// timed (the chapter program, chapter 11's and bench/call_cost.cpp's timings).
#pragma once

#include <cuda_runtime.h>

namespace normlab::ch09 {

/// Enqueues a kernel that does nothing (one warp) on @p stream.
void launch_empty_kernel(cudaStream_t stream);

/// The event-timed duration of an empty kernel launched back to back on @p stream, in
/// microseconds: the floor under every few-row figure.
double empty_kernel_microseconds(cudaStream_t stream);

}  // namespace normlab::ch09
