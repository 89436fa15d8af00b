// SPDX-License-Identifier: Apache-2.0
/// @file usage_error.hpp
/// @brief How the normlab program reports bad usage: the problem in one line and where the
/// usage is, not the usage itself.
#pragma once

#include <cstdio>
#include <string>

#include "normlab/command_line.hpp"

namespace normlab::tool {

/// The exit code of bad usage.
inline constexpr int kUsageExitCode = 2;

/// Prints "@p command: @p problem" and "see @p command --help" to stderr; returns
/// kUsageExitCode.
inline int usage_error(const std::string& command, const std::string& problem) {
  std::fprintf(stderr, "%s: %s\nsee %s --help\n", command.c_str(), problem.c_str(),
               command.c_str());
  return kUsageExitCode;
}

/// Refuses the current option of @p line: it is not one of @p command's (usage_error then
/// points at the usage).
[[noreturn]] inline void refuse_unknown_option(const CommandLine& line,
                                               const std::string& command) {
  refuse_option(line.option(), "is not an option of " + command);
}

}  // namespace normlab::tool
