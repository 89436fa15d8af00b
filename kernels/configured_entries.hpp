// SPDX-License-Identifier: Apache-2.0
/// @file configured_entries.hpp
/// @brief The configured launcher's type-erased entry point and its registry entries, one a
/// configuration and op (`ch09_<op>@<config>`: chapter 09 teaches them), which the tuner times,
/// the tuned chooser picks and chapter 09's program sweeps.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "normlab/dtype.hpp"
#include "normlab/kernel.hpp"

namespace normlab::kernels::configured {

/// Runs @p call (a forward norm) through chapter 09's typed launcher of its op and dtypes
/// (configured.cuh);
/// @p config null: the dispatcher's choice, else that configuration's name.
void forward(const NormCall& call, cudaStream_t stream, const char* config = nullptr);

/// The launch of configuration kConfigs[@p config] for calls of @p call's layout (op, dtypes,
/// shape, strides and alignment), sized once here as forward(call, stream, name) sizes it at
/// every launch; it neither checks a call nor chooses again. Empty where forward would refuse the
/// call or run it through chapter 07's launcher. For a caller that has checked the call and keeps
/// the launcher with its plan for that layout (normlab::run).
Launcher configured_launcher(const NormCall& call, int config);

/// One entry `ch09_<op>@<config>` per op and configuration of kConfigs (chapter 07's launcher,
/// `wide`, has its own entries), each forcing its configuration: chapter 07's capabilities, 16-byte
/// alignment for the aligned configurations and the widest row each holds. Whether a given row
/// fits is configure()'s to say exactly (the row's address decides how many chunks it spans);
/// the launcher refuses by name what does not.
std::vector<KernelEntry> config_entries();

/// For a rows x cols problem in @p dtype with aligned rows (the chapter program's):
/// config_entries() that hold the row (configure()), each declaring @p dtype alone.
std::vector<KernelEntry> sweep_entries(std::int64_t rows, std::int64_t cols, DType dtype);

}  // namespace normlab::kernels::configured
