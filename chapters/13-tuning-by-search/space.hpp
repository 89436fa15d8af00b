// SPDX-License-Identifier: Apache-2.0
/// @file space.hpp
/// @brief Chapter 13's configuration space: every configuration of chapter 09's table
/// (kernels/configs.hpp) at one problem, kept when it can hold the row, else pruned with the
/// reason; what the tuner times is what survives. Host code, no GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "configs.hpp"
#include "normlab/dtype.hpp"
#include "normlab/ops.hpp"

namespace normlab::ch13 {

/// The configured launcher's view of an @p op call on @p rows x @p cols of @p dtype laid out
/// contiguously from a 16-byte boundary (the chapter program's problem): rows on the 16-byte grid
/// when a row is whole chunks, else each row spanning the chunks chapter 07's arithmetic gives.
kernels::configured::Problem contiguous_problem(Op op, std::int64_t rows, std::int64_t cols,
                                                DType dtype);

/// One configuration at one problem.
struct Place {
  int config = 0;          ///< index into kConfigs
  std::int64_t held = 0;   ///< the most 16-byte chunks of a row it holds (0: any)
  std::string pruned_why;  ///< empty: kept
};

/// Every configuration of kConfigs at @p p, in the table's order: pruned exactly where the
/// launcher would refuse it (configure()).
std::vector<Place> space_at(const kernels::configured::Problem& p);

/// The configuration chapter 09's rules pick at @p p (choose()), by name, and their reason.
std::string rules_pick(const kernels::configured::Problem& p);

}  // namespace normlab::ch13
