/// @file check.hpp
/// @brief `normlab check`: runs one kernel on one fully described case and compares every
/// output with the float64 reference.
#pragma once

namespace normlab::tool {

/// Usage of `normlab check`, one option a line.
extern const char* const kCheckUsage;

/// Runs `normlab check` with the options in argv[first...]. Returns the exit code: 0 PASS,
/// 1 FAIL (or a runtime error), 2 bad usage (the message names the option), 69 no CUDA GPU.
int check_command(int argc, char** argv, int first);

}  // namespace normlab::tool
