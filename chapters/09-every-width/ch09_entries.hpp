// SPDX-License-Identifier: Apache-2.0
/// @file ch09_entries.hpp
/// @brief Chapter 09's type-erased entry point and registry entries: the dispatcher
/// (ch09_rmsnorm, ch09_layernorm, ch09_add_rmsnorm, ch09_add_layernorm, the default kernel of
/// each op) and, for the chapter program's sweep, one entry per configuration.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "normlab/dtype.hpp"
#include "normlab/kernel.hpp"

namespace normlab::ch09 {

/// Runs @p call (a forward norm) through chapter 09's typed launcher of its op and dtypes
/// (ch09.cuh);
/// @p config null: the dispatcher's choice, else that configuration's name.
void forward(const NormCall& call, cudaStream_t stream, const char* config = nullptr);

/// The dispatcher, one entry per op.
std::vector<KernelEntry> entries();

/// One entry `ch09_<op>@<config>` per op and configuration of kConfigs (chapter 07's launcher,
/// `wide`, has its own entries), each forcing its configuration: chapter 07's capabilities, 16-byte
/// alignment for the aligned configurations and the widest row each holds. Whether a given row
/// fits is configure()'s to say exactly (the row's address decides how many chunks it spans);
/// the launcher refuses by name what does not.
std::vector<KernelEntry> config_entries();

/// For a rows x cols problem in @p dtype with aligned rows (the chapter program's):
/// config_entries() that hold the row (configure()), each declaring @p dtype alone.
std::vector<KernelEntry> sweep_entries(std::int64_t rows, std::int64_t cols, DType dtype);

}  // namespace normlab::ch09
