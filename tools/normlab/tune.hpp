// SPDX-License-Identifier: Apache-2.0
/// @file tune.hpp
/// @brief `normlab tune`: every candidate kernel checked against float64 and timed on a grid of
/// shapes on this GPU, the ranking written as the GPU's tuned table (tuned_table.hpp).
#pragma once

namespace normlab::tool {

/// Runs `normlab tune` with the options in argv[first...]. Returns the exit code: 0 tuned, 1 a
/// candidate failed its check (the table leaves it out), 2 bad usage, 69 no CUDA GPU.
int tune_command(int argc, char** argv, int first);

}  // namespace normlab::tool
