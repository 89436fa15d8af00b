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

/// For a rows x cols problem in @p dtype with aligned rows (the chapter program's): one entry
/// `ch09_<op>@<config>` per op and per configuration that holds the row (choose.hpp's
/// configure()), each forcing its configuration and declaring 16-byte alignment and the widest
/// row it holds.
std::vector<KernelEntry> sweep_entries(std::int64_t rows, std::int64_t cols, DType dtype);

}  // namespace normlab::ch09
