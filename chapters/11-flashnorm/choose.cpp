// SPDX-License-Identifier: Apache-2.0
#include "choose.hpp"

#include <iterator>

#include "ch11.cuh"

namespace normlab::ch11 {

static_assert(
    [] {
      for (const PathRule& rule : kPathTable) {
        if (rule.path == Path::fused && rule.most_rows > kFusedMaxRows) return false;
      }
      return kPathTable[std::size(kPathTable) - 1].most_rows == kAny &&
             kPathTable[std::size(kPathTable) - 1].most_weights == kAny;
    }(),
    "the fused kernel takes at most kFusedMaxRows tokens, and the last rule takes every call");

const char* name_of(Path path) {
  switch (path) {
    case Path::plain:
      return "plain";
    case Path::deferred:
      return "deferred";
    default:
      return "fused";
  }
}

Path choose_path(std::int64_t rows, std::int64_t k_cols, std::int64_t n_cols,
                 bool fused_available) {
  for (const PathRule& rule : kPathTable) {
    if (rule.path == Path::fused && !fused_available) continue;
    if (rows <= rule.most_rows && k_cols * n_cols <= rule.most_weights) return rule.path;
  }
  return kPathTable[std::size(kPathTable) - 1].path;  // unreachable: the last rule takes all
}

}  // namespace normlab::ch11
