// SPDX-License-Identifier: Apache-2.0
/// @file command_line.hpp
/// @brief How every normlab program reads its command line: one integer parser, one number
/// parser and one walk over the options, each refusing bad input by the option's name.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace normlab {

/// Throws std::invalid_argument("option '<option>' <requirement>").
[[noreturn]] void refuse_option(std::string_view option, const std::string& requirement);

/// A base-10 integer in [minimum, maximum]: digits with an optional leading '-', nothing
/// before or after them. Malformed text, a value out of the range and one past 64 bits are
/// refused naming @p option.
std::int64_t parse_integer(std::string_view text, std::string_view option, std::int64_t minimum,
                           std::int64_t maximum = std::numeric_limits<std::int64_t>::max());

/// A finite decimal number (e.g. "1e-5", "-3.5") >= @p minimum, nothing before or after it;
/// refused naming @p option otherwise.
double parse_number(std::string_view text, std::string_view option,
                    double minimum = std::numeric_limits<double>::lowest());

/// True when one of argv[first...] is --help or -h.
bool asks_for_help(int argc, char** argv, int first);

/// The pieces of @p text between the @p separator characters, views into it, empty ones kept:
/// "a,,b" gives "a", "", "b"; "" gives one empty piece.
std::vector<std::string_view> split(std::string_view text, char separator);

/// Walks argv[first...] one option at a time:
///   CommandLine line(argc, argv, first);
///   while (line.next()) {
///     if (line.is("--rows")) rows = line.integer(1);
///     else line.refuse_unknown("normlab tour");
///   }
class CommandLine {
 public:
  CommandLine(int argc, char** argv, int first) : argc_(argc), argv_(argv), next_(first) {}

  /// Moves to the next option; false when none is left.
  bool next();
  /// Whether the current option is @p name.
  bool is(std::string_view name) const { return option_ == name; }
  /// The current option, e.g. "--rows".
  const std::string& option() const { return option_; }
  /// The argument after the current option; refused when there is none.
  const char* value();
  /// The value parsed by parse_integer.
  std::int64_t integer(std::int64_t minimum,
                       std::int64_t maximum = std::numeric_limits<std::int64_t>::max());
  /// The value parsed by parse_number.
  double number(double minimum = std::numeric_limits<double>::lowest());
  /// Refuses the current option: it is not one of @p program's.
  [[noreturn]] void refuse_unknown(std::string_view program) const;

 private:
  int argc_;
  char** argv_;
  int next_;
  std::string option_;
};

}  // namespace normlab
