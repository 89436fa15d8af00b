// SPDX-License-Identifier: Apache-2.0
/// @file registry.hpp
/// @brief The kernel registry: the one list that tour, tests and benchmarks iterate over.
/// Defined in registry.cpp from every chapter's entries.
#pragma once

#include <string_view>
#include <vector>

#include "normlab/kernel.hpp"

namespace normlab {

/// Every registered kernel in chapter order.
const std::vector<KernelEntry>& kernel_registry();
/// The registered kernel called @p name, or nullptr.
const KernelEntry* find_kernel(std::string_view name);
/// The kernel flagged default_for_op for @p op, or nullptr when none is.
const KernelEntry* default_kernel(Op op);

}  // namespace normlab
