// SPDX-License-Identifier: Apache-2.0
#include "normlab/command_line.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <system_error>

namespace normlab {

void refuse_option(std::string_view option, const std::string& requirement) {
  throw std::invalid_argument("option '" + std::string(option) + "' " + requirement);
}

std::int64_t parse_integer(std::string_view text, std::string_view option, std::int64_t minimum,
                           std::int64_t maximum) {
  const std::string range =
      maximum == std::numeric_limits<std::int64_t>::max()
          ? ">= " + std::to_string(minimum)
          : "from " + std::to_string(minimum) + " to " + std::to_string(maximum);
  const std::string got = " (got '" + std::string(text) + "')";
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error == std::errc::result_out_of_range)
    refuse_option(option, "needs an integer " + range + "; this one is past 64 bits" + got);
  if (error != std::errc{} || stop != end) refuse_option(option, "needs an integer " + range + got);
  if (value < minimum || value > maximum) refuse_option(option, "must be " + range + got);
  return value;
}

double parse_number(std::string_view text, std::string_view option, double minimum) {
  char bound[32] = "";
  if (minimum != std::numeric_limits<double>::lowest())
    std::snprintf(bound, sizeof bound, " >= %g", minimum);
  const std::string requirement = std::string("a finite number") + bound;
  const std::string got = " (got '" + std::string(text) + "')";
  double value = 0.0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc{} || stop != end || !std::isfinite(value) || value < minimum)
    refuse_option(option, "needs " + requirement + got);
  return value;
}

bool asks_for_help(int argc, char** argv, int first) {
  for (int i = first; i < argc; ++i) {
    const std::string_view argument = argv[i];
    if (argument == "--help" || argument == "-h") return true;
  }
  return false;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> pieces;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    pieces.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return pieces;
    start = end + 1;
  }
}

bool CommandLine::next() {
  if (next_ >= argc_) return false;
  option_ = argv_[next_++];
  return true;
}

const char* CommandLine::value() {
  if (next_ >= argc_) refuse_option(option_, "needs a value");
  return argv_[next_++];
}

std::int64_t CommandLine::integer(std::int64_t minimum, std::int64_t maximum) {
  return parse_integer(value(), option_, minimum, maximum);
}

double CommandLine::number(double minimum) {
  return parse_number(value(), option_, minimum);
}

void CommandLine::refuse_unknown(std::string_view program) const {
  refuse_option(option_, "is not an option of " + std::string(program) + " (see --help)");
}

}  // namespace normlab
