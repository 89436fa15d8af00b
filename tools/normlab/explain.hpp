// SPDX-License-Identifier: Apache-2.0
/// @file explain.hpp
/// @brief `normlab explain`: what the dispatcher runs for one call, why, and how it launches.
#pragma once

#include <string>

namespace normlab::tool {

/// The GPU a plan is made for: its compute capability (90 for sm_90) and how it was found.
struct TargetGpu {
  int compute_capability = 0;
  std::string description;  ///< "NVIDIA H100 80GB HBM3", or why sm_90 is assumed
  std::string name;         ///< the GPU's name, whose tuned table is used; empty without a GPU
};

/// The current device, or sm_90 assumed (and said) when no GPU is visible.
TargetGpu current_gpu();

/// Runs `normlab explain` with the options in argv[first...] for @p gpu unless --sm names
/// another (--help prints its usage). Returns the exit code: 0 explained, 2 bad usage (the
/// message names the option) or a call no kernel takes (the message lists each refusal).
int explain_command(int argc, char** argv, int first, const TargetGpu& gpu);

}  // namespace normlab::tool
