// SPDX-License-Identifier: Apache-2.0
/// @file case_options.hpp
/// @brief The options that describe one call, shared by `normlab check` and `normlab explain`:
/// op, shape, dtypes, layout and the call's options, read into a Case.
#pragma once

#include <cstdint>
#include <optional>

#include "normlab/command_line.hpp"
#include "normlab/runner.hpp"

namespace normlab::tool {

/// Their lines of a usage text.
extern const char* const kCaseOptionsUsage;

/// Reads the options of kCaseOptionsUsage one at a time:
///   CaseOptions options;
///   while (line.next()) {
///     if (options.take(line)) continue;
///     ...
///   }
///   Case c = options.finish(base);
class CaseOptions {
 public:
  /// Takes the current option of @p line when it is one of kCaseOptionsUsage's.
  bool take(CommandLine& line);
  /// @p base (its inputs and seed) with the options read; refuses a missing or contradictory
  /// option by name.
  Case finish(Case base) const;

 private:
  std::optional<Op> op_;
  DType dtype_ = DType::f32;
  std::optional<DType> weight_dtype_, dy_dtype_, residual_dtype_;  // unset: dtype_
  std::optional<std::int64_t> rows_, cols_, row_stride_, groups_, group_gap_;
  std::int64_t misalign_ = 0;
  float eps_ = 1e-5f;
  bool no_weight_ = false, bias_ = false, residual_gradient_ = false, weight_plus_one_ = false,
       in_place_ = false;
};

}  // namespace normlab::tool
