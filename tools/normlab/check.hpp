// SPDX-License-Identifier: Apache-2.0
/// @file check.hpp
/// @brief `normlab check`: runs one kernel on one fully described case and compares every
/// output with the float64 reference.
#pragma once

namespace normlab::tool {

/// Runs `normlab check` with the options in argv[first...] (--help prints its usage). Returns
/// the exit code: 0 PASS, 1 FAIL (or a runtime error), 2 bad usage (the message names the
/// option) or a kernel that refuses the case (the message names it and says why), 69 no
/// CUDA GPU.
int check_command(int argc, char** argv, int first);

}  // namespace normlab::tool
