// SPDX-License-Identifier: Apache-2.0
// Chapter 04 on the GPU: the fused float4 RMSNorm and its two-read fallback against the float64
// reference, on both sides of every configuration boundary and of kMaxRegisterCols.
#include "normlab_catch.hpp"

#include <vector>

#include "ch04.cuh"
#include "ladder_cases.hpp"

namespace {

constexpr const char* kFused = "ch04_rmsnorm_fused_float4";
constexpr const char* kTwoReads = "ch04_rmsnorm_two_reads_float4";

// One past and one short of each register configuration's widest row, and rows wider than
// registers hold, each contiguous (16-byte path only when cols % 4 == 0), padded to a 16-byte
// stride (16-byte path with a tail), and misaligned by one element (4-byte path).
std::vector<normlab::Case> boundary_cases() {
  std::vector<normlab::Case> cases;
  const std::int64_t widest = normlab::ch04::kMaxRegisterCols;
  const std::vector<std::int64_t> widths{2047,       2048,  2049,       4095,   4097,
                                         8191,       8193,  widest - 1, widest, widest + 1,
                                         widest + 4, 16384, 20001,      65536};
  for (std::int64_t cols : widths) {
    normlab::Case c = ladder::rmsnorm_case(9, cols, 900 + static_cast<std::uint64_t>(cols % 89));
    cases.push_back(c);
    c.pad = ladder::pad_to_16_bytes(cols) + 4;
    cases.push_back(c);
    c.pad = 0;
    c.misalign = 1;
    cases.push_back(c);
  }
  return cases;
}

}  // namespace

TEST_CASE("ch04: the grading grid, eps-sized rows and 16-byte-padded tails", "[ch04]") {
  for (const char* name : {kFused, kTwoReads}) {
    const auto& kernel = ladder::registered(name);
    ladder::require_all_pass(kernel, ladder::grid_and_edges(kernel));
  }
}

TEST_CASE("ch04: heavy tails, guard bands, misaligned bases, no rows", "[ch04]") {
  for (const char* name : {kFused, kTwoReads}) {
    const auto& kernel = ladder::registered(name);
    ladder::require_all_pass(kernel, ladder::heavy_tailed_cases());
    ladder::require_all_pass(kernel, ladder::padded_cases());
    ladder::require_all_pass(kernel, ladder::misaligned_cases());
    ladder::require_empty_ok(kernel);
  }
}

TEST_CASE("ch04: both sides of each configuration and of the register limit", "[ch04]") {
  for (const char* name : {kFused, kTwoReads}) {
    ladder::require_all_pass(ladder::registered(name), boundary_cases());
  }
}

TEST_CASE("ch04: the launchers refuse bad arguments by name", "[ch04]") {
  ladder::require_argument_errors(&normlab::ch04::rmsnorm_fused);
  ladder::require_argument_errors(&normlab::ch04::rmsnorm_two_reads);
}
