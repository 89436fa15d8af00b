// SPDX-License-Identifier: Apache-2.0
// Known wrong for chapter 07: a bf16 RMSNorm whose sum of squares is accumulated in bf16. Not in
// the registry; test_known_wrong_ch07.cpp checks that the bf16 grader rejects it.
#pragma once

#include "normlab/kernel.hpp"

namespace normlab::known_wrong {

/// RMSNorm of a bf16 tensor (bf16 or fp32 weight), one thread per row, the sum of squares
/// accumulated in bf16: once the sum passes 256, adding an x^2 below 1 changes nothing.
KernelEntry rmsnorm_bf16_statistics();

/// The same kernel with the sum accumulated in fp32: the control, which must pass.
KernelEntry rmsnorm_fp32_statistics();

}  // namespace normlab::known_wrong
