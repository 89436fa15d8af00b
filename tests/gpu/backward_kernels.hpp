// SPDX-License-Identifier: Apache-2.0
/// @file backward_kernels.hpp
/// @brief Test-only RMSNorm and LayerNorm backward kernels (not registered): obviously
/// correct rather than fast, to prove the harness's backward path before any chapter has one,
/// and two deliberately wrong variants the harness must report as FAIL.
#pragma once

#include "normlab/kernel.hpp"

namespace normlab::test_backward {

/// What a variant gets wrong.
enum class Bug {
  none,
  last_row_dropped,    ///< dweight and dbias sum every row but the last
  projection_dropped,  ///< dx without the term - x_hat * mean(g * x_hat)
};

/// An fp32 / bf16 backward entry for @p op (rmsnorm_backward or layernorm_backward): fp32 or
/// matching parameters, optional weight and bias, (1 + w), in place (dx over dy), strides,
/// dresidual. One block per row writes dx and each element's dy * x_hat and dy into scratch;
/// a second kernel sums the scratch over rows per column, in row order (deterministic).
KernelEntry entry(Op op, Bug bug = Bug::none);

}  // namespace normlab::test_backward
