// SPDX-License-Identifier: Apache-2.0
// Known wrong for chapter 09: a narrow RMSNorm whose rows are held by groups of 8 lanes but
// reduced over 16, so each row's sum of squares takes in the neighbouring row's. Not in the
// registry; test_known_wrong_ch09.cpp checks that the grader rejects it.
#pragma once

#include "normlab/kernel.hpp"

namespace normlab::known_wrong {

/// fp32 RMSNorm of rows up to 32 wide, 8 lanes a row, the sum of squares reduced over 16 lanes:
/// two rows' lanes.
KernelEntry rmsnorm_rows_crossing_reduce();

/// The same kernel reducing over the row's own 8 lanes: the control, which must pass.
KernelEntry rmsnorm_rows_own_reduce();

}  // namespace normlab::known_wrong
