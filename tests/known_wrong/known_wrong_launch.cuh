// SPDX-License-Identifier: Apache-2.0
// What the known-wrong kernels' host launchers share: the argument checks every RMSNorm launcher
// makes, and the launch of an fp32 kernel that normalizes one row per block.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "normlab/arguments.hpp"
#include "normlab/check.hpp"
#include "normlab/kernel.hpp"

namespace normlab::known_wrong {

/// Refuses a bad shape, x, y, weight or eps by name; @p fn names the launcher in the message.
inline void validate_rmsnorm_call(const char* fn, const NormCall& c) {
  validate_rmsnorm_arguments(fn, c.x, c.x_stride, c.weight, c.y, c.y_stride, c.rows, c.cols, c.eps);
}

/// An fp32 RMSNorm kernel that normalizes row blockIdx.x.
using RowPerBlockKernel = void (*)(const float* x, std::int64_t x_stride, const float* weight,
                                   float* y, std::int64_t y_stride, std::int64_t cols, float eps);

/// Checks @p c, then launches @p kernel with one block of @p threads per row (none if rows = 0).
inline void launch_row_per_block(const char* fn, RowPerBlockKernel kernel, int threads,
                                 const NormCall& c, cudaStream_t stream) {
  validate_rmsnorm_call(fn, c);
  if (c.rows == 0) return;
  kernel<<<static_cast<unsigned int>(c.rows), threads, 0, stream>>>(
      static_cast<const float*>(c.x), c.x_stride, static_cast<const float*>(c.weight),
      static_cast<float*>(c.y), c.y_stride, c.cols, c.eps);
  NORMLAB_CHECK_LAUNCH();
}

}  // namespace normlab::known_wrong
