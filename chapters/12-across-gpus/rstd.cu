// SPDX-License-Identifier: Apache-2.0
// Chapter 12's one new kernel: the deferred path's 1/RMS of each row from its all-reduced
// moments about zero (chapter 10's statistics_of), M floats written for the scale that follows
// the GEMM.
#include <algorithm>

#include "normlab/check.hpp"
#include "overlap.hpp"
#include "part_moments.cuh"

namespace normlab::ch12 {

namespace {

__global__ void rstd_kernel(const device::Moments* moments, std::int64_t rows, std::int64_t cols,
                            float eps, float* rstd) {
  for (std::int64_t r = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; r < rows;
       r += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    rstd[r] = kernels::statistics_of<false>(moments[r], cols, eps).rstd;
}

}  // namespace

void rstd_from_moments(const void* exchange, std::int64_t rows, std::int64_t cols, float eps,
                       float* rstd, cudaStream_t stream) {
  const char* fn = "ch12::rstd_from_moments";
  check_argument(rows >= 0, fn, "rows", "must not be negative");
  check_argument(cols > 0, fn, "cols", "must be positive");
  check_argument(eps > 0.0f, fn, "eps", "must be positive");
  check_argument(rows == 0 || exchange != nullptr, fn, "exchange", "must not be null");
  check_argument(rows == 0 || rstd != nullptr, fn, "rstd", "must not be null");
  if (rows == 0) return;
  constexpr int kThreads = 256;
  const auto blocks =
      static_cast<unsigned int>(std::min<std::int64_t>((rows + kThreads - 1) / kThreads, 4096));
  rstd_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const device::Moments*>(exchange), rows,
                                               cols, eps, rstd);
  NORMLAB_CHECK_LAUNCH();
}

}  // namespace normlab::ch12
